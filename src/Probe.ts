/**
 * The counts the runner's guarantees speak of, as first-class values: tests,
 * the reproduction script, the CLI summary and the benchmark all read the same
 * probe.
 *
 * - `active`: agent calls in flight (inside the semaphore).
 * - `outstanding`: per-trial units started and not finished. In the bounded
 *   runner a unit starts when `Stream.mapEffect` admits a task; in the eager
 *   runner, when its fiber is forked.
 * - `liveFibers`: fibers forked under the run and not yet ended, counted through
 *   `Metric.FiberRuntimeMetrics` (Effect 4 has no Supervisor).
 *
 * @since 0.1.0
 */
import { Context, Effect, Metric } from "effect"

/**
 * Mutable counters and their peaks. Cheap enough for the hot path: plain
 * integer fields, updated synchronously by the fiber that owns the event.
 *
 * @category models
 * @since 0.1.0
 */
export class Probe {
  active = 0
  peakActive = 0
  outstanding = 0
  peakOutstanding = 0
  liveFibers = 0
  peakLiveFibers = 0
  started = 0
  /** Units that finished with a trial (completed or failed). */
  completed = 0
  failed = 0
  /** Units interrupted before they finished (a stop, a failure budget): no trial. */
  interrupted = 0
  /** Attempts after the first, over all trials. */
  retries = 0
  /** The concurrency limit in force (changes only with `adaptive`), and its range. */
  limit = 0
  lowestLimit = 0
  highestLimit = 0

  callStarted(): void {
    this.started++
    if (++this.active > this.peakActive) this.peakActive = this.active
  }
  callEnded(): void {
    this.active--
  }
  unitStarted(): void {
    if (++this.outstanding > this.peakOutstanding) this.peakOutstanding = this.outstanding
  }
  /** `failed` is undefined for a unit interrupted before it settled: it is not a finished trial. */
  unitEnded(failed: boolean | undefined): void {
    this.outstanding--
    if (failed === undefined) {
      this.interrupted++
      return
    }
    this.completed++
    if (failed) this.failed++
  }
  fiberStarted(): void {
    if (++this.liveFibers > this.peakLiveFibers) this.peakLiveFibers = this.liveFibers
  }
  fiberEnded(): void {
    this.liveFibers--
  }

  /** Forget the peaks (not the live counts), e.g. between two phases of a test. */
  resetPeaks(): void {
    this.peakActive = this.active
    this.peakOutstanding = this.outstanding
    this.peakLiveFibers = this.liveFibers
  }

  snapshot(): ProbeSnapshot {
    return {
      active: this.active,
      peakActive: this.peakActive,
      outstanding: this.outstanding,
      peakOutstanding: this.peakOutstanding,
      liveFibers: this.liveFibers,
      peakLiveFibers: this.peakLiveFibers,
      started: this.started,
      completed: this.completed,
      failed: this.failed,
      interrupted: this.interrupted,
      retries: this.retries,
      limit: this.limit,
      lowestLimit: this.lowestLimit,
      highestLimit: this.highestLimit
    }
  }
}

/**
 * A point-in-time copy of a probe.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProbeSnapshot {
  readonly active: number
  readonly peakActive: number
  readonly outstanding: number
  readonly peakOutstanding: number
  readonly liveFibers: number
  readonly peakLiveFibers: number
  readonly started: number
  readonly completed: number
  readonly failed: number
  readonly interrupted: number
  readonly retries: number
  readonly limit: number
  readonly lowestLimit: number
  readonly highestLimit: number
}

/**
 * A fresh probe.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<Probe> = Effect.sync(() => new Probe())

/**
 * The fiber-metrics service to install for a run: it feeds `probe.liveFibers`
 * and forwards to whatever service was already in place.
 *
 * @category constructors
 * @since 0.1.0
 */
export const currentFiberMetrics = (probe: Probe): Effect.Effect<Metric.FiberRuntimeMetricsService> =>
  Metric.FiberRuntimeMetrics.useSync((previous) => fiberMetrics(probe, previous))

/**
 * Runs `self` with every fiber it forks counted in `probe.liveFibers`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const trackFibers = (probe: Probe) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(currentFiberMetrics(probe), (metrics) => Effect.provideService(self, Metric.FiberRuntimeMetrics, metrics))

/** @internal */
export const FiberRuntimeMetrics = Metric.FiberRuntimeMetrics

/**
 * The `Metric.FiberRuntimeMetrics` service that feeds a probe's fiber count.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fiberMetrics = (
  probe: Probe,
  previous?: Metric.FiberRuntimeMetricsService | undefined
): Metric.FiberRuntimeMetricsService =>
  previous === undefined
    ? {
      recordFiberStart: () => probe.fiberStarted(),
      recordFiberEnd: () => probe.fiberEnded()
    }
    : {
      recordFiberStart: (context: Context.Context<never>) => {
        probe.fiberStarted()
        previous.recordFiberStart(context)
      },
      recordFiberEnd: (context, exit) => {
        probe.fiberEnded()
        previous.recordFiberEnd(context, exit)
      }
    }

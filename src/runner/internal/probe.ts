/**
 * The probe's counters as the runners update them: plain mutable integer
 * fields, changed synchronously by the fiber that owns the event, cheap enough
 * for the hot path. Users get the same object typed as the read-only
 * `Probe` of `../Probe.ts`.
 *
 * @internal
 */
import { type Context, Effect, Metric } from "effect"
import type { Probe, ProbeSnapshot } from "../Probe.ts"

/**
 * Brands the public `Probe` type. The symbol is not exported from a public
 * module, so every value typed `Probe` was made here and `toMutable` is sound.
 *
 * @internal
 */
export const TypeId: unique symbol = Symbol.for("agent-trials/Probe")

/** @internal */
export class MutableProbe implements Probe {
  readonly [TypeId]: typeof TypeId = TypeId
  active = 0
  peakActive = 0
  outstanding = 0
  peakOutstanding = 0
  liveFibers = 0
  peakLiveFibers = 0
  started = 0
  completed = 0
  failed = 0
  interrupted = 0
  retries = 0
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
 * The counters a run updates: those behind the caller's probe, or fresh ones.
 *
 * @internal
 */
export const toMutable = (probe: Probe | undefined): MutableProbe =>
  probe === undefined ? new MutableProbe() : probe as MutableProbe

/** @internal */
export const FiberRuntimeMetrics = Metric.FiberRuntimeMetrics

/**
 * The fiber-metrics service to install for a run: it feeds `probe.liveFibers`
 * and forwards to whatever service was already in place.
 *
 * @internal
 */
export const currentFiberMetrics = (probe: MutableProbe): Effect.Effect<Metric.FiberRuntimeMetricsService> =>
  Metric.FiberRuntimeMetrics.useSync((previous) => fiberMetrics(probe, previous))

/**
 * Runs `self` with every fiber it forks counted in `probe.liveFibers`.
 *
 * @internal
 */
export const trackFibers = (probe: MutableProbe) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(currentFiberMetrics(probe), (metrics) => Effect.provideService(self, Metric.FiberRuntimeMetrics, metrics))

/**
 * The `Metric.FiberRuntimeMetrics` service that feeds a probe's fiber count.
 *
 * @internal
 */
export const fiberMetrics = (
  probe: MutableProbe,
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

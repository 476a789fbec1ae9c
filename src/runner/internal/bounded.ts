/**
 * The bounded stream under both `runTrials` and the `Runner` service:
 * `Stream.mapEffect` with the run's concurrency, the fiber count, the policies
 * built from a run's options, and the failure budget.
 *
 * @internal
 */
import { Channel, Duration, Effect, Scheduler, type Semaphore, Stream } from "effect"
import * as Policy from "../Policy.ts"
import { MaxFailuresExceeded } from "../Policy.ts"
import { AdaptiveLimit, RateLimiter } from "./policy.ts"
import * as Probe from "./probe.ts"
import type { AgentEvalTrial } from "../../domain/Trial.ts"
import type { ExecuteConfig } from "./execute.ts"
import * as Redactor from "../Redactor.ts"
import { Starvation } from "./starvation.ts"
import { attributes, runTelemetry, spanNames } from "./telemetry.ts"

/**
 * The failure-handling options of a run, shared by `runTrials` and the
 * `Runner` service.
 *
 * @category models
 * @since 0.1.0
 */
export interface PolicyOptions {
  /** Per attempt: the call is interrupted and the attempt fails with `Timeout`. */
  readonly timeout?: Duration.Input | undefined
  /** Retries of retryable failures (timeouts, network errors, HTTP 408/429/5xx). None when omitted. */
  readonly retry?: Policy.RetryPolicy | undefined
  /** At most `limit` call starts per `per`, across the run. */
  readonly rate?: { readonly limit: number; readonly per: Duration.Input } | undefined
  /** Halve the concurrency on HTTP 429, raise it back by one at a time (never above `parallelism`). */
  readonly adaptive?: boolean | undefined
  /** Stop admitting and fail with `MaxFailuresExceeded` once the budget is exceeded. */
  readonly maxFailures?: Policy.MaxFailures | undefined
  /**
   * A trial whose usage (over its attempts) exceeds this many tokens is
   * recorded as failed with type `TokenLimit`, its output kept, never retried.
   */
  readonly trialMaxTokens?: number | undefined
}

// Counted on the trials as they are emitted, so the message matches what a
// consumer recorded. The trial that exceeds the budget is still emitted; then
// the stream fails, which stops admission and interrupts the trials in flight.
export const stopOnFailures = <E, R, A = AgentEvalTrial>(
  stream: Stream.Stream<A, E, R>,
  limit: Policy.MaxFailures,
  trialOf: (item: A) => AgentEvalTrial = (item) => item as AgentEvalTrial
): Stream.Stream<A, E | MaxFailuresExceeded, R> =>
  Stream.suspend(() => {
    let finished = 0
    let failed = 0
    let over = false
    return stream.pipe(
      Stream.takeUntil((item) => {
        finished++
        if (trialOf(item).status === "failed") failed++
        over = Policy.exceeded(limit, failed, finished)
        return over
      }),
      Stream.concat(Stream.suspend(() =>
        over
          ? Stream.fail(
            new MaxFailuresExceeded({
              message: `stopped: ${failed} of ${finished} finished trials failed, more than the limit of ${
                Policy.describeMaxFailures(limit)
              }`,
              failed,
              finished
            })
          )
          : Stream.empty
      ))
    )
  })

/**
 * Builds a run's policies; the probe's concurrency limit starts at
 * `parallelism` (only `adaptive` moves it).
 *
 * @internal
 */
export const policyConfig = (
  options: PolicyOptions & { readonly parallelism: number },
  semaphore: Semaphore.Semaphore,
  probe: Probe.MutableProbe
): Omit<BoundedConfig, "ordered" | PerRun> => {
  probe.limit = probe.lowestLimit = probe.highestLimit = options.parallelism
  return {
    parallelism: options.parallelism,
    semaphore,
    probe,
    timeoutMs: options.timeout === undefined ? undefined : Duration.toMillis(options.timeout),
    retry: options.retry,
    rate: options.rate === undefined ? undefined : new RateLimiter(options.rate.limit, options.rate.per),
    adaptive: options.adaptive === true ? new AdaptiveLimit(
        semaphore,
        options.parallelism,
        probe,
        Duration.toMillis(options.retry?.retryAfterMax ?? "60 seconds")
      ) : undefined,
    trialMaxTokens: options.trialMaxTokens
  }
}

/** @internal */
export { sourceChunkSize } from "../../internal/limits.ts"

export interface BoundedConfig extends ExecuteConfig {
  readonly parallelism: number
  readonly ordered: boolean
}

/**
 * A run's config with what its telemetry needs, read once from the fiber
 * that starts the run (its tracer, its metric registry), and the state that
 * is the run's own, made here as each run starts and never shared with
 * another run (of a `Runner` service's either): its view of the event loop,
 * and its secrets (the `Redactor` provided, else a new one).
 *
 * @internal
 */
export const withTelemetry = <C extends Omit<BoundedConfig, PerRun>>(
  config: C
): Effect.Effect<C & Pick<BoundedConfig, PerRun>> =>
  Effect.clockWith((clock) =>
    Effect.flatMap(Redactor.currentOrNew, (redactor) =>
      Effect.map(runTelemetry, ({ counts, traced }) => ({
        ...config,
        traced,
        counts,
        clock,
        starvation: new Starvation(),
        redactor
      })))
  )

type PerRun = "starvation" | "redactor"

/**
 * The run span around a run's whole stream (its failure budget included),
 * when the run is traced; trial fibers inherit it as their parent.
 *
 * @internal
 */
export const withRunSpan = <A, E, R>(stream: Stream.Stream<A, E, R>, config: BoundedConfig): Stream.Stream<A, E, R> =>
  config.traced === undefined ? stream : Stream.withSpan(stream, spanNames.run, {
    attributes: { [attributes.parallelism]: config.parallelism, [attributes.ordered]: config.ordered },
    captureStackTrace: false
  })

/** @internal */
export const bounded = <A, E, R, AR, B = AgentEvalTrial>(
  items: Stream.Stream<A, E, R>,
  trial: (item: A, index: number) => Effect.Effect<B, never, AR>,
  config: BoundedConfig
): Stream.Stream<B, E, R | AR> =>
  items.pipe(
    Stream.mapEffect(
      // At parallelism 1 the trials run in the consumer's pulls, not in fibers
      // forked from the stream's setup: each is given the run's Redactor.
      config.parallelism === 1
        ? (item, index) => Effect.provideService(trial(item, index), Redactor.Redactor, config.redactor)
        : trial,
      { concurrency: config.parallelism, unordered: !config.ordered }
    ),
    trackStreamFibers(config.probe, config.redactor)
  )

/**
 * `Stream.unwrap` without its step per pull: the effect that builds the
 * stream runs where the stream starts (its channel's transform), and the
 * built stream's own pull is handed on as it is. `Stream.unwrap` defers the
 * build to the first pull and wraps every pull in a suspension to do so.
 *
 * @internal
 */
export const unwrapAtStart = <A, E, R, E2, R2>(
  build: Effect.Effect<Stream.Stream<A, E, R>, E2, R2>
): Stream.Stream<A, E | E2, R | R2> =>
  Stream.fromChannel(Channel.fromTransform((upstream, scope) =>
    Effect.flatMap(build, (stream) => Channel.toTransform(Stream.toChannel(stream))(upstream, scope))
  ))

/**
 * Installs, for the fibers the stream forks (its helpers and one per
 * admitted trial), a fiber-metrics service that feeds `probe.liveFibers`, a
 * scheduler whose fibers share one dispatcher, and the run's `Redactor` (its
 * agents add their secrets to it as they are called). All are provided to the
 * stream's setup only (the channel's transform, where `Stream.mapEffect`
 * captures the context it forks trial fibers with), not around every pull as
 * `Stream.provideService` would: the consumer's pulls run in its own context
 * at no cost per element.
 *
 * @internal
 */
export const trackStreamFibers = (probe: Probe.MutableProbe, redactor?: Redactor.Secrets) =>
<A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.fromChannel(Channel.fromTransform((upstream, scope) =>
    Effect.flatMap(
      Effect.all([Probe.currentFiberMetrics(probe), Effect.service(Scheduler.Scheduler)]),
      ([metrics, scheduler]) => {
        const transform = Channel.toTransform(Stream.toChannel(self))(upstream, scope).pipe(
          Effect.provideService(Probe.FiberRuntimeMetrics, metrics),
          Effect.provideService(Scheduler.Scheduler, sharedDispatcher(scheduler))
        )
        return redactor === undefined ? transform : Effect.provideService(transform, Redactor.Redactor, redactor)
      }
    )
  ))

// Effect's schedulers give every fiber a dispatcher of its own, and each
// dispatcher its own `setImmediate` per turn of the event loop; a run's P
// trial fibers then cost P macrotasks a turn. Sharing one dispatcher (made by
// the scheduler in place, so TestClock's tracking still sees every task)
// costs one.
const sharedDispatcher = (parent: Scheduler.Scheduler): Scheduler.Scheduler => {
  let dispatcher: Scheduler.SchedulerDispatcher | undefined
  return {
    executionMode: parent.executionMode,
    shouldYield: (fiber) => parent.shouldYield(fiber),
    makeDispatcher: () => dispatcher ??= parent.makeDispatcher()
  }
}

/**
 * The bounded trial runner.
 *
 * Trials form an Effect `Stream`, processed by
 * `Stream.mapEffect(trial, { concurrency: parallelism })` under a Semaphore of
 * `parallelism` permits. `Stream.mapEffect` forks a fiber per trial only when a
 * slot is free and pulls the next task only then, so per-trial work in flight
 * stays bounded by `parallelism` however long the input is, and the input is
 * read lazily.
 *
 * Order: by default trials are emitted as they finish (`ordered: false`), so one
 * slow trial never holds back the others. `ordered: true` emits in input order;
 * it keeps at most `parallelism` trials in flight too, but a slow head trial
 * stalls admission behind it (head-of-line blocking).
 *
 * @since 0.1.0
 */
import { Config, Context, Duration, Effect, Layer, Option, Schema, Semaphore, Stream } from "effect"
import type { Agent } from "./Agent.ts"
import { checkParallelism, InvalidParallelism } from "./Errors.ts"
import { type ExecuteConfig, executeTrial } from "./internal/execute.ts"
import * as Policy from "./Policy.ts"
import { MaxFailuresExceeded } from "./Policy.ts"
import * as Probe from "./Probe.ts"
import type { AgentEvalTask, AgentEvalTrial } from "./Trial.ts"

/**
 * Options of a run.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunOptions {
  /** Upper bound on agent calls in flight and on per-trial units started and not finished. */
  readonly parallelism: number
  /** Emit trials in input order (head-of-line blocking) instead of as they finish. Default false. */
  readonly ordered?: boolean | undefined
  /** Where the run's counts go; a fresh probe when omitted. */
  readonly probe?: Probe.Probe | undefined
  /**
   * Trials per task. When set, task `t` gives trials `t:1` ... `t:K` (adjacent
   * in admission order); when omitted, one trial `t:trial`.
   */
  readonly epochs?: number | undefined
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
}

/**
 * The fibers a run keeps besides one per admitted trial: `Stream.mapEffect`'s
 * loop that pulls the next task when a slot frees (unordered), plus, in
 * ordered mode, the fiber that hands results on in input order. With a
 * `timeout`, each active call also runs in a race of two fibers.
 *
 * @category constants
 * @since 0.1.0
 */
export const helperFibers = (ordered: boolean): number => (ordered ? 2 : 1)

/**
 * One unit of work: a task, and which of its epochs this trial is.
 *
 * @category models
 * @since 0.1.0
 */
export interface TrialUnit {
  readonly task: AgentEvalTask
  readonly epoch?: number | undefined
}

/**
 * Runs every task through `agent`, at most `parallelism` at a time, and emits
 * one `AgentEvalTrial` per task. Agent failures become `failed` trials; the
 * stream fails only with the source's error `E`, or `InvalidParallelism`
 * before any agent call.
 *
 * @example
 * ```ts
 * const trials = runTrials(Stream.fromIterable(tasks), Agent.fromPromise(callMyAgent), { parallelism: 8 })
 * const all = yield* Stream.runCollect(trials)
 * ```
 *
 * @category runners
 * @since 0.1.0
 */
export const runTrials = <E, R, AE, AR>(
  tasks: Stream.Stream<AgentEvalTask, E, R>,
  agent: Agent<AE, AR>,
  options: RunOptions
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism | MaxFailuresExceeded, R | AR> => {
  const epochs = options.epochs
  if (epochs === undefined) {
    return withRunConfig(options, (config) => bounded(tasks, (task) => executeTrial(task, undefined, agent, config), config))
  }
  return runUnits(Stream.mapArray(tasks, (chunk) => expandEpochs(chunk, epochs)), agent, options)
}

/**
 * Like `runTrials`, over explicit units (a task and an epoch): what a resumed
 * run feeds once it has dropped the units already recorded.
 *
 * @category runners
 * @since 0.1.0
 */
export const runUnits = <E, R, AE, AR>(
  units: Stream.Stream<TrialUnit, E, R>,
  agent: Agent<AE, AR>,
  options: Omit<RunOptions, "epochs">
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism | MaxFailuresExceeded, R | AR> =>
  withRunConfig(options, (config) => bounded(units, (unit) => executeTrial(unit.task, unit.epoch, agent, config), config))

const expandEpochs = (
  tasks: ReadonlyArray<AgentEvalTask>,
  epochs: number
): [TrialUnit, ...Array<TrialUnit>] => {
  const out: Array<TrialUnit> = []
  for (const task of tasks) {
    for (let epoch = 1; epoch <= epochs; epoch++) out.push({ task, epoch })
  }
  return out as [TrialUnit, ...Array<TrialUnit>]
}

// Checks the options before anything is read or called, then makes the run's
// Semaphore (and rate limiter, adaptive limit).
const withRunConfig = <E, R>(
  options: RunOptions,
  f: (config: BoundedConfig) => Stream.Stream<AgentEvalTrial, E, R>
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism | MaxFailuresExceeded, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const invalid = checkParallelism(options.parallelism) ??
      (options.epochs === undefined ? undefined : checkParallelism(options.epochs, "epochs"))
    if (invalid) return yield* invalid
    const semaphore = yield* Semaphore.make(options.parallelism)
    const probe = options.probe ?? new Probe.Probe()
    probe.limit = probe.lowestLimit = probe.highestLimit = options.parallelism
    const config: BoundedConfig = {
      ...policyConfig(options, semaphore, probe),
      ordered: options.ordered ?? false
    }
    const stream = f(config)
    const maxFailures = options.maxFailures
    return maxFailures === undefined ? stream : stopOnFailures(stream, maxFailures)
  }))

// Counted on the trials as they are emitted, so the message matches what a
// consumer recorded. The trial that exceeds the budget is still emitted; then
// the stream fails, which stops admission and interrupts the trials in flight.
const stopOnFailures = <E, R>(
  stream: Stream.Stream<AgentEvalTrial, E, R>,
  limit: Policy.MaxFailures
): Stream.Stream<AgentEvalTrial, E | MaxFailuresExceeded, R> =>
  Stream.suspend(() => {
    let finished = 0
    let failed = 0
    let over = false
    return stream.pipe(
      Stream.takeUntil((trial) => {
        finished++
        if (trial.status === "failed") failed++
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
 * The failure-handling options of a run, shared by `runTrials` and the
 * `Runner` service.
 *
 * @category models
 * @since 0.1.0
 */
export type PolicyOptions = Pick<RunOptions, "timeout" | "retry" | "rate" | "adaptive" | "maxFailures">

const policyConfig = (
  options: PolicyOptions & { readonly parallelism: number },
  semaphore: Semaphore.Semaphore,
  probe: Probe.Probe
): Omit<BoundedConfig, "ordered"> => ({
  parallelism: options.parallelism,
  semaphore,
  probe,
  timeoutMs: options.timeout === undefined ? undefined : Duration.toMillis(options.timeout),
  retry: options.retry,
  rate: options.rate === undefined ? undefined : new Policy.RateLimiter(options.rate.limit, options.rate.per),
  adaptive: options.adaptive === true ? new Policy.AdaptiveLimit(semaphore, options.parallelism, probe) : undefined
})

interface BoundedConfig extends ExecuteConfig {
  readonly parallelism: number
  readonly ordered: boolean
}

const bounded = <A, E, R, AR>(
  items: Stream.Stream<A, E, R>,
  trial: (item: A) => Effect.Effect<AgentEvalTrial, never, AR>,
  config: BoundedConfig
): Stream.Stream<AgentEvalTrial, E, R | AR> =>
  items.pipe(
    Stream.mapEffect(trial, { concurrency: config.parallelism, unordered: !config.ordered }),
    trackStreamFibers(config.probe)
  )

/**
 * Counts every fiber the stream forks (its helpers and one per admitted trial)
 * in `probe.liveFibers`.
 *
 * @internal
 */
export const trackStreamFibers = (probe: Probe.Probe) => <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.unwrap(Effect.map(Probe.currentFiberMetrics(probe), (metrics) => Stream.provideService(self, Probe.FiberRuntimeMetrics, metrics)))

/**
 * An `AGENT_TRIALS_*` variable the `Runner` layer cannot use.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidRunnerConfig extends Schema.TaggedError<InvalidRunnerConfig>()("InvalidRunnerConfig", {
  message: Schema.String
}) {}

const optional = (name: string) => Config.String(name).pipe(Config.option, Effect.map(Option.getOrUndefined))

const configFromEnv = Effect.gen(function*() {
  const bad = (name: string, value: string, expected: string) =>
    new InvalidRunnerConfig({ message: `Expected ${name} to be ${expected}, got "${value}"` })
  const duration = (name: string, text: string | undefined) => {
    if (text === undefined) return Effect.succeed(undefined)
    const ms = Policy.parseDurationMs(text)
    return ms !== undefined && ms > 0 ? Effect.succeed(ms) : Effect.fail(bad(name, text, "a positive duration like 500ms or 30s"))
  }
  const parallelism = yield* Config.Int("AGENT_TRIALS_PARALLELISM").pipe(Config.withDefault(8))
  const timeout = yield* duration("AGENT_TRIALS_TIMEOUT", yield* optional("AGENT_TRIALS_TIMEOUT"))
  const retries = yield* Config.Int("AGENT_TRIALS_RETRIES").pipe(Config.withDefault(0))
  if (retries < 0) return yield* bad("AGENT_TRIALS_RETRIES", String(retries), "an integer from 0 and up")
  const base = yield* duration("AGENT_TRIALS_BACKOFF", yield* optional("AGENT_TRIALS_BACKOFF"))
  const max = yield* duration("AGENT_TRIALS_BACKOFF_MAX", yield* optional("AGENT_TRIALS_BACKOFF_MAX"))
  const rateText = yield* optional("AGENT_TRIALS_RATE")
  const rate = rateText === undefined ? undefined : Policy.parseRate(rateText)
  if (rateText !== undefined && rate === undefined) return yield* bad("AGENT_TRIALS_RATE", rateText, "N/s or N/min")
  const adaptive = yield* Config.Boolean("AGENT_TRIALS_ADAPTIVE").pipe(Config.withDefault(false))
  const maxText = yield* optional("AGENT_TRIALS_MAX_FAILURES")
  const maxFailures = maxText === undefined ? undefined : Policy.parseMaxFailures(maxText)
  if (maxText !== undefined && maxFailures === undefined) {
    return yield* bad("AGENT_TRIALS_MAX_FAILURES", maxText, "a count like 25 or a percentage like 10%")
  }
  return {
    parallelism,
    source: "AGENT_TRIALS_PARALLELISM",
    timeout,
    retry: retries === 0 ? undefined : {
      retries,
      base: base ?? Policy.defaultRetry.base,
      max: max ?? Policy.defaultRetry.max
    },
    rate,
    adaptive,
    maxFailures
  }
})

/**
 * Builds the `Runner` service.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fn("Runner.make")(function*(
  options: PolicyOptions & { readonly parallelism: number; readonly source?: string }
) {
  const invalid = checkParallelism(options.parallelism, options.source)
  if (invalid) return yield* invalid
  const parallelism = options.parallelism
  const semaphore = yield* Semaphore.make(parallelism)
  const probe = new Probe.Probe()
  probe.limit = probe.lowestLimit = probe.highestLimit = parallelism
  // One rate limiter and one adaptive limit for the life of the service.
  const shared = policyConfig(options, semaphore, probe)
  const ordered: BoundedConfig = { ...shared, ordered: true }
  const unordered: BoundedConfig = { ...shared, ordered: false }
  const withBudget = <E, R>(stream: Stream.Stream<AgentEvalTrial, E, R>) =>
    options.maxFailures === undefined ? stream : stopOnFailures(stream, options.maxFailures)

  const run = <E, R, AE, AR>(
    tasks: Stream.Stream<AgentEvalTask, E, R>,
    agent: Agent<AE, AR>,
    runOptions?: { readonly ordered?: boolean | undefined }
  ): Stream.Stream<AgentEvalTrial, E | MaxFailuresExceeded, R | AR> => {
    const cfg = runOptions?.ordered === true ? ordered : unordered
    return withBudget(bounded(tasks, (task) => executeTrial(task, undefined, agent, cfg), cfg))
  }

  const runTasks = <AE, AR>(tasks: Iterable<AgentEvalTask>, agent: Agent<AE, AR>) =>
    Effect.suspend(() => {
      const out: Array<AgentEvalTrial> = []
      // Unordered underneath (no head-of-line stall), placed back by index.
      return Stream.fromIterable(tasks).pipe(
        Stream.mapEffect(
          (task, index) =>
            Effect.map(executeTrial(task, undefined, agent, unordered), (trial) => {
              out[index] = trial
              return trial
            }),
          { concurrency: parallelism, unordered: true }
        ),
        trackStreamFibers(probe),
        withBudget,
        Stream.runDrain,
        Effect.as(out),
        Effect.withSpan("Runner.runTasks")
      )
    })
  return Runner.of({ parallelism, probe, run, runTasks })
})

/**
 * The runner as a service: one Semaphore for the life of the layer, so every
 * run inside it shares one budget of active agent calls, and one probe that
 * counts across those runs.
 *
 * @category services
 * @since 0.1.0
 */
export class Runner extends Context.Service<Runner, {
  readonly parallelism: number
  readonly probe: Probe.Probe
  /** Like `runTrials`, with the service's shared permits, rate limit and policies. */
  readonly run: <E, R, AE, AR>(
    tasks: Stream.Stream<AgentEvalTask, E, R>,
    agent: Agent<AE, AR>,
    options?: { readonly ordered?: boolean | undefined }
  ) => Stream.Stream<AgentEvalTrial, E | MaxFailuresExceeded, R | AR>
  /** The drop-in for the original `run_tasks`: every trial, in input order. */
  readonly runTasks: <AE, AR>(
    tasks: Iterable<AgentEvalTask>,
    agent: Agent<AE, AR>
  ) => Effect.Effect<Array<AgentEvalTrial>, MaxFailuresExceeded, AR>
}>()("agent-trials/Runner") {
  /**
   * Reads its options through `Config`: `AGENT_TRIALS_PARALLELISM` (default 8),
   * and, each optional, `AGENT_TRIALS_TIMEOUT` (`30s`), `AGENT_TRIALS_RETRIES`
   * (default 0 here), `AGENT_TRIALS_BACKOFF` (`500ms`), `AGENT_TRIALS_BACKOFF_MAX`
   * (`30s`), `AGENT_TRIALS_RATE` (`10/s`), `AGENT_TRIALS_ADAPTIVE` (`true`) and
   * `AGENT_TRIALS_MAX_FAILURES` (`25` or `10%`).
   */
  static readonly layer: Layer.Layer<Runner, InvalidParallelism | InvalidRunnerConfig | Config.ConfigError> = Layer
    .effect(Runner, Effect.flatMap(configFromEnv, make))

  /** A runner with explicit options (tests, embedding). */
  static readonly layerWith = (
    options: PolicyOptions & { readonly parallelism: number }
  ): Layer.Layer<Runner, InvalidParallelism> => Layer.effect(Runner, make(options))
}

export { InvalidParallelism }

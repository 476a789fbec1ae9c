/**
 * The runner as a service: one Semaphore for the life of the layer, shared by
 * every run inside it, with its options read through `Config`.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option, Schema, Semaphore, Stream } from "effect"
import type { Agent } from "../domain/Agent.ts"
import { checkParallelism, type InvalidParallelism } from "../domain/Errors.ts"
import {
  bounded,
  policyConfig,
  type PolicyOptions,
  sourceChunkSize,
  stopOnFailures,
  unwrapAtStart,
  withRunSpan,
  withTelemetry
} from "./internal/bounded.ts"
import { startTrial } from "./internal/execute.ts"
import { MutableProbe } from "./internal/probe.ts"
import * as Options from "../internal/options.ts"
import * as Policy from "./Policy.ts"
import type { MaxFailuresExceeded } from "./Policy.ts"
import type * as Probe from "./Probe.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"

/**
 * An `AGENT_TRIALS_*` variable the `Runner` layer cannot use: `variable` is
 * its name and `problem` the refusal, worded as its CLI flag's (and naming
 * the variable), which is the message.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidRunnerConfig extends Schema.TaggedError<InvalidRunnerConfig>()("InvalidRunnerConfig", {
  variable: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return this.problem
  }
}

// Each variable is decoded by the same Schema as its CLI flag, so it is
// accepted or refused with the same words; the defaults are the library's
// (no retries unless asked), not the CLI's.
const configFromEnv = Effect.gen(function*() {
  const read = <A, D>(schema: Schema.Codec<A, string>, name: string, fallback: D) =>
    Options.fromConfig(schema, name).pipe(
      Effect.map(Option.getOrElse((): A | D => fallback)),
      Effect.mapError((e) => new InvalidRunnerConfig({ variable: e.source, problem: e.message }))
    )
  const parallelism = yield* read(Options.Parallelism, "AGENT_TRIALS_PARALLELISM", 8)
  const timeout = yield* read(Options.Duration, "AGENT_TRIALS_TIMEOUT", undefined)
  const retries = yield* read(Options.Count, "AGENT_TRIALS_RETRIES", 0)
  const base = yield* read(Options.Duration, "AGENT_TRIALS_BACKOFF", Policy.defaultRetry.base)
  const max = yield* read(Options.Duration, "AGENT_TRIALS_BACKOFF_MAX", Policy.defaultRetry.max)
  const retryAfterMax = yield* read(Options.Duration, "AGENT_TRIALS_RETRY_AFTER_MAX", Policy.defaultRetry.retryAfterMax)
  const rateLimitWaitMax = yield* read(
    Options.Duration,
    "AGENT_TRIALS_RATE_LIMIT_WAIT_MAX",
    Policy.defaultRetry.rateLimitWaitMax
  )
  const rate = yield* read(Options.Rate, "AGENT_TRIALS_RATE", undefined)
  const adaptive = yield* Config.Boolean("AGENT_TRIALS_ADAPTIVE").pipe(Config.withDefault(false))
  const maxFailures = yield* read(Options.MaxFailures, "AGENT_TRIALS_MAX_FAILURES", undefined)
  return {
    parallelism,
    source: "AGENT_TRIALS_PARALLELISM",
    timeout,
    retry: retries === 0 ? undefined : { retries, base, max, retryAfterMax, rateLimitWaitMax },
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
  const probe = new MutableProbe()
  // One rate limiter and one adaptive limit for the life of the service.
  const shared = policyConfig(options, semaphore, probe)
  const ordered = { ...shared, ordered: true }
  const unordered = { ...shared, ordered: false }
  const withBudget = <E, R>(stream: Stream.Stream<AgentEvalTrial, E, R>) =>
    options.maxFailures === undefined ? stream : stopOnFailures(stream, options.maxFailures)

  const run = <E, R, AE, AR>(
    tasks: Stream.Stream<AgentEvalTask, E, R>,
    agent: Agent<AE, AR>,
    runOptions?: { readonly ordered?: boolean | undefined }
  ): Stream.Stream<AgentEvalTrial, E | MaxFailuresExceeded, R | AR> =>
    unwrapAtStart(Effect.map(withTelemetry(runOptions?.ordered === true ? ordered : unordered), (cfg) =>
      withRunSpan(
        withBudget(bounded(tasks, (task) => startTrial(task, undefined, agent, cfg), cfg)),
        cfg
      )))

  const runTasks = <AE, AR>(tasks: Iterable<AgentEvalTask>, agent: Agent<AE, AR>) =>
    Effect.flatMap(withTelemetry(unordered), (cfg) => {
      const out: Array<AgentEvalTrial> = []
      // Unordered underneath (no head-of-line stall), placed back by index.
      const trials = bounded(
        Stream.fromIterable(tasks, { chunkSize: sourceChunkSize }),
        (task, index) =>
          Effect.map(startTrial(task, undefined, agent, cfg), (trial) => {
            out[index] = trial
            return trial
          }),
        cfg
      )
      return withRunSpan(withBudget(trials), cfg).pipe(
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
   * Reads its options through `Config`, each decoded by the same `Options`
   * Schema as the CLI flag of that name: `AGENT_TRIALS_PARALLELISM` (default
   * 8), and, each optional, `AGENT_TRIALS_TIMEOUT` (`30s`; none by default),
   * `AGENT_TRIALS_RETRIES` (default 0 here, 2 in the CLI),
   * `AGENT_TRIALS_BACKOFF` (default `500ms`), `AGENT_TRIALS_BACKOFF_MAX`
   * (`30s`), `AGENT_TRIALS_RETRY_AFTER_MAX` (`60s`),
   * `AGENT_TRIALS_RATE_LIMIT_WAIT_MAX` (`10m`), `AGENT_TRIALS_RATE`
   * (`10/s`), `AGENT_TRIALS_ADAPTIVE` (`true`) and `AGENT_TRIALS_MAX_FAILURES`
   * (`25` or `10%`). A value its Schema refuses fails the layer with
   * `InvalidRunnerConfig`, in the words the CLI uses for the variable:
   * `Expected AGENT_TRIALS_TIMEOUT to be a duration with a unit, like 5s,
   * 500ms or 2m, got "5" (did you mean 5s?)`.
   */
  static readonly layer: Layer.Layer<Runner, InvalidParallelism | InvalidRunnerConfig | Config.ConfigError> = Layer
    .effect(Runner, Effect.flatMap(configFromEnv, make))

  /** A runner with explicit options (tests, embedding). */
  static readonly layerWith = (
    options: PolicyOptions & { readonly parallelism: number }
  ): Layer.Layer<Runner, InvalidParallelism> => Layer.effect(Runner, make(options))
}


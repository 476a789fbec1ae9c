/**
 * `agent-trials run`: a dataset streamed through an agent by the bounded
 * runner, every trial appended to a results file as it finishes, resumable
 * after a crash, with progress and a summary.
 *
 * Data flows one way: dataset -> (skip what is recorded) -> runner -> writer,
 * with the probe read by progress and summary.
 *
 * @since 0.1.0
 */
import { Console, type Duration, Effect, Exit, FileSystem, Option, Path, type Redacted, Schema, Stream } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "./Agent.ts"
import * as AgentSpec from "./agents/Spec.ts"
import * as Dataset from "./Dataset.ts"
import { MutableProbe } from "./internal/probe.ts"
import type * as Options from "./Options.ts"
import * as Policy from "./Policy.ts"
import * as Progress from "./Progress.ts"
import * as Results from "./Results.ts"
import { runUnits, type TrialUnit } from "./Runner.ts"
import * as Summary from "./Summary.ts"
import { type AgentEvalTask, trialId } from "./Trial.ts"

/**
 * Everything `run` needs, after flags and environment are read: each option
 * already decoded by its `Options` Schema.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunConfig {
  readonly tasks: string | undefined
  readonly synthetic: number | undefined
  /** The agent to build, decoded from `--agent` by `Options.AgentSpec`. */
  readonly agent: AgentSpec.AgentSpec
  readonly model: string | undefined
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly parallelism: number
  readonly epochs: number
  readonly out: string | undefined
  readonly resume: boolean
  readonly retryFailed: boolean
  readonly summary: string | undefined
  readonly progress: boolean
  readonly progressInterval: number
  readonly tty: boolean
  readonly onInvalid: Dataset.OnInvalid
  readonly cwd: string
  /** Per attempt; no timeout when undefined. */
  readonly timeout: Duration.Duration | undefined
  readonly retries: number
  readonly backoff: Duration.Duration
  readonly backoffMax: Duration.Duration
  readonly retryAfterMax: Duration.Duration
  readonly rate: Options.Rate | undefined
  readonly adaptive: boolean
  readonly maxFailures: Policy.MaxFailures | undefined
}

/**
 * A flag or input the run cannot use (exit code 2).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunInputError extends Schema.TaggedError<RunInputError>()("RunInputError", {
  message: Schema.String
}) {}

/**
 * The results file could not be written: the run stopped (exit code 1; the
 * input was fine).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunWriteError extends Schema.TaggedError<RunWriteError>()("RunWriteError", {
  message: Schema.String
}) {}

/**
 * A bad dataset line with `--on-invalid skip`: recorded as a failed trial.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidTask extends Schema.TaggedError<InvalidTask>()("InvalidTask", {
  message: Schema.String
}) {}

/** Default synthetic task count when neither --tasks nor --synthetic is given. */
export const DEFAULT_SYNTHETIC = 512

/**
 * A fresh run id: UTC time to the second plus a random suffix.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeRunId = (now = new Date()): string =>
  `${now.toISOString().slice(0, 19).replace(/[:]/g, "-")}-${Math.random().toString(36).slice(2, 8)}`

// Each value was refused or accepted by its Schema as it was read; what is
// left are the combinations of flags.
const validate = (config: RunConfig): RunInputError | undefined => {
  const bad = (message: string) => new RunInputError({ message })
  if (config.tasks !== undefined && config.synthetic !== undefined) {
    return bad("--tasks and --synthetic cannot be used together: choose one source of tasks")
  }
  if (config.resume && config.out === undefined) return bad("--resume needs --out FILE: the results file to continue")
  if (config.retryFailed && !config.resume) return bad("--retry-failed needs --resume")
  return undefined
}

/** The runner options that the failure-handling flags ask for. */
const policyOptions = (config: RunConfig) => ({
  timeout: config.timeout,
  retry: config.retries === 0 ? undefined : {
    retries: config.retries,
    base: config.backoff,
    max: config.backoffMax,
    retryAfterMax: config.retryAfterMax
  },
  rate: config.rate,
  adaptive: config.adaptive,
  maxFailures: config.maxFailures
})

/**
 * Runs the job. Fails with `RunInputError` on bad flags or input (after
 * recording what was done), and is interruptible at any point: in-flight calls
 * are interrupted, every finished trial is flushed, the summary is printed.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.fn("Run.run")(function*(config: RunConfig) {
  const invalidConfig = validate(config)
  if (invalidConfig) return yield* invalidConfig
  const input = (e: { readonly message: string }) => new RunInputError({ message: e.message })

  const agent = yield* AgentSpec.build(config.agent, config).pipe(Effect.mapError((message) => new RunInputError({ message })))

  const path = yield* Path.Path
  const runId = makeRunId()
  const out = config.out ?? path.join("runs", `${runId}.jsonl`)
  const acc = new Summary.Accumulator(config.epochs)
  const recorded = yield* Results.prepare(out, {
    resume: config.resume,
    retryFailed: config.retryFailed,
    onPrior: (trial) => acc.add(trial, true)
  }).pipe(Effect.mapError(input))
  yield* Console.log(`results: ${out}`)
  if (recorded.kept + recorded.droppedFailed > 0 || recorded.repairedBytes > 0) {
    yield* Console.log(
      `resuming: ${recorded.kept} trials already recorded` +
        (recorded.droppedFailed > 0 ? `, ${recorded.droppedFailed} failed ones to run again` : "") +
        (recorded.repairedBytes > 0 ? `, ${recorded.repairedBytes} bytes of a torn last line removed` : "")
    )
  }

  const probe = new MutableProbe()
  const invalid = new WeakMap<AgentEvalTask, string>()
  let skipped = 0
  let invalidLines = 0
  const units = itemsOf(config).pipe(
    Stream.mapError(input),
    Stream.mapArray((items) => {
      for (const item of items) if (item._tag === "Invalid") invalidLines++
      return toUnits(items, config.epochs, invalid)
    }),
    Stream.filter((unit) => {
      if (!recorded.ids.has(trialId(unit.task.id, unit.epoch))) return true
      skipped++
      return false
    })
  )
  const guarded: Agent<unknown, HttpClient.HttpClient> = (task, trial) => {
    const message = invalid.get(task)
    return message === undefined ? agent(task, trial) : Effect.fail(new InvalidTask({ message }))
  }

  let total: number | undefined = config.tasks === undefined
    ? (config.synthetic ?? DEFAULT_SYNTHETIC) * config.epochs
    : undefined
  const started = Date.now()
  let writer: Results.Writer | undefined
  const writeFailure = () => writer?.failure()
  const finish = (outcome: Summary.Summary["outcome"]) =>
    Effect.gen(function*() {
      const summary = Summary.make({
        runId,
        resultsFile: out,
        outcome,
        acc,
        probe: probe.snapshot(),
        wallMs: Date.now() - started,
        parallelism: config.parallelism
      })
      yield* Console.log(Summary.format(summary))
      if (config.summary !== undefined) {
        const fs = yield* FileSystem.FileSystem
        yield* fs.writeFileString(config.summary, JSON.stringify(summary, null, 2) + "\n").pipe(
          Effect.catch((e) => Console.error(`agent-trials: cannot write --summary ${config.summary}: ${e.message}`))
        )
      }
    })

  return yield* Effect.scoped(Effect.gen(function*() {
    // Forked before the writer, so the scope stops it after the writer's
    // final flush: its last line counts every trial that reached the file.
    if (config.progress) {
      if (config.tasks !== undefined) {
        yield* Dataset.countLines(config.tasks).pipe(
          Effect.tap((n) => Effect.sync(() => total = n === undefined ? undefined : n * config.epochs)),
          Effect.forkScoped
        )
      }
      yield* Progress.display(
        {
          probe,
          recorded: acc.thisRun,
          skipped: () => skipped,
          // A bad line is one record whatever the epochs; the count saw it as a task.
          total: () => total === undefined ? undefined : total - invalidLines * (config.epochs - 1),
          parallelism: config.parallelism
        },
        { tty: config.tty, interval: config.progressInterval, write: (text) => process.stderr.write(text) }
      ).pipe(Effect.forkScoped)
    }
    // The summary counts a trial once its line is on disk, so it never
    // reports trials that a failed write lost.
    writer = yield* Results.writer(out, { onWritten: (trial) => acc.add(trial) })
    const sink = writer
    yield* runUnits(units, guarded, { parallelism: config.parallelism, probe, ...policyOptions(config) }).pipe(
      Stream.runForEach(sink.append),
      Effect.mapError((e) =>
        e instanceof RunInputError || e instanceof Policy.MaxFailuresExceeded || e instanceof Results.ResultsWriteError
          ? e
          : input(e)
      )
    )
    yield* sink.flush
  })).pipe(
    // The writer's scope is closed (every finished trial flushed) before the
    // summary is printed, whatever the outcome.
    Effect.onExit((exit) =>
      finish(
        Exit.hasInterrupts(exit)
          ? "interrupted"
          : writeFailure() !== undefined
          ? "write_error"
          : Exit.isSuccess(exit)
          ? "finished"
          : Exit.findErrorOption(exit).pipe(Option.exists((e) => e instanceof Policy.MaxFailuresExceeded))
          ? "too_many_failures"
          : "input_error"
      )
    ),
    // A write failure decides the exit whatever else went wrong: trials were lost.
    Effect.mapError((e) => writeFailure() ?? e),
    Effect.mapError((e) =>
      e instanceof Results.ResultsWriteError
        ? new RunWriteError({
          message: `${e.message}; the run stopped (the summary counts what the file holds; --resume runs the rest)`
        })
        : e
    )
  )
})

const itemsOf = (config: RunConfig): Stream.Stream<Dataset.Item, Dataset.DatasetError, Dataset.Services> =>
  config.tasks === undefined
    ? Dataset.synthetic(config.synthetic ?? DEFAULT_SYNTHETIC)
    : Dataset.fromJsonl(config.tasks, { onInvalid: config.onInvalid })

const toUnits = (
  items: ReadonlyArray<Dataset.Item>,
  epochs: number,
  invalid: WeakMap<AgentEvalTask, string>
): [TrialUnit, ...Array<TrialUnit>] => {
  const out: Array<TrialUnit> = []
  for (const item of items) {
    if (item._tag === "Task") {
      for (let epoch = 1; epoch <= epochs; epoch++) out.push({ task: item.task, epoch })
    } else {
      // One record per bad line, whatever the epochs.
      const task: AgentEvalTask = { id: item.taskId, inputs: {} }
      invalid.set(task, item.message)
      out.push({ task, epoch: 1 })
    }
  }
  return out as [TrialUnit, ...Array<TrialUnit>]
}

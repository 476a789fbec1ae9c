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
import { Console, Effect, Exit, FileSystem, Option, Path, type Redacted, Schema, Stream } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "./Agent.ts"
import * as AgentSpec from "./agents/Spec.ts"
import * as Dataset from "./Dataset.ts"
import { checkParallelism } from "./Errors.ts"
import * as Policy from "./Policy.ts"
import { Probe } from "./Probe.ts"
import * as Progress from "./Progress.ts"
import * as Results from "./Results.ts"
import { runUnits, type TrialUnit } from "./Runner.ts"
import * as Summary from "./Summary.ts"
import { type AgentEvalTask, trialId } from "./Trial.ts"

/**
 * Everything `run` needs, after flags and environment are read.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunConfig {
  readonly tasks: string | undefined
  readonly synthetic: number | undefined
  readonly agent: string
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
  /** Per attempt, e.g. `30s`; no timeout when undefined. */
  readonly timeout: string | undefined
  readonly retries: number
  readonly backoff: string
  readonly backoffMax: string
  readonly retryAfterMax: string
  /** `N/s` or `N/min`. */
  readonly rate: string | undefined
  readonly adaptive: boolean
  /** `N` or `P%`. */
  readonly maxFailures: string | undefined
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

const validate = (config: RunConfig): RunInputError | undefined => {
  const bad = (message: string) => new RunInputError({ message })
  const parallelism = checkParallelism(config.parallelism, "--parallelism")
  if (parallelism) return bad(parallelism.message)
  const epochs = checkParallelism(config.epochs, "--epochs")
  if (epochs) return bad(epochs.message)
  if (config.tasks !== undefined && config.synthetic !== undefined) {
    return bad("--tasks and --synthetic cannot be used together: choose one source of tasks")
  }
  if (config.synthetic !== undefined && !(Number.isSafeInteger(config.synthetic) && config.synthetic >= 0)) {
    return bad(`Expected --synthetic to be an integer from 0 and up, got ${config.synthetic}`)
  }
  if (config.resume && config.out === undefined) return bad("--resume needs --out FILE: the results file to continue")
  if (config.retryFailed && !config.resume) return bad("--retry-failed needs --resume")
  if (!(Number.isSafeInteger(config.retries) && config.retries >= 0)) {
    return bad(`Expected --retries to be an integer from 0 and up, got ${config.retries}`)
  }
  for (
    const [flag, value] of [
      ["--timeout", config.timeout],
      ["--backoff", config.backoff],
      ["--backoff-max", config.backoffMax],
      ["--retry-after-max", config.retryAfterMax]
    ] as const
  ) {
    if (value !== undefined && !(Policy.parseDurationMs(value)! > 0)) {
      return bad(`Expected ${flag} to be a positive duration like 500ms, 30s or 2m, got "${value}"`)
    }
  }
  if (config.rate !== undefined && Policy.parseRate(config.rate) === undefined) {
    return bad(`Expected --rate to be N/s or N/min with N > 0 (e.g. 10/s, 600/min), got "${config.rate}"`)
  }
  if (config.maxFailures !== undefined && Policy.parseMaxFailures(config.maxFailures) === undefined) {
    return bad(`Expected --max-failures to be a count (e.g. 25) or a percentage (e.g. 10%), got "${config.maxFailures}"`)
  }
  return undefined
}

/** The runner options that the failure-handling flags ask for (validated first). */
const policyOptions = (config: RunConfig) => ({
  timeout: config.timeout === undefined ? undefined : Policy.parseDurationMs(config.timeout),
  retry: config.retries === 0 ? undefined : {
    retries: config.retries,
    base: Policy.parseDurationMs(config.backoff)!,
    max: Policy.parseDurationMs(config.backoffMax)!,
    retryAfterMax: Policy.parseDurationMs(config.retryAfterMax)!
  },
  rate: config.rate === undefined ? undefined : Policy.parseRate(config.rate),
  adaptive: config.adaptive,
  maxFailures: config.maxFailures === undefined ? undefined : Policy.parseMaxFailures(config.maxFailures)
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

  const spec = AgentSpec.parse(config.agent)
  if (typeof spec === "string") return yield* new RunInputError({ message: spec })
  const agent = yield* AgentSpec.build(spec, config).pipe(Effect.mapError((message) => new RunInputError({ message })))

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

  const probe = new Probe()
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
    const writer = yield* Results.writer(out).pipe(Effect.mapError(input))
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
          skipped: () => skipped,
          // A bad line is one record whatever the epochs; the count saw it as a task.
          total: () => total === undefined ? undefined : total - invalidLines * (config.epochs - 1),
          parallelism: config.parallelism
        },
        { tty: config.tty, interval: config.progressInterval, write: (text) => process.stderr.write(text) }
      ).pipe(Effect.forkScoped)
    }
    yield* runUnits(units, guarded, { parallelism: config.parallelism, probe, ...policyOptions(config) }).pipe(
      Stream.runForEach((trial) => {
        acc.add(trial)
        return writer.append(trial)
      }),
      Effect.mapError((e) => e instanceof RunInputError || e instanceof Policy.MaxFailuresExceeded ? e : input(e))
    )
  })).pipe(
    // The writer's scope is closed (every finished trial flushed) before the
    // summary is printed, whatever the outcome.
    Effect.onExit((exit) =>
      finish(
        Exit.isSuccess(exit)
          ? "finished"
          : Exit.hasInterrupts(exit)
          ? "interrupted"
          : Exit.findErrorOption(exit).pipe(Option.exists((e) => e instanceof Policy.MaxFailuresExceeded))
          ? "too_many_failures"
          : "input_error"
      )
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

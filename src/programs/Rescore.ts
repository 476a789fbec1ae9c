/**
 * `agent-trials score RESULTS.jsonl --score SPEC... --out SCORED.jsonl`:
 * scores (or re-scores) the trials of an existing results file through the
 * bounded scoring stage, streaming: the results file is read a line at a
 * time, at most `parallelism` trials are being scored at once, and each
 * trial is appended to `out` as soon as it is scored, with `scores` replaced
 * by the new scorers' (a failed trial is copied without scores). `--resume`
 * continues `out`: trials already in it are skipped.
 *
 * References come from `--tasks FILE`, joined by task id. That join holds
 * every task of the file in memory (one entry per task), read before any
 * trial is scored; without `--tasks`, a scorer that needs a reference gives
 * a score with a `MissingReference` error.
 *
 * @since 0.1.0
 */
import { Clock, Console, Effect, Exit, FileSystem, Option, Path, type Redacted, Schema, Stream } from "effect"
import type * as Dataset from "../datasets/Dataset.ts"
import { checkDistinct, writeOutput } from "../internal/outputs.ts"
import { MutableProbe } from "../runner/internal/probe.ts"
import * as Read from "../results/Read.ts"
import * as Results from "../results/Results.ts"
import * as ResultsStores from "../results/ResultsStores.ts"
import * as Summary from "../summary/Summary.ts"
import { type AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"
import * as Gates from "../summary/Gates.ts"
import * as Labels from "../summary/Labels.ts"
import type * as ScorerKinds from "../scoring/ScorerKinds.ts"
import * as Scorers from "../scoring/Scorers.ts"
import * as Stage from "../scoring/Stage.ts"
import * as Pricing from "../summary/Pricing.ts"
import * as Written from "../summary/Written.ts"
import { Registry } from "./internal/kinds.ts"
import * as Recorded from "./Recorded.ts"
import { whereFields, whereOf } from "../domain/internal/where.ts"
import type * as Request from "../domain/Request.ts"
import * as RequestOptions from "./internal/request.ts"

/**
 * What `score` needs, after flags are read.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoreConfig extends Recorded.TasksRead {
  /** The results file to score. */
  readonly input: string
  readonly score: ReadonlyArray<string>
  readonly out: string
  /** The task file; the tasks the results file's run definition names when undefined (`Recorded.tasksOf`). */
  readonly tasks: string | undefined
  /** The stores the input and `out` are kept in, each chosen by its name; the `Kinds.Registry` service's when undefined. */
  readonly stores?: ReadonlyArray<ResultsStores.ResultsStore> | undefined
  /** The kinds `score`'s specs are of; the `Kinds.Registry` service's when undefined. */
  readonly scorerKinds?: ReadonlyArray<ScorerKinds.ScorerKind> | undefined
  readonly resume: boolean
  readonly parallelism: number
  readonly judgeModel: string | undefined
  /** `--judge-system`, `--judge-temperature`, ...: what the judges' requests carry besides their prompt. */
  readonly judgeSystem?: string | undefined
  readonly judgeTemperature?: number | undefined
  readonly judgeMaxOutputTokens?: number | undefined
  readonly judgeSeed?: number | undefined
  readonly judgeHeaders?: ReadonlyArray<Request.Header> | undefined
  readonly judgeRequestJson?: Readonly<Record<string, unknown>> | undefined
  /** `--expected-tools`: where a `tool-calls` scorer reads a task's expected calls. */
  readonly expectedTools?: string | undefined
  readonly judgeParallelism: number | undefined
  readonly pass: string | undefined
  readonly summary: string | undefined
  /** `--pass-k`: the k of pass@k reported, each at most the trials' epochs. */
  readonly passK?: ReadonlyArray<number> | undefined
  /** `--fail-under NAME=X[@lower]`: exit 1 when a scorer's mean (or the pass rate) is below X. */
  readonly failUnder?: ReadonlyArray<Gates.Gate> | undefined
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly cwd: string
  /** `--pricing FILE`: every usage (the agent's, as recorded, and the new scores') gets its `cost_usd`. */
  readonly pricing?: string | undefined
  /** `--task-pass X`: a task passes (in `--junit`) when at least this fraction of its trials passed. */
  readonly taskPass?: number | undefined
  /** The registry's outputs written after scoring (`--junit`, `--markdown`), each file by its format's flag. */
  readonly outputs?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * A flag or input `score` cannot use (exit code 2).
 *
 * @category errors
 * @since 0.1.0
 */
export class ScoreInputError extends Schema.TaggedError<ScoreInputError>()("ScoreInputError", {
  message: Schema.String,
  /** The flag, file and line at fault, when known. */
  ...whereFields
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /** Bad input from another error: its message, and the flag, file (its `file` or `path`) and line it names. */
  static from(error: { readonly message: string }): ScoreInputError {
    return new ScoreInputError({ message: error.message, ...whereOf(error) })
  }
}

/**
 * A `--fail-under` gate failed on a scoring that otherwise finished (exit
 * code 1): `results` are every gate's result, the failed ones among them.
 *
 * @category errors
 * @since 0.1.0
 */
export class ScoreGateFailed extends Schema.TaggedError<ScoreGateFailed>()("ScoreGateFailed", {
  results: Schema.Array(Gates.GateResult)
}) {
  override get message(): string {
    return new Gates.GatesFailed({ results: this.results }).message
  }
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * The scored file or the `--summary` could not be written (exit code 1):
 * `flag` and `path` name it (`--out`, `--summary`), `problem` is the
 * write's own error, and `lost` the trials the scored file lost: only when
 * it is the scored file that failed, which stopped the scoring.
 *
 * @category errors
 * @since 0.1.0
 */
export class ScoreWriteError extends Schema.TaggedError<ScoreWriteError>()("ScoreWriteError", {
  flag: Schema.String,
  path: Schema.String,
  lost: Schema.optionalKey(Schema.Number),
  problem: Schema.String
}) {
  override get message(): string {
    return this.lost === undefined ? this.problem : `${this.problem}; --resume scores the rest`
  }
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}


/**
 * Scores `config.input` into `config.out` and prints the summary.
 *
 * @category running
 * @since 0.1.0
 */
export const score = Effect.fn("Rescore.score")(function*(options: ScoreConfig) {
  // What the config names wins over the service.
  const kinds = yield* Registry
  const config = { ...options, stores: options.stores ?? kinds.stores, scorerKinds: options.scorerKinds ?? kinds.scorers }
  const bad = (message: string) => new ScoreInputError({ message })
  // The registry's outputs asked for, each with its file.
  const outputs = kinds.outputs.flatMap((format) => {
    const file = config.outputs?.[format.flag]
    return format.writeScore === undefined || file === undefined ? [] : [[format, file] as const]
  })
  const path = yield* Path.Path
  const specs = config.score.filter((spec) => spec !== "none")
  if (specs.length === 0) return yield* bad("score needs at least one --score SPEC")
  if (path.resolve(config.cwd, config.input) === path.resolve(config.cwd, config.out)) {
    return yield* bad(`--out ${config.out} is the results file being scored: write the scored trials to another file`)
  }
  yield* checkDistinct({
    inputs: [{ flag: "RESULTS", path: config.input }, { flag: "--tasks", path: config.tasks }],
    outputs: [
      { flag: "--out", path: config.out },
      { flag: "--summary", path: config.summary },
      ...outputs.map(([format, file]) => ({ flag: `--${format.flag}`, path: file }))
    ],
    cwd: config.cwd
  }).pipe(Effect.mapError(ScoreInputError.from))
  const judgeRequest = yield* RequestOptions.resolve(RequestOptions.judgeGiven(config), "judge-", config.cwd).pipe(
    Effect.mapError(ScoreInputError.from)
  )
  const scorers = yield* Scorers.fromSpecs(specs, {
    cwd: config.cwd,
    judgeModel: config.judgeModel,
    judgeRequest,
    expectedTools: config.expectedTools,
    apiKey: config.apiKey,
    kinds: config.scorerKinds
  }).pipe(Effect.mapError(ScoreInputError.from))
  const names = scorers.map((s) => s.name)
  const gates = config.failUnder ?? []
  yield* Effect.fromResult(Gates.check(gates, names)).pipe(Effect.mapError(ScoreInputError.from))
  if (config.pass !== undefined && !names.includes(config.pass)) {
    return yield* bad(`--pass ${config.pass}: no scorer has that name (scorers: ${names.join(", ")})`)
  }
  // Models the pricing file lacks, named once each as they are met.
  const unpriced: Array<string> = []
  const pricing = config.pricing === undefined ? undefined : Pricing.make(
    config.pricing,
    yield* Pricing.load(path.resolve(config.cwd, config.pricing)).pipe(Effect.mapError(ScoreInputError.from)),
    (model) => unpriced.push(model)
  )
  const sayUnpriced = Effect.suspend(() =>
    Effect.forEach(unpriced.splice(0), (model) =>
      Console.error(`agent-trials: warning: model ${JSON.stringify(model)} is not in --pricing ${config.pricing}: its tokens are priced at $0`))
  )
  const priced = (trial: AgentEvalTrial) => pricing === undefined ? trial : Pricing.priceTrial(pricing, trial)
  const fs = yield* FileSystem.FileSystem
  const info = yield* Effect.option(fs.stat(config.input))
  if (info._tag === "None" || info.value.type !== "File") {
    return yield* bad(`results file not found: ${config.input}`)
  }
  const source = yield* Recorded.tasksOf({ ...config, results: config.input }).pipe(Effect.mapError(ScoreInputError.from))
  if (source.warning !== undefined) yield* Console.error(`agent-trials: warning: ${source.warning}; scoring without references`)
  // A download that failed on the way (stalled, too large) is no bad input: exit 1, as run's.
  const tasks = source.tasks === undefined ? undefined : yield* readTasks(source.tasks.items).pipe(
    Effect.mapError((e) => e.transient === true ? e : ScoreInputError.from(e))
  )
  // Tasks none of whose ids is a trial's would score every trial without its reference: refused before anything is written.
  if (source.tasks !== undefined && tasks !== undefined) {
    // A bad task line's record (InvalidTask) has no task to match.
    const trials = inputTrials(config).pipe(
      Stream.filter((t) => t.error?.type !== "InvalidTask"),
      Stream.map((t) => t.task_id)
    )
    yield* Recorded.someMatch({ tasks: source.tasks, ids: tasks, results: config.input, trials }).pipe(
      Effect.mapError(ScoreInputError.from)
    )
  }

  // The run's epochs, as its records say (records written before they said: 1).
  const first = yield* inputTrials(config).pipe(Stream.take(1), Stream.runHead)
  const epochs = Option.flatMap(first, (trial) => Option.fromUndefinedOr(Labels.epochsOf(trial))).pipe(
    Option.getOrElse(() => 1)
  )
  const above = config.passK?.filter((k) => k > epochs) ?? []
  if (above.length > 0) {
    return yield* bad(
      `--pass-k ${above.join(",")}: above the ${epochs} epochs the trials of ${config.input} were run with ` +
        `(pass@k draws k of a task's trials)`
    )
  }
  const acc = new Summary.Accumulator(epochs, { scorers: names, pass: config.pass })
  let scorerCalls = 0
  const out = Results.outPath(config.out)
  // With the scored trials on stdout, every other line goes to stderr.
  const say = Results.isStdout(out) ? Console.error : Console.log
  const store = ResultsStores.storeOf(out, config.stores)
  const recorded = yield* store.prepare(out, {
    resume: config.resume,
    retryFailed: false,
    onPrior: (trial) => acc.add(priced(trial), true)
  }).pipe(Effect.mapError(ScoreInputError.from))
  yield* say(`scoring ${config.input} -> ${out}`)
  if (source.tasks !== undefined && config.tasks === undefined) {
    yield* say(`tasks: ${source.tasks.name}${source.tasks.how === "" ? "" : `, read with ${source.tasks.how}`}`)
  }
  if (recorded.kept > 0) yield* say(`resuming: ${recorded.kept} trials already scored`)

  const probe = new MutableProbe()
  const started = yield* Clock.currentTimeMillis
  let writer: Results.Writer | undefined
  // A --summary that could not be written: the error of a scoring that
  // ended well (exit 1), a line on stderr beside any other end's own error.
  let unwritten: ScoreWriteError | undefined
  let gateFailure: Gates.GatesFailed | undefined
  const finish = (exit: Exit.Exit<unknown, unknown>) =>
    Effect.gen(function*() {
      // An output that could not be written: the error of a scoring that ended
      // well (the first such), a line on stderr beside any other end's own error.
      const lost = (flag: string, file: string, e: { readonly message: string }) =>
        Exit.isSuccess(exit)
          ? Effect.sync(() => unwritten ??= new ScoreWriteError({ flag, path: file, problem: e.message }))
          : Console.error(`agent-trials: ${e.message}`)
      const outcome = Summary.outcomeOf(exit, writer?.failure() !== undefined)
      const summary = Summary.makeScore({
        runId: `score-${path.basename(config.input)}`,
        inputFile: config.input,
        resultsFile: out,
        outcome,
        acc,
        scorerCalls,
        wallMs: (yield* Clock.currentTimeMillis) - started,
        passK: config.passK,
        scoring: {
          probe: probe.snapshot(),
          parallelism: config.parallelism,
          judgeParallelism: scorers.some(Stage.isJudge) ? config.judgeParallelism ?? config.parallelism : undefined
        },
        usage: { priced: pricing !== undefined, unpriced: pricing?.unpriced() ?? [] }
      })
      const gated = Gates.withGates(summary, gates)
      gateFailure = Gates.failed(gated.gates ?? [])
      yield* say(Summary.formatScore(summary) + Gates.formatText(gated.gates))
      if (config.summary !== undefined) {
        const file = config.summary
        yield* Effect.fromResult(Written.scoreSummary(gated)).pipe(
          Effect.mapError((problem) => ({ message: `cannot write --summary ${file}: ${problem}` })),
          Effect.flatMap((json) => writeOutput("--summary", file, json)),
          Effect.catch((e) => lost("--summary", file, e))
        )
      }
      const context = { out, summary, gated, taskPass: config.taskPass }
      for (const [format, file] of outputs) {
        yield* format.writeScore!(file, context).pipe(Effect.catch((e) => lost(`--${format.flag}`, file, e)))
      }
    })

  const trials = inputTrials(config).pipe(
    Stream.filter((trial) => !recorded.ids.has(trial.id)),
    Stream.map((trial): Stage.Finished => {
      const { scores: _old, ...unscored } = trial
      return { task: tasks?.get(trial.task_id) ?? { id: trial.task_id, inputs: {} }, trial: unscored }
    })
  )
  return yield* Effect.scoped(Effect.gen(function*() {
    writer = yield* store.writer(out, {
      onWritten: (trial) => {
        acc.add(trial)
        if (trial.status !== "failed") scorerCalls += Object.keys(trial.scores ?? {}).length
      }
    })
    const sink = writer
    yield* Stage.scoreTrials(trials, {
      scorers,
      parallelism: config.parallelism,
      judgeParallelism: config.judgeParallelism,
      probe
    }).pipe(
      // Priced (with --pricing) before the file records them.
      (scored) => pricing === undefined ? scored : Stream.tap(Stream.map(scored, priced), () => sayUnpriced),
      Stream.runForEach(sink.append)
    )
    yield* sink.flush
  })).pipe(
    Effect.onExit((exit) => finish(exit)),
    Effect.mapError((e) => {
      const failure = writer?.failure()
      if (failure !== undefined) {
        return new ScoreWriteError({ flag: "--out", path: failure.path, lost: failure.lost, problem: failure.message })
      }
      return e._tag === "ScoreInputError" ? e : ScoreInputError.from(e)
    }),
    Effect.andThen(Effect.suspend(() =>
      unwritten === undefined ? Effect.void : Effect.fail(unwritten)
    )),
    Effect.andThen(Effect.suspend(() =>
      gateFailure === undefined ? Effect.void : Effect.fail(new ScoreGateFailed({ results: gateFailure.results }))
    ))
  )
})

// The trials to score, read from their store.
const inputTrials = (config: Pick<ScoreConfig, "input" | "stores">) =>
  ResultsStores.storeOf(config.input, config.stores).read(config.input).pipe(
    Stream.map((numbered) => numbered.trial),
    Stream.mapError((e) => ScoreInputError.from(e))
  )

/**
 * The trials of a results file, a line at a time (`Read.trialsOf`), its
 * errors as `ScoreInputError`s.
 *
 * @category sources
 * @since 0.1.0
 */
export const trialsOf = (file: string): Stream.Stream<AgentEvalTrial, ScoreInputError, FileSystem.FileSystem> =>
  Stream.mapError(Read.trialsOf(file), (e) => ScoreInputError.from(e))

/**
 * The trials of a results file with their line numbers (`Read.numberedTrialsOf`),
 * its errors as `ScoreInputError`s.
 *
 * @category sources
 * @since 0.1.0
 */
export const numberedTrialsOf = (
  file: string
): Stream.Stream<{ readonly trial: AgentEvalTrial; readonly line: number }, ScoreInputError, FileSystem.FileSystem> =>
  Stream.mapError(Read.numberedTrialsOf(file), (e) => ScoreInputError.from(e))

// Every task of the file by id: the join needs any task at any time, as the
// results file is in completion order, not task order.
const readTasks = <E, R>(items: Stream.Stream<Dataset.Item, E, R>) =>
  items.pipe(
    Stream.runFold(() => new Map<string, AgentEvalTask>(), (map, item) => {
      if (item._tag === "Task") map.set(item.task.id, item.task)
      return map
    })
  )

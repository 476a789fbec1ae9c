/**
 * `agent-trials report RESULTS.jsonl --html FILE`: one self-contained HTML
 * page about a results file, built in one streamed pass over it (every
 * aggregate covers the whole file; the table keeps at most `maxRows` rows,
 * failures first), plus, with a task file, a second streamed pass over the
 * tasks that fills the input and reference of the rows shown only. Memory
 * does not grow with the file beyond the rows shown and a 128-bit
 * fingerprint per trial (the duplicate-id check of the results reader, `Read.trialsOf`).
 *
 * A `--summary` file must be of this results file, or it is refused (exit 2,
 * nothing written), naming both runs and both counts:
 * - the run: the summary's `run_id` against the `run_id` of the definition
 *   beside the file (`RESULTS.jsonl.run.json`, `RunDefinition.runIdOf`),
 *   which names the run that started the file; a resume keeps that id, so a
 *   resumed run's summary names it too. A file with no run id beside it (one
 *   copied without it, written to a pipe, or by `score`) is checked by its
 *   trials alone.
 * - the trials: the summary's `trials.total` (every trial in the file when
 *   the run ended, by status) against the trials of this pass, by status.
 *   Both count records, so a bad task line skipped with `--on-invalid skip`
 *   (one `InvalidTask` record whatever the epochs) counts once in each. The
 *   pass is one stream, so this is known at its end: the check comes then,
 *   before the task file is read and the page written. Counts by status,
 *   not only the total, tell apart the summaries of a run before and after
 *   a `--resume --retry-failed` (same id, same total).
 * The summary's `results_file` is not compared: it is the path as the run's
 * command line gave it, relative to where it ran, and files move (a copied
 * directory, a CI artifact) while their run id and trials stay. `run
 * --report` hands `write` its own summary, of that file by construction,
 * and it is not checked.
 *
 * @since 0.1.0
 */
import { Console, Effect, FileSystem, Result, Schema, Stream } from "effect"
import type * as Dataset from "../datasets/Dataset.ts"
import { checkDistinct, writeOutput } from "../internal/outputs.ts"
import * as ResultsStores from "../results/ResultsStores.ts"
import { Registry } from "./internal/kinds.ts"
import * as Recorded from "./Recorded.ts"
import * as RunDefinition from "./run/Definition.ts"
import * as Summary from "../summary/Summary.ts"
import type { AgentEvalTask } from "../domain/Trial.ts"
import * as Aggregate from "../report/Aggregate.ts"
import * as Page from "../report/page/Page.ts"
import { whereFields, whereOf } from "../domain/internal/where.ts"

/**
 * A results, summary or task file the report cannot use, or a bad option
 * (exit code 2). The message names the file and line.
 *
 * @category errors
 * @since 0.1.0
 */
export class ReportInputError extends Schema.TaggedError<ReportInputError>()("ReportInputError", {
  message: Schema.String,
  /** The flag, file and line at fault, when known. */
  ...whereFields
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /** Bad input from another error: its message, and the flag, file (its `file` or `path`) and line it names. */
  static from(error: { readonly message: string }): ReportInputError {
    return new ReportInputError({ message: error.message, ...whereOf(error) })
  }
}

/**
 * The HTML file could not be written (exit code 1): `flag` and `path` name
 * it (`--html`, or run's `--report`), `problem` is the write's own error.
 *
 * @category errors
 * @since 0.1.0
 */
export class ReportWriteError extends Schema.TaggedError<ReportWriteError>()("ReportWriteError", {
  flag: Schema.String,
  path: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return this.problem
  }
}

/**
 * What `report` needs, after flags are read.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReportConfig extends Recorded.TasksRead {
  /** The results file (JSONL). */
  readonly results: string
  /** Where the HTML goes. */
  readonly html: string
  /** Rows of the table at most (an integer >= 1). */
  readonly maxRows: number
  /**
   * The task file giving each shown row's input and reference, read as
   * `run` reads it; the tasks the results file's run definition names when
   * undefined (`Recorded.tasksOf`).
   */
  readonly tasks?: string | undefined
  /** Where relative paths are resolved; the process's working directory when undefined. */
  readonly cwd?: string | undefined
  /** The run's summary (`run --summary FILE`): outcome, wall time, parallelism, peaks, epochs, scorers; checked to be of `results`. */
  readonly summary?: string | undefined
}

/**
 * What a report was made of.
 *
 * @category models
 * @since 0.1.0
 */
export interface Written {
  readonly html: string
  readonly trials: number
  readonly rows: number
  readonly bytes: number
}

/**
 * The default of `--max-rows`: rows of the table at most.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_ROWS = 5000

/**
 * Reads `config.summary` and `config.tasks` from disk, then `write`s the report.
 *
 * @category running
 * @since 0.1.0
 */
export const report = Effect.fn("Report.report")(function*(config: ReportConfig) {
  yield* checkDistinct({
    inputs: [
      { flag: "RESULTS", path: config.results },
      { flag: "--tasks", path: config.tasks },
      { flag: "--summary", path: config.summary }
    ],
    outputs: [{ flag: "--html", path: config.html }]
  }).pipe(Effect.mapError((e) => ReportInputError.from(e)))
  const summary = config.summary === undefined ? undefined : yield* readSummary(config.summary)
  const source = yield* Recorded.tasksOf({ ...config, tasks: config.tasks, cwd: config.cwd ?? process.cwd() }).pipe(
    Effect.mapError((e) => ReportInputError.from(e))
  )
  if (source.warning !== undefined) yield* Console.error(`agent-trials: warning: ${source.warning}; the table shows no inputs`)
  return yield* write({
    results: config.results,
    html: config.html,
    maxRows: config.maxRows,
    summary,
    summaryFile: config.summary,
    tasks: source.tasks?.items,
    source: source.tasks
  })
})

/**
 * The report of `results`, written to `html`: `summary` is the run's own (in
 * memory, as `run --report` has it), `tasks` a stream of the run's tasks
 * (read again, for the shown rows' input and reference). With `summaryFile`
 * (the file `summary` was read from) the summary is first checked to be of
 * `results` (see the module doc). The page is written atomically; a failure
 * names `flag` (default `--html`), the file and the operating system's
 * reason.
 *
 * @category running
 * @since 0.1.0
 */
export const write = Effect.fn("Report.write")(function*(input: {
  readonly results: string
  readonly html: string
  readonly flag?: string | undefined
  readonly maxRows: number
  readonly summary?: Summary.Reported | undefined
  readonly summaryFile?: string | undefined
  readonly tasks?: Stream.Stream<Dataset.Item, Dataset.DatasetError, Dataset.Services> | undefined
  /** What `tasks` are, for the message when none of their ids is a trial's task id. */
  readonly source?: Recorded.Tasks | undefined
}) {
  const bad = (message: string) => new ReportInputError({ message })
  if (!(Number.isSafeInteger(input.maxRows) && input.maxRows >= 1)) {
    return yield* bad(`--max-rows must be an integer >= 1, got ${input.maxRows}`)
  }
  const fs = yield* FileSystem.FileSystem
  const info = yield* Effect.option(fs.stat(input.results))
  if (info._tag === "None" || info.value.type !== "File") return yield* bad(`results file not found: ${input.results}`)

  const { stores } = yield* Registry
  const s = input.summary
  const aggregate = new Aggregate.Aggregate({
    maxRows: input.maxRows,
    epochs: s?.epochs,
    scoring: s === undefined ? undefined : {
      scorers: Object.keys(s.scoring?.scorers ?? {}),
      pass: s.scoring === undefined || s.scoring.pass_rule === "every scorer" ? undefined : s.scoring.pass_rule,
      stderrCluster: s.scoring?.stderr_cluster
    }
  })
  yield* ResultsStores.storeOf(input.results, stores).read(input.results).pipe(
    Stream.runForEach(({ trial }) => Effect.sync(() => aggregate.add(trial))),
    Effect.mapError(ReportInputError.from)
  )
  const result = aggregate.result()
  if (s !== undefined && input.summaryFile !== undefined) {
    yield* checkSummary({ file: input.summaryFile, summary: s, results: input.results, counts: result.acc.thisRun })
  }
  if (input.tasks !== undefined) {
    // A download that failed on the way (stalled, too large) is no bad input: exit 1, as run's.
    const matched = yield* fillTasks(result.rows, input.tasks).pipe(Effect.mapError((e) => e.transient === true ? e : ReportInputError.from(e)))
    // A bad task line's record (InvalidTask) has no task to match.
    if (matched === 0 && result.rows.some((row) => row.error?.type !== "InvalidTask")) {
      const source = input.source ?? { name: "the tasks", how: "", items: input.tasks }
      // None of the rows shown is a task of the file: refused unless a trial not shown is one (the ids held only then).
      const ids = yield* source.items.pipe(
        Stream.runFold(() => new Set<string>(), (set, item) => item._tag === "Task" ? set.add(item.task.id) : set)
      )
      const trials = ResultsStores.storeOf(input.results, stores).read(input.results).pipe(Stream.map(({ trial }) => trial.task_id))
      yield* Recorded.someMatch({ tasks: source, ids, results: input.results, trials }).pipe(Effect.mapError(ReportInputError.from))
    }
  }

  const html = Page.render({ resultsFile: input.results, result, summary: s, withTasks: input.tasks !== undefined })
  const flag = input.flag ?? "--html"
  yield* writeOutput(flag, input.html, html).pipe(
    Effect.mapError((e) => new ReportWriteError({ flag, path: input.html, problem: e.message }))
  )
  return { html: input.html, trials: result.trials, rows: result.rows.length, bytes: Buffer.byteLength(html) } satisfies Written
})

const TEXT_LIMIT = 2000
const clip = (text: string) => text.length <= TEXT_LIMIT ? text : `${text.slice(0, TEXT_LIMIT)}… (cut)`

/**
 * A task's inputs as the table shows them: a lone text input as it is,
 * anything else as JSON.
 *
 * @category formatting
 * @since 0.1.0
 */
export const inputText = (task: AgentEvalTask): string => {
  const values = Object.values(task.inputs)
  return clip(values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(task.inputs))
}

const referenceText = (task: AgentEvalTask): string | null =>
  task.reference === undefined ? null : clip(typeof task.reference === "string" ? task.reference : JSON.stringify(task.reference))

// Only the shown rows' task ids are held; every other task passes through.
const fillTasks = (rows: ReadonlyArray<Aggregate.Row>, tasks: Stream.Stream<Dataset.Item, Dataset.DatasetError, Dataset.Services>) => {
  const wanted = new Map<string, Array<Aggregate.Row>>()
  for (const row of rows) {
    const list = wanted.get(row.task_id)
    if (list === undefined) wanted.set(row.task_id, [row])
    else list.push(row)
  }
  let matched = 0
  if (wanted.size === 0) return Effect.succeed(matched)
  return tasks.pipe(
    Stream.runForEach((item) =>
      Effect.sync(() => {
        if (item._tag !== "Task") return
        const list = wanted.get(item.task.id)
        if (list === undefined) return
        const input = inputText(item.task)
        const reference = referenceText(item.task)
        for (const row of list) {
          row.input = input
          row.reference = reference
        }
        matched += list.length
      })
    ),
    Effect.map(() => matched)
  )
}

/**
 * A summary written by `run --summary FILE`, decoded as far as the report
 * reads it (`Summary.Reported`); a file that is not one is an error naming
 * the file and the field.
 *
 * @category sources
 * @since 0.1.0
 */
export const readSummary = (file: string): Effect.Effect<Summary.Reported, ReportInputError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError(() => new ReportInputError({ message: `summary file not found: ${file}` }))
    )
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      return yield* new ReportInputError({ message: `${file}: not valid JSON (${(e as Error).message})` })
    }
    const decoded = Summary.decodeReported(json)
    if (Result.isFailure(decoded)) return yield* new ReportInputError({ message: `${file}: ${decoded.failure}` })
    return decoded.success
  })

interface Counts {
  readonly completed: number
  readonly failed: number
  readonly partial: number
}

// The summary must be of the file read: see the module doc.
const checkSummary = (input: {
  readonly file: string
  readonly summary: Summary.Reported
  readonly results: string
  readonly counts: Counts
}): Effect.Effect<void, ReportInputError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const { counts, results, summary } = input
    const fileRun = yield* RunDefinition.runIdOf(results)
    const claimed = summary.trials.total
    const total = counts.completed + counts.failed + counts.partial
    const sameRun = fileRun === undefined || fileRun === summary.run_id
    const sameTrials = claimed.total === total && claimed.completed === counts.completed &&
      claimed.failed === counts.failed && claimed.partial === counts.partial
    if (sameRun && sameTrials) return
    // Equal totals that differ are told apart by status.
    const byStatus = claimed.total === total && !sameTrials
    const trials = (c: Counts, n: number) =>
      byStatus ? `${n} trials: ${c.completed} completed, ${c.failed} failed, ${c.partial} partial` : `${n} trials`
    const held = fileRun === undefined
      ? `${results} holds ${trials(counts, total)} and names no run (no run_id in ${RunDefinition.pathOf(results)})`
      : `${results} holds run ${fileRun} (${trials(counts, total)})`
    const hint = fileRun === undefined
      ? "give the summary of the run that wrote it"
      : fileRun !== summary.run_id
      ? "give the summary that run wrote"
      : "the file changed after that summary was written (a --resume adds trials, --retry-failed reruns failed ones): give the summary its last run wrote"
    return yield* new ReportInputError({
      message: `--summary ${input.file} is of run ${summary.run_id} (${trials(claimed, claimed.total)}), but ${held}: ${hint}`
    })
  })

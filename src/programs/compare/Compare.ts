/**
 * `agent-trials compare BASE.jsonl NEW.jsonl`: did a change make an agent
 * better or worse, beyond the noise of its tasks?
 *
 * Tasks are matched by `task_id`. A task's value for a scorer is the mean of
 * that scorer's values over the task's trials (its epochs), where a failed
 * trial counts 0 (it gave no answer, so it cannot have scored), and a trial
 * that did not fail but carries no score of that scorer is left out. Per
 * scorer the two files share, the paired difference `d = new - base` over the
 * tasks with a value in both gives the change in mean, with a 95% interval on
 * Student's t with n - 1 degrees of freedom (`Statistics.pairedDifference`),
 * the paired t test's two-sided `p_value`, and `mde80`, the smallest change
 * the comparison would detect with 80% power. With one epoch (every paired
 * task one counted trial in each file), `mcnemar_p` is McNemar's exact test
 * of the scorer's pass/fail verdicts on the tasks that flipped.
 * The verdict, per scorer and unadjusted: `regressed` when the whole interval
 * lies below 0, `improved` when it lies above, otherwise
 * `no_significant_change`; with fewer than 2 paired tasks there is no
 * interval and `no_verdict` (the reason is given). `regressed` (the list,
 * what `--fail-on-regression` acts on) is judged over the family of scorers:
 * every scorer with a p-value is judged, and it regressed when its delta is
 * below 0 and its Holm-adjusted `p_holm` is below 0.05, so the chance that
 * any of the m judged scorers is called regressed by noise stays 5%. As
 * p < 0.05 exactly when the 95% t interval excludes 0, a scorer in
 * `regressed` always has the verdict `regressed`, and with one judged
 * scorer (`p_holm` = `p_value`) the two say the same.
 * Tasks and scorers present in only one file are listed, never matched.
 *
 * A trial passes when every scorer the two files share passed it (a score
 * with an error never passes; a failed trial never passes), or the one scorer
 * `pass` names. Without `pass`, each file is judged as its run recorded it
 * (`--pass` in its run definition, `RESULTS.run.json`): a run with `--pass
 * NAME` by NAME, one without (or a file that names no run) by every shared
 * scorer; two runs that recorded different rules are named in a note, with
 * `pass` too (then both are judged by it). A trial that did not fail and lacks one of those scores does
 * not count. pass@1 of a file is the mean over tasks of passed / counted
 * trials, before and after over the paired tasks (with the paired interval of
 * its change) and over each file's own tasks. A task passes when all its
 * counted trials passed (with one epoch: its trial passed); the flips are the
 * paired tasks that passed before and not after (`pass_to_fail`) and the
 * reverse (`fail_to_pass`).
 *
 * Clustering: when every record of both files says `metadata.stderr_cluster`
 * is `{ by: PATH, value }` with one and the same PATH (not `task`), the
 * paired tasks come in clusters (a task's cluster: the value its first trial
 * in the base file records; a task without one, null, is a cluster of its
 * own), and the per-task differences of every scorer, of pass@1 and of each
 * group are clustered: `standard_error` is the cluster-robust CR1 one over
 * the G clusters (`Clustered.accumulator`), `df = G - 1`, `ci95`, `p_value`
 * (two-sided t = delta / SE on G - 1 df) and `mde80 = (t(0.975, G-1) +
 * t(0.80, G-1))·SE` on it, with `clusters` (G) and `design_effect` beside
 * them and the top-level `stderr_cluster` the PATH. With `by: "task"`, a null
 * or no `stderr_cluster`, tasks are the unit, as above, and `stderr_cluster`
 * is null; so it is when the files (or a file's own records) disagree, with
 * a note naming what each says. McNemar's test stays on tasks.
 *
 * Groups: when the base file's records carry `metadata.groups` (`{ PATH:
 * value as text, or null }`, one entry per `run --group-by PATH`), `groups`
 * breaks the comparison down by each PATH and value (`(missing)` for a task
 * without one): over the paired tasks of the group, per scorer the paired
 * change (n, means, delta, SE, df, ci95, p_value, clusters) and pass@1
 * before and after. A task's group is the one its first trial in the BASE
 * file records; tasks the new file puts in another group are counted in
 * their base group, and a note says how many. Per-group p-values are
 * unadjusted (not corrected for the many groups) and gate nothing: the
 * verdicts, `regressed` and `--non-inferiority` are over all paired tasks.
 * A group value that is the text `(missing)` is shown with the tasks that
 * have none.
 *
 * Files without scores: when neither file carries any score (a run without
 * `--score`), the comparison is of completion (value 1 for a completed trial,
 * 0 otherwise) under the one measure `completed`, and every output says so:
 * a change in completion says nothing of correctness. When one file has
 * scores and the other none, or they share no scorer, nothing is comparable:
 * a `CompareInputError` says which scorers each file has.
 *
 * Usage: when either file's trials report token usage (an agent's
 * `output.usage` or `error.usage`, a judge's `scores[NAME].usage`), `usage`
 * counts per file the trials that report it and those priced (`cost_usd`,
 * from `run --pricing`). When both files report usage, `usage.tokens` is the
 * paired change of tokens per trial (agent and judges, `total_tokens`): a
 * task's value in a file is the mean over its trials that report usage, and
 * over the paired tasks with a value in both the means, delta, SE, df,
 * `ci95` and `p_value` are computed as a scorer's are, on the same unit
 * (tasks, or the clusters). `usage.cost_usd` is the same of `cost_usd` over
 * the trials that carry a cost, when both files are priced; otherwise null.
 * Usage is shown, never judged: the verdicts, `regressed` and the exit code
 * are the scorers' alone. Without usage in either file there is no `usage`.
 *
 * Memory: each file is read a line at a time, and per task a few counts are
 * kept (about 270 bytes a task with one scorer, about 80 more when its
 * trials report usage), and its group values and cluster value, never a
 * trial. A file that holds a trial twice is refused
 * (a duplicate trial id), and so is a `metadata.groups` that is not an
 * object of text values or nulls, or a malformed `metadata.stderr_cluster`,
 * naming the file and line.
 *
 * `--json FILE` writes the `Comparison` object below, field for field.
 * `--markdown FILE` writes the paired table, the verdicts and the flipped
 * tasks with both files' answers (`MarkdownOutput`), and when
 * `GITHUB_STEP_SUMMARY` is set the same is appended to it.
 *
 * @since 0.1.0
 */
import { Console, Effect, Option, Schema } from "effect"
import { checkDistinct, writeOutput } from "../../internal/outputs.ts"
import { appendStepSummary } from "../internal/ci.ts"
import { Registry } from "../internal/kinds.ts"
import * as MarkdownOutput from "../MarkdownOutput.ts"
import type { OutputFormat } from "../Output.ts"
import * as OutputFormats from "../OutputFormats.ts"
import { type CompareOptions, Comparison } from "../../report/compare/Model.ts"
import { fromTallies } from "./Diff.ts"
import { notNonInferior, regression } from "./Gate.ts"
import { toHtml } from "../../report/compare/Html.ts"
import { CompareInputError, tally } from "./Tally.ts"
import { format } from "../../report/compare/Text.ts"
import * as Recorded from "../Recorded.ts"

export { CompareInputError } from "./Tally.ts"
export { toHtml } from "../../report/compare/Html.ts"
export { format } from "../../report/compare/Text.ts"
export type { CompareOptions } from "../../report/compare/Model.ts"
export {
  Comparison,
  FileInfo,
  GroupComparison,
  GroupPassComparison,
  GroupScorerComparison,
  PairedChange,
  PassComparison,
  ScorerComparison,
  UsageChange,
  UsageComparison,
  UsageCounts,
  Verdict
} from "../../report/compare/Model.ts"

/**
 * Compares two results files: per shared scorer the paired change in mean
 * with its 95% interval and a verdict, pass@1 before and after, the tasks
 * that flipped, and what is in only one file. Bad input (a missing file, a
 * bad line, an unknown `pass` scorer, no scorer or task in common) is a
 * `CompareInputError`.
 *
 * **When to use**: in CI, after a change to an agent or its prompt, against
 * the results of the same tasks before the change.
 *
 * **Example** (Fail a check on a regression)
 *
 * ```ts
 * import { Console, Effect } from "effect"
 * import { Compare } from "agent-trials"
 *
 * export const check = Effect.gen(function*() {
 *   const comparison = yield* Compare.compare("runs/main.jsonl", "runs/branch.jsonl")
 *   yield* Console.log(Compare.format(comparison))
 *   return comparison.regressed.length === 0
 * })
 * ```
 *
 * @category comparing
 * @since 0.1.0
 */
export const compare = Effect.fn("Compare.compare")(function*(
  baseFile: string,
  newFile: string,
  options: CompareOptions = {}
) {
  const base = yield* tally(baseFile)
  const next = yield* tally(newFile)
  // The --pass each run recorded (null: every scorer; undefined: the file names no run).
  const recorded = {
    base: (yield* Recorded.definitionOf(baseFile))?.pass,
    new: (yield* Recorded.definitionOf(newFile))?.pass
  }
  return yield* fromTallies(base, next, options, recorded)
})

/**
 * What the `compare` command needs, after flags are read.
 *
 * @category models
 * @since 0.1.0
 */
export interface CompareConfig {
  readonly base: string
  readonly new: string
  readonly pass: string | undefined
  /** Also write the comparison as JSON here. */
  readonly json: string | undefined
  /** Also write a self-contained HTML page here. */
  readonly html: string | undefined
  readonly failOnRegression: boolean
  /**
   * A margin M >= 0: fail unless every judged scorer's 95% interval lies
   * above -M (a scorer without an interval cannot show it and fails).
   */
  readonly nonInferiority?: number | undefined
  /** The registry's outputs written after comparing (`--markdown`), each file by its format's flag. */
  readonly outputs?: Readonly<Record<string, string | undefined>> | undefined
  /** The output formats `outputs` names (the `Kinds.Registry` service's outputs when undefined, else the built-in ones). */
  readonly formats?: ReadonlyArray<OutputFormat> | undefined
}

/**
 * With `--fail-on-regression`: a judged scorer's change is below 0 with a
 * Holm-adjusted p below 0.05 (exit code 1). The message names each such
 * scorer with its change, interval and adjusted p.
 *
 * @category errors
 * @since 0.1.0
 */
export class Regressed extends Schema.TaggedError<Regressed>()("Regressed", {
  message: Schema.String,
  scorers: Schema.Array(Schema.String)
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * With `--non-inferiority M`: a scorer of both files whose 95% interval does
 * not lie wholly above -M, or has none (exit code 1). The message names each
 * with its lower bound.
 *
 * @category errors
 * @since 0.1.0
 */
export class NotNonInferior extends Schema.TaggedError<NotNonInferior>()("NotNonInferior", {
  message: Schema.String,
  scorers: Schema.Array(Schema.String)
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * `--json` or `--html` could not be written (exit code 1: the input was
 * fine). `flag` and `path` name the file; `problem` is the write's own error
 * (naming the flag, the file and the operating system's reason), or, with
 * `unfit`, what the comparison lacks to fit the `--json` Schema.
 *
 * @category errors
 * @since 0.1.0
 */
export class CompareWriteError extends Schema.TaggedError<CompareWriteError>()("CompareWriteError", {
  flag: Schema.String,
  path: Schema.String,
  problem: Schema.String,
  unfit: Schema.optionalKey(Schema.Boolean)
}) {
  override get message(): string {
    return this.unfit === true
      ? `cannot write ${this.flag} ${this.path}: the comparison does not fit its schema: ${this.problem}`
      : this.problem
  }
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

// The --json file: the fields in the Schema's order.
const encodeComparison = Schema.encodeEffect(Comparison)

/**
 * The `compare` command: refuses an output that is the same file as an
 * input or as the other output, compares, prints the text on stdout, writes
 * `--json` and `--html` (each atomically), then, with `failOnRegression`,
 * fails with `Regressed` when a scorer regressed, and with `nonInferiority`
 * with `NotNonInferior` when a scorer's interval reaches -M (a regression is
 * reported first; its message then names the scorers that are not
 * non-inferior too).
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.fn("Compare.run")(function*(config: CompareConfig) {
  const formats = config.formats ?? Option.match(yield* Effect.serviceOption(Registry), {
    onNone: () => OutputFormats.builtIn,
    onSome: (kinds) => kinds.outputs
  })
  // The registry's outputs asked for, each with its file.
  const outputs = formats.flatMap((format) => {
    const file = config.outputs?.[format.flag]
    return format.writeComparison === undefined || file === undefined ? [] : [[format, file] as const]
  })
  yield* checkDistinct({
    inputs: [{ flag: "BASE", path: config.base }, { flag: "NEW", path: config.new }],
    outputs: [
      { flag: "--json", path: config.json },
      { flag: "--html", path: config.html },
      ...outputs.map(([format, file]) => ({ flag: `--${format.flag}`, path: file }))
    ]
  }).pipe(Effect.mapError((e) => CompareInputError.from(e)))
  const comparison = yield* compare(config.base, config.new, { pass: config.pass })
  yield* Console.log(format(comparison))
  const write = (flag: string, file: string, text: string) =>
    writeOutput(flag, file, text).pipe(Effect.mapError((e) => new CompareWriteError({ flag, path: file, problem: e.message })))
  if (config.json !== undefined) {
    const path = config.json
    const json = yield* encodeComparison(comparison).pipe(
      Effect.mapError((e) => new CompareWriteError({ flag: "--json", path, problem: e.message, unfit: true }))
    )
    yield* write("--json", config.json, JSON.stringify(json, null, 2) + "\n")
  }
  if (config.html !== undefined) yield* write("--html", config.html, yield* Effect.sync(() => toHtml(comparison)))
  const context = { comparison, base: config.base, new: config.new }
  for (const [format, file] of outputs) {
    yield* format.writeComparison!(file, context).pipe(
      Effect.mapError((e) => new CompareWriteError({ flag: `--${format.flag}`, path: file, problem: e.message }))
    )
  }
  // GitHub Actions shows what a step appends to this file on the job's page; a failed read of the answers is a warning.
  yield* MarkdownOutput.renderComparison(context).pipe(
    Effect.flatMap(appendStepSummary),
    Effect.catch((e) => Console.error(`agent-trials: warning: cannot append the comparison to GITHUB_STEP_SUMMARY: ${e.message}`))
  )
  const inferior = config.nonInferiority === undefined ? undefined : notNonInferior(comparison, config.nonInferiority)
  const regressed = config.failOnRegression ? regression(comparison) : undefined
  if (regressed !== undefined) {
    return yield* new Regressed({
      message: `${regressed}${inferior === undefined ? "" : `; and ${inferior.message}`}`,
      scorers: comparison.regressed
    })
  }
  if (inferior !== undefined) return yield* new NotNonInferior(inferior)
  return comparison
})

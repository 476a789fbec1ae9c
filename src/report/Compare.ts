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
 * Student's t with n - 1 degrees of freedom (`Statistics.pairedDifference`).
 * The verdict: `regressed` when the whole interval lies below 0, `improved`
 * when it lies above, otherwise `no_significant_change`; with fewer than 2
 * paired tasks there is no interval and `no_verdict` (the reason is given).
 * Tasks and scorers present in only one file are listed, never matched.
 *
 * A trial passes when every scorer the two files share passed it (a score
 * with an error never passes; a failed trial never passes), or the one scorer
 * `pass` names; a trial that did not fail and lacks one of those scores does
 * not count. pass@1 of a file is the mean over tasks of passed / counted
 * trials, before and after over the paired tasks (with the paired interval of
 * its change) and over each file's own tasks. A task passes when all its
 * counted trials passed (with one epoch: its trial passed); the flips are the
 * paired tasks that passed before and not after (`pass_to_fail`) and the
 * reverse (`fail_to_pass`).
 *
 * Files without scores: when neither file carries any score (a run without
 * `--score`), the comparison is of completion (value 1 for a completed trial,
 * 0 otherwise) under the one measure `completed`, and every output says so:
 * a change in completion says nothing of correctness. When one file has
 * scores and the other none, or they share no scorer, nothing is comparable:
 * a `CompareInputError` says which scorers each file has.
 *
 * Memory: each file is read a line at a time, and per task a few counts are
 * kept (about 270 bytes a task with one scorer), never a trial. Every line
 * counts: a file that holds a trial twice counts it twice.
 *
 * `--json FILE` writes the `Comparison` object below, field for field.
 *
 * @since 0.1.0
 */
import { Console, Effect, Schema } from "effect"
import { checkDistinct, writeOutput } from "../internal/outputs.ts"
import type * as Statistics from "../scoring/Statistics.ts"
import { fromTallies } from "./CompareDiff.ts"
import { toHtml } from "./CompareHtml.ts"
import { CompareInputError, tally } from "./CompareTally.ts"
import { format } from "./CompareText.ts"

export { CompareInputError } from "./CompareTally.ts"
export { toHtml } from "./CompareHtml.ts"
export { format } from "./CompareText.ts"

/**
 * A scorer's verdict: the 95% interval of its change lies wholly below 0
 * (`regressed`), wholly above (`improved`), around 0
 * (`no_significant_change`), or there is none (`no_verdict`: fewer than 2
 * paired tasks).
 *
 * @category models
 * @since 0.1.0
 */
export type Verdict = "regressed" | "improved" | "no_significant_change" | "no_verdict"

/**
 * One side of the comparison.
 *
 * @category models
 * @since 0.1.0
 */
export interface FileInfo {
  readonly file: string
  /** Trials read (`InvalidTask` lines are not trials of a task: see `invalid_lines`). */
  readonly trials: number
  readonly failed_trials: number
  /** Trials that did not fail and carry no score. */
  readonly unscored_trials: number
  readonly invalid_lines: number
  readonly tasks: number
  /** The scorers its trials carry, in order of first appearance. */
  readonly scorers: ReadonlyArray<string>
}

/**
 * The change of one scorer: over the `n` tasks with a value in both files,
 * their means before and after, `delta = new_mean - base_mean` (the mean of
 * the per-task differences), the differences' `sd` and `standard_error`, and
 * the 95% t interval `ci95` on `df = n - 1`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScorerComparison {
  readonly name: string
  readonly n: number
  readonly base_mean: number | null
  readonly new_mean: number | null
  readonly delta: number | null
  readonly sd: number | null
  readonly standard_error: number | null
  readonly df: number | null
  readonly ci95: Statistics.Interval | null
  readonly verdict: Verdict
  /** Why there is no verdict; null otherwise. */
  readonly reason: string | null
}

/**
 * pass@1 before and after. `tasks`, `base`, `new`, `delta` and `ci95` are
 * over the paired tasks where the rule counts trials in both files;
 * `base_all` / `new_all` over each file's own tasks.
 *
 * @category models
 * @since 0.1.0
 */
export interface PassComparison {
  readonly tasks: number
  readonly base: number | null
  readonly new: number | null
  readonly delta: number | null
  readonly ci95: Statistics.Interval | null
  readonly base_all: { readonly tasks: number; readonly pass_at_1: number | null }
  readonly new_all: { readonly tasks: number; readonly pass_at_1: number | null }
}

/**
 * Everything `compare` found; `--json FILE` writes exactly this object.
 * Task id lists are complete and sorted (numbers in ids in numeric order).
 *
 * @category models
 * @since 0.1.0
 */
export interface Comparison {
  readonly base: FileInfo
  readonly new: FileInfo
  /** `scores`, or `completion` when neither file carries a score. */
  readonly measure: "scores" | "completion"
  /** `every shared scorer`, the scorer `--pass` named, or `completed`. */
  readonly pass_rule: string
  readonly tasks: {
    readonly paired: number
    readonly only_in_base: ReadonlyArray<string>
    readonly only_in_new: ReadonlyArray<string>
  }
  readonly scorers: ReadonlyArray<ScorerComparison>
  readonly scorers_only_in_base: ReadonlyArray<string>
  readonly scorers_only_in_new: ReadonlyArray<string>
  readonly pass_at_1: PassComparison
  readonly flips: { readonly pass_to_fail: ReadonlyArray<string>; readonly fail_to_pass: ReadonlyArray<string> }
  /** The scorers whose verdict is `regressed`. */
  readonly regressed: ReadonlyArray<string>
  /** What a reader should know to read the numbers (completion only, unscored trials, ...). */
  readonly notes: ReadonlyArray<string>
}

/**
 * Options of `compare`: `pass` names the scorer that decides whether a trial
 * passed (default: every scorer the files share).
 *
 * @category models
 * @since 0.1.0
 */
export interface CompareOptions {
  readonly pass?: string | undefined
}

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
  return yield* fromTallies(base, next, options)
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
}

/**
 * With `--fail-on-regression`: a scorer's change lies wholly below 0 (exit
 * code 1). The message names each such scorer with its change and interval.
 *
 * @category errors
 * @since 0.1.0
 */
export class Regressed extends Schema.TaggedError<Regressed>()("Regressed", {
  message: Schema.String,
  scorers: Schema.Array(Schema.String)
}) {}

/**
 * `--json` or `--html` could not be written (exit code 1: the input was
 * fine). The message names the flag, the file and the operating system's
 * reason.
 *
 * @category errors
 * @since 0.1.0
 */
export class CompareWriteError extends Schema.TaggedError<CompareWriteError>()("CompareWriteError", {
  message: Schema.String
}) {}

/**
 * The `compare` command: refuses an output that is the same file as an
 * input or as the other output, compares, prints the text on stdout, writes
 * `--json` and `--html` (each atomically), then, with `failOnRegression`,
 * fails with `Regressed` when a scorer regressed.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.fn("Compare.run")(function*(config: CompareConfig) {
  yield* checkDistinct({
    inputs: [{ flag: "BASE", path: config.base }, { flag: "NEW", path: config.new }],
    outputs: [{ flag: "--json", path: config.json }, { flag: "--html", path: config.html }]
  }).pipe(Effect.mapError((e) => new CompareInputError({ message: e.message })))
  const comparison = yield* compare(config.base, config.new, { pass: config.pass })
  yield* Console.log(format(comparison))
  const write = (flag: string, file: string, text: string) =>
    writeOutput(flag, file, text).pipe(Effect.mapError((e) => new CompareWriteError({ message: e.message })))
  if (config.json !== undefined) yield* write("--json", config.json, JSON.stringify(comparison, null, 2) + "\n")
  if (config.html !== undefined) yield* write("--html", config.html, yield* Effect.sync(() => toHtml(comparison)))
  if (config.failOnRegression && comparison.regressed.length > 0) {
    const which = comparison.scorers.filter((s) => s.verdict === "regressed").map((s) =>
      `${s.name} (delta ${s.delta!.toFixed(4)}, 95% CI [${s.ci95![0].toFixed(4)}, ${s.ci95![1].toFixed(4)}])`
    )
    return yield* new Regressed({
      message: `regression: ${which.join("; ")}`,
      scorers: comparison.regressed
    })
  }
  return comparison
})

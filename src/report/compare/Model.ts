/**
 * The model of a comparison: what `compare` finds, per scorer, for pass@1
 * and per group, and the options it takes. The renderers in report/ and the
 * steps of programs/Compare read and build it; `Compare` re-exports it.
 *
 * @internal
 */
import { Schema } from "effect"
import * as Statistics from "../../statistics/Statistics.ts"
import * as Summary from "../../summary/Summary.ts"

const Count = Schema.Number
const Figure = Schema.NullOr(Schema.Number)
const Interval = Schema.NullOr(Statistics.Interval)
const Names = Schema.Array(Schema.String)

/**
 * A scorer's verdict: the 95% interval of its change lies wholly below 0
 * (`regressed`), wholly above (`improved`), around 0
 * (`no_significant_change`), or there is none (`no_verdict`: fewer than 2
 * paired tasks).
 *
 * @category models
 * @since 0.1.0
 */
export const Verdict = Schema.Literals(["regressed", "improved", "no_significant_change", "no_verdict"])
export type Verdict = typeof Verdict.Type

/**
 * One side of the comparison.
 *
 * @category models
 * @since 0.1.0
 */
export const FileInfo = Schema.Struct({
  file: Schema.String,
  /** Trials read (`InvalidTask` lines are not trials of a task: see `invalid_lines`). */
  trials: Count,
  failed_trials: Count,
  /** Trials that did not fail and carry no score. */
  unscored_trials: Count,
  invalid_lines: Count,
  tasks: Count,
  /** The scorers its trials carry, in order of first appearance. */
  scorers: Names,
  /**
   * The file's own figures, exactly as `run --summary` gives them under
   * `scoring` (per scorer mean, clustered standard error and interval,
   * design effect, pass rate and its Wilson interval on n_eff, pass@k,
   * groups), from the same accumulator; null when its trials carry no score.
   */
  scoring: Schema.NullOr(Summary.ScoringSummary)
})
export type FileInfo = typeof FileInfo.Type

/**
 * The paired change of a measure over the `n` tasks with a value in both
 * files: their means before and after, `delta = new_mean - base_mean` (the
 * mean of the per-task differences), the differences' `sd` and
 * `standard_error`, the 95% t interval `ci95` on `df`, the two-sided p of
 * the paired t test that the change is 0 (null below 2 paired tasks), the
 * smallest change detectable at 80% power (two-sided 5%):
 * `(t(0.975, df) + t(0.80, df))·SE`, and, when the comparison is clustered
 * (`stderr_cluster`), G the clusters of the paired tasks and the design
 * effect `(standard_error / (sd/√n))²` (null when not clustered, or G < 2,
 * or sd 0). The one definition of these fields: each change below takes
 * its own of them.
 *
 * @category models
 * @since 0.7.0
 */
export const PairedChange = Schema.Struct({
  n: Count,
  base_mean: Figure,
  new_mean: Figure,
  delta: Figure,
  sd: Figure,
  standard_error: Figure,
  df: Figure,
  ci95: Interval,
  p_value: Figure,
  mde80: Figure,
  clusters: Figure,
  design_effect: Figure
})
export type PairedChange = typeof PairedChange.Type

const { base_mean, ci95, clusters, delta, design_effect, df, mde80, n, new_mean, p_value, sd, standard_error } = PairedChange.fields

/**
 * The change of one scorer (a `PairedChange` over the tasks with a value of
 * it in both files) and the tests beside it.
 *
 * @category models
 * @since 0.1.0
 */
export const ScorerComparison = Schema.Struct({
  name: Schema.String,
  n,
  base_mean,
  new_mean,
  delta,
  sd,
  standard_error,
  df,
  ci95,
  p_value,
  /** `p_value` adjusted by Holm's step-down over the judged scorers (those with a p-value). */
  p_holm: Figure,
  /** McNemar's exact p on the tasks whose pass/fail verdict flipped; null unless one epoch. */
  mcnemar_p: Figure,
  mde80,
  /** Per scorer, unadjusted: where the 95% interval lies (see the module doc). */
  verdict: Verdict,
  /** Why there is no verdict; null otherwise. */
  reason: Schema.NullOr(Schema.String),
  clusters,
  design_effect
})
export type ScorerComparison = typeof ScorerComparison.Type

/**
 * The change of one measure within a group: over the group's `n` paired
 * tasks with a value in both files, as `ScorerComparison` computes it on the
 * comparison's unit (`df` and `clusters` say which). The `p_value` is not
 * corrected for the many groups and gates nothing.
 *
 * @category models
 * @since 0.1.0
 */
export const GroupScorerComparison = Schema.Struct({ n, base_mean, new_mean, delta, standard_error, df, ci95, p_value, clusters })
export type GroupScorerComparison = typeof GroupScorerComparison.Type

/**
 * pass@1 within a group, before and after, over its paired tasks whose
 * trials count under the pass rule in both files (`tasks`); `p_value`
 * uncorrected, as in `GroupScorerComparison`.
 *
 * @category models
 * @since 0.1.0
 */
export const GroupPassComparison = Schema.Struct({
  tasks: n,
  base: base_mean,
  new: new_mean,
  delta,
  standard_error,
  ci95,
  p_value
})
export type GroupPassComparison = typeof GroupPassComparison.Type

/**
 * One group: the paired tasks whose first trial in the base file records
 * this value at the group's path (`tasks`), per measure its change, and
 * pass@1.
 *
 * @category models
 * @since 0.1.0
 */
export const GroupComparison = Schema.Struct({
  tasks: Count,
  scorers: Schema.Record(Schema.String, GroupScorerComparison),
  pass_at_1: GroupPassComparison
})
export type GroupComparison = typeof GroupComparison.Type

const PassAt1 = Schema.Struct({ tasks: Count, pass_at_1: Figure })

/**
 * pass@1 before and after. `tasks`, `base`, `new`, `delta` and `ci95` are
 * over the paired tasks where the rule counts trials in both files;
 * `base_all` / `new_all` over each file's own tasks.
 *
 * @category models
 * @since 0.1.0
 */
export const PassComparison = Schema.Struct({
  tasks: n,
  base: base_mean,
  new: new_mean,
  delta,
  ci95,
  /** Two-sided p of the paired t test of the per-task pass rates. */
  p_value,
  /** McNemar's exact p on the flipped tasks (`flips`); null unless one epoch. */
  mcnemar_p: Figure,
  mde80,
  base_all: PassAt1,
  new_all: PassAt1
})
export type PassComparison = typeof PassComparison.Type

/**
 * The paired change of what a trial spent, tokens or cost: over the `n`
 * paired tasks with a value in both files (a task's value: the mean over its
 * trials that report it), their means before and after, `delta = new_mean -
 * base_mean`, and its 95% interval and p on the comparison's unit, exactly as
 * a scorer's (`ScorerComparison`). It has no verdict: usage gates nothing.
 *
 * @category models
 * @since 0.4.0
 */
export const UsageChange = Schema.Struct({ n, base_mean, new_mean, delta, sd, standard_error, df, ci95, p_value, clusters, design_effect })
export type UsageChange = typeof UsageChange.Type

/**
 * One file's usage: its trials that report usage (agent or judge), and of
 * them those that carry a cost (`run --pricing`); with `run --cache`, its
 * trials served whole from the response cache (their usage is what the
 * answers used when first asked).
 *
 * @category models
 * @since 0.4.0
 */
export const UsageCounts = Schema.Struct({ trials: Count, priced_trials: Count, cached_trials: Schema.optionalKey(Count) })
export type UsageCounts = typeof UsageCounts.Type

/**
 * What the trials spent, before and after, per trial, agent and judges
 * together: `tokens` (`total_tokens`) when both files report usage, else
 * null; `cost_usd` when both are priced, else null. Shown beside the
 * scorers, never judged: the exit code does not depend on it.
 *
 * @category models
 * @since 0.4.0
 */
export const UsageComparison = Schema.Struct({
  base: UsageCounts,
  new: UsageCounts,
  tokens: Schema.NullOr(UsageChange),
  cost_usd: Schema.NullOr(UsageChange)
})
export type UsageComparison = typeof UsageComparison.Type

/**
 * Everything `compare` found; `--json FILE` writes exactly this object,
 * encoded in this order. Task id lists are complete and sorted (numbers in
 * ids in numeric order).
 *
 * @category models
 * @since 0.1.0
 */
export const Comparison = Schema.Struct({
  base: FileInfo,
  new: FileInfo,
  /** `scores`, or `completion` when neither file carries a score. */
  measure: Schema.Literals(["scores", "completion"]),
  /**
   * `every shared scorer`, the scorer `--pass` named (or, without it, the
   * one both runs recorded), `completed`, or `each run's own` when the two
   * runs recorded different rules (then `pass_rules` says which).
   */
  pass_rule: Schema.String,
  /** Each file's rule, when they differ (`pass_rule` is then `each run's own`). */
  pass_rules: Schema.optionalKey(Schema.Struct({ base: Schema.String, new: Schema.String })),
  tasks: Schema.Struct({ paired: Count, only_in_base: Names, only_in_new: Names }),
  scorers: Schema.Array(ScorerComparison),
  scorers_only_in_base: Names,
  scorers_only_in_new: Names,
  pass_at_1: PassComparison,
  flips: Schema.Struct({ pass_to_fail: Names, fail_to_pass: Names }),
  /** The scorers judged for `regressed` (those with a p-value), Holm's family. */
  judged: Names,
  /** Judged scorers with delta < 0 and `p_holm` < 0.05 (family-wise 5%). */
  regressed: Names,
  /** What a reader should know to read the numbers (completion only, unscored trials, ...). */
  notes: Names,
  /** The PATH whose values cluster the paired tasks (both files say so), or null: tasks are the unit. */
  stderr_cluster: Schema.NullOr(Schema.String),
  /**
   * By group PATH (the base file's `metadata.groups`), by value (`(missing)`
   * for a task without one), the group's comparison; `{}` without groups.
   */
  groups: Schema.Record(Schema.String, Schema.Record(Schema.String, GroupComparison)),
  /**
   * Per trial tokens and cost before and after, and their paired change;
   * absent when neither file's trials report usage.
   */
  usage: Schema.optionalKey(UsageComparison)
})
export type Comparison = typeof Comparison.Type

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
 * The `--pass` each file's run recorded (`RunDefinition.passOf`): a scorer,
 * `null` for every scorer, undefined when the file names no run.
 *
 * @category models
 * @since 0.4.0
 */
export interface RecordedPass {
  readonly base: string | null | undefined
  readonly new: string | null | undefined
}

/**
 * The model of a comparison: what `compare` finds, per scorer, for pass@1
 * and per group, and the options it takes. The renderers in report/ and the
 * steps of programs/Compare read and build it; `Compare` re-exports it.
 *
 * @internal
 */
import type * as Statistics from "../../statistics/Statistics.ts"
import type * as Summary from "../../summary/Summary.ts"

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
  /**
   * The file's own figures, exactly as `run --summary` gives them under
   * `scoring` (per scorer mean, clustered standard error and interval,
   * design effect, pass rate and its Wilson interval on n_eff, pass@k,
   * groups), from the same accumulator; null when its trials carry no score.
   */
  readonly scoring: Summary.ScoringSummary | null
}

/**
 * The change of one scorer: over the `n` tasks with a value in both files,
 * their means before and after, `delta = new_mean - base_mean` (the mean of
 * the per-task differences), the differences' `sd` and `standard_error`, the
 * 95% t interval `ci95` on `df = n - 1`, and the tests beside it.
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
  /** Two-sided p of the paired t test that the change is 0; null below 2 paired tasks. */
  readonly p_value: number | null
  /** `p_value` adjusted by Holm's step-down over the judged scorers (those with a p-value). */
  readonly p_holm: number | null
  /** McNemar's exact p on the tasks whose pass/fail verdict flipped; null unless one epoch. */
  readonly mcnemar_p: number | null
  /** The smallest change detectable at 80% power (two-sided 5%): `(t(0.975, n-1) + t(0.80, n-1))·sd/√n`. */
  readonly mde80: number | null
  /** Per scorer, unadjusted: where the 95% interval lies (see the module doc). */
  readonly verdict: Verdict
  /** Why there is no verdict; null otherwise. */
  readonly reason: string | null
  /** G, the clusters of the paired tasks when the comparison is clustered (`stderr_cluster`); null otherwise. */
  readonly clusters: number | null
  /**
   * `(standard_error / (sd/√n))²`, how many times the clustering inflates the
   * variance of the change; null when not clustered (or G < 2, or sd 0).
   */
  readonly design_effect: number | null
}

/**
 * The change of one measure within a group: over the group's `n` paired
 * tasks with a value in both files, as `ScorerComparison` computes it on the
 * comparison's unit (`df` and `clusters` say which). The `p_value` is not
 * corrected for the many groups and gates nothing.
 *
 * @category models
 * @since 0.1.0
 */
export interface GroupScorerComparison {
  readonly n: number
  readonly base_mean: number | null
  readonly new_mean: number | null
  readonly delta: number | null
  readonly standard_error: number | null
  readonly df: number | null
  readonly ci95: Statistics.Interval | null
  readonly p_value: number | null
  readonly clusters: number | null
}

/**
 * pass@1 within a group, before and after, over its paired tasks whose
 * trials count under the pass rule in both files (`tasks`); `p_value`
 * uncorrected, as in `GroupScorerComparison`.
 *
 * @category models
 * @since 0.1.0
 */
export interface GroupPassComparison {
  readonly tasks: number
  readonly base: number | null
  readonly new: number | null
  readonly delta: number | null
  readonly standard_error: number | null
  readonly ci95: Statistics.Interval | null
  readonly p_value: number | null
}

/**
 * One group: the paired tasks whose first trial in the base file records
 * this value at the group's path (`tasks`), per measure its change, and
 * pass@1.
 *
 * @category models
 * @since 0.1.0
 */
export interface GroupComparison {
  readonly tasks: number
  readonly scorers: Readonly<Record<string, GroupScorerComparison>>
  readonly pass_at_1: GroupPassComparison
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
  /** Two-sided p of the paired t test of the per-task pass rates. */
  readonly p_value: number | null
  /** McNemar's exact p on the flipped tasks (`flips`); null unless one epoch. */
  readonly mcnemar_p: number | null
  readonly mde80: number | null
  readonly base_all: { readonly tasks: number; readonly pass_at_1: number | null }
  readonly new_all: { readonly tasks: number; readonly pass_at_1: number | null }
}

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
export interface UsageChange {
  readonly n: number
  readonly base_mean: number | null
  readonly new_mean: number | null
  readonly delta: number | null
  readonly sd: number | null
  readonly standard_error: number | null
  readonly df: number | null
  readonly ci95: Statistics.Interval | null
  readonly p_value: number | null
  readonly clusters: number | null
  readonly design_effect: number | null
}

/**
 * One file's usage: its trials that report usage (agent or judge), and of
 * them those that carry a cost (`run --pricing`).
 *
 * @category models
 * @since 0.4.0
 */
export interface UsageCounts {
  readonly trials: number
  readonly priced_trials: number
}

/**
 * What the trials spent, before and after, per trial, agent and judges
 * together: `tokens` (`total_tokens`) when both files report usage, else
 * null; `cost_usd` when both are priced, else null. Shown beside the
 * scorers, never judged: the exit code does not depend on it.
 *
 * @category models
 * @since 0.4.0
 */
export interface UsageComparison {
  readonly base: UsageCounts
  readonly new: UsageCounts
  readonly tokens: UsageChange | null
  readonly cost_usd: UsageChange | null
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
  /**
   * `every shared scorer`, the scorer `--pass` named (or, without it, the
   * one both runs recorded), `completed`, or `each run's own` when the two
   * runs recorded different rules (then `pass_rules` says which).
   */
  readonly pass_rule: string
  /** Each file's rule, when they differ (`pass_rule` is then `each run's own`). */
  readonly pass_rules?: { readonly base: string; readonly new: string }
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
  /** The scorers judged for `regressed` (those with a p-value), Holm's family. */
  readonly judged: ReadonlyArray<string>
  /** Judged scorers with delta < 0 and `p_holm` < 0.05 (family-wise 5%). */
  readonly regressed: ReadonlyArray<string>
  /** What a reader should know to read the numbers (completion only, unscored trials, ...). */
  readonly notes: ReadonlyArray<string>
  /** The PATH whose values cluster the paired tasks (both files say so), or null: tasks are the unit. */
  readonly stderr_cluster: string | null
  /**
   * By group PATH (the base file's `metadata.groups`), by value (`(missing)`
   * for a task without one), the group's comparison; `{}` without groups.
   */
  readonly groups: Readonly<Record<string, Readonly<Record<string, GroupComparison>>>>
  /**
   * Per trial tokens and cost before and after, and their paired change;
   * absent when neither file's trials report usage.
   */
  readonly usage?: UsageComparison
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

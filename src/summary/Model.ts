/**
 * The summaries' shapes: what `run` and `score` write with `--summary FILE`.
 * Re-exported by `Summary.ts`.
 *
 * @since 0.1.0
 */
import type * as Clustered from "../statistics/Clustered.ts"
import type * as Labels from "./Labels.ts"
import type * as Statistics from "../statistics/Statistics.ts"

/**
 * The summary as written by `--summary FILE`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Summary {
  readonly run_id: string
  readonly results_file: string
  readonly outcome:
    | "finished"
    | "interrupted"
    | "input_error"
    | "too_many_failures"
    | "write_error"
    | "max_cost_reached"
    | "max_tokens_reached"
    | "tool_server_failed"
    | "source_failed"
  readonly trials: {
    readonly this_run: { readonly completed: number; readonly failed: number; readonly partial: number; readonly total: number }
    readonly already_recorded: { readonly completed: number; readonly failed: number; readonly partial: number; readonly total: number }
    readonly total: { readonly completed: number; readonly failed: number; readonly partial: number; readonly total: number }
    /**
     * This run's trials that are not in the file, so a `--resume` runs them:
     * `finished` ones not written when the run stopped (a failure budget, a
     * write failure), and `interrupted` ones stopped in flight.
     */
    readonly not_recorded: { readonly finished: number; readonly interrupted: number }
  }
  readonly error_types: Record<string, number>
  /** The first message of each type in `error_types`, on one line, scrubbed of secrets, clipped to 200 characters. */
  readonly error_messages?: Record<string, string>
  readonly latency_ms: { readonly p50: number | null; readonly p95: number | null; readonly p99: number | null; readonly max: number | null }
  readonly wall_time_s: number
  readonly throughput_per_s: number
  readonly parallelism: number
  readonly peak_active_calls: number
  readonly peak_outstanding: number
  readonly peak_live_fibers: number
  /** Attempts after the first, over this run's trials. */
  readonly retries: number
  /** The concurrency limit's range (it moves only with `--adaptive`). */
  readonly concurrency_limit: { readonly min: number; readonly max: number }
  readonly epochs: number
  /** What a pass is here: a completed trial (whether or not its answer was right). */
  readonly pass_at_k?: PassAtKSummary<"completed trials">
  /** Present when the run has scorers (`--score`). */
  readonly scoring?: ScoringSummary
  /** What the run read: present for a `--tasks` source. */
  readonly dataset?: DatasetSummary
  /** What the trials spent: present when any reported usage, or with `--pricing`. */
  readonly usage?: UsageSummary
  /** `run --estimate`: the whole run's projected usage from the trials run. */
  readonly estimate?: EstimateSummary
  /** The paths of agents that act: present when any trial recorded a trajectory. */
  readonly trajectory?: TrajectorySummary
}

/**
 * A count per trial: its mean (to 0.01), median, 95th percentile and maximum.
 *
 * @category models
 * @since 0.5.0
 */
export interface PerTrialCount {
  readonly mean: number
  readonly p50: number
  readonly p95: number
  readonly max: number
}

/**
 * What the trials with a trajectory did: their steps (model turns) and tool
 * calls per trial, every call and tool error, and each tool's, most called
 * first.
 *
 * @category models
 * @since 0.5.0
 */
export interface TrajectorySummary {
  /** Trials whose records carry a trajectory (a failed trial's error may keep one). */
  readonly trials: number
  readonly steps: PerTrialCount
  readonly tool_calls: PerTrialCount & { readonly total: number; readonly errors: number }
  readonly by_tool: ReadonlyArray<{ readonly name: string; readonly calls: number; readonly errors: number }>
}

/**
 * Tokens by kind and their cost, for one side (the agent's, the judges').
 *
 * @category models
 * @since 0.4.0
 */
export interface UsageTotals {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly total_tokens: number
  readonly cached_input_tokens: number
  readonly reasoning_tokens: number
  /** Null without `--pricing` (nothing priced). */
  readonly cost_usd: number | null
}

/**
 * A per-trial figure's mean and percentiles.
 *
 * @category models
 * @since 0.4.0
 */
export interface PerTrial {
  readonly mean: number | null
  readonly p50: number | null
  readonly p95: number | null
}

/**
 * What the file's trials spent (those already recorded and this run's),
 * agent and judges apart and together; per trial (over the trials that
 * report usage): tokens and cost; and the cost of a passed trial (total cost
 * / passed trials: every scorer passed, or the `--pass` one; completed
 * trials without scorers).
 *
 * @category models
 * @since 0.4.0
 */
export interface UsageSummary {
  /** Trials whose records carry usage (the agent's or a judge's). */
  readonly trials: number
  readonly agent: UsageTotals
  readonly judge: UsageTotals
  readonly total_tokens: number
  readonly cost_usd: number | null
  readonly per_trial: { readonly tokens: PerTrial; readonly cost_usd: PerTrial | null }
  readonly passed_trials: number
  readonly cost_per_passed_trial_usd: number | null
  /** This run's trials alone. */
  readonly this_run: { readonly trials: number; readonly total_tokens: number; readonly cost_usd: number | null }
  /** Models the pricing file does not list (priced at 0). */
  readonly unpriced_models: ReadonlyArray<string>
  /** The budgets the run had (`--max-cost`, `--max-tokens`), null when none. */
  readonly budget: {
    readonly max_cost_usd: number | null
    readonly max_tokens: number | null
    /** When a budget stopped the run: the calls in flight then (their estimate reserved, or interrupted). */
    readonly in_flight_at_stop?: number
  } | null
}

/**
 * `run --estimate`: from the trials run, the projected tokens and cost of
 * the whole run, each the mean per trial times the run's trials, with a 95%
 * interval (t over the trials run; null below 2).
 *
 * @category models
 * @since 0.4.0
 */
export interface EstimateSummary {
  readonly trials_run: number
  /** The run's trials (rows chosen x epochs); null when unknown (stdin). */
  readonly trials_total: number | null
  readonly tokens: EstimateFigure
  readonly cost_usd: EstimateFigure | null
}

/**
 * One projected figure of an estimate.
 *
 * @category models
 * @since 0.4.0
 */
export interface EstimateFigure {
  readonly per_trial: number | null
  readonly per_trial_ci95: Statistics.Interval | null
  readonly total: number | null
  readonly total_ci95: Statistics.Interval | null
}

/**
 * The dataset a run read and the rows it chose, so a run says exactly which
 * rows it used.
 *
 * @category models
 * @since 0.3.0
 */
export interface DatasetSummary {
  /** `--tasks` as given (`data.csv`, `hf:owner/name?split=test`). */
  readonly source: string
  /** The format it was read in (`--format`, else by its name). */
  readonly format: string
  /** `--map` as given, or null for the default rules. */
  readonly map: string | null
  readonly json_path: string | null
  /** `"all"`, or the rows chosen: `{ sample: 100, seed: 0 }`, `{ ids: { file, count, sha256 }, limit: 10 }`. */
  readonly rows: DatasetRows
  /** The revision (commit sha) read, for a versioned source (`hf:`). */
  readonly revision?: string
}

/**
 * The rows a run chose, as recorded.
 *
 * @category models
 * @since 0.3.0
 */
export type DatasetRows = "all" | {
  readonly limit?: number
  readonly sample?: number
  readonly shuffle?: boolean
  readonly seed?: number
  readonly ids?: { readonly file: string; readonly count: number; readonly sha256: string }
}

/**
 * pass@k and pass^k at the `ks` reported (`--pass-k`, default 1, min(5, K)
 * and K), over the tasks all of whose K trials are recorded: `estimates`
 * and `ci95` keyed `pass@k` and `pass^k`, the interval the mean of the
 * per-task estimates ± t(0.975, T - 1) · sd / √T over the T tasks (null
 * below 2 tasks, and for a k above the epochs).
 *
 * @category models
 * @since 0.1.0
 */
export interface PassAtKSummary<Counts extends string> {
  readonly counts: Counts
  readonly ks: ReadonlyArray<number>
  readonly tasks_scored: number
  readonly tasks_incomplete: number
  readonly tasks_by_passes: ReadonlyArray<number>
  readonly estimates: Record<string, number | null>
  readonly ci95: Record<string, Statistics.Interval | null>
}

/**
 * The scores of a run: per scorer its statistics, trials that passed (every
 * scorer passed, or the one `--pass` names), and pass@k over passes.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoringSummary {
  readonly scorers: Record<string, Clustered.ScorerStats>
  /** `"every scorer"` or the name of the scorer that decides. */
  readonly pass_rule: string
  /** How standard errors and intervals are clustered: `"task"`, the `--stderr-cluster` PATH, or `null` (not clustered). */
  readonly stderr_cluster: Labels.ClusterBy
  readonly trials: number
  readonly passed: number
  readonly pass_rate: number | null
  /** Wilson on the effective sample size `trials / max(1, pass_rate_design_effect)`. */
  readonly pass_rate_ci95: Statistics.Interval | null
  /** The design effect of the 0/1 pass indicators under the clusters; null when not clustered or undefined. */
  readonly pass_rate_design_effect: number | null
  /** Clusters (G) of the trials counted; null when not clustered. */
  readonly clusters: number | null
  /** Completed trials without the deciding scores (recorded by a run with other scorers): not counted above. */
  readonly not_scored: number
  readonly pass_at_k: PassAtKSummary<"passed trials">
  /** By `--group-by` PATH, by value (`(missing)` for none), by scorer; `{}` without groups. */
  readonly groups: Record<string, Record<string, Record<string, Clustered.ScorerStats>>>
  readonly parallelism: number
  readonly judge_parallelism: number | null
  readonly peak_active_scorer_calls: number
  readonly peak_outstanding: number
}

/**
 * The summary of `score`: what the scoring did (trials scored, scorer calls,
 * its wall time) and the scores, never the agent-call figures of the run
 * that made the trials (their latency, peaks and retries are that run's).
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoreSummary {
  readonly command: "score"
  readonly run_id: string
  /** The results file scored. */
  readonly input_file: string
  /** The scored file written. */
  readonly results_file: string
  readonly outcome: Summary["outcome"]
  readonly trials: {
    /** Trials scored by this command, by the status their run recorded. */
    readonly this_run: Summary["trials"]["this_run"]
    /** Trials `--resume` found already scored in the output. */
    readonly already_recorded: Summary["trials"]["already_recorded"]
    readonly total: Summary["trials"]["total"]
  }
  /** Scorer calls made by this command (a failed trial is copied, not scored). */
  readonly scorer_calls: number
  /** The scoring's wall time. */
  readonly wall_time_s: number
  /** Trials scored per second. */
  readonly throughput_per_s: number
  /** The epochs the trials' run had (from their records; 1 when they do not say). */
  readonly epochs: number
  readonly scoring: ScoringSummary
  /** What the file's trials spent, the new scores' judges included: present when any reported usage, or with `--pricing`. */
  readonly usage?: UsageSummary
  /** The paths of agents that act: present when any trial recorded a trajectory. */
  readonly trajectory?: TrajectorySummary
}

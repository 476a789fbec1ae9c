/**
 * The summaries' shapes, as Schemas: what `run` and `score` write with
 * `--summary FILE`, encoded when written (`report --summary` decodes the
 * part it reads, `Reported.ts`). Each shared part (the counts by status, an
 * interval, a scorer's statistics, a side's usage, pass@k) is defined once.
 * A struct's fields are in the order its JSON has them: encoding writes them
 * in this order. Re-exported by `Summary.ts`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Clustered from "../statistics/Clustered.ts"
import * as Statistics from "../statistics/Statistics.ts"

const Count = Schema.Number
const Figure = Schema.NullOr(Schema.Number)
const Interval = Schema.NullOr(Statistics.Interval)

/**
 * How a run ended.
 *
 * @category schemas
 * @since 0.7.0
 */
export const Outcome = Schema.Literals([
  "finished",
  "interrupted",
  "input_error",
  "too_many_failures",
  "write_error",
  "max_cost_reached",
  "max_tokens_reached",
  "tool_server_failed",
  "source_failed"
])

/**
 * Trials by the status of their record, and all of them.
 *
 * @category schemas
 * @since 0.7.0
 */
export const Counts = Schema.Struct({ completed: Count, failed: Count, partial: Count, total: Count })

/**
 * A count per trial: its mean (to 0.01), median, 95th percentile and maximum.
 *
 * @category models
 * @since 0.5.0
 */
export const PerTrialCount = Schema.Struct({ mean: Schema.Number, p50: Schema.Number, p95: Schema.Number, max: Schema.Number })
export type PerTrialCount = typeof PerTrialCount.Type

/**
 * What the trials with a trajectory did: their steps (model turns) and tool
 * calls per trial, every call and tool error, and each tool's, most called
 * first.
 *
 * @category models
 * @since 0.5.0
 */
export const TrajectorySummary = Schema.Struct({
  /** Trials whose records carry a trajectory (a failed trial's error may keep one). */
  trials: Count,
  steps: PerTrialCount,
  tool_calls: Schema.Struct({ ...PerTrialCount.fields, total: Count, errors: Count }),
  by_tool: Schema.Array(Schema.Struct({ name: Schema.String, calls: Count, errors: Count })),
  /**
   * With a simulated user (`--user`): the trials with a conversation, the
   * user's messages per trial, and the conversations `--max-user-turns` ended.
   */
  conversations: Schema.optionalKey(Schema.Struct({ trials: Count, user_messages: PerTrialCount, ended_by_max_user_turns: Count }))
})
export type TrajectorySummary = typeof TrajectorySummary.Type

/**
 * Tokens by kind and their cost, for one side (the agent's, the judges').
 *
 * @category models
 * @since 0.4.0
 */
export const UsageTotals = Schema.Struct({
  input_tokens: Count,
  output_tokens: Count,
  total_tokens: Count,
  cached_input_tokens: Count,
  reasoning_tokens: Count,
  /** Null without `--pricing` (nothing priced). */
  cost_usd: Figure
})
export type UsageTotals = typeof UsageTotals.Type

/**
 * A per-trial figure's mean and percentiles.
 *
 * @category models
 * @since 0.4.0
 */
export const PerTrial = Schema.Struct({ mean: Figure, p50: Figure, p95: Figure })
export type PerTrial = typeof PerTrial.Type

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
export const UsageSummary = Schema.Struct({
  /** Trials whose records carry usage (the agent's or a judge's). */
  trials: Count,
  agent: UsageTotals,
  judge: UsageTotals,
  /** A simulated user's model (`--user openai:...`), when any trial recorded it; in the totals. */
  user: Schema.optionalKey(UsageTotals),
  total_tokens: Count,
  cost_usd: Figure,
  per_trial: Schema.Struct({ tokens: PerTrial, cost_usd: Schema.NullOr(PerTrial) }),
  passed_trials: Count,
  cost_per_passed_trial_usd: Figure,
  /** This run's trials alone. */
  this_run: Schema.Struct({ trials: Count, total_tokens: Count, cost_usd: Figure }),
  /** Trials served whole from the response cache: what their answers used and would have cost; in no figure above. */
  cached: Schema.optionalKey(Schema.Struct({ trials: Count, ...UsageTotals.fields })),
  /** Models the pricing file does not list (priced at 0). */
  unpriced_models: Schema.Array(Schema.String),
  /** The budgets the run had (`--max-cost`, `--max-tokens`), null when none. */
  budget: Schema.NullOr(Schema.Struct({
    max_cost_usd: Figure,
    max_tokens: Figure,
    /** When a budget stopped the run: the calls in flight then (their estimate reserved, or interrupted). */
    in_flight_at_stop: Schema.optionalKey(Count)
  }))
})
export type UsageSummary = typeof UsageSummary.Type

/**
 * One projected figure of an estimate.
 *
 * @category models
 * @since 0.4.0
 */
export const EstimateFigure = Schema.Struct({ per_trial: Figure, per_trial_ci95: Interval, total: Figure, total_ci95: Interval })
export type EstimateFigure = typeof EstimateFigure.Type

/**
 * `run --estimate`: from the trials run, the projected tokens and cost of
 * the whole run, each the mean per trial times the run's trials, with a 95%
 * interval (t over the trials run; null below 2).
 *
 * @category models
 * @since 0.4.0
 */
export const EstimateSummary = Schema.Struct({
  trials_run: Count,
  /** The run's trials (rows chosen x epochs); null when unknown (stdin). */
  trials_total: Figure,
  tokens: EstimateFigure,
  cost_usd: Schema.NullOr(EstimateFigure)
})
export type EstimateSummary = typeof EstimateSummary.Type

/**
 * The rows a run chose, as recorded: `"all"`, or `{ sample: 100, seed: 0 }`,
 * `{ ids: { file, count, sha256 }, limit: 10 }`.
 *
 * @category models
 * @since 0.3.0
 */
export const DatasetRows = Schema.Union([
  Schema.Literal("all"),
  Schema.Struct({
    ids: Schema.optionalKey(Schema.Struct({ file: Schema.String, count: Count, sha256: Schema.String })),
    sample: Schema.optionalKey(Count),
    shuffle: Schema.optionalKey(Schema.Boolean),
    seed: Schema.optionalKey(Schema.Number),
    limit: Schema.optionalKey(Count)
  })
])
export type DatasetRows = typeof DatasetRows.Type

/**
 * The dataset a run read and the rows it chose, so a run says exactly which
 * rows it used.
 *
 * @category models
 * @since 0.3.0
 */
export const DatasetSummary = Schema.Struct({
  /** `--tasks` as given (`data.csv`, `hf:owner/name?split=test`). */
  source: Schema.String,
  /** The format it was read in (`--format`, else by its name). */
  format: Schema.String,
  /** `--map` as given, or null for the default rules. */
  map: Schema.NullOr(Schema.String),
  json_path: Schema.NullOr(Schema.String),
  rows: DatasetRows,
  /** The revision (commit sha) read, for a versioned source (`hf:`). */
  revision: Schema.optionalKey(Schema.String)
})
export type DatasetSummary = typeof DatasetSummary.Type

/**
 * pass@k and pass^k at the `ks` reported (`--pass-k`, default 1, min(5, K)
 * and K), over the tasks all of whose K trials are recorded: `estimates`
 * and `ci95` keyed `pass@k` and `pass^k`, the interval the mean of the
 * per-task estimates ± t(0.975, T - 1) · sd / √T over the T tasks (null
 * below 2 tasks, and for a k above the epochs). `counts` says what a pass is.
 *
 * @category models
 * @since 0.1.0
 */
export const PassAtKSummary = <const Counts extends string>(counts: Counts) =>
  Schema.Struct({
    counts: Schema.Literal(counts),
    ks: Schema.Array(Schema.Number),
    tasks_scored: Count,
    tasks_incomplete: Count,
    tasks_by_passes: Schema.Array(Count),
    estimates: Schema.Record(Schema.String, Figure),
    ci95: Schema.Record(Schema.String, Interval)
  })
export type PassAtKSummary<Counts extends string> = ReturnType<typeof PassAtKSummary<Counts>>["Type"]

const Scorers = Schema.Record(Schema.String, Clustered.ScorerStats)

/**
 * The scores of a run: per scorer its statistics, trials that passed (every
 * scorer passed, or the one `--pass` names), and pass@k over passes.
 *
 * @category models
 * @since 0.1.0
 */
export const ScoringSummary = Schema.Struct({
  scorers: Scorers,
  /** `"every scorer"` or the name of the scorer that decides. */
  pass_rule: Schema.String,
  /** How standard errors and intervals are clustered: `"task"`, the `--stderr-cluster` PATH, or `null` (not clustered). */
  stderr_cluster: Schema.NullOr(Schema.String),
  trials: Count,
  passed: Count,
  pass_rate: Figure,
  /** Wilson on the effective sample size `trials / max(1, pass_rate_design_effect)`. */
  pass_rate_ci95: Interval,
  /** The design effect of the 0/1 pass indicators under the clusters; null when not clustered or undefined. */
  pass_rate_design_effect: Figure,
  /** Clusters (G) of the trials counted; null when not clustered. */
  clusters: Figure,
  /** Completed trials without the deciding scores (recorded by a run with other scorers): not counted above. */
  not_scored: Count,
  pass_at_k: PassAtKSummary("passed trials"),
  /** By `--group-by` PATH, by value (`(missing)` for none), by scorer; `{}` without groups. */
  groups: Schema.Record(Schema.String, Schema.Record(Schema.String, Scorers)),
  parallelism: Count,
  judge_parallelism: Figure,
  peak_active_scorer_calls: Count,
  peak_outstanding: Count
})
export type ScoringSummary = typeof ScoringSummary.Type

/**
 * The summary as written by `--summary FILE`.
 *
 * @category models
 * @since 0.1.0
 */
export const Summary = Schema.Struct({
  run_id: Schema.String,
  results_file: Schema.String,
  outcome: Outcome,
  trials: Schema.Struct({
    this_run: Counts,
    already_recorded: Counts,
    total: Counts,
    /**
     * This run's trials that are not in the file, so a `--resume` runs them:
     * `finished` ones not written when the run stopped (a failure budget, a
     * write failure), and `interrupted` ones stopped in flight.
     */
    not_recorded: Schema.Struct({ finished: Count, interrupted: Count })
  }),
  error_types: Schema.Record(Schema.String, Count),
  /** The first message of each type in `error_types`, on one line, scrubbed of secrets, clipped to 200 characters. */
  error_messages: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  latency_ms: Schema.Struct({ p50: Figure, p95: Figure, p99: Figure, max: Figure }),
  wall_time_s: Schema.Number,
  /** This run's trials per second, those served whole from the response cache left out. */
  throughput_per_s: Schema.Number,
  /** With `--cache`: this run's trials by what the cache gave them (hits are not in latency, throughput or spend). */
  response_cache: Schema.optionalKey(Schema.Struct({ hit: Count, miss: Count, partial: Count })),
  parallelism: Count,
  peak_active_calls: Count,
  peak_outstanding: Count,
  peak_live_fibers: Count,
  /** Attempts after the first, over this run's trials. */
  retries: Count,
  /** The concurrency limit's range (it moves only with `--adaptive`). */
  concurrency_limit: Schema.Struct({ min: Count, max: Count }),
  epochs: Count,
  /** Present when the run has scorers (`--score`). */
  scoring: Schema.optionalKey(ScoringSummary),
  /** What the trials spent: present when any reported usage, or with `--pricing`. */
  usage: Schema.optionalKey(UsageSummary),
  /** The paths of agents that act: present when any trial recorded a trajectory. */
  trajectory: Schema.optionalKey(TrajectorySummary),
  /** What a pass is here: a completed trial (whether or not its answer was right). */
  pass_at_k: Schema.optionalKey(PassAtKSummary("completed trials")),
  /** What the run read: present for a `--tasks` source. */
  dataset: Schema.optionalKey(DatasetSummary),
  /** `run --estimate`: the whole run's projected usage from the trials run. */
  estimate: Schema.optionalKey(EstimateSummary)
})
export type Summary = typeof Summary.Type

/**
 * The summary of `score`: what the scoring did (trials scored, scorer calls,
 * its wall time) and the scores, never the agent-call figures of the run
 * that made the trials (their latency, peaks and retries are that run's).
 *
 * @category models
 * @since 0.1.0
 */
export const ScoreSummary = Schema.Struct({
  command: Schema.Literal("score"),
  run_id: Schema.String,
  /** The results file scored. */
  input_file: Schema.String,
  /** The scored file written. */
  results_file: Schema.String,
  outcome: Outcome,
  trials: Schema.Struct({
    /** Trials scored by this command, by the status their run recorded. */
    this_run: Counts,
    /** Trials `--resume` found already scored in the output. */
    already_recorded: Counts,
    total: Counts
  }),
  /** Scorer calls made by this command (a failed trial is copied, not scored). */
  scorer_calls: Count,
  /** The scoring's wall time. */
  wall_time_s: Schema.Number,
  /** Trials scored per second. */
  throughput_per_s: Schema.Number,
  /** The epochs the trials' run had (from their records; 1 when they do not say). */
  epochs: Count,
  scoring: ScoringSummary,
  /** What the file's trials spent, the new scores' judges included: present when any reported usage, or with `--pricing`. */
  usage: Schema.optionalKey(UsageSummary),
  /** The paths of agents that act: present when any trial recorded a trajectory. */
  trajectory: Schema.optionalKey(TrajectorySummary)
})
export type ScoreSummary = typeof ScoreSummary.Type

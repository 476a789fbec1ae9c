/**
 * The end-of-run summary, accumulated in constant space: counts by status, a
 * fixed log-scale latency histogram for percentiles, and, when a task is tried
 * several times, a histogram of tasks by how many of their trials completed
 * (all pass@k needs). Only tasks whose epochs are still running are held
 * individually, and with bounded admission those are at most about
 * `parallelism` (plus those a resumed run found half done).
 *
 * @since 0.1.0
 */
import { Exit, Option } from "effect"
import { significant } from "../internal/figures.ts"
import { CONTROLS, mark } from "../internal/htmlText.ts"
import type { ProbeSnapshot } from "../runner/Probe.ts"
import * as Clustered from "./Clustered.ts"
import * as Labels from "./Labels.ts"
import * as PassAtK from "./PassAtK.ts"
import * as Statistics from "./Statistics.ts"
import type { AgentEvalTrial, TrialStatus } from "../domain/Trial.ts"

// Buckets grow by 5%: a percentile is reported to within about ±2.5%.
const GROWTH = 1.05
const MIN_MS = 0.001
const BUCKETS = Math.ceil(Math.log(1e8 / MIN_MS) / Math.log(GROWTH)) + 2

/**
 * A latency histogram with fixed buckets.
 *
 * @category models
 * @since 0.1.0
 */
export class LatencyHistogram {
  readonly counts = new Float64Array(BUCKETS)
  total = 0
  max = 0

  record(ms: number): void {
    const b = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(ms / MIN_MS) / Math.log(GROWTH)))
    this.counts[b]++
    this.total++
    if (ms > this.max) this.max = ms
  }

  /** The latencies bucket `b` of `counts` holds, in ms: `[low, high)` (bucket 0 is `[0, 0.001]`). */
  bucketRange(b: number): readonly [low: number, high: number] {
    return b === 0 ? [0, MIN_MS] : [MIN_MS * GROWTH ** (b - 1), MIN_MS * GROWTH ** b]
  }

  /** The q-quantile (0..1), as the geometric middle of its bucket; undefined when empty. */
  quantile(q: number): number | undefined {
    if (this.total === 0) return undefined
    const rank = Math.max(1, Math.ceil(q * this.total))
    let seen = 0
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]
      if (seen >= rank) {
        if (b === 0) return MIN_MS
        const low = MIN_MS * GROWTH ** (b - 1)
        return Math.min(this.max, low * Math.sqrt(GROWTH))
      }
    }
    return this.max
  }
}

/**
 * Which scorers a run's trials carry, and which decide whether a trial
 * passed: every scorer, or the one `pass` names. `stderrCluster` is how the
 * standard errors are clustered (`"task"`, a dotted PATH into the task, or
 * `null` for none); left out, it is read off the first trial counted (its
 * `metadata.stderr_cluster`), and on records that do not say, by task when
 * epochs > 1.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoringOptions {
  readonly scorers: ReadonlyArray<string>
  readonly pass?: string | undefined
  readonly stderrCluster?: Labels.ClusterBy | undefined
}

/**
 * The tallies of one group (a value of a `--group-by` PATH): per scorer its
 * clustered statistics.
 *
 * @category models
 * @since 0.1.0
 */
export type GroupTally = Map<string, Clustered.ScoreAccumulator>

/**
 * The tallies of scored trials (this run's and those already recorded): per
 * scorer its statistics, and trials by whether they passed, per task for
 * pass@k, per group of each `--group-by` PATH the trial records carry. A
 * failed trial counts in every scorer's `trials` and never passes. A
 * completed trial without a score of a scorer (recorded by an earlier run
 * with other scorers) is counted in `not_scored` and left out of the rest.
 *
 * Clustered by task, a task's cluster is closed (its sums folded away) once
 * all its epochs are in, so memory stays with the tasks in flight; clustered
 * by a PATH's value, one entry per distinct value is kept to the end.
 *
 * @category models
 * @since 0.1.0
 */
export class ScoreTally {
  readonly stats = new Map<string, Clustered.ScoreAccumulator>()
  readonly decisive: ReadonlyArray<string>
  trials = 0
  passed = 0
  notScored = 0
  /**
   * tasksByPasses[c]: tasks all of whose `epochs` trials are recorded, c of
   * them passed. It grows to the largest c seen, not to `epochs + 1` up front.
   */
  readonly tasksByPasses: Array<number> = []
  /** By PATH, by value (`Labels.MISSING` for none). */
  readonly groups = new Map<string, Map<string, GroupTally>>()
  private readonly open = new Map<string, { n: number; c: number }>()
  private passes: Clustered.Accumulator | undefined
  private by: Labels.ClusterBy | undefined
  readonly options: ScoringOptions
  readonly epochs: number

  constructor(options: ScoringOptions, epochs: number) {
    this.options = options
    this.epochs = epochs
    this.decisive = options.pass === undefined ? options.scorers : [options.pass]
    if (options.stderrCluster !== undefined) this.start(options.stderrCluster)
  }

  /** How the standard errors are clustered; undefined until a trial is counted (when not given). */
  get stderrCluster(): Labels.ClusterBy | undefined {
    return this.by
  }

  /** The overall pass indicators' clustered moments (their design effect widens the pass rate's interval). */
  passSnapshot(): Clustered.ClusteredMoments | undefined {
    return this.passes?.snapshot()
  }

  private start(by: Labels.ClusterBy): void {
    this.by = by
    const clustered = by !== null
    for (const name of this.options.scorers) this.stats.set(name, Clustered.scores({ clustered }))
    this.passes = Clustered.accumulator({ clustered })
  }

  add(trial: AgentEvalTrial): void {
    if (trial.error?.type === "InvalidTask") return
    const failed = trial.status === "failed"
    const scores = trial.scores
    if (!failed && (scores === undefined || this.decisive.some((name) => scores[name] === undefined))) {
      this.notScored++
      return
    }
    if (this.by === undefined) {
      const recorded = Labels.clusterByOf(trial)
      this.start(recorded === undefined ? Labels.clusterBy(undefined, this.epochs) : recorded)
    }
    const by = this.by!
    const cluster = Labels.clusterKey(trial, by)
    const groups = this.groupsOf(trial)
    for (const [name, stats] of this.stats) {
      const score = scores?.[name]
      if (failed) {
        stats.addFailedTrial(cluster)
        for (const group of groups) group.get(name)?.addFailedTrial(cluster)
      } else if (score !== undefined) {
        stats.add(score, cluster)
        for (const group of groups) group.get(name)?.add(score, cluster)
      }
    }
    const passed = !failed && this.decisive.every((name) => {
      const score = scores![name]!
      return score.passed && score.error === undefined
    })
    this.trials++
    if (passed) this.passed++
    this.passes!.add(passed ? 1 : 0, cluster)
    if (this.epochs <= 1) {
      countTask(this.tasksByPasses, passed ? 1 : 0)
      if (by === "task") this.close(cluster!, groups)
      return
    }
    const entry = this.open.get(trial.task_id) ?? { n: 0, c: 0 }
    entry.n++
    if (passed) entry.c++
    if (entry.n >= this.epochs) {
      this.open.delete(trial.task_id)
      countTask(this.tasksByPasses, Math.min(entry.c, this.epochs))
      if (by === "task") this.close(cluster!, groups)
    } else {
      this.open.set(trial.task_id, entry)
    }
  }

  get incompleteTasks(): number {
    return this.open.size
  }

  private close(cluster: string, groups: ReadonlyArray<GroupTally>): void {
    for (const stats of this.stats.values()) stats.close(cluster)
    for (const group of groups) for (const stats of group.values()) stats.close(cluster)
    this.passes!.close(cluster)
  }

  // The tallies of the groups a trial is in, made on first sight.
  private groupsOf(trial: AgentEvalTrial): ReadonlyArray<GroupTally> {
    const out: Array<GroupTally> = []
    for (const [path, value] of Object.entries(Labels.groupsOf(trial))) {
      let byValue = this.groups.get(path)
      if (byValue === undefined) this.groups.set(path, byValue = new Map())
      const key = value ?? Labels.MISSING
      let group = byValue.get(key)
      if (group === undefined) {
        group = new Map()
        for (const name of this.options.scorers) group.set(name, Clustered.scores({ clustered: this.by !== null }))
        byValue.set(key, group)
      }
      out.push(group)
    }
    return out
  }
}

// One more task with c passes; the histogram grows to c on demand.
const countTask = (tasksByPasses: Array<number>, c: number): void => {
  while (tasksByPasses.length <= c) tasksByPasses.push(0)
  tasksByPasses[c]++
}

/**
 * Accumulates a run's trials.
 *
 * @category models
 * @since 0.1.0
 */
export class Accumulator {
  readonly thisRun = { completed: 0, failed: 0, partial: 0 }
  readonly prior = { completed: 0, failed: 0, partial: 0 }
  readonly latency = new LatencyHistogram()
  readonly errorTypes = new Map<string, number>()
  /**
   * tasksByPasses[c]: tasks all of whose `epochs` trials are recorded, c of
   * them completed. It grows to the largest c seen, not to `epochs + 1` up front.
   */
  readonly tasksByPasses: Array<number> = []
  private readonly open = new Map<string, { n: number; c: number }>()

  readonly epochs: number
  /** Set when the run has scorers. */
  readonly scoring: ScoreTally | undefined

  constructor(epochs: number, scoring?: ScoringOptions) {
    this.epochs = epochs
    this.scoring = scoring === undefined || scoring.scorers.length === 0 ? undefined : new ScoreTally(scoring, epochs)
  }

  add(trial: AgentEvalTrial, prior = false): void {
    this.scoring?.add(trial)
    const counts = prior ? this.prior : this.thisRun
    counts[trial.status]++
    if (!prior) this.latency.record(trial.metadata.latency_ms)
    if (trial.error !== undefined && !prior) {
      this.errorTypes.set(trial.error.type, (this.errorTypes.get(trial.error.type) ?? 0) + 1)
    }
    if (this.epochs > 1 && trial.error?.type !== "InvalidTask") this.addToTask(trial.task_id, trial.status)
  }

  private addToTask(taskId: string, status: TrialStatus): void {
    const entry = this.open.get(taskId) ?? { n: 0, c: 0 }
    entry.n++
    if (status === "completed") entry.c++
    if (entry.n >= this.epochs) {
      this.open.delete(taskId)
      countTask(this.tasksByPasses, Math.min(entry.c, this.epochs))
    } else {
      this.open.set(taskId, entry)
    }
  }

  /** Tasks with some but not all of their trials recorded. */
  get incompleteTasks(): number {
    return this.open.size
  }
}

/**
 * The unbiased pass@k estimator over tasks with n trials each, from the
 * histogram of tasks by completed trials: mean of 1 - C(n-c, k) / C(n, k).
 * `n`, the trials per task, defaults to the histogram's last index; pass it
 * when the histogram holds only the counts seen (as the summary's does).
 *
 * @category statistics
 * @since 0.1.0
 */
export const passAtK = (
  tasksByPasses: ReadonlyArray<number>,
  k: number,
  n: number = tasksByPasses.length - 1
): number | undefined => {
  const tasks = tasksByPasses.reduce((a, b) => a + b, 0)
  if (tasks === 0 || k < 1 || k > n) return undefined
  let sum = 0
  for (let c = 0; c < tasksByPasses.length && c <= n; c++) {
    if (tasksByPasses[c] === 0) continue
    // C(n-c, k) / C(n, k) = prod_{i=0}^{k-1} (n-c-i) / (n-i)
    let fail = 1
    for (let i = 0; i < k; i++) fail *= Math.max(0, n - c - i) / (n - i)
    sum += tasksByPasses[c] * (1 - fail)
  }
  return sum / tasks
}

/**
 * The summary as written by `--summary FILE`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Summary {
  readonly run_id: string
  readonly results_file: string
  readonly outcome: "finished" | "interrupted" | "input_error" | "too_many_failures" | "write_error"
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

const withTotal = (c: { completed: number; failed: number; partial: number }) => ({
  ...c,
  total: c.completed + c.failed + c.partial
})

const round = (x: number | undefined, digits = 3): number | null =>
  x === undefined ? null : Math.round(x * 10 ** digits) / 10 ** digits

/**
 * Builds the summary from an accumulator and the run's probe.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (input: {
  readonly runId: string
  readonly resultsFile: string
  readonly outcome: Summary["outcome"]
  readonly acc: Accumulator
  readonly probe: ProbeSnapshot
  readonly wallMs: number
  readonly parallelism: number
  /** The k of pass@k reported (default 1, min(5, epochs), epochs). */
  readonly passK?: ReadonlyArray<number> | undefined
  /** The scoring stage's probe and limits, when the run has scorers. */
  readonly scoring?: {
    readonly probe: ProbeSnapshot
    readonly parallelism: number
    readonly judgeParallelism?: number | undefined
  } | undefined
}): Summary => {
  const { acc } = input
  const thisRun = withTotal(acc.thisRun)
  const prior = withTotal(acc.prior)
  const wall_time_s = input.wallMs / 1000
  const summary: Summary = {
    run_id: input.runId,
    results_file: input.resultsFile,
    outcome: input.outcome,
    trials: {
      this_run: thisRun,
      already_recorded: prior,
      total: withTotal({
        completed: thisRun.completed + prior.completed,
        failed: thisRun.failed + prior.failed,
        partial: thisRun.partial + prior.partial
      }),
      not_recorded: {
        finished: Math.max(0, input.probe.completed - thisRun.total),
        interrupted: input.probe.interrupted
      }
    },
    error_types: Object.fromEntries(acc.errorTypes),
    latency_ms: {
      p50: round(acc.latency.quantile(0.5)),
      p95: round(acc.latency.quantile(0.95)),
      p99: round(acc.latency.quantile(0.99)),
      max: acc.latency.total === 0 ? null : round(acc.latency.max)
    },
    wall_time_s: round(wall_time_s) ?? 0,
    throughput_per_s: round(wall_time_s > 0 ? thisRun.total / wall_time_s : 0, 1) ?? 0,
    parallelism: input.parallelism,
    peak_active_calls: input.probe.peakActive,
    peak_outstanding: input.probe.peakOutstanding,
    peak_live_fibers: input.probe.peakLiveFibers,
    retries: input.probe.retries,
    concurrency_limit: { min: input.probe.lowestLimit, max: input.probe.highestLimit },
    epochs: acc.epochs
  }
  const ks = input.passK ?? defaultPassK(acc.epochs)
  const scoring = scoringSummary(acc, ks, input.scoring)
  const scored = scoring === undefined ? summary : { ...summary, scoring }
  if (acc.epochs <= 1) return scored
  return {
    ...scored,
    pass_at_k: passAtKSummary("completed trials", acc.tasksByPasses, acc.incompleteTasks, acc.epochs, ks)
  }
}

/**
 * The k of pass@k a summary reports without `--pass-k`: 1, min(5, K) and K.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultPassK = (epochs: number): ReadonlyArray<number> =>
  [...new Set([1, Math.min(5, epochs), epochs])]

const passAtKSummary = <Counts extends string>(
  counts: Counts,
  tasksByPasses: ReadonlyArray<number>,
  incomplete: number,
  epochs: number,
  ks: ReadonlyArray<number>
): PassAtKSummary<Counts> => {
  const histogram = padded(tasksByPasses, epochs)
  const estimates: Record<string, number | null> = {}
  const ci95: Record<string, Statistics.Interval | null> = {}
  for (const measure of ["pass@k", "pass^k"] as const) {
    for (const k of ks) {
      const key = measure.replace("k", String(k))
      const e = PassAtK.fromHistogram(histogram, k, measure)
      estimates[key] = round(e.estimate ?? undefined, 4)
      ci95[key] = roundInterval(e.ci95)
    }
  }
  return {
    counts,
    ks,
    tasks_scored: tasksByPasses.reduce((a, b) => a + b, 0),
    tasks_incomplete: incomplete,
    tasks_by_passes: histogram,
    estimates,
    ci95
  }
}

// The JSON's histogram has an entry for every count 0..epochs (epochs are at
// most Errors.MAX_EPOCHS), zeros included.
const padded = (tasksByPasses: ReadonlyArray<number>, epochs: number): ReadonlyArray<number> =>
  Array.from({ length: Math.max(1, epochs) + 1 }, (_, c) => tasksByPasses[c] ?? 0)

const roundInterval = (ci: Statistics.Interval | null, digits = 4): Statistics.Interval | null =>
  ci === null ? null : [round(ci[0], digits)!, round(ci[1], digits)!]

const roundStats = (s: Clustered.ScorerStats): Clustered.ScorerStats => ({
  ...s,
  mean: round(s.mean ?? undefined, 4),
  sd: round(s.sd ?? undefined, 4),
  standard_error: round(s.standard_error ?? undefined, 4),
  ci95: roundInterval(s.ci95),
  iid_standard_error: round(s.iid_standard_error ?? undefined, 4),
  design_effect: round(s.design_effect ?? undefined, 4),
  pass_rate: round(s.pass_rate ?? undefined, 4),
  pass_rate_ci95: roundInterval(s.pass_rate_ci95),
  pass_rate_design_effect: round(s.pass_rate_design_effect ?? undefined, 4)
})

const scoringSummary = (
  acc: Accumulator,
  ks: ReadonlyArray<number>,
  stage: Parameters<typeof make>[0]["scoring"]
): ScoringSummary | undefined => {
  const tally = acc.scoring
  if (tally === undefined) return undefined
  const scorers: Record<string, Clustered.ScorerStats> = {}
  const stderrCluster = tally.stderrCluster === undefined ? Labels.clusterBy(undefined, acc.epochs) : tally.stderrCluster
  const unclustered = Clustered.scores({ clustered: stderrCluster !== null }).snapshot()
  for (const name of tally.options.scorers) scorers[name] = roundStats(tally.stats.get(name)?.snapshot() ?? unclustered)
  const groups: ScoringSummary["groups"] = {}
  for (const [path, byValue] of tally.groups) {
    const values: Record<string, Record<string, Clustered.ScorerStats>> = {}
    for (const [value, group] of byValue) {
      values[value] = Object.fromEntries([...group].map(([name, stats]) => [name, roundStats(stats.snapshot())]))
    }
    groups[path] = values
  }
  const passes = tally.passSnapshot()
  const passDeff = passes?.design_effect ?? null
  return {
    scorers,
    pass_rule: tally.options.pass ?? "every scorer",
    stderr_cluster: stderrCluster,
    trials: tally.trials,
    passed: tally.passed,
    pass_rate: tally.trials === 0 ? null : round(tally.passed / tally.trials, 4),
    pass_rate_ci95: roundInterval(Clustered.wilson(tally.passed, tally.trials, passDeff)),
    pass_rate_design_effect: round(passDeff ?? undefined, 4),
    clusters: stderrCluster === null ? null : passes?.clusters ?? 0,
    not_scored: tally.notScored,
    pass_at_k: passAtKSummary("passed trials", tally.tasksByPasses, tally.incompleteTasks, acc.epochs, ks),
    groups,
    parallelism: stage?.parallelism ?? 0,
    judge_parallelism: stage?.judgeParallelism ?? null,
    peak_active_scorer_calls: stage?.probe.peakActive ?? 0,
    peak_outstanding: stage?.probe.peakOutstanding ?? 0
  }
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
}

/**
 * Builds `score`'s summary from its accumulator (the trials it wrote, and
 * those already in the output) and its scoring stage's probe.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeScore = (input: {
  readonly runId: string
  readonly inputFile: string
  readonly resultsFile: string
  readonly outcome: Summary["outcome"]
  readonly acc: Accumulator
  readonly scorerCalls: number
  readonly wallMs: number
  readonly passK?: ReadonlyArray<number> | undefined
  readonly scoring: {
    readonly probe: ProbeSnapshot
    readonly parallelism: number
    readonly judgeParallelism?: number | undefined
  }
}): ScoreSummary => {
  const { acc } = input
  const thisRun = withTotal(acc.thisRun)
  const prior = withTotal(acc.prior)
  const wall_time_s = input.wallMs / 1000
  const scoring = scoringSummary(acc, input.passK ?? defaultPassK(acc.epochs), input.scoring)
  return {
    command: "score",
    run_id: input.runId,
    input_file: input.inputFile,
    results_file: input.resultsFile,
    outcome: input.outcome,
    trials: {
      this_run: thisRun,
      already_recorded: prior,
      total: withTotal({
        completed: thisRun.completed + prior.completed,
        failed: thisRun.failed + prior.failed,
        partial: thisRun.partial + prior.partial
      })
    },
    scorer_calls: input.scorerCalls,
    wall_time_s: round(wall_time_s) ?? 0,
    throughput_per_s: round(wall_time_s > 0 ? thisRun.total / wall_time_s : 0, 1) ?? 0,
    epochs: acc.epochs,
    // A score command always has scorers.
    scoring: scoring!
  }
}

/**
 * `score`'s summary as text.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatScore = (s: ScoreSummary): string => {
  const t = s.trials
  return [
    `score ${s.input_file} -> ${s.results_file}: ${s.outcome}`,
    `  trials written: ${t.this_run.total} (${t.this_run.completed + t.this_run.partial} scored, ` +
      `${t.this_run.failed} failed trials copied unscored)` +
      `; already scored: ${t.already_recorded.total}` +
      `; total in file: ${t.total.total}`,
    `  scorer calls ${s.scorer_calls}, wall time ${s.wall_time_s} s, ${s.throughput_per_s} trials scored/s` +
      (s.epochs > 1 ? `; ${s.epochs} epochs` : ""),
    ...formatScoring(s.scoring),
    `  results: ${s.results_file}`
  ].join("\n")
}

/**
 * The summary as text.
 *
 * @category formatting
 * @since 0.1.0
 */
export const format = (s: Summary): string => {
  const t = s.trials
  const lines = [
    `run ${s.run_id}: ${s.outcome}`,
    `  trials this run: ${t.this_run.total} (completed ${t.this_run.completed}, failed ${t.this_run.failed}, partial ${t.this_run.partial})`,
    `  already recorded: ${t.already_recorded.total}    total in file: ${t.total.total} (completed ${t.total.completed}, failed ${t.total.failed})`,
    ...(t.not_recorded.finished + t.not_recorded.interrupted > 0
      ? [
        `  not recorded (--resume runs them): finished ${t.not_recorded.finished}, interrupted ${t.not_recorded.interrupted}`
      ]
      : []),
    `  latency ms: p50 ${latency(s.latency_ms.p50)}  p95 ${latency(s.latency_ms.p95)}  p99 ${latency(s.latency_ms.p99)}  max ${latency(s.latency_ms.max)}`,
    `  wall time ${s.wall_time_s} s, throughput ${s.throughput_per_s} trials/s`,
    `  parallelism ${s.parallelism}: peak active calls ${s.peak_active_calls}, peak outstanding ${s.peak_outstanding}, peak live fibers ${s.peak_live_fibers}`
  ]
  if (s.retries > 0 || s.concurrency_limit.min !== s.concurrency_limit.max) {
    lines.push(
      `  retries ${s.retries}, concurrency limit ${s.concurrency_limit.min}..${s.concurrency_limit.max}`
    )
  }
  const errors = Object.entries(s.error_types)
  if (errors.length > 0) lines.push(`  failures by type: ${errors.map(([k, v]) => `${k} ${v}`).join(", ")}`)
  if (s.pass_at_k !== undefined) {
    const p = s.pass_at_k
    lines.push(
      `  ${s.epochs} epochs, counting completed trials: ${p.tasks_scored} tasks with every trial recorded ` +
        `(${p.tasks_incomplete} incomplete); ${estimatesText(p)}`
    )
    // Only the counts some task has (c:n, n tasks with c completed trials): one entry per epoch would
    // fill the screen at large K.
    const counts = p.tasks_by_passes.flatMap((n, c) => (n > 0 ? [`${c}:${n}`] : []))
    lines.push(`  tasks by completed trials (completed:tasks, nonzero only): ${counts.length === 0 ? "none" : counts.join(" ")}`)
  }
  if (s.scoring === undefined) {
    lines.push(
      s.pass_at_k === undefined
        ? `  not scored (no --score): "completed" means the agent answered, not that the answer was right`
        : `  pass@k above counts completed trials, not correct answers: no scorer checked them (--score)`
    )
  } else {
    lines.push(...formatScoring(s.scoring))
  }
  lines.push(`  results: ${s.results_file}`)
  return lines.join("\n")
}

const num = (x: number | null) => (x === null ? "-" : String(x))
// Three significant digits: the percentiles are good to about ±2.5%.
const latency = (x: number | null) => (x === null ? "-" : significant(x))
const interval = (ci: Statistics.Interval | null) => (ci === null ? "-" : `[${ci[0]}, ${ci[1]}]`)

// Each measure once: pass@k for every k, then pass^k (but pass^1, which is
// pass@1), each with its interval.
const estimatesText = (p: PassAtKSummary<string>): string =>
  Object.entries(p.estimates).filter(([k]) => k !== "pass^1").map(([k, v]) =>
    `${k} ${num(v)}${p.ci95[k] == null ? "" : ` ${interval(p.ci95[k])}`}`
  ).join(", ")

/**
 * How the standard errors are clustered, in the words of the text summary
 * (and the report): `clustered by task (its epochs) over 40 clusters`,
 * `clustered by metadata.passage_id over 12 clusters`, `not clustered (each
 * trial independent)`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const clusterText = (by: Labels.ClusterBy, clusters: number | null): string =>
  by === null
    ? "not clustered (each trial independent)"
    : `clustered by ${by === "task" ? "task (its epochs)" : by} over ${clusters ?? 0} clusters`

// A task's value on a terminal: controls and bidi marks as their code
// points (`<U+202E>`), newlines and tabs too, so a value cannot reorder or
// break the summary's lines.
const terminalText = (text: string): string => text.replace(CONTROLS, mark).replace(/[\n\t]/g, mark)

// At most this many values of a --group-by PATH in the text; the JSON has every one.
const GROUP_LINES = 20

const formatScoring = (sc: ScoringSummary): Array<string> => {
  // Parallelism 0: no scoring stage ran in this process (a --cluster run's
  // workers score), so there are no scorer calls here to report.
  const lines = sc.parallelism === 0 ? [] : [
    `  scoring parallelism ${sc.parallelism}${
      sc.judge_parallelism === null ? "" : ` (judges ${sc.judge_parallelism})`
    }: peak active scorer calls ${sc.peak_active_scorer_calls}, peak outstanding ${sc.peak_outstanding}`
  ]
  lines.push(`  standard errors: ${clusterText(sc.stderr_cluster, sc.clusters)}`)
  for (const [name, st] of Object.entries(sc.scorers)) {
    lines.push(
      `  score ${name}: trials ${st.trials} (scored ${st.scored}, failed trials ${st.failed_trials}, scorer errors ${st.errors}), ` +
        `mean ${num(st.mean)} ± ${num(st.standard_error)} (95% CI ${interval(st.ci95)}` +
        `${st.design_effect === null ? "" : `, design effect ${st.design_effect}`}), ` +
        `pass rate ${num(st.pass_rate)} (95% Wilson CI ${interval(st.pass_rate_ci95)}` +
        `${st.pass_rate_design_effect === null ? "" : `, design effect ${st.pass_rate_design_effect}`})`
    )
  }
  lines.push(
    `  passed (${sc.pass_rule === "every scorer" ? "every scorer passed" : `--pass ${sc.pass_rule}`}): ` +
      `${sc.passed} of ${sc.trials} trials, pass rate ${num(sc.pass_rate)} (95% Wilson CI ${interval(sc.pass_rate_ci95)}` +
      `${sc.pass_rate_design_effect === null ? "" : `, design effect ${sc.pass_rate_design_effect}`})` +
      (sc.not_scored > 0 ? `; ${sc.not_scored} completed trials not scored` : "")
  )
  const p = sc.pass_at_k
  lines.push(
    `  pass@k counting passed trials: ${estimatesText(p)} ` +
      `(${p.tasks_scored} tasks, ${p.tasks_incomplete} incomplete; a failed trial counts and never passes)`
  )
  for (const [path, byValue] of Object.entries(sc.groups)) {
    const values = Object.entries(byValue)
    for (const [value, scorers] of values.slice(0, GROUP_LINES)) {
      lines.push(
        `  group ${path} = ${terminalText(value)}: ` +
          Object.entries(scorers).map(([name, st]) =>
            `${name} mean ${num(st.mean)} ${interval(st.ci95)}, pass rate ${num(st.pass_rate)} ${interval(st.pass_rate_ci95)} (${st.trials} trials)`
          ).join("; ")
      )
    }
    if (values.length > GROUP_LINES) lines.push(`  group ${path}: ${values.length - GROUP_LINES} more values in --summary`)
  }
  return lines
}

/**
 * A run's outcome from how it ended: interrupted (Ctrl-C, SIGTERM) first,
 * then a failed write of the results file (trials were lost, whatever else
 * went wrong), then success, the failure budget, and any other failure
 * (bad input).
 *
 * @category constructors
 * @since 0.1.0
 */
export const outcomeOf = (exit: Exit.Exit<unknown, unknown>, writeFailed: boolean): Summary["outcome"] =>
  Exit.hasInterrupts(exit)
    ? "interrupted"
    : writeFailed
    ? "write_error"
    : Exit.isSuccess(exit)
    ? "finished"
    : Exit.findErrorOption(exit).pipe(
      Option.exists((e) => (e as { readonly _tag?: unknown } | null)?._tag === "MaxFailuresExceeded")
    )
    ? "too_many_failures"
    : "input_error"

/**
 * The summary's accumulators, in constant space: counts by status, a fixed
 * log-scale latency histogram for percentiles, the scores' tallies, and, when
 * a task is tried several times, a histogram of tasks by how many of their
 * trials completed (all pass@k needs). Re-exported by `Summary.ts`.
 *
 * @since 0.1.0
 */
import * as Clustered from "../statistics/Clustered.ts"
import * as Labels from "./Labels.ts"
import type { AgentEvalTrial, TrialStatus } from "../domain/Trial.ts"
import { LatencyHistogram } from "../statistics/Histogram.ts"
import { firstMessage } from "./internal/firstMessage.ts"
import { TrajectoryTally } from "./TrajectoryTally.ts"
import { UsageTally } from "./UsageTally.ts"

export { LatencyHistogram } from "../statistics/Histogram.ts"

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
  /** By PATH, by key (`Labels.groupKeysOf`: JSON text, `Labels.MISSING` for none). */
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
    for (const [path, key] of Object.entries(Labels.groupKeysOf(trial))) {
      let byValue = this.groups.get(path)
      if (byValue === undefined) this.groups.set(path, byValue = new Map())
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
  /** This run's trials by what the response cache gave them (`metadata.cache`); hits are not in `latency`. */
  readonly cache = { hit: 0, miss: 0, partial: 0 }
  readonly errorTypes = new Map<string, number>()
  /** The first message of each error type this run, clipped and scrubbed (`firstMessage`). */
  readonly errorMessages = new Map<string, string>()
  /** What the trials spent (tokens and cost), when they report usage. */
  readonly usage = new UsageTally()
  /** The paths of agents that act, when the trials record them. */
  readonly trajectory = new TrajectoryTally()
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
    this.usage.add(trial, prior)
    this.trajectory.add(trial)
    const counts = prior ? this.prior : this.thisRun
    counts[trial.status]++
    const cached = trial.metadata["cache"]
    if (!prior && (cached === "hit" || cached === "miss" || cached === "partial")) this.cache[cached]++
    // A hit took no call's time: it would read as a fast call.
    if (!prior && cached !== "hit") this.latency.record(trial.metadata.latency_ms)
    if (trial.error !== undefined && !prior) {
      const type = trial.error.type
      const seen = this.errorTypes.get(type)
      this.errorTypes.set(type, (seen ?? 0) + 1)
      if (seen === undefined) this.errorMessages.set(type, firstMessage(trial.error.message))
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

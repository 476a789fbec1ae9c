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
import { significant } from "./internal/figures.ts"
import type { ProbeSnapshot } from "./Probe.ts"
import * as Statistics from "./scoring/Statistics.ts"
import type { AgentEvalTrial, TrialStatus } from "./Trial.ts"

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
 * passed: every scorer, or the one `pass` names.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoringOptions {
  readonly scorers: ReadonlyArray<string>
  readonly pass?: string | undefined
}

/**
 * The tallies of scored trials (this run's and those already recorded): per
 * scorer its statistics, and trials by whether they passed, per task for
 * pass@k. A failed trial counts in every scorer's `trials` and never passes. A
 * completed trial without a score of a scorer (recorded by an earlier run
 * with other scorers) is counted in `not_scored` and left out of the rest.
 *
 * @category models
 * @since 0.1.0
 */
export class ScoreTally {
  readonly stats = new Map<string, Statistics.Accumulator>()
  readonly decisive: ReadonlyArray<string>
  trials = 0
  passed = 0
  notScored = 0
  /**
   * tasksByPasses[c]: tasks all of whose `epochs` trials are recorded, c of
   * them passed. It grows to the largest c seen, not to `epochs + 1` up front.
   */
  readonly tasksByPasses: Array<number> = []
  private readonly open = new Map<string, { n: number; c: number }>()
  readonly options: ScoringOptions
  readonly epochs: number

  constructor(options: ScoringOptions, epochs: number) {
    this.options = options
    this.epochs = epochs
    for (const name of options.scorers) this.stats.set(name, Statistics.accumulator())
    this.decisive = options.pass === undefined ? options.scorers : [options.pass]
  }

  add(trial: AgentEvalTrial): void {
    if (trial.error?.type === "InvalidTask") return
    const failed = trial.status === "failed"
    const scores = trial.scores
    if (!failed && (scores === undefined || this.decisive.some((name) => scores[name] === undefined))) {
      this.notScored++
      return
    }
    for (const [name, stats] of this.stats) {
      const score = scores?.[name]
      if (failed) stats.addFailedTrial()
      else if (score !== undefined) stats.add(score)
    }
    const passed = !failed && this.decisive.every((name) => {
      const score = scores![name]!
      return score.passed && score.error === undefined
    })
    this.trials++
    if (passed) this.passed++
    if (this.epochs <= 1) {
      countTask(this.tasksByPasses, passed ? 1 : 0)
      return
    }
    const entry = this.open.get(trial.task_id) ?? { n: 0, c: 0 }
    entry.n++
    if (passed) entry.c++
    if (entry.n >= this.epochs) {
      this.open.delete(trial.task_id)
      countTask(this.tasksByPasses, Math.min(entry.c, this.epochs))
    } else {
      this.open.set(trial.task_id, entry)
    }
  }

  get incompleteTasks(): number {
    return this.open.size
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
  readonly pass_at_k?: {
    /** What a pass is here: a completed trial (whether or not its answer was right). */
    readonly counts: "completed trials"
    readonly tasks_scored: number
    readonly tasks_incomplete: number
    readonly tasks_by_passes: ReadonlyArray<number>
    readonly estimates: Record<string, number | null>
  }
  /** Present when the run has scorers (`--score`). */
  readonly scoring?: ScoringSummary
}

/**
 * The scores of a run: per scorer its statistics, trials that passed (every
 * scorer passed, or the one `--pass` names), and pass@k over passes.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoringSummary {
  readonly scorers: Record<string, Statistics.ScorerStats>
  /** `"every scorer"` or the name of the scorer that decides. */
  readonly pass_rule: string
  readonly trials: number
  readonly passed: number
  readonly pass_rate: number | null
  readonly pass_rate_ci95: Statistics.Interval | null
  /** Completed trials without the deciding scores (recorded by a run with other scorers): not counted above. */
  readonly not_scored: number
  readonly pass_at_k: {
    readonly counts: "passed trials"
    readonly tasks_scored: number
    readonly tasks_incomplete: number
    readonly tasks_by_passes: ReadonlyArray<number>
    readonly estimates: Record<string, number | null>
  }
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
  const ks = [...new Set([1, Math.min(5, acc.epochs), acc.epochs])]
  const scoring = scoringSummary(acc, ks, input.scoring)
  const scored = scoring === undefined ? summary : { ...summary, scoring }
  if (acc.epochs <= 1) return scored
  return {
    ...scored,
    pass_at_k: {
      counts: "completed trials",
      tasks_scored: acc.tasksByPasses.reduce((a, b) => a + b, 0),
      tasks_incomplete: acc.incompleteTasks,
      tasks_by_passes: padded(acc.tasksByPasses, acc.epochs),
      estimates: Object.fromEntries(ks.map((k) => [`pass@${k}`, round(passAtK(acc.tasksByPasses, k, acc.epochs), 4)]))
    }
  }
}

// The JSON's histogram has an entry for every count 0..epochs (epochs are at
// most Errors.MAX_EPOCHS), zeros included.
const padded = (tasksByPasses: ReadonlyArray<number>, epochs: number): ReadonlyArray<number> =>
  Array.from({ length: Math.max(1, epochs) + 1 }, (_, c) => tasksByPasses[c] ?? 0)

const roundInterval = (ci: Statistics.Interval | null, digits = 4): Statistics.Interval | null =>
  ci === null ? null : [round(ci[0], digits)!, round(ci[1], digits)!]

const scoringSummary = (
  acc: Accumulator,
  ks: ReadonlyArray<number>,
  stage: Parameters<typeof make>[0]["scoring"]
): ScoringSummary | undefined => {
  const tally = acc.scoring
  if (tally === undefined) return undefined
  const scorers: Record<string, Statistics.ScorerStats> = {}
  for (const [name, stats] of tally.stats) {
    const s = stats.snapshot()
    scorers[name] = {
      ...s,
      mean: round(s.mean ?? undefined, 4),
      sd: round(s.sd ?? undefined, 4),
      standard_error: round(s.standard_error ?? undefined, 4),
      ci95: roundInterval(s.ci95),
      pass_rate: round(s.pass_rate ?? undefined, 4),
      pass_rate_ci95: roundInterval(s.pass_rate_ci95)
    }
  }
  return {
    scorers,
    pass_rule: tally.options.pass ?? "every scorer",
    trials: tally.trials,
    passed: tally.passed,
    pass_rate: tally.trials === 0 ? null : round(tally.passed / tally.trials, 4),
    pass_rate_ci95: roundInterval(Statistics.wilson(tally.passed, tally.trials)),
    not_scored: tally.notScored,
    pass_at_k: {
      counts: "passed trials",
      tasks_scored: tally.tasksByPasses.reduce((a, b) => a + b, 0),
      tasks_incomplete: tally.incompleteTasks,
      tasks_by_passes: padded(tally.tasksByPasses, acc.epochs),
      estimates: Object.fromEntries(ks.map((k) => [`pass@${k}`, round(passAtK(tally.tasksByPasses, k, acc.epochs), 4)]))
    },
    parallelism: stage?.parallelism ?? 0,
    judge_parallelism: stage?.judgeParallelism ?? null,
    peak_active_scorer_calls: stage?.probe.peakActive ?? 0,
    peak_outstanding: stage?.probe.peakOutstanding ?? 0
  }
}

/**
 * The summary as text.
 *
 * @category formatting
 * @since 0.1.0
 */
export const format = (s: Summary): string => {
  const t = s.trials
  const fmt = (x: number | null) => (x === null ? "-" : String(x))
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
      `  ${s.epochs} epochs: ${p.tasks_scored} tasks scored (${p.tasks_incomplete} incomplete); ` +
        Object.entries(p.estimates).map(([k, v]) => `${k} ${fmt(v)}`).join(", ")
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

const formatScoring = (sc: ScoringSummary): Array<string> => {
  // Parallelism 0: no scoring stage ran in this process (a --cluster run's
  // workers score), so there are no scorer calls here to report.
  const lines = sc.parallelism === 0 ? [] : [
    `  scoring parallelism ${sc.parallelism}${
      sc.judge_parallelism === null ? "" : ` (judges ${sc.judge_parallelism})`
    }: peak active scorer calls ${sc.peak_active_scorer_calls}, peak outstanding ${sc.peak_outstanding}`
  ]
  for (const [name, st] of Object.entries(sc.scorers)) {
    lines.push(
      `  score ${name}: trials ${st.trials} (scored ${st.scored}, failed trials ${st.failed_trials}, scorer errors ${st.errors}), ` +
        `mean ${num(st.mean)} ± ${num(st.standard_error)} (95% CI ${interval(st.ci95)}), ` +
        `pass rate ${num(st.pass_rate)} (95% Wilson CI ${interval(st.pass_rate_ci95)})`
    )
  }
  lines.push(
    `  passed (${sc.pass_rule === "every scorer" ? "every scorer passed" : `--pass ${sc.pass_rule}`}): ` +
      `${sc.passed} of ${sc.trials} trials, pass rate ${num(sc.pass_rate)} (95% Wilson CI ${interval(sc.pass_rate_ci95)})` +
      (sc.not_scored > 0 ? `; ${sc.not_scored} completed trials not scored` : "")
  )
  const p = sc.pass_at_k
  lines.push(
    `  pass@k from scores: ${Object.entries(p.estimates).map(([k, v]) => `${k} ${num(v)}`).join(", ")} ` +
      `(${p.tasks_scored} tasks, ${p.tasks_incomplete} incomplete; a failed trial counts and never passes)`
  )
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

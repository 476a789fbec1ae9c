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
import type { ProbeSnapshot } from "./Probe.ts"
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
  /** tasksByPasses[c]: tasks all of whose `epochs` trials are recorded, c of them completed. */
  readonly tasksByPasses: Array<number>
  private readonly open = new Map<string, { n: number; c: number }>()

  readonly epochs: number

  constructor(epochs: number) {
    this.epochs = epochs
    this.tasksByPasses = Array.from({ length: epochs + 1 }, () => 0)
  }

  add(trial: AgentEvalTrial, prior = false): void {
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
      this.tasksByPasses[Math.min(entry.c, this.epochs)]++
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
 *
 * @category statistics
 * @since 0.1.0
 */
export const passAtK = (tasksByPasses: ReadonlyArray<number>, k: number): number | undefined => {
  const n = tasksByPasses.length - 1
  const tasks = tasksByPasses.reduce((a, b) => a + b, 0)
  if (tasks === 0 || k < 1 || k > n) return undefined
  let sum = 0
  for (let c = 0; c <= n; c++) {
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
    readonly tasks_scored: number
    readonly tasks_incomplete: number
    readonly tasks_by_passes: ReadonlyArray<number>
    readonly estimates: Record<string, number | null>
  }
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
  if (acc.epochs <= 1) return summary
  const ks = [...new Set([1, Math.min(5, acc.epochs), acc.epochs])]
  return {
    ...summary,
    pass_at_k: {
      tasks_scored: acc.tasksByPasses.reduce((a, b) => a + b, 0),
      tasks_incomplete: acc.incompleteTasks,
      tasks_by_passes: acc.tasksByPasses,
      estimates: Object.fromEntries(ks.map((k) => [`pass@${k}`, round(passAtK(acc.tasksByPasses, k), 4)]))
    }
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
    `  latency ms: p50 ${fmt(s.latency_ms.p50)}  p95 ${fmt(s.latency_ms.p95)}  p99 ${fmt(s.latency_ms.p99)}  max ${fmt(s.latency_ms.max)}`,
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
    lines.push(`  tasks by completed trials: ${p.tasks_by_passes.map((n, c) => `${c}:${n}`).join(" ")}`)
  }
  lines.push(`  results: ${s.results_file}`)
  return lines.join("\n")
}

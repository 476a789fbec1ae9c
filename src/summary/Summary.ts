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
import { Clock, Effect, Exit, Option, Stream } from "effect"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import type { Probe, ProbeSnapshot } from "../runner/Probe.ts"
import * as Clustered from "../statistics/Clustered.ts"
import * as Labels from "./Labels.ts"
import * as PassAtK from "../statistics/PassAtK.ts"
import type * as Statistics from "../statistics/Statistics.ts"
import type { PassAtKSummary, ScoreSummary, ScoringSummary, Summary, TrajectorySummary, UsageSummary } from "./Model.ts"
import { Accumulator } from "./Tally.ts"
import { trajectorySummary } from "./Trajectory.ts"
import { usageSummary } from "./Usage.ts"

export {
  Counts, DatasetRows, DatasetSummary, EstimateFigure, EstimateSummary, Outcome, PassAtKSummary, PerTrial, PerTrialCount,
  ScoreSummary, ScoringSummary, Summary, TrajectorySummary, UsageSummary, UsageTotals
} from "./Model.ts"
export { decodeReported, Reported } from "./Reported.ts"
export type { GroupTally, ScoringOptions } from "./Tally.ts"
export { Accumulator, LatencyHistogram, passAtK, ScoreTally } from "./Tally.ts"
export { clusterText, format, formatScore } from "./Text.ts"
export { estimateSummary, usageSummary } from "./Usage.ts"
export { Distribution, Moments, SideTally, UsageTally } from "./UsageTally.ts"
export { trajectoryLines, trajectorySummary } from "./Trajectory.ts"
export { CountHistogram, type ToolCounts, TrajectoryTally } from "./TrajectoryTally.ts"

const withTotal = (c: { completed: number; failed: number; partial: number }) => ({
  ...c,
  total: c.completed + c.failed + c.partial
})

// This run's trials, those already recorded, and both together.
const trialCounts = (thisRun: ReturnType<typeof withTotal>, prior: ReturnType<typeof withTotal>) => ({
  this_run: thisRun,
  already_recorded: prior,
  total: withTotal({
    completed: thisRun.completed + prior.completed,
    failed: thisRun.failed + prior.failed,
    partial: thisRun.partial + prior.partial
  })
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
  /** How the run priced and bounded its usage (`--pricing`, `--max-cost`, `--max-tokens`). */
  readonly usage?: {
    readonly priced: boolean
    readonly unpriced: ReadonlyArray<string>
    readonly budget?: {
      readonly maxCost?: number | undefined
      readonly maxTokens?: number | undefined
      /** When a budget stopped the run: the calls in flight then. */
      readonly inFlightAtStop?: number | undefined
    } | undefined
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
      ...trialCounts(thisRun, prior),
      not_recorded: {
        finished: Math.max(0, input.probe.completed - thisRun.total),
        interrupted: input.probe.interrupted
      }
    },
    error_types: Object.fromEntries(acc.errorTypes),
    error_messages: Object.fromEntries(acc.errorMessages),
    latency_ms: {
      p50: round(acc.latency.quantile(0.5)),
      p95: round(acc.latency.quantile(0.95)),
      p99: round(acc.latency.quantile(0.99)),
      max: acc.latency.total === 0 ? null : round(acc.latency.max)
    },
    wall_time_s: round(wall_time_s) ?? 0,
    // Trials served whole from the response cache are not throughput.
    throughput_per_s: round(wall_time_s > 0 ? (thisRun.total - acc.cache.hit) / wall_time_s : 0, 1) ?? 0,
    ...(acc.cache.hit + acc.cache.miss + acc.cache.partial > 0 ? { response_cache: { ...acc.cache } } : undefined),
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
  const withScoring = scoring === undefined ? summary : { ...summary, scoring }
  const usage = usageSummary(acc.usage, {
    passed: scoring === undefined ? thisRun.completed + prior.completed : scoring.passed,
    priced: input.usage?.priced,
    unpriced: input.usage?.unpriced,
    budget: input.usage?.budget
  })
  const trajectory = trajectorySummary(acc.trajectory)
  const spent = usage === undefined ? withScoring : { ...withScoring, usage }
  const scored = trajectory === undefined ? spent : { ...spent, trajectory }
  if (acc.epochs <= 1) return scored
  return {
    ...scored,
    pass_at_k: passAtKSummary("completed trials", acc.tasksByPasses, acc.incompleteTasks, acc.epochs, ks)
  }
}

/**
 * Runs `trials` (what `Runner.runTrials` returns) to their end and gives
 * the end-of-run summary the CLI prints: counts, failures by type with
 * their first messages, latency, wall time, the peaks of `probe` (the one
 * given to the run), pass@k over `epochs`, the scores of `scorers`. `Summary.format`
 * makes it text. It fails as the stream does.
 *
 * **Example** (The summary of a run)
 *
 * ```ts
 * import { Console, Effect, Stream } from "effect"
 * import { Agent, Probe, Runner, Summary } from "agent-trials"
 *
 * const agent = Agent.fromPromise(async (task) => `echo ${task.id}`)
 * const tasks = Stream.range(1, 100).pipe(Stream.map((i) => ({ id: `t${i}`, inputs: { i } })))
 *
 * export const program = Effect.gen(function*() {
 *   const probe = yield* Probe.make
 *   const summary = yield* Summary.collect(Runner.runTrials(tasks, agent, { parallelism: 8, probe }), { parallelism: 8, probe })
 *   yield* Console.log(Summary.format(summary))
 * })
 * ```
 *
 * @category constructors
 * @since 0.6.0
 */
export const collect = <E, R>(
  trials: Stream.Stream<AgentEvalTrial, E, R>,
  options: {
    /** The run's parallelism, as given to it. */
    readonly parallelism: number
    /** The probe given to the run: its peaks go into the summary. */
    readonly probe: Probe
    /** The run's epochs (default 1): pass@k over them when above 1. */
    readonly epochs?: number | undefined
    /** The scorers whose scores the trials carry (none by default). */
    readonly scorers?: ReadonlyArray<string> | undefined
    readonly runId?: string | undefined
    /** Where the trials were written, for the text's last line (default `(not written)`). */
    readonly resultsFile?: string | undefined
  }
): Effect.Effect<Summary, E, R> =>
  Effect.gen(function*() {
    const epochs = options.epochs ?? 1
    const acc = new Accumulator(epochs, options.scorers === undefined ? undefined : { scorers: options.scorers })
    const started = yield* Clock.currentTimeMillis
    yield* Stream.runForEach(trials, (trial) => Effect.sync(() => acc.add(trial)))
    return make({
      runId: options.runId ?? "run",
      resultsFile: options.resultsFile ?? "(not written)",
      outcome: "finished",
      acc,
      probe: options.probe.snapshot(),
      wallMs: (yield* Clock.currentTimeMillis) - started,
      parallelism: options.parallelism
    })
  })

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
  const groups: Record<string, Record<string, Record<string, Clustered.ScorerStats>>> = {}
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
  /** How the scoring priced its usage (`--pricing`). */
  readonly usage?: { readonly priced: boolean; readonly unpriced: ReadonlyArray<string> } | undefined
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
    trials: trialCounts(thisRun, prior),
    scorer_calls: input.scorerCalls,
    wall_time_s: round(wall_time_s) ?? 0,
    throughput_per_s: round(wall_time_s > 0 ? thisRun.total / wall_time_s : 0, 1) ?? 0,
    epochs: acc.epochs,
    // A score command always has scorers.
    scoring: scoring!,
    ...withUsage(usageSummary(acc.usage, {
      passed: scoring!.passed,
      priced: input.usage?.priced,
      unpriced: input.usage?.unpriced
    })),
    ...withTrajectory(trajectorySummary(acc.trajectory))
  }
}

const withTrajectory = (trajectory: TrajectorySummary | undefined) => trajectory === undefined ? undefined : { trajectory }

const withUsage = (usage: UsageSummary | undefined) => usage === undefined ? undefined : { usage }

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
    : Exit.findErrorOption(exit).pipe(Option.flatMap((e) => Option.fromNullishOr(stopOutcome(e))), Option.getOrUndefined) ??
      "input_error"

// The outcome of a run stopped on purpose: by a budget (`BudgetExceeded`, naming it) or a tool server gone (`ToolServerFailed`).
const stopOutcome = (error: unknown): Summary["outcome"] | undefined => {
  const e = error as { readonly _tag?: unknown; readonly budget?: unknown } | null
  if (e?._tag === "ToolServerFailed") return "tool_server_failed"
  // A dataset that failed on the way (a download stalled, too slow, too large): no bad input, run again.
  if (e?._tag === "DatasetError" && (e as { readonly transient?: unknown }).transient === true) return "source_failed"
  if (e?._tag !== "BudgetExceeded") return undefined
  return e.budget === "max_cost" ? "max_cost_reached" : "max_tokens_reached"
}

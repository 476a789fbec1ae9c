/**
 * The summary's `usage` and `estimate` parts, from a run's usage tally.
 * Re-exported by `Summary.ts`.
 *
 * @since 0.4.0
 */
import * as StudentT from "../statistics/StudentT.ts"
import type { EstimateFigure, EstimateSummary, PerTrial, UsageSummary, UsageTotals } from "./Model.ts"
import type { Moments, SideTally, UsageTally } from "./UsageTally.ts"

// Costs to 1e-9 USD (a nano-dollar): finer than any price, coarser than float noise.
const usd = (x: number): number => Math.round(x * 1e9) / 1e9
const tokens = (x: number): number => Math.round(x * 100) / 100

const totals = (side: SideTally, priced: boolean): UsageTotals => ({
  input_tokens: side.input,
  output_tokens: side.output,
  total_tokens: side.total,
  cached_input_tokens: side.cached,
  reasoning_tokens: side.reasoning,
  cost_usd: priced ? usd(side.cost) : null
})

/**
 * The summary's `usage`: undefined when no trial reported usage and nothing
 * was priced.
 *
 * @category constructors
 * @since 0.4.0
 */
export const usageSummary = (tally: UsageTally, options: {
  /** Trials that passed (every scorer, or `--pass`'s; completed ones without scorers). */
  readonly passed: number
  /** Whether the run priced its usage (`--pricing`), even if no trial reported any. */
  readonly priced?: boolean | undefined
  readonly unpriced?: ReadonlyArray<string> | undefined
  readonly budget?: {
    readonly maxCost?: number | undefined
    readonly maxTokens?: number | undefined
    /** When a budget stopped the run: the calls in flight then. */
    readonly inFlightAtStop?: number | undefined
  } | undefined
}): UsageSummary | undefined => {
  const priced = options.priced === true || tally.priced
  if (tally.all.n === 0 && tally.cachedTrials === 0 && !priced) return undefined
  const cost = tally.agent.cost + tally.judge.cost + tally.user.cost
  const n = tally.all.n
  const perTrialCost = (q: number) => {
    const v = tally.cost.quantile(q)
    return v === undefined ? null : usd(v / 1e6)
  }
  // The percentiles are good to about 2.5% (the histogram's buckets): whole tokens.
  const perTrialTokens = (q: number) => {
    const v = tally.tokens.quantile(q)
    return v === undefined ? null : Math.round(v)
  }
  const budget = options.budget
  return {
    trials: n,
    agent: totals(tally.agent, priced),
    judge: totals(tally.judge, priced),
    ...(tally.user.calls === 0 ? undefined : { user: totals(tally.user, priced) }),
    total_tokens: tally.agent.total + tally.judge.total + tally.user.total,
    cost_usd: priced ? usd(cost) : null,
    per_trial: {
      tokens: { mean: n === 0 ? null : tokens(tally.all.tokens / n), p50: perTrialTokens(0.5), p95: perTrialTokens(0.95) },
      cost_usd: priced
        ? { mean: n === 0 ? null : usd(tally.all.cost / n), p50: perTrialCost(0.5), p95: perTrialCost(0.95) }
        : null
    },
    passed_trials: options.passed,
    cost_per_passed_trial_usd: priced && options.passed > 0 ? usd(cost / options.passed) : null,
    this_run: {
      trials: tally.thisRun.n,
      total_tokens: tally.thisRun.tokens,
      cost_usd: priced ? usd(tally.thisRun.cost) : null
    },
    ...(tally.cachedTrials === 0 ? undefined : { cached: { trials: tally.cachedTrials, ...totals(tally.cached, priced) } }),
    unpriced_models: options.unpriced ?? [],
    budget: budget === undefined || (budget.maxCost === undefined && budget.maxTokens === undefined)
      ? null
      : {
        max_cost_usd: budget.maxCost ?? null,
        max_tokens: budget.maxTokens ?? null,
        ...(budget.inFlightAtStop === undefined ? undefined : { in_flight_at_stop: budget.inFlightAtStop })
      }
  }
}

/**
 * The estimate of `run --estimate`: this run's trials as the sample, the
 * run's `total` trials as the whole.
 *
 * @category constructors
 * @since 0.4.0
 */
export const estimateSummary = (
  sample: Moments,
  total: number | undefined,
  priced: boolean
): EstimateSummary => ({
  trials_run: sample.n,
  trials_total: total ?? null,
  tokens: projected(sample.n, sample.tokens, sample.tokensSq, total, tokens),
  cost_usd: priced ? projected(sample.n, sample.cost, sample.costSq, total, usd) : null
})

const projected = (
  n: number,
  sum: number,
  sumSq: number,
  total: number | undefined,
  round: (x: number) => number
): EstimateFigure => {
  if (n === 0) return { per_trial: null, per_trial_ci95: null, total: null, total_ci95: null }
  const mean = sum / n
  const variance = n < 2 ? undefined : Math.max(0, (sumSq - n * mean * mean) / (n - 1))
  const half = variance === undefined ? undefined : StudentT.quantile(0.975, n - 1) * Math.sqrt(variance / n)
  const ci = (scale: number): [number, number] | null =>
    half === undefined ? null : [round(Math.max(0, mean - half) * scale), round((mean + half) * scale)]
  return {
    per_trial: round(mean),
    per_trial_ci95: ci(1),
    total: total === undefined ? null : round(mean * total),
    total_ci95: total === undefined ? null : ci(total)
  }
}

/**
 * A per-trial figure as text: `mean 1,234, p50 1,200, p95 1,500`.
 *
 * @internal
 */
export const perTrialText = (p: PerTrial, show: (x: number) => string): string =>
  `mean ${p.mean === null ? "-" : show(p.mean)}, p50 ${p.p50 === null ? "-" : show(p.p50)}, p95 ${p.p95 === null ? "-" : show(p.p95)}`

/**
 * A cost in USD for display: four significant digits (`$0.0002400` is
 * `$0.00024`, `$12.3456` is `$12.35`); the JSON keeps the full figure.
 *
 * @internal
 */
export const usdText = (x: number | null): string => x === null ? "-" : x === 0 ? "$0" : `$${Number(x.toPrecision(4))}`

/**
 * A token count for display, grouped by thousands.
 *
 * @internal
 */
export const tokensText = (x: number | null): string =>
  x === null ? "-" : x.toLocaleString("en-US", { maximumFractionDigits: 1 })

const kinds = (t: UsageTotals): string =>
  `input ${tokensText(t.input_tokens)}` + (t.cached_input_tokens > 0 ? ` (${tokensText(t.cached_input_tokens)} cached)` : "") +
  `, output ${tokensText(t.output_tokens)}` + (t.reasoning_tokens > 0 ? ` (${tokensText(t.reasoning_tokens)} reasoning)` : "")

/**
 * The summary's usage lines.
 *
 * @internal
 */
export const usageLines = (u: UsageSummary): ReadonlyArray<string> => {
  const priced = u.cost_usd !== null
  const lines = [
    `  usage over ${u.trials} trials: ${tokensText(u.total_tokens)} tokens` + (priced ? `, ${usdText(u.cost_usd)}` : "") +
    (u.this_run.trials === u.trials && u.this_run.total_tokens === u.total_tokens ? "" : ` (this run: ${u.this_run.trials} trials, ${tokensText(u.this_run.total_tokens)} tokens` +
      (priced ? `, ${usdText(u.this_run.cost_usd)}` : "") + ")"),
    `    agent: ${tokensText(u.agent.total_tokens)} tokens (${kinds(u.agent)})` + (priced ? `, ${usdText(u.agent.cost_usd)}` : "")
  ]
  if (u.user !== undefined) {
    lines.push(`    user: ${tokensText(u.user.total_tokens)} tokens (${kinds(u.user)})` + (priced ? `, ${usdText(u.user.cost_usd)}` : ""))
  }
  if (u.judge.total_tokens > 0 || (u.judge.cost_usd ?? 0) > 0) {
    lines.push(`    judge: ${tokensText(u.judge.total_tokens)} tokens (${kinds(u.judge)})` + (priced ? `, ${usdText(u.judge.cost_usd)}` : ""))
  }
  lines.push(`    per trial: tokens ${perTrialText(u.per_trial.tokens, tokensText)}` +
    (u.per_trial.cost_usd === null ? "" : `; cost ${perTrialText(u.per_trial.cost_usd, usdText)}`))
  if (priced) {
    lines.push(`    cost per passed trial: ${usdText(u.cost_per_passed_trial_usd)} (${u.passed_trials} passed)`)
  } else {
    lines.push(`    not priced (no --pricing FILE)`)
  }
  if (u.cached !== undefined) {
    lines.push(`    served from the response cache (not spent now, in no figure above): ${u.cached.trials} trials, ` +
      `${tokensText(u.cached.total_tokens)} tokens` + (priced ? `, would have cost ${usdText(u.cached.cost_usd)}` : ""))
  }
  if (u.unpriced_models.length > 0) lines.push(`    not in the pricing file (priced at $0): ${u.unpriced_models.join(", ")}`)
  if (u.budget !== null) {
    lines.push(`    budget: ${[
      u.budget.max_cost_usd === null ? undefined : `--max-cost ${u.budget.max_cost_usd} (spent ${usdText(u.cost_usd)})`,
      u.budget.max_tokens === null ? undefined : `--max-tokens ${u.budget.max_tokens} (spent ${tokensText(u.total_tokens)})`
    ].filter((x) => x !== undefined).join(", ")}` +
      (u.budget.in_flight_at_stop === undefined ? "" : `; ${u.budget.in_flight_at_stop} calls in flight when it stopped`))
  }
  return lines
}

const figureText = (f: EstimateFigure, show: (x: number) => string, which: "per_trial" | "total"): string => {
  const value = which === "per_trial" ? f.per_trial : f.total
  const ci = which === "per_trial" ? f.per_trial_ci95 : f.total_ci95
  return value === null ? "-" : `${show(value)}${ci === null ? "" : ` (95% CI ${show(ci[0])} to ${show(ci[1])})`}`
}

/**
 * The estimate's lines.
 *
 * @internal
 */
export const estimateLines = (e: EstimateSummary): ReadonlyArray<string> => {
  const cost = (which: "per_trial" | "total") => e.cost_usd === null ? "" : `, ${figureText(e.cost_usd, usdText, which)}`
  const rest = e.trials_total === null ? undefined : Math.max(0, e.trials_total - e.trials_run)
  return [
    `  estimate from ${e.trials_run} trials: per trial ${figureText(e.tokens, tokensText, "per_trial")} tokens${cost("per_trial")}`,
    e.trials_total === null
      ? `  the run's size is unknown (tasks from stdin): no projection`
      : `  projected for all ${tokensText(e.trials_total)} trials: ${figureText(e.tokens, tokensText, "total")} tokens${cost("total")}` +
        `; --resume runs the other ${tokensText(rest ?? 0)}`
  ]
}

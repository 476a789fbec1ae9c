/**
 * What a run spent, tallied in constant space as its trials are recorded:
 * the agent's and the judges' tokens by kind and cost, per-trial histograms
 * for the percentiles, and this run's sums and sums of squares (the
 * estimate's interval). Re-exported by `Summary.ts`.
 *
 * @since 0.4.0
 */
import type { AgentEvalTrial, ModelUsage } from "../domain/Trial.ts"
import * as Usages from "../domain/Usage.ts"
import { LatencyHistogram } from "../statistics/Histogram.ts"

/**
 * One side's totals (the agent's, or the judges').
 *
 * @category models
 * @since 0.4.0
 */
export class SideTally {
  input = 0
  output = 0
  total = 0
  cached = 0
  reasoning = 0
  cost = 0
  /** Usages counted. */
  calls = 0

  add(usage: ModelUsage): void {
    this.input += usage.input_tokens
    this.output += usage.output_tokens
    this.total += usage.total_tokens
    this.cached += usage.cached_input_tokens ?? 0
    this.reasoning += usage.reasoning_tokens ?? 0
    this.cost += usage.cost_usd ?? 0
    this.calls++
  }
}

/**
 * A histogram that also knows its smallest value, so a percentile is never
 * reported outside what was seen (with equal values it is exact).
 *
 * @category models
 * @since 0.4.0
 */
export class Distribution {
  readonly histogram = new LatencyHistogram()
  min = Infinity

  record(x: number): void {
    this.histogram.record(x)
    if (x < this.min) this.min = x
  }

  quantile(q: number): number | undefined {
    const v = this.histogram.quantile(q)
    return v === undefined ? undefined : Math.min(this.histogram.max, Math.max(this.min, v))
  }
}

/**
 * Sums over a set of trials, for means and their intervals.
 *
 * @category models
 * @since 0.4.0
 */
export class Moments {
  n = 0
  tokens = 0
  tokensSq = 0
  cost = 0
  costSq = 0

  add(tokens: number, cost: number): void {
    this.n++
    this.tokens += tokens
    this.tokensSq += tokens * tokens
    this.cost += cost
    this.costSq += cost * cost
  }
}

/**
 * The usage tally of a run's records (those already in the file and this
 * run's). A trial counts once per record: its agent usage (over its
 * attempts), its simulated user's (`usage.user`) and its scores' usage.
 *
 * @category models
 * @since 0.4.0
 */
export class UsageTally {
  readonly agent = new SideTally()
  readonly judge = new SideTally()
  /** A simulated user's model (`usage.user`), apart from the agent's. */
  readonly user = new SideTally()
  /** Per trial with any usage: its tokens (agent + user + judge), and its cost in micro-USD. */
  readonly tokens = new Distribution()
  readonly cost = new Distribution()
  /** The file's trials with usage, and this run's alone. */
  readonly all = new Moments()
  readonly thisRun = new Moments()
  /** Every trial of this run, with usage or not: an estimate's sample (a trial that reported nothing spent nothing known). */
  readonly sample = new Moments()
  /** Whether any usage counted carried a cost (`--pricing`). */
  priced = false
  /** Trials served whole from the response cache, and their usage (agent and judges): spent before, not now. */
  readonly cached = new SideTally()
  cachedTrials = 0

  add(trial: AgentEvalTrial, prior: boolean): void {
    const agent = Usages.ofTrial(trial)
    const judge = trial.scores === undefined ? undefined : Usages.ofScores(trial)
    if (Usages.servedFromCache(trial)) {
      this.cachedTrials++
      for (const usage of [agent, agent?.user, judge]) {
        if (usage === undefined) continue
        this.cached.add(usage)
        if (usage.cost_usd !== undefined) this.priced = true
      }
      // An estimate's sample: a hit spent nothing.
      if (!prior) this.sample.add(0, 0)
      return
    }
    if (agent === undefined && judge === undefined) {
      if (!prior) this.sample.add(0, 0)
      return
    }
    let tokens = 0
    let cost = 0
    if (agent !== undefined) {
      this.agent.add(agent)
      tokens += agent.total_tokens
      if (agent.cost_usd !== undefined) {
        this.priced = true
        cost += agent.cost_usd
      }
    }
    if (agent?.user !== undefined) {
      this.user.add(agent.user)
      tokens += agent.user.total_tokens
      if (agent.user.cost_usd !== undefined) {
        this.priced = true
        cost += agent.user.cost_usd
      }
    }
    if (judge !== undefined) {
      this.judge.add(judge)
      tokens += judge.total_tokens
      if (judge.cost_usd !== undefined) {
        this.priced = true
        cost += judge.cost_usd
      }
    }
    this.tokens.record(tokens)
    this.cost.record(cost * 1e6)
    this.all.add(tokens, cost)
    if (!prior) {
      this.thisRun.add(tokens, cost)
      this.sample.add(tokens, cost)
    }
  }
}

/**
 * What `compare` keeps of a results file's token usage, during the one read
 * of it: per task four sums (its trials that report usage and their tokens,
 * its trials that carry a cost and their cost), and per file how many trials
 * report usage and how many carry a cost. A trial's spend is its agent's
 * usage (`Usage.ofTrial`: over its attempts, a failed trial's too), its
 * simulated user's (`usage.user`) and its judges' (`Usage.ofScores`),
 * `total_tokens` and `cost_usd` each.
 *
 * @internal
 */
import type { AgentEvalTrial } from "../../domain/Trial.ts"
import * as Usage from "../../domain/Usage.ts"

/**
 * A task's sums, `[0]` trials reporting usage, `[1]` their tokens, `[2]`
 * trials carrying a cost, `[3]` their cost in USD; empty while none of its
 * trials reported usage, so a file without usage costs no memory per task.
 *
 * @internal
 */
export type TaskUsage = Array<number>

/** @internal */
export const TRIALS = 0
/** @internal */
export const TOKENS = 1
/** @internal */
export const PRICED = 2
/** @internal */
export const COST = 3

/**
 * The sums a new task starts with. Nothing writes to it: the first trial
 * with usage replaces it.
 *
 * @internal
 */
export const NO_USAGE: TaskUsage = []

/**
 * A file's usage counts, and the adding of a trial's spend to its task's
 * sums.
 *
 * @internal
 */
export class FileUsage {
  /** Trials whose agent or judges report usage. */
  trials = 0
  /** Of them, those whose usage carries a cost (`--pricing`). */
  priced = 0
  /** Trials served whole from the response cache (`metadata.cache` `hit`). */
  cached = 0

  /** The task's sums with the trial's spend added: `sums` itself, or a new array the first time. */
  add(sums: TaskUsage, trial: AgentEvalTrial): TaskUsage {
    if (Usage.servedFromCache(trial)) this.cached++
    const agent = Usage.ofTrial(trial)
    const judge = trial.scores === undefined ? undefined : Usage.ofScores(trial)
    if (agent === undefined && judge === undefined) return sums
    // A literal of four is an exact-size array; there are as many as tasks.
    const out = sums.length === 0 ? [0, 0, 0, 0] : sums
    this.trials++
    out[TRIALS]++
    // A simulated user's model (`usage.user`) is part of what the trial spent.
    const user = agent?.user
    out[TOKENS] += (agent?.total_tokens ?? 0) + (user?.total_tokens ?? 0) + (judge?.total_tokens ?? 0)
    if (agent?.cost_usd !== undefined || user?.cost_usd !== undefined || judge?.cost_usd !== undefined) {
      this.priced++
      out[PRICED]++
      out[COST] += (agent?.cost_usd ?? 0) + (user?.cost_usd ?? 0) + (judge?.cost_usd ?? 0)
    }
    return out
  }
}

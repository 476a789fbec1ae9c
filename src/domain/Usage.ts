/**
 * Token usage: adding up what a trial's attempts (or a judge's calls) spent,
 * and reading it off a record. The Schema is `Trial.Usage`.
 *
 * @since 0.4.0
 */
import { Schema } from "effect"
import { type AgentEvalTrial, type ModelUsage, Usage } from "./Trial.ts"

/**
 * The sum of two usages: every count added (an optional count is present
 * when either has it), the later model when they differ, and the cost when
 * either is priced.
 *
 * **Example** (Two attempts' usage)
 *
 * ```ts
 * import { Usage } from "agent-trials"
 *
 * Usage.add(
 *   { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
 *   { input_tokens: 10, output_tokens: 3, total_tokens: 13, cached_input_tokens: 8 }
 * ) // { input_tokens: 20, output_tokens: 5, total_tokens: 25, cached_input_tokens: 8 }
 * ```
 *
 * @category combinators
 * @since 0.4.0
 */
export const add = (a: Usage | undefined, b: Usage): Usage => {
  if (a === undefined) return b
  const sum: { -readonly [K in keyof Usage]: Usage[K] } = addCounts(a, b)
  // A simulated user's model, apart from the agent's (`usage.user`).
  if (a.user !== undefined || b.user !== undefined) {
    sum.user = a.user === undefined ? b.user! : b.user === undefined ? a.user : addCounts(a.user, b.user)
  }
  return sum
}

const addCounts = (a: ModelUsage, b: ModelUsage): ModelUsage => {
  const sum: {
    input_tokens: number
    output_tokens: number
    total_tokens: number
    cached_input_tokens?: number
    cache_write_input_tokens?: number
    reasoning_tokens?: number
    model?: string
    cost_usd?: number
  } = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens
  }
  if (a.cached_input_tokens !== undefined || b.cached_input_tokens !== undefined) {
    sum.cached_input_tokens = (a.cached_input_tokens ?? 0) + (b.cached_input_tokens ?? 0)
  }
  if (a.cache_write_input_tokens !== undefined || b.cache_write_input_tokens !== undefined) {
    sum.cache_write_input_tokens = (a.cache_write_input_tokens ?? 0) + (b.cache_write_input_tokens ?? 0)
  }
  if (a.reasoning_tokens !== undefined || b.reasoning_tokens !== undefined) {
    sum.reasoning_tokens = (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0)
  }
  const model = b.model ?? a.model
  if (model !== undefined) sum.model = model
  if (a.cost_usd !== undefined || b.cost_usd !== undefined) sum.cost_usd = (a.cost_usd ?? 0) + (b.cost_usd ?? 0)
  return sum
}

const isUsage = Schema.is(Usage)

/**
 * The usage a failure carries: an error's own `usage` field, or its
 * `cause`'s (a module agent's thrown value inside an `AgentError`), when it
 * is a valid `Usage`. A failed attempt that spent tokens says so this way,
 * and the trial's usage counts them.
 *
 * @category getters
 * @since 0.4.0
 */
export const ofError = (error: unknown): Usage | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const own = (error as { readonly usage?: unknown }).usage
  if (own !== undefined) return isUsage(own) ? own : undefined
  const cause = (error as { readonly cause?: unknown }).cause
  if (typeof cause !== "object" || cause === null) return undefined
  const inner = (cause as { readonly usage?: unknown }).usage
  return inner !== undefined && isUsage(inner) ? inner : undefined
}

/**
 * Whether every call of the trial was served from the response cache (its
 * record's `metadata.cache` is `hit`): its usage is what the answers cost
 * when they were first asked, not spent again, so spend and budgets leave it
 * out and the summary reports it as `usage.cached`.
 *
 * @category getters
 * @since 0.8.0
 */
export const servedFromCache = (trial: AgentEvalTrial): boolean => trial.metadata["cache"] === "hit"

/**
 * What a trial's agent spent: its output's usage, or, for a failed trial,
 * what its error records the attempts spent.
 *
 * @category getters
 * @since 0.4.0
 */
export const ofTrial = (trial: AgentEvalTrial): Usage | undefined => trial.output?.usage ?? trial.error?.usage

/**
 * What a trial's scorers spent (its judges' calls), summed over its scores.
 *
 * @category getters
 * @since 0.4.0
 */
export const ofScores = (trial: AgentEvalTrial): Usage | undefined => {
  const scores = trial.scores
  if (scores === undefined) return undefined
  let sum: Usage | undefined
  for (const name in scores) {
    const usage = scores[name]!.usage
    if (usage !== undefined) sum = add(sum, usage)
  }
  return sum
}

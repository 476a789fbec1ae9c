/**
 * The spending budgets of a run: `--max-cost USD` and `--max-tokens N`
 * (agent and judges together). They stop a run the way `--max-failures`
 * does: the trial that reaches a budget is recorded, admission stops, the
 * trials in flight are interrupted, and a `--resume` counts what the file's
 * trials already spent.
 *
 * @since 0.4.0
 */
import { Schema, Stream } from "effect"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import * as Usage from "../domain/Usage.ts"
import { stopAfter } from "../internal/stopAfter.ts"

/**
 * A budget was reached: the run stopped (exit code 1).
 *
 * @category errors
 * @since 0.4.0
 */
export class BudgetExceeded extends Schema.TaggedError<BudgetExceeded>()("BudgetExceeded", {
  message: Schema.String,
  budget: Schema.Literals(["max_cost", "max_tokens"]),
  spent: Schema.Number,
  limit: Schema.Number
}) {}

/**
 * The budgets; none when both are undefined.
 *
 * @category models
 * @since 0.4.0
 */
export interface Budgets {
  /** USD, over the priced usage of agent and judges. */
  readonly maxCost?: number | undefined
  /** Tokens (`total_tokens`), agent and judges. */
  readonly maxTokens?: number | undefined
}

/**
 * What the trials counted so far spent.
 *
 * @category models
 * @since 0.4.0
 */
export class Spent {
  tokens = 0
  cost = 0

  add(trial: AgentEvalTrial): void {
    const agent = Usage.ofTrial(trial)
    if (agent !== undefined) {
      this.tokens += agent.total_tokens
      this.cost += agent.cost_usd ?? 0
    }
    const judge = trial.scores === undefined ? undefined : Usage.ofScores(trial)
    if (judge !== undefined) {
      this.tokens += judge.total_tokens
      this.cost += judge.cost_usd ?? 0
    }
  }

  /** The first budget reached, if any. */
  reached(budgets: Budgets): BudgetExceeded | undefined {
    const resume = "(--resume continues, counting what was spent)"
    if (budgets.maxCost !== undefined && this.cost >= budgets.maxCost) {
      return new BudgetExceeded({
        message: `stopped: the trials recorded spent $${round(this.cost)}, reaching --max-cost ${budgets.maxCost} ${resume}`,
        budget: "max_cost",
        spent: round(this.cost),
        limit: budgets.maxCost
      })
    }
    if (budgets.maxTokens !== undefined && this.tokens >= budgets.maxTokens) {
      return new BudgetExceeded({
        message: `stopped: the trials recorded spent ${this.tokens} tokens, reaching --max-tokens ${budgets.maxTokens} ${resume}`,
        budget: "max_tokens",
        spent: this.tokens,
        limit: budgets.maxTokens
      })
    }
    return undefined
  }
}

const round = (x: number): number => Math.round(x * 1e9) / 1e9

/**
 * Stops `stream` once `spent` (which already counts the trials recorded
 * before) reaches a budget: the trial that reaches it is emitted, then the
 * stream fails with `BudgetExceeded`. A budget already reached stops it
 * before its first trial.
 *
 * @category combinators
 * @since 0.4.0
 */
export const stopOnBudget = <E, R>(
  stream: Stream.Stream<AgentEvalTrial, E, R>,
  budgets: Budgets,
  spent: Spent
): Stream.Stream<AgentEvalTrial, E | BudgetExceeded, R> =>
  Stream.suspend(() => {
    const before = spent.reached(budgets)
    if (before !== undefined) return Stream.fail(before)
    return stopAfter(stream, (trial) => {
      spent.add(trial)
      return spent.reached(budgets)
    })
  })

/**
 * Where a run stops early: at a tool server gone for good (`ToolsStop`),
 * then at a budget reached (`Budget.stopOnBudget`); the trial that decides
 * it is kept, the run fails with the reason.
 *
 * @since 0.7.0
 */
import { Function, type Stream } from "effect"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"
import * as Budget from "../Budget.ts"
import * as ToolsStop from "../ToolsStop.ts"

/**
 * Options of `stop`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options {
  /** Whether the run's agent uses tool servers (`--tools`). */
  readonly deadServer: boolean
  /** The budgets and what was spent, when a budget is set. */
  readonly budget: { readonly budgets: Budget.Budgets; readonly spent: Budget.Spent } | undefined
}

/**
 * The trials up to the one that stops the run, if any.
 *
 * @category combinators
 * @since 0.7.0
 */
export const stop: {
  (options: Options): <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>) => Stopped<E, R>
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, options: Options): Stopped<E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, options: Options): Stopped<E, R> => {
  const tooled = options.deadServer ? ToolsStop.stopOnDeadServer(self) : self
  return options.budget !== undefined ? Budget.stopOnBudget(tooled, options.budget.budgets, options.budget.spent) : tooled
})

/**
 * The trials of `stop`; it fails with the source's error or the reason it stopped.
 *
 * @category models
 * @since 0.7.0
 */
export type Stopped<E, R> = Stream.Stream<AgentEvalTrial, E | ToolsStop.ToolServerFailed | Budget.BudgetExceeded, R>

/**
 * The stages of a matrix run after its one runner, each trial tagged with
 * its cell and handled by that cell's plan: labelled as the cell labels,
 * scored by the cell's scorers (`Stage.scoreCells`), priced by the cell's
 * prices, stopped at a dead tool server or the one budget of every cell,
 * and recorded in the cell's own results file.
 *
 * @since 0.8.0
 */
import { Effect, Metric, Stream } from "effect"
import type { AgentEvalTask, AgentEvalTrial } from "../../domain/Trial.ts"
import * as Usage from "../../domain/Usage.ts"
import type * as Results from "../../results/Results.ts"
import type { CellUnit } from "../../runner/Runner.ts"
import * as Telemetry from "../../runner/Telemetry.ts"
import * as Labels from "../../summary/Labels.ts"
import * as Pricing from "../../summary/Pricing.ts"
import * as Budget from "../run/Budget.ts"
import type { RunPlan } from "../run/Prepare.ts"
import * as ToolsStop from "../run/ToolsStop.ts"

/**
 * A trial of one cell (`cell`: its index) with its task.
 *
 * @category models
 * @since 0.8.0
 */
export interface CellTrial {
  readonly cell: number
  readonly task: AgentEvalTask
  readonly trial: AgentEvalTrial
}

/**
 * Each trial labelled as its cell's run labels it (epochs, cluster, groups)
 * and with the dataset's commit, which the cells share.
 *
 * @category combinators
 * @since 0.8.0
 */
export const label = (plans: ReadonlyArray<RunPlan>, revisions: { readonly now: string | undefined }) =>
<E, R>(self: Stream.Stream<{ readonly unit: CellUnit; readonly trial: AgentEvalTrial }, E, R>): Stream.Stream<CellTrial, E, R> =>
  Stream.map(self, ({ trial, unit }): CellTrial => ({
    cell: unit.cell,
    task: unit.task,
    trial: {
      ...trial,
      metadata: {
        ...trial.metadata,
        ...Labels.ofTask(unit.task, plans[unit.cell].labelOptions),
        ...(revisions.now === undefined ? {} : { dataset_revision: revisions.now })
      }
    }
  }))

/**
 * Each trial priced with its cell's `--pricing` (a cell without passes its
 * trials on), its cost added to the run's cost metric.
 *
 * @category combinators
 * @since 0.8.0
 */
export const price = (plans: ReadonlyArray<RunPlan>) => <E, R>(self: Stream.Stream<CellTrial, E, R>): Stream.Stream<CellTrial, E, R> =>
  plans.every((plan) => plan.pricing === undefined) ? self : Stream.mapEffect(self, (item) => {
    const { pricing, sayUnpriced } = plans[item.cell]
    if (pricing === undefined) return Effect.succeed(item)
    const trial = Pricing.priceTrial(pricing, item.trial)
    const cost = (Usage.ofTrial(trial)?.cost_usd ?? 0) + (Usage.ofTrial(trial)?.user?.cost_usd ?? 0) + (Usage.ofScores(trial)?.cost_usd ?? 0)
    return Effect.as(cost > 0 ? Effect.andThen(sayUnpriced, Metric.update(Telemetry.costUsd, cost)) : sayUnpriced, { ...item, trial })
  })

/**
 * The trials up to the one that stops the matrix: a tool server gone for
 * good (in a cell with `--tools`), or the one budget of every cell reached.
 *
 * @category combinators
 * @since 0.8.0
 */
export const stop = (
  plans: ReadonlyArray<RunPlan>,
  budget: { readonly budgets: Budget.Budgets; readonly spent: Budget.Spent } | undefined
) =>
<E, R>(self: Stream.Stream<CellTrial, E, R>) => {
  const tooled = plans.some((plan) => (plan.config.tools?.length ?? 0) > 0)
    ? ToolsStop.stopOnDeadServer(self, (item) => item.trial)
    : self
  return budget === undefined ? tooled : Budget.stopOnBudget(tooled, budget.budgets, budget.spent, (item) => item.trial)
}

/**
 * Runs the stream, each trial appended to its cell's results file, and the
 * cell's `results: FILE` line said once that file exists.
 *
 * @category sinks
 * @since 0.8.0
 */
export const record = (
  sinks: ReadonlyArray<{ readonly sink: Results.Writer; readonly announce: Effect.Effect<void> }>
) =>
<E, R>(self: Stream.Stream<CellTrial, E, R>): Effect.Effect<void, E | Results.ResultsWriteError, R> =>
  Stream.runForEach(self, (item) => {
    const { announce, sink } = sinks[item.cell]
    return Effect.andThen(sink.append(item.trial), announce)
  })

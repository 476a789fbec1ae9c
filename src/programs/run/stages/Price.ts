/**
 * Each trial priced with `--pricing` (before the budgets count it and the
 * file records it), its cost added to the run's cost metric, and each model
 * the pricing file lacks warned of once.
 *
 * @since 0.7.0
 */
import { Effect, Function, Metric, Stream } from "effect"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"
import * as Usage from "../../../domain/Usage.ts"
import * as Telemetry from "../../../runner/Telemetry.ts"
import * as Pricing from "../../../summary/Pricing.ts"

/**
 * Options of `price`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options {
  /** The prices; the stream is passed on as it is when undefined. */
  readonly pricing: Pricing.Pricing | undefined
  /** Warns of the models met that the pricing file lacks. */
  readonly sayUnpriced: Effect.Effect<void>
}

/**
 * Each trial priced.
 *
 * @category combinators
 * @since 0.7.0
 */
export const price: {
  (options: Options): <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>) => Stream.Stream<AgentEvalTrial, E, R>
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, options: Options): Stream.Stream<AgentEvalTrial, E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, options: Options): Stream.Stream<AgentEvalTrial, E, R> => {
  const { pricing, sayUnpriced } = options
  return pricing === undefined
    ? self
    : Stream.tap(Stream.map(self, (trial) => Pricing.priceTrial(pricing, trial)), (trial) => {
      // A hit spent nothing now: its cost is the summary's `usage.cached`.
      const cost = Usage.servedFromCache(trial) ? 0 : (Usage.ofTrial(trial)?.cost_usd ?? 0) + (Usage.ofTrial(trial)?.user?.cost_usd ?? 0) + (Usage.ofScores(trial)?.cost_usd ?? 0)
      return cost > 0 ? Effect.andThen(sayUnpriced, Metric.update(Telemetry.costUsd, cost)) : sayUnpriced
    })
})

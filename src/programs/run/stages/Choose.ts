/**
 * Which units the run takes: not those a resume finds recorded (counted in
 * `skipped`), with `--estimate` only its first trials, and with a budget
 * only while it admits them.
 *
 * @since 0.7.0
 */
import { Function, Stream } from "effect"
import { trialId } from "../../../domain/Trial.ts"
import type { TrialUnit } from "../../../runner/Runner.ts"
import * as Budget from "../Budget.ts"
import type { MutableCounts } from "../internal/counts.ts"

/**
 * Options of `choose`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options {
  /** The trial ids already recorded: their units are skipped. */
  readonly recorded: { readonly has: (id: string) => boolean }
  /** With `--estimate`: the trials it runs, the first not yet recorded. */
  readonly take: number | undefined
  /** The budgets and what was spent, when a budget is set. */
  readonly budget: { readonly budgets: Budget.Budgets; readonly spent: Budget.Spent } | undefined
  /** Counts the units skipped (`skipped`). */
  readonly counts: MutableCounts
}

/**
 * The units the run takes.
 *
 * @category combinators
 * @since 0.7.0
 */
export const choose: {
  (options: Options): <E, R>(self: Stream.Stream<TrialUnit, E, R>) => Stream.Stream<TrialUnit, E, R>
  <E, R>(self: Stream.Stream<TrialUnit, E, R>, options: Options): Stream.Stream<TrialUnit, E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<TrialUnit, E, R>, options: Options): Stream.Stream<TrialUnit, E, R> => {
  const { budget, counts, recorded, take } = options
  return self.pipe(
    Stream.filter((unit) => {
      if (!recorded.has(trialId(unit.task.id, unit.epoch))) return true
      counts.skipped++
      return false
    }),
    // An estimate runs the first trials not yet recorded, then stops.
    (all) => take !== undefined ? Stream.take(all, take) : all,
    (all) => budget !== undefined ? Budget.admitWithin(all, budget.budgets, budget.spent) : all
  )
})

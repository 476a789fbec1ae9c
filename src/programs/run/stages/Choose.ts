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
export interface Options<U extends TrialUnit = TrialUnit> {
  /** The trial ids already recorded (of the unit's cell, in a matrix run): their units are skipped. */
  readonly recorded: { readonly has: (id: string, unit: U) => boolean }
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
  <U extends TrialUnit>(options: Options<U>): <E, R>(self: Stream.Stream<U, E, R>) => Stream.Stream<U, E, R>
  <U extends TrialUnit, E, R>(self: Stream.Stream<U, E, R>, options: Options<U>): Stream.Stream<U, E, R>
} = Function.dual(2, <U extends TrialUnit, E, R>(self: Stream.Stream<U, E, R>, options: Options<U>): Stream.Stream<U, E, R> => {
  const { budget, counts, recorded, take } = options
  return self.pipe(
    Stream.filter((unit) => {
      if (!recorded.has(trialId(unit.task.id, unit.epoch), unit)) return true
      counts.skipped++
      return false
    }),
    // An estimate runs the first trials not yet recorded, then stops.
    (all) => take !== undefined ? Stream.take(all, take) : all,
    (all) => budget !== undefined ? Budget.admitWithin(all, budget.budgets, budget.spent) : all
  )
})

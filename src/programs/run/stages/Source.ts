/**
 * The run's first stage: its task source (a `--tasks` file with its rows
 * chosen, or synthetic tasks) as trial units, one per epoch of each task and
 * one per bad line, each bad line counted.
 *
 * @since 0.7.0
 */
import { Function, Stream } from "effect"
import type * as Choose from "../../../datasets/Choose.ts"
import type * as Dataset from "../../../datasets/Dataset.ts"
import type { TrialUnit } from "../../../runner/Runner.ts"
import type { KindedConfig } from "../Config.ts"
import type * as Revisions from "../Revisions.ts"
import { itemsOf, sourceError, toUnits } from "../Inputs.ts"
import type { MutableCounts } from "../internal/counts.ts"

/**
 * Options of `units`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options {
  readonly config: KindedConfig
  /** The `--ids` file, read. */
  readonly ids: Choose.IdList | undefined
  /** The dataset's commit: told by the source, checked against a resume's. */
  readonly revisions: Revisions.Revisions
  /** Counts the bad lines (`invalidLines`). */
  readonly counts: MutableCounts
}

/**
 * The run's units, read from its task source.
 *
 * @category constructors
 * @since 0.7.0
 */
export const units = (options: Options) => {
  const { config, counts, ids, revisions } = options
  return itemsOf(config, { chosen: true, ids, onSource: revisions.onSource }).pipe(
    Stream.mapError(sourceError),
    (items) => revisions.check(items),
    fromItems({ epochs: config.epochs, counts })
  )
}

/**
 * Each item's units: one per epoch of a task, one for a bad line (counted in
 * `counts.invalidLines`).
 *
 * @category combinators
 * @since 0.7.0
 */
export const fromItems: {
  (options: UnitsOptions): <E, R>(self: Stream.Stream<Dataset.Item, E, R>) => Stream.Stream<TrialUnit, E, R>
  <E, R>(self: Stream.Stream<Dataset.Item, E, R>, options: UnitsOptions): Stream.Stream<TrialUnit, E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<Dataset.Item, E, R>, options: UnitsOptions): Stream.Stream<TrialUnit, E, R> => {
  const { counts, epochs } = options
  return Stream.mapArray(self, (items) => {
    for (const item of items) if (item._tag === "Invalid") counts.invalidLines++
    return toUnits(items, epochs)
  })
})

/**
 * Options of `fromItems`.
 *
 * @category models
 * @since 0.7.0
 */
export interface UnitsOptions {
  /** Units per task. */
  readonly epochs: number
  /** Counts the bad lines (`invalidLines`). */
  readonly counts: MutableCounts
}

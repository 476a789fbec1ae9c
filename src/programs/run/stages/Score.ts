/**
 * The scoring stage: each finished trial scored (`Stage.scoreTrials`), or,
 * with no scorers here (none asked, or a `--cluster` run's, which score on
 * the workers), passed on as it is. A recorded trial carries its scores, so
 * a resume never scores a trial twice nor records one unscored.
 *
 * @since 0.7.0
 */
import { Function, Stream } from "effect"
import type { InvalidParallelism } from "../../../domain/Errors.ts"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"
import * as Stage from "../../../scoring/Stage.ts"

/**
 * Each trial, scored when there are `options`.
 *
 * @category combinators
 * @since 0.7.0
 */
export const score: {
  <SR = never>(options: Stage.Options<SR> | undefined): <E, R>(self: Stream.Stream<Stage.Finished, E, R>) => Scored<E, R | SR>
  <E, R, SR = never>(self: Stream.Stream<Stage.Finished, E, R>, options: Stage.Options<SR> | undefined): Scored<E, R | SR>
} = Function.dual(
  2,
  <E, R, SR>(self: Stream.Stream<Stage.Finished, E, R>, options: Stage.Options<SR> | undefined): Scored<E, R | SR> =>
    options === undefined ? Stream.map(self, (f) => f.trial) : Stage.scoreTrials(self, options)
)

/**
 * The trials of `score`; it fails with the source's error or a bad bound.
 *
 * @category models
 * @since 0.7.0
 */
export type Scored<E, R> = Stream.Stream<AgentEvalTrial, E | InvalidParallelism, R>

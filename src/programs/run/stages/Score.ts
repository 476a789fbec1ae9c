/**
 * The scoring stage: each finished trial scored (`Stage.scoreTrials`), or,
 * with no scorers here (none asked, or a `--cluster` run's, which score on
 * the workers), passed on as it is. A recorded trial carries its scores, so
 * a resume never scores a trial twice nor records one unscored.
 *
 * @since 0.7.0
 */
import { Stream } from "effect"
import * as Stage from "../../../scoring/Stage.ts"

/**
 * Each trial, scored when there are `options`.
 *
 * @category combinators
 * @since 0.7.0
 */
export const score = <E, R, SR>(self: Stream.Stream<Stage.Finished, E, R>, options: Stage.Options<SR> | undefined) =>
  options === undefined ? Stream.map(self, (f) => f.trial) : Stage.scoreTrials(self, options)

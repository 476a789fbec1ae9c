/**
 * Each trial with its task, its record carrying what it says of the task
 * (`Labels`: epochs, cluster, groups) and the dataset's commit.
 *
 * @since 0.7.0
 */
import { Function, Stream } from "effect"
import type { Paired } from "../../../runner/Runner.ts"
import type * as Stage from "../../../scoring/Stage.ts"
import * as Labels from "../../../summary/Labels.ts"

/**
 * Options of `label`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options {
  readonly labels: { readonly epochs: number; readonly clusterBy: Labels.ClusterBy; readonly groupBy: ReadonlyArray<string> }
  /** The dataset's commit, read as each trial passes (the source tells it before its first task). */
  readonly revisions: { readonly now: string | undefined }
}

/**
 * Each trial labelled, with its task.
 *
 * @category combinators
 * @since 0.7.0
 */
export const label: {
  (options: Options): <E, R>(self: Stream.Stream<Paired, E, R>) => Stream.Stream<Stage.Finished, E, R>
  <E, R>(self: Stream.Stream<Paired, E, R>, options: Options): Stream.Stream<Stage.Finished, E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<Paired, E, R>, options: Options): Stream.Stream<Stage.Finished, E, R> => {
  const { labels: labelOptions, revisions } = options
  return Stream.map(self, ({ trial, unit }): Stage.Finished => ({
    task: unit.task,
    trial: {
      ...trial,
      metadata: {
        ...trial.metadata,
        ...Labels.ofTask(unit.task, labelOptions),
        ...(revisions.now === undefined ? {} : { dataset_revision: revisions.now })
      }
    }
  }))
})

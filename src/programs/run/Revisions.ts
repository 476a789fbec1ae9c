/**
 * The dataset revision a run reads, held against the one its recorded
 * trials were read from: a resume must not mix two commits of an `hf:`
 * dataset.
 *
 * @since 0.5.0
 */
import { Effect, Stream } from "effect"
import type { SourceRead } from "../../datasets/Dataset.ts"
import { RunDefinitionError } from "./Definition.ts"

/**
 * The commit an `hf:` source is read at (`onSource`: the source says it
 * before its first task) and, on a resume, the commit the trials already
 * recorded were read from (`onPrior`: their `dataset_revision`). `check`
 * fails the source's stream before its first task with
 * `RunDefinitionError`, naming both, when they differ: a revision that
 * moved (`@main` with new commits) would mix two versions of the dataset.
 *
 * @category resume
 * @since 0.5.0
 */
export class Revisions {
  /** The commit this run reads. */
  now: string | undefined = undefined
  /** The commit the recorded trials were read from. */
  then: string | undefined = undefined
  readonly tasks: string | undefined

  constructor(tasks: string | undefined) {
    this.tasks = tasks
  }

  readonly onSource = (source: SourceRead): void => {
    this.now = source.revision ?? this.now
  }

  readonly onPrior = (trial: { readonly metadata: Record<string, unknown> }): void => {
    const revision = trial.metadata["dataset_revision"]
    if (this.then === undefined && typeof revision === "string") this.then = revision
  }

  check<A, E, R>(items: Stream.Stream<A, E, R>): Stream.Stream<A, E | RunDefinitionError, R> {
    return Stream.suspend(() => {
      let checked = false
      return Stream.mapArrayEffect(items, (chunk) => {
        if (checked) return Effect.succeed(chunk)
        checked = true
        const { now, tasks, then } = this
        return then === undefined || now === undefined || then === now ? Effect.succeed(chunk) : Effect.fail(
          new RunDefinitionError({
            path: tasks ?? "",
            message: `--resume: ${tasks} was at commit ${then} when the results were started and is at ${now} now: ` +
              `resuming would mix two versions of the dataset; start a new --out (with @${then} to read that commit)`
          })
        )
      })
    })
  }
}

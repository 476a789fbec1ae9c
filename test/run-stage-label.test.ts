/**
 * The label stage (programs/run/stages/Label.ts): each trial comes out with
 * its unit's task, its metadata carrying the labels of the task (epochs,
 * cluster, groups) and the dataset's commit as the stage reads it then.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Label from "../src/programs/run/stages/Label.ts"
import type { Paired } from "../src/runner/Runner.ts"
import { drain, trialOf } from "./run-stages.ts"

const paired: Paired = {
  unit: { task: { id: "t1", inputs: {}, metadata: { subject: "math" } }, epoch: 2 },
  trial: trialOf("t1")
}
const labels = { epochs: 2, clusterBy: "task", groupBy: ["metadata.subject"] }

describe("Label.label", () => {
  it.effect("adds the task's labels and the dataset's commit to each trial, keeping its metadata (piped)", () =>
    Effect.gen(function*() {
      const revisions = { now: undefined as string | undefined }
      const stream = Stream.make(paired).pipe(Label.label({ labels, revisions }))
      // Read as the trial passes, not when the stage is built: the source tells it before its first task.
      revisions.now = "abc123"
      const { out } = yield* drain(stream)
      assert.strictEqual(out.length, 1)
      assert.strictEqual(out[0]!.task, paired.unit.task)
      assert.deepStrictEqual(out[0]!.trial.metadata, {
        ...paired.trial.metadata,
        epochs: 2,
        stderr_cluster: { by: "task", value: "t1" },
        groups: { "metadata.subject": "math" },
        group_keys: { "metadata.subject": "\"math\"" },
        dataset_revision: "abc123"
      })
      assert.strictEqual(out[0]!.trial.output, paired.trial.output)
    }))

  it.effect("without a commit the record has no dataset_revision (called directly)", () =>
    Effect.gen(function*() {
      const { out } = yield* drain(Label.label(Stream.make(paired), { labels: { epochs: 1, clusterBy: null, groupBy: [] }, revisions: { now: undefined } }))
      assert.deepStrictEqual(out[0]!.trial.metadata, { ...paired.trial.metadata, epochs: 1, stderr_cluster: null })
    }))
})

/**
 * The record stage (programs/run/stages/Record.ts): each trial is appended
 * to the sink in order and the results line is given its turn after each;
 * an append that fails stops the run with that error, nothing after it
 * appended.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Stream } from "effect"
import * as Record from "../src/programs/run/stages/Record.ts"
import { ResultsWriteError, type Writer } from "../src/results/Results.ts"
import { trialOf } from "./run-stages.ts"

const sinkOf = (failAt?: number) => {
  const appended: Array<string> = []
  const sink: Writer = {
    append: (trial) =>
      appended.length === failAt
        ? Effect.fail(new ResultsWriteError({ path: "out.jsonl", message: "cannot write out.jsonl: EIO", lost: 1 }))
        : Effect.sync(() => void appended.push(trial.task_id)),
    flush: Effect.void,
    written: () => appended.length,
    failure: () => undefined
  }
  return { sink, appended }
}

describe("Record.record", () => {
  it.effect("appends each trial in order, announcing after each (piped)", () =>
    Effect.gen(function*() {
      const { appended, sink } = sinkOf()
      const announced: Array<number> = []
      yield* Stream.make(trialOf("a"), trialOf("b"), trialOf("c")).pipe(
        Record.record({ sink, announce: Effect.sync(() => void announced.push(appended.length)) })
      )
      assert.deepStrictEqual(appended, ["a", "b", "c"])
      assert.deepStrictEqual(announced, [1, 2, 3])
    }))

  it.effect("a failed append fails the stage with its error; nothing after it is appended (called directly)", () =>
    Effect.gen(function*() {
      const { appended, sink } = sinkOf(1)
      let announced = 0
      const exit = yield* Effect.exit(
        Record.record(Stream.make(trialOf("a"), trialOf("b"), trialOf("c")), { sink, announce: Effect.sync(() => void announced++) })
      )
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined
      assert.instanceOf(error, ResultsWriteError)
      assert.strictEqual(error?.message, "cannot write out.jsonl: EIO")
      assert.deepStrictEqual(appended, ["a"])
      assert.strictEqual(announced, 1)
    }))
})

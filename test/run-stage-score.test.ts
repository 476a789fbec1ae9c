/**
 * The score stage (programs/run/stages/Score.ts): with no scoring here each
 * trial passes as it is; with scorers each is scored once, a failed trial
 * left unscored, and the stage's probe counts them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Score from "../src/programs/run/stages/Score.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import type * as Stage from "../src/scoring/Stage.ts"
import { drain, trialOf } from "./run-stages.ts"

const failed: AgentEvalTrial = {
  id: "c:trial",
  task_id: "c",
  status: "failed",
  error: { type: "AgentError", message: "x", occurred_at: "2026-01-01T00:00:00.000Z" },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
}
const finished: ReadonlyArray<Stage.Finished> = [
  { task: { id: "a", inputs: {} }, trial: trialOf("a", { text: "yes" }) },
  { task: { id: "b", inputs: {} }, trial: trialOf("b", { text: "no" }) },
  { task: { id: "c", inputs: {} }, trial: failed }
]

describe("Score.score", () => {
  it.effect("with no scoring here, each trial passes as it is (piped)", () =>
    Effect.gen(function*() {
      const { out } = yield* drain(Stream.fromIterable(finished).pipe(Score.score(undefined)))
      assert.deepStrictEqual(out, finished.map((f) => f.trial))
      assert.strictEqual(out[0], finished[0]!.trial)
    }))

  it.effect("with a scorer, each finished trial is scored once, a failed one left unscored (called directly)", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const calls: Array<string> = []
      const scorer = {
        name: "yes",
        score: (_task: unknown, trial: AgentEvalTrial) =>
          Effect.sync(() => {
            calls.push(trial.task_id)
            const passed = trial.output?.output_text === "yes"
            return { value: passed ? 1 : 0, passed }
          })
      }
      const { out } = yield* drain(Score.score(Stream.fromIterable(finished), { scorers: [scorer], parallelism: 2, probe }))
      const byTask = new Map(out.map((t) => [t.task_id, t.scores]))
      assert.deepStrictEqual(byTask.get("a"), { yes: { value: 1, passed: true } })
      assert.deepStrictEqual(byTask.get("b"), { yes: { value: 0, passed: false } })
      assert.isUndefined(byTask.get("c"))
      assert.deepStrictEqual(calls.sort(), ["a", "b"])
      assert.strictEqual(probe.completed, 3)
      assert.strictEqual(probe.failed, 1)
    }))
})

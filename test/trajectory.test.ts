/**
 * Trajectories as data: a module agent's trajectory validated like the rest
 * of its output (a bad step named by field), kept whole in the record, and
 * kept on a failed trial whose error carries one; the getters read it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Exit, Stream } from "effect"
import * as Agent from "../src/domain/Agent.ts"
import type { Trajectory } from "../src/domain/Trial.ts"
import * as Trajectories from "../src/domain/Trajectory.ts"
import { runTrials } from "../src/runner/Runner.ts"
import { tasksStream } from "./fixtures.ts"

const at = "2026-01-01T00:00:00.000Z"
const path: Trajectory = [
  { type: "model", content: "", started_at: at, duration_ms: 12, usage: { input_tokens: 10, output_tokens: 4, total_tokens: 14 } },
  { type: "tool_call", name: "search", id: "c1", arguments: { q: "x" }, started_at: at, duration_ms: 3 },
  { type: "tool_call", name: "fetch", id: "c2", arguments: { url: "u" }, started_at: at, duration_ms: 5 },
  { type: "tool_result", name: "search", id: "c1", content: "y".repeat(10_000), started_at: at, duration_ms: 0 },
  { type: "tool_result", name: "fetch", id: "c2", content: "boom", is_error: true, started_at: at, duration_ms: 0 },
  { type: "model", content: "done", started_at: at, duration_ms: 7 },
  { type: "tool_call", name: "search", id: "c3", arguments: { q: "z" }, started_at: at, duration_ms: 1 }
]

class LoopFailed extends Data.TaggedError("MaxTurns")<{ readonly message: string; readonly trajectory: Trajectory }> {}

describe("trajectories", () => {
  it("a valid trajectory passes validation whole; a bad step is named by field", () => {
    const ok = Agent.toAgentOutput({ output_text: "done", trajectory: path })
    assert.isTrue(Exit.isSuccess(ok))
    if (Exit.isSuccess(ok)) assert.strictEqual((ok.value.trajectory![3]!.content as string).length, 10_000)
    const bad = Agent.toAgentOutput({ output_text: "x", trajectory: [{ type: "thinking", started_at: at, duration_ms: 1 }] })
    assert.isTrue(Exit.isFailure(bad))
    assert.include(String(Exit.isFailure(bad) && bad.cause.reasons[0]), "field trajectory.0.type")
    const negative = Agent.toAgentOutput({ output_text: "x", trajectory: [{ type: "model", started_at: at, duration_ms: -1 }] })
    assert.include(String(Exit.isFailure(negative) && negative.cause.reasons[0]), "field trajectory.0.duration_ms")
  })

  it("counts steps (model turns), calls in order and calls by tool", () => {
    assert.strictEqual(Trajectories.steps(path), 2)
    assert.deepStrictEqual(Trajectories.toolCalls(path).map((s) => s.id), ["c1", "c2", "c3"])
    assert.deepStrictEqual([...Trajectories.callsByTool(path)], [["search", 2], ["fetch", 1]])
  })

  it.effect("a completed trial records its agent's trajectory; a failure that carries one keeps it on the error", () =>
    Effect.gen(function*() {
      const agent: Agent.Agent<LoopFailed> = (task) =>
        task.id === "t0"
          ? Effect.succeed({ output_text: "done", trajectory: path })
          : Effect.fail(new LoopFailed({ message: "reached 2 turns", trajectory: path.slice(0, 2) }))
      const trials = [...yield* Stream.runCollect(runTrials(tasksStream(2), agent, { parallelism: 2 }))]
        .sort((a, b) => a.task_id.localeCompare(b.task_id))
      assert.deepStrictEqual(trials[0]!.output?.trajectory, path)
      assert.strictEqual(trials[1]!.status, "failed")
      assert.strictEqual(trials[1]!.error?.type, "MaxTurns")
      assert.deepStrictEqual(trials[1]!.error?.trajectory, path.slice(0, 2))
      assert.deepStrictEqual(Trajectories.ofTrial(trials[1]!), path.slice(0, 2))
      assert.strictEqual(Trajectories.ofError({ trajectory: [{ type: "nope" }] }), undefined)
    }))
})

/**
 * The stop stage (programs/run/stages/Stop.ts): nothing to stop on passes
 * the stream on as it is; a trial whose tool server is gone for good is
 * emitted and then the stream fails with ToolServerFailed; a trial that
 * reaches a budget is emitted and then it fails with BudgetExceeded.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Budget from "../src/programs/run/Budget.ts"
import * as Stop from "../src/programs/run/stages/Stop.ts"
import { drain, trialOf, usageOf } from "./run-stages.ts"

const deadServer: AgentEvalTrial = {
  id: "b:trial",
  task_id: "b",
  status: "failed",
  error: { type: "McpServerFailed", message: "tool server fs exited twice", occurred_at: "2026-01-01T00:00:00.000Z" },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
}

describe("Stop.stop", () => {
  it.effect("with neither --tools nor a budget, the stream itself passes on (piped)", () =>
    Effect.gen(function*() {
      const source = Stream.make(trialOf("a"), deadServer, trialOf("c"))
      assert.strictEqual(source.pipe(Stop.stop({ deadServer: false, budget: undefined })), source)
    }))

  it.effect("--tools: the trial of a dead tool server is emitted, then the run stops with ToolServerFailed (called directly)", () =>
    Effect.gen(function*() {
      const { out, error } = yield* drain(Stop.stop(Stream.make(trialOf("a"), deadServer, trialOf("c")), { deadServer: true, budget: undefined }))
      assert.deepStrictEqual(out.map((t) => t.task_id), ["a", "b"])
      assert.strictEqual(error?._tag, "ToolServerFailed")
      assert.strictEqual(
        error?.message,
        "tool server fs exited twice; the run stopped (trial recorded; --resume runs the rest once the server works)"
      )
    }))

  it.effect("a budget: the trial that reaches it is emitted, then the run stops with BudgetExceeded, counted in spent", () =>
    Effect.gen(function*() {
      const spent = new Budget.Spent()
      const trials = Stream.make(trialOf("a", { usage: usageOf(10) }), trialOf("b", { usage: usageOf(10) }), trialOf("c", { usage: usageOf(10) }))
      const { out, error } = yield* drain(trials.pipe(Stop.stop({ deadServer: false, budget: { budgets: { maxTokens: 15 }, spent } })))
      assert.deepStrictEqual(out.map((t) => t.task_id), ["a", "b"])
      assert.strictEqual(error?._tag, "BudgetExceeded")
      assert.strictEqual(spent.tokens, 20)
      assert.strictEqual(spent.trials, 2)
    }))

  it.effect("a budget's stop reports the agent calls running then, not the trials past their call still to be counted", () =>
    Effect.gen(function*() {
      // 70 trials admitted and 2 settled below: 68 not yet counted, of which the runner says 5 are calls running.
      const active = 5
      const spent = new Budget.Spent(() => active)
      spent.admitted = 70
      const trials = Stream.make(trialOf("a", { usage: usageOf(10) }), trialOf("b", { usage: usageOf(10) }))
      const { error } = yield* drain(trials.pipe(Stop.stop({ deadServer: false, budget: { budgets: { maxTokens: 15 }, spent } })))
      assert.strictEqual(error?._tag, "BudgetExceeded")
      assert.strictEqual(spent.inFlight, 68)
      assert.strictEqual(spent.inFlightAtStop, 5)
      // Without the runner's count, what the reserve counts.
      const alone = new Budget.Spent()
      alone.admitted = 70
      yield* drain(Stream.make(trialOf("a", { usage: usageOf(10) }), trialOf("b", { usage: usageOf(10) })).pipe(
        Stop.stop({ deadServer: false, budget: { budgets: { maxTokens: 15 }, spent: alone } })
      ))
      assert.strictEqual(alone.inFlightAtStop, 68)
    }))
})

/**
 * The gate test for agents that act: 1,000 trials, each a tool loop whose
 * first turn asks for 3 tool calls, at parallelism 8. However many tools a
 * trial calls, its loop runs inside the trial's fiber and permit: while the
 * tools are held (TestClock), 8 trials are outstanding and 24 tool calls
 * run; throughout, outstanding never exceeds 8. The model is a `LanguageModel`
 * of the test's own, built on `LanguageModel.make`.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema, Stream } from "effect"
import { LanguageModel, Tool, Toolkit } from "effect/ai"
import { TestClock } from "effect/testing"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import { tasksStream } from "./fixtures.ts"

const TRIALS = 1000
const PARALLELISM = 8
const CALLS = 3

// Turn 1: three calls of `lookup`; once the conversation has their results, an answer.
const scriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.succeed(
        options.prompt.content.some((message) => message.role === "tool")
          ? [
            { type: "text", text: "done" },
            { type: "finish", reason: "stop", usage: { inputTokens: { total: 9 }, outputTokens: { total: 1 } } }
          ]
          : [
            ...Array.from({ length: CALLS }, (_, i) => ({ type: "tool-call" as const, id: `c${i}`, name: "lookup", params: { key: i } })),
            { type: "finish", reason: "tool-calls", usage: { inputTokens: { total: 5 }, outputTokens: { total: 3 } } }
          ]
      ),
    streamText: () => Stream.empty
  })
)

const Lookup = Tool.make("lookup", { parameters: Schema.Struct({ key: Schema.Number }), success: Schema.String })
const toolkit = Toolkit.make(Lookup)

describe("gate: 1,000 tool-loop trials x 3 tool calls, parallelism 8", () => {
  it.effect("8 outstanding and 24 tools running while held; never more than 8 outstanding; all 3,000 calls made", () =>
    Effect.gen(function*() {
      let running = 0
      let peakRunning = 0
      let calls = 0
      const handlers = toolkit.toLayer({
        lookup: ({ key }) =>
          Effect.gen(function*() {
            running++
            calls++
            peakRunning = Math.max(peakRunning, running)
            yield* Effect.sleep("1 second")
            running--
            return `value ${key}`
          })
      })
      const tools = yield* Effect.provide(toolkit, handlers)
      const agent = yield* ToolAgent.make(scriptedModel, {
        tools: [{ _tag: "Held" }],
        maxTurns: 5,
        toolParallelism: 4,
        cwd: process.cwd(),
        sources: [{ tag: "Held", matches: () => false, usage: "", doc: "", parse: () => "", format: () => "held", stateful: false, connect: () => Effect.succeed(tools) }]
      }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)), Effect.orDie)
      const probe = new MutableProbe()
      let completed = 0
      let toolCalls = 0
      const fiber = yield* runTrials(tasksStream(TRIALS), agent, { parallelism: PARALLELISM, probe }).pipe(
        Stream.runForEach((trial) =>
          Effect.sync(() => {
            if (trial.status === "completed") completed++
            toolCalls += trial.output?.trajectory?.filter((s) => s.type === "tool_call").length ?? 0
          })
        ),
        Effect.forkChild
      )
      // The loops reach their tools through a few scheduler turns.
      for (let i = 0; i < 20 && running < PARALLELISM * CALLS; i++) yield* TestClock.adjust(0)
      const held = probe.snapshot()
      assert.strictEqual(held.outstanding, PARALLELISM)
      assert.strictEqual(running, PARALLELISM * CALLS)
      assert.strictEqual(held.started, PARALLELISM)
      for (let wave = 1; wave <= TRIALS / PARALLELISM; wave++) {
        yield* TestClock.adjust("1 second")
        assert.isAtMost(probe.snapshot().outstanding, PARALLELISM)
      }
      yield* Fiber.join(fiber)
      assert.strictEqual(completed, TRIALS)
      assert.strictEqual(toolCalls, TRIALS * CALLS)
      assert.strictEqual(calls, TRIALS * CALLS)
      assert.strictEqual(probe.peakOutstanding, PARALLELISM)
      assert.strictEqual(peakRunning, PARALLELISM * CALLS)
    }))
})

/**
 * `--tools module:` over an AI SDK tool set (issue 43, section 1), with the
 * real `ai` and `zod`: the same `tools` export an AI SDK agent uses
 * (test/fixtures/agent-ai-sdk.ts) serves our tool loop, each `execute`
 * called as the SDK calls it, `execute(args, { toolCallId, messages,
 * abortSignal })`, its throw a tool error; the `abortSignal` is the trial's:
 * interrupting the trial aborts a tool still running.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { tool } from "ai"
import { Effect, Fiber, Layer, Stream } from "effect"
import { z } from "zod"
import * as ChatModel from "../src/agents/ChatModel.ts"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import { runTrials } from "../src/runner/Runner.ts"
import { tools as aiSdkTools } from "./fixtures/agent-ai-sdk.ts"
import { answer, callTools, modelServer } from "./tool-model-server.ts"

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

// A tool agent over `tools` and a model that makes `calls`, then answers.
const agentOver = (tools: unknown, calls: Parameters<typeof callTools>[0]) =>
  Effect.gen(function*() {
    const server = yield* modelServer((turn) => turn === 1 ? callTools(calls) : answer("done"))
    const connected = yield* ModuleTools.fromExport(tools, "--tools test")
    const agent = yield* ToolAgent.make(ChatModel.layer({ baseUrl: `${server.base}/v1`, model: "m", apiKey: undefined }), {
      tools: [{ _tag: "Test" }],
      maxTurns: 3,
      toolParallelism: 1,
      cwd: process.cwd(),
      sources: [{ tag: "Test", matches: () => false, usage: "", doc: "", parse: () => "", format: () => "test", stateful: false, connect: () => Effect.succeed(connected) }]
    })
    return { agent, server }
  })

describe("--tools module: with an AI SDK tool set", () => {
  it.effect("the AI SDK agent's own tool set: results, a throw as a tool error, JSON Schemas sent", () =>
    live(Effect.gen(function*() {
      const { agent, server } = yield* agentOver(aiSdkTools, [
        { id: "c1", name: "add", args: { a: 2, b: 3 } },
        { id: "c2", name: "lookup", args: { word: "nothing" } }
      ])
      const [trial] = yield* Stream.runCollect(runTrials(Stream.make({ id: "t1", inputs: { instruction: "go" } }), agent, { parallelism: 1 }))
      const results = trial!.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true, s.content]), [
        ["c1", false, 5],
        ["c2", true, "no entry for nothing"]
      ])
      const sent = JSON.parse(server.received[0]!.body) as { readonly tools: ReadonlyArray<{ readonly function: { readonly name: string; readonly parameters: unknown } }> }
      assert.deepStrictEqual(sent.tools.map((t) => [t.function.name, (t.function.parameters as { readonly required?: unknown }).required]), [
        ["add", ["a", "b"]],
        ["lookup", ["word"]]
      ])
    })))

  it.effect("execute gets the call's id, messages and the trial's abort signal: interrupting the trial aborts it", () =>
    live(Effect.gen(function*() {
      const seen: Array<unknown> = []
      let started!: () => void
      const called = new Promise<void>((resolve) => (started = resolve))
      const tools = {
        wait: tool({
          description: "Wait until stopped",
          inputSchema: z.object({}),
          execute: (_args, { toolCallId, messages, abortSignal }) =>
            new Promise<string>((resolve) => {
              seen.push(["called", toolCallId, Array.isArray(messages), abortSignal?.aborted])
              abortSignal?.addEventListener("abort", () => {
                seen.push(["aborted", toolCallId])
                resolve("stopped")
              })
              started()
            })
        })
      }
      const { agent } = yield* agentOver(tools, [{ id: "w1", name: "wait", args: {} }])
      const fiber = yield* Effect.forkChild(Stream.runCollect(runTrials(Stream.make({ id: "t1", inputs: { instruction: "go" } }), agent, { parallelism: 1 })))
      yield* Effect.promise(() => called)
      assert.deepStrictEqual(seen, [["called", "w1", true, false]])
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(seen, [["called", "w1", true, false], ["aborted", "w1"]])
    })))
})

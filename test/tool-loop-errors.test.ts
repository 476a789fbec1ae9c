/**
 * A model turn that is no answer fails the trial, never `completed` with an
 * empty answer (issue 37, item 1): against a scripted OpenAI-compatible
 * server on 127.0.0.1, a 200 whose body is an error, has no choices, has a
 * choice without a message or with null content, or finished with
 * `content_filter`, is `ModelError` naming turn 2 (not retried; usage
 * kept); an overloaded, 5xx-shaped or rate-limited body is retried under the
 * policy (TestClock), `insufficient_quota` not. The same for a user's own
 * `LanguageModel` (the `effect-ai:` path): a content-filter finish, an
 * error finish. And the one-call `openai:` agent reads the
 * bodies alike.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema, Stream } from "effect"
import { LanguageModel, Tool, Toolkit } from "effect/ai"
import { TestClock } from "effect/testing"
import * as ChatModel from "../src/agents/ChatModel.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import * as OpenAiAgent from "../src/agents/OpenAi.ts"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { runTrials } from "../src/runner/Runner.ts"
import { answer, callTools, firstUser, modelServer, type Reply, usage } from "./tool-model-server.ts"

const Weather = Tool.make("weather", { parameters: Schema.Struct({ city: Schema.String }), success: Schema.Struct({ celsius: Schema.Number }) })
const toolkit = Toolkit.make(Weather)
const handlers = toolkit.toLayer({ weather: () => Effect.succeed({ celsius: 20 }) })

const task = (id: string): AgentEvalTask => ({ id, inputs: { instruction: id } })

const source = (tools: unknown) => ({
  tag: "Test",
  matches: () => false,
  usage: "",
  doc: "",
  parse: () => "",
  format: () => "test",
  stateful: false,
  connect: () => ModuleTools.fromExport(tools, "--tools test")
})

const overChatModel = (base: string, retries = 2) =>
  ToolAgent.make(ChatModel.layer({ baseUrl: `${base}/v1`, model: "m-1", apiKey: undefined }), {
    tools: [{ _tag: "Test" }],
    maxTurns: 5,
    toolParallelism: 2,
    model: "m-1",
    retry: { retries, base: "1 second" },
    cwd: process.cwd(),
    sources: [source({ toolkit, layer: handlers })]
  })

const runAll = (agent: Parameters<typeof runTrials>[1], tasks: ReadonlyArray<AgentEvalTask>) =>
  Stream.runCollect(runTrials(Stream.fromIterable(tasks), agent, { parallelism: 1 })).pipe(
    Effect.map((trials) => new Map([...trials].map((t) => [t.task_id, t] as const)))
  )

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

// Real time passes for the server to answer; the backoff waits on the TestClock.
const untilReceived = (received: ReadonlyArray<unknown>, n: number) =>
  Effect.promise(() => new Promise((r) => setTimeout(r, 5))).pipe(Effect.repeat({ until: () => received.length >= n }))

// Turn 1 asks for the weather; turn 2 answers with the body the task names.
const bad: Record<string, unknown> = {
  "error-body": { error: { message: "The model `m-1` does not exist", type: "invalid_request_error", code: "model_not_found" } },
  "no-choices": { choices: [], usage: usage(5, 0) },
  "no-message": { choices: [{ index: 0, finish_reason: "stop" }] },
  "null-content": { choices: [{ message: { role: "assistant", content: null }, finish_reason: "stop" }] },
  "filtered": { choices: [{ message: { role: "assistant", content: "" }, finish_reason: "content_filter" }], usage: usage(7, 1) },
  "quota": { error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } }
}

const failure = (trial: AgentEvalTrial | undefined) => {
  assert.isDefined(trial)
  assert.strictEqual(trial!.status, "failed", JSON.stringify(trial))
  return trial!.error!
}

describe("a model turn that is no answer", () => {
  it.effect("a 200 with an error body, no choices, no message, null content or a content filter is ModelError naming turn 2, not retried", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn, body): Reply =>
        turn === 1 ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }]) : { body: bad[firstUser(body)] }
      )
      const agent = yield* overChatModel(server.base)
      const trials = yield* runAll(agent, Object.keys(bad).map(task))
      // Two requests per task: none was asked again.
      assert.strictEqual(server.received.length, 2 * Object.keys(bad).length)
      // The reason's own words, then what the body was.
      const expected: Record<string, readonly [string, string]> = {
        "error-body": ["ChatModel.generateText: the chat completion from", "is an error: (type invalid_request_error, code model_not_found) The model `m-1` does not exist"],
        "no-choices": ["ChatModel.generateText: Invalid response: the chat completion from", "has no choices ([])"],
        "no-message": ["ChatModel.generateText: Invalid response: the chat completion from", "has no message at choices[0]"],
        "null-content": ["ChatModel.generateText: Invalid response: the chat completion from", "has no string at choices[0].message.content and no tool_calls"],
        "filtered": ["LanguageModel.generateText: Content policy violation:", "the answer was withheld by a content filter (finish reason content-filter)"],
        "quota": ["ChatModel.generateText: Quota exhausted", "is an error: (type insufficient_quota, code insufficient_quota) You exceeded your current quota"]
      }
      for (const [id, [prefix, words]] of Object.entries(expected)) {
        const error = failure(trials.get(id))
        assert.strictEqual(error.type, "ModelError", id)
        assert.include(error.message, `the model call of turn 2 failed: ${prefix}`, id)
        assert.include(error.message, words, id)
        assert.deepStrictEqual(error.trajectory!.map((s) => s.type), ["model", "tool_call", "tool_result"], id)
        assert.strictEqual(trials.get(id)!.metadata["attempts"], 1, id)
      }
      assert.include(failure(trials.get("error-body")).message, `the chat completion from ${server.base}/v1/chat/completions is an error`)
      // The filtered turn's tokens were spent: they are on the error.
      assert.deepStrictEqual(failure(trials.get("filtered")).usage, { input_tokens: 17, output_tokens: 6, total_tokens: 23, model: "m-1" })
    })))

  it.effect("overloaded and 5xx-shaped error bodies (OpenAI, Anthropic and vLLM shapes) are asked again under the policy (TestClock); the tools are not run twice", () =>
    live(Effect.gen(function*() {
      const shapes = [
        { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        { error: { code: 502, message: "Bad gateway from the upstream provider" } },
        { object: "error", message: "The engine is currently overloaded", type: "ServiceUnavailableError", code: 503 }
      ]
      let refused = 0
      const server = yield* modelServer((turn): Reply => {
        if (turn === 1) return callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }])
        return refused < shapes.length ? { body: shapes[refused++] } : answer("20C")
      })
      // Three refusals: the policy's 2 retries are per model call, so a third would fail; give it 3.
      const agent = yield* overChatModel(server.base, 3)
      const fiber = yield* runAll(agent, [task("t1")]).pipe(Effect.forkChild)
      yield* untilReceived(server.received, 2)
      yield* TestClock.adjust("1 minute")
      yield* untilReceived(server.received, 3)
      yield* TestClock.adjust("1 minute")
      yield* untilReceived(server.received, 4)
      yield* TestClock.adjust("1 minute")
      const trials = yield* Fiber.join(fiber)
      assert.strictEqual(server.received.length, 5)
      const trial = trials.get("t1")!
      assert.strictEqual(trial.status, "completed")
      assert.strictEqual(trial.output!.output_text, "20C")
      assert.strictEqual(trial.output!.trajectory!.filter((s) => s.type === "tool_call").length, 1)
    })))

  it.effect("a rate-limited error body that stays: asked 1 + 2 times (the policy's retries), then ModelError RateLimitError naming the turn", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn): Reply =>
        turn === 1
          ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }])
          : { body: { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } } }
      )
      const agent = yield* overChatModel(server.base)
      const fiber = yield* runAll(agent, [task("t1")]).pipe(Effect.forkChild)
      for (const n of [2, 3, 4]) {
        yield* untilReceived(server.received, n)
        yield* TestClock.adjust("1 minute")
      }
      const trials = yield* Fiber.join(fiber)
      assert.strictEqual(server.received.length, 4)
      const error = failure(trials.get("t1"))
      assert.strictEqual(error.type, "ModelError")
      assert.include(error.message, "the model call of turn 2 failed: ChatModel.generateText: Rate limit exceeded: the chat completion from")
      assert.include(error.message, "Rate limit reached for requests")
    })))

  it.effect("effect-ai: a user's LanguageModel whose turn finishes content-filter or error fails with ModelError, not asked again", () =>
    live(Effect.gen(function*() {
      const finish = (reason: "stop" | "content-filter" | "error") =>
        ({ type: "finish", reason, usage: { inputTokens: { total: 3 }, outputTokens: { total: 2 } } }) as const
      let filteredOnce = 0
      const model = Layer.effect(
        LanguageModel.LanguageModel,
        LanguageModel.make({
          generateText: (options) => {
            const user = options.prompt.content.find((m) => m.role === "user")
            const text = user?.role === "user" ? user.content.map((p) => p.type === "text" ? p.text : "").join("") : ""
            switch (text) {
              case "filtered":
                return Effect.succeed([{ type: "text", text: "partial" }, finish("content-filter")])
              case "finish-error":
                return Effect.succeed([finish("error")])
              case "filtered-once":
                return Effect.succeed(filteredOnce++ === 0 ? [finish("content-filter")] : [{ type: "text", text: "fine" }, finish("stop")])
              default:
                return Effect.succeed([{ type: "text", text: "ok" }, finish("stop")])
            }
          },
          streamText: () => Stream.empty
        })
      )
      const agent = yield* ToolAgent.make(model, {
        tools: [],
        maxTurns: 3,
        toolParallelism: 1,
        retry: { retries: 2, base: "1 second" },
        cwd: process.cwd()
      })
      // No retry is waited for: none of these is retryable.
      const trials = yield* runAll(agent, ["filtered", "finish-error", "filtered-once", "plain"].map(task))
      const filtered = failure(trials.get("filtered"))
      assert.strictEqual(filtered.type, "ModelError")
      assert.strictEqual(
        filtered.message,
        "the model call of turn 1 failed: LanguageModel.generateText: Content policy violation: the answer was withheld by a content filter (finish reason content-filter)"
      )
      assert.deepStrictEqual(filtered.usage, { input_tokens: 3, output_tokens: 2, total_tokens: 5 })
      assert.include(failure(trials.get("finish-error")).message, "the model call of turn 1 failed: LanguageModel.generateText: the model finished with an error")
      // A content filter is not asked again.
      assert.strictEqual(filteredOnce, 1)
      assert.strictEqual(failure(trials.get("filtered-once")).type, "ModelError")
      assert.strictEqual(trials.get("plain")!.output!.output_text, "ok")
    })))

  it.effect("the one-call openai: agent reads the same bodies: InvalidAgentOutput, an overloaded one retried by the run", () =>
    live(Effect.gen(function*() {
      let overloaded = 0
      const server = yield* modelServer((_turn, body): Reply => {
        const id = firstUser(body)
        if (id === "overloaded-once") {
          return overloaded++ === 0 ? { body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } } : answer("fine")
        }
        return { body: bad[id] }
      })
      const agent = OpenAiAgent.make({ baseUrl: `${server.base}/v1`, model: "m-1", apiKey: undefined })
      const fiber = yield* Stream.runCollect(
        runTrials(Stream.fromIterable([...Object.keys(bad), "overloaded-once"].map(task)), agent, {
          parallelism: 1,
          retry: { retries: 2, base: "1 second" }
        })
      ).pipe(Effect.forkChild)
      yield* untilReceived(server.received, Object.keys(bad).length + 1)
      yield* TestClock.adjust("1 minute")
      const trials = new Map([...yield* Fiber.join(fiber)].map((t) => [t.task_id, t] as const))
      for (const id of Object.keys(bad)) {
        const error = failure(trials.get(id))
        assert.strictEqual(error.type, "InvalidAgentOutput", id)
        assert.strictEqual(trials.get(id)!.metadata["attempts"], 1, id)
      }
      assert.include(failure(trials.get("filtered")).message, "was withheld by a content filter (finish_reason content_filter)")
      assert.include(failure(trials.get("quota")).message, "is an error: (type insufficient_quota")
      assert.strictEqual(trials.get("overloaded-once")!.status, "completed")
      assert.strictEqual(trials.get("overloaded-once")!.metadata["attempts"], 2)
    })))
})

/**
 * The tool loop against a scripted OpenAI-compatible server on 127.0.0.1:
 * a two-tool task solved in three turns (records, requests, usage and the
 * path scorers' scores checked exactly), parallel calls bounded by toolParallelism (counted), a tool
 * error the model sees and recovers from, MaxTurns with its trajectory kept,
 * a 429 mid-loop honoured under TestClock, and spans per turn and per call.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Latch, Layer, Schema, Stream, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { Tool, Toolkit } from "effect/ai"
import { TestClock } from "effect/testing"
import * as ChatModel from "../src/agents/ChatModel.ts"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import { answer, callTools, type ChatBody, modelServer, usage } from "./tool-model-server.ts"

const Weather = Tool.make("weather", {
  description: "The temperature of a city in Celsius",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Number }),
  failure: Schema.String
})
const Convert = Tool.make("to_fahrenheit", {
  parameters: Schema.Struct({ celsius: Schema.Number }),
  success: Schema.Number
})
const toolkit = Toolkit.make(Weather, Convert)
const handlers = toolkit.toLayer({
  weather: ({ city }) => city === "Atlantis" ? Effect.fail(`no weather station in ${city}`) : Effect.succeed({ celsius: 20 }),
  to_fahrenheit: ({ celsius }) => Effect.succeed(celsius * 9 / 5 + 32)
})

const task = (id: string, instruction: string): AgentEvalTask => ({ id, inputs: { instruction } })
// The calls the three-turn task expects: weather in Paris, then 20 C converted (expected 21: a miss).
const expectedTask: AgentEvalTask = {
  ...task("t1", "How warm is Paris in Fahrenheit?"),
  reference: { tool_calls: [{ name: "weather", arguments: { city: "Paris" } }, { name: "to_fahrenheit", arguments: { celsius: 21 } }] }
}

// The agent over the server's endpoint with the toolkit above as its tools.
const withTools = (base: string, options: Partial<ToolAgent.Options> = {}, exported: unknown = { toolkit, layer: handlers }) =>
  Effect.gen(function*() {
    const tools = yield* ModuleTools.fromExport(exported, "--tools test")
    return yield* ToolAgent.make(ChatModel.layer({ baseUrl: `${base}/v1`, model: "m-1", apiKey: undefined }), {
      maxTurns: 10,
      toolParallelism: 4,
      model: "m-1",
      cwd: process.cwd(),
      ...options,
      tools: [{ _tag: "Test" }],
      sources: [{
        tag: "Test",
        matches: () => false,
        usage: "test",
        doc: "",
        parse: () => "",
        format: () => "test",
        stateful: false,
        connect: () => Effect.succeed(tools)
      }]
    })
  })

const runAll = (agent: Parameters<typeof runTrials>[1], tasks: ReadonlyArray<AgentEvalTask>, options: Parameters<typeof runTrials>[2]) =>
  Stream.runCollect(runTrials(Stream.fromIterable(tasks), agent, options)).pipe(
    Effect.map((trials) => [...trials].sort((a, b) => a.task_id.localeCompare(b.task_id)))
  )

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

const bodies = (received: ReadonlyArray<{ readonly body: string }>) => received.map((r) => JSON.parse(r.body) as ChatBody)

describe("the tool loop", () => {
  it.effect("solves a two-tool task in three turns: the trajectory, the usage, the requests and its path scores, exactly", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1
          ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }])
          : turn === 2
          ? callTools([{ id: "c2", name: "to_fahrenheit", args: { celsius: 20 } }], "converting", usage(30, 6, { prompt_tokens_details: { cached_tokens: 8 } }))
          : answer("68F", usage(40, 2, { completion_tokens_details: { reasoning_tokens: 1 } }))
      )
      const agent = yield* withTools(server.base)
      const [trial] = yield* runAll(agent, [task("t1", "How warm is Paris in Fahrenheit?")], { parallelism: 1 })
      assert.strictEqual(trial!.status, "completed")
      const output = trial!.output!
      assert.strictEqual(output.output_text, "68F")
      assert.deepStrictEqual(
        output.trajectory!.map(({ started_at: _s, duration_ms: _d, ...step }) => step),
        [
          { type: "model", content: "", usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, model: "m-1" } },
          { type: "tool_call", name: "weather", id: "c1", arguments: { city: "Paris" } },
          { type: "tool_result", name: "weather", id: "c1", content: { celsius: 20 } },
          {
            type: "model",
            content: "converting",
            usage: { input_tokens: 30, output_tokens: 6, total_tokens: 36, cached_input_tokens: 8, model: "m-1" }
          },
          { type: "tool_call", name: "to_fahrenheit", id: "c2", arguments: { celsius: 20 } },
          { type: "tool_result", name: "to_fahrenheit", id: "c2", content: 68 },
          { type: "model", content: "68F", usage: { input_tokens: 40, output_tokens: 2, total_tokens: 42, reasoning_tokens: 1, model: "m-1" } }
        ]
      )
      assert.deepStrictEqual(output.usage, {
        input_tokens: 80,
        output_tokens: 13,
        total_tokens: 93,
        cached_input_tokens: 8,
        reasoning_tokens: 1,
        model: "m-1"
      })
      const sent = bodies(server.received)
      assert.strictEqual(sent.length, 3)
      assert.deepStrictEqual(sent[0]!.tools!.map((t) => t.function.name), ["weather", "to_fahrenheit"])
      assert.strictEqual(sent[0]!.model, "m-1")
      // The third request carries the whole conversation: the calls and their results.
      assert.deepStrictEqual(sent[2]!.messages, [
        { role: "user", content: "How warm is Paris in Fahrenheit?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: "{\"city\":\"Paris\"}" } }]
        },
        { role: "tool", tool_call_id: "c1", content: "{\"celsius\":20}" },
        {
          role: "assistant",
          content: "converting",
          tool_calls: [{ id: "c2", type: "function", function: { name: "to_fahrenheit", arguments: "{\"celsius\":20}" } }]
        },
        { role: "tool", tool_call_id: "c2", content: "68" }
      ])
      // The path scorers, from the specs --score takes, on the trial as recorded.
      const scored = yield* Effect.forEach([
        "tool-sequence:weather>to_fahrenheit,exact",
        "tool-called:weather,max=1",
        "tool-not-called:to_celsius",
        "tool-args:to_fahrenheit,celsius=20",
        "steps:max=2",
        "tool-calls"
      ], (spec) => Effect.flatMap(Scorers.fromSpec(spec, { cwd: process.cwd() }), (scorer) => scorer.score(expectedTask, trial!)))
      assert.deepStrictEqual(scored.map((s) => [s.value, s.passed]), [[1, true], [1, true], [1, true], [1, true], [0, false], [0.5, false]])
      assert.include(scored[4]!.explanation, "3 steps")
      assert.include(scored[5]!.explanation, "to_fahrenheit")
    })))

  it.effect("runs a turn's calls at most toolParallelism at once (counted), results in the calls' order", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1
          ? callTools([1, 2, 3, 4, 5].map((n) => ({ id: `c${n}`, name: "slow", args: { n } })))
          : answer("done")
      )
      let active = 0
      let peak = 0
      const twoIn = yield* Latch.make()
      const tools = yield* ModuleTools.fromExport({
        slow: {
          parameters: { type: "object", properties: { n: { type: "number" } } },
          execute: async (args: unknown) => {
            active++
            peak = Math.max(peak, active)
            if (active === 2) Effect.runSync(twoIn.open)
            await Effect.runPromise(twoIn.await)
            active--
            return `slow ${(args as { n: number }).n}`
          }
        }
      }, "--tools test")
      const agent = yield* ToolAgent.make(ChatModel.layer({ baseUrl: `${server.base}/v1`, model: "m", apiKey: undefined }), {
        tools: [{ _tag: "Test" }],
        maxTurns: 3,
        toolParallelism: 2,
        cwd: process.cwd(),
        sources: [{ tag: "Test", matches: () => false, usage: "", doc: "", parse: () => "", format: () => "test", stateful: false, connect: () => Effect.succeed(tools) }]
      })
      const [trial] = yield* runAll(agent, [task("t1", "go")], { parallelism: 1 })
      assert.strictEqual(peak, 2)
      const results = trial!.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => s.content), ["slow 1", "slow 2", "slow 3", "slow 4", "slow 5"])
    })))

  it.effect("a tool that fails, an unknown tool and arguments that do not fit are tool errors the model sees; it recovers", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1
          ? callTools([
            { id: "c1", name: "weather", args: { city: "Atlantis" } },
            { id: "c2", name: "forecast", args: {} },
            { id: "c3", name: "to_fahrenheit", args: "{not json" }
          ])
          : turn === 2
          ? callTools([{ id: "c4", name: "weather", args: { city: "Paris" } }])
          : answer("20C in Paris")
      )
      const agent = yield* withTools(server.base)
      const [trial] = yield* runAll(agent, [task("t1", "weather?")], { parallelism: 1 })
      assert.strictEqual(trial!.status, "completed")
      const results = trial!.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true]), [["c1", true], ["c2", true], ["c3", true], ["c4", false]])
      assert.include(String(results[0]!.content), "no weather station in Atlantis")
      assert.strictEqual(results[1]!.content, "unknown tool \"forecast\" (the tools are: weather, to_fahrenheit)")
      // The second request shows the model each error.
      const tool = bodies(server.received)[1]!.messages.filter((m) => m["role"] === "tool")
      assert.deepStrictEqual(tool.map((m) => m["tool_call_id"]), ["c1", "c2", "c3"])
      assert.include(String(tool[0]!["content"]), "no weather station in Atlantis")
      assert.include(String(tool[1]!["content"]), "unknown tool")
    })))

  it.effect("plain module tools: arguments that do not fit their JSON Schema are a tool error and execute never sees them", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1
          ? callTools([{ id: "c1", name: "add", args: { a: "two", b: 3 } }, { id: "c2", name: "add", args: { a: 2 } }])
          : turn === 2
          ? callTools([{ id: "c3", name: "add", args: { a: 2, b: 3 } }])
          : answer("5")
      )
      const seen: Array<unknown> = []
      const tools = yield* ModuleTools.fromExport({
        add: {
          parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
          execute: (args: { readonly a: number; readonly b: number }) => {
            seen.push(args)
            return args.a + args.b
          }
        }
      }, "--tools test")
      const agent = yield* ToolAgent.make(ChatModel.layer({ baseUrl: `${server.base}/v1`, model: "m", apiKey: undefined }), {
        tools: [{ _tag: "Test" }],
        maxTurns: 5,
        toolParallelism: 2,
        cwd: process.cwd(),
        sources: [{ tag: "Test", matches: () => false, usage: "", doc: "", parse: () => "", format: () => "test", stateful: false, connect: () => Effect.succeed(tools) }]
      })
      const [trial] = yield* runAll(agent, [task("t1", "add")], { parallelism: 1 })
      assert.strictEqual(trial!.status, "completed")
      const results = trial!.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true, s.content]), [
        ["c1", true, "the arguments do not fit the parameters of add: /a must be number"],
        ["c2", true, "the arguments do not fit the parameters of add: (root) must have required property 'b'"],
        ["c3", false, 5]
      ])
      assert.deepStrictEqual(seen, [{ a: 2, b: 3 }])
      const refused = yield* Effect.flip(ModuleTools.fromExport({ bad: { parameters: { type: "nope" }, execute: () => 1 } }, "--tools m.ts"))
      assert.match(refused.message, /^--tools m\.ts: the parameters schema of tool "bad" is not a valid JSON Schema: /)
    })))

  it.effect("MaxTurns: a model that never stops fails the trial with MaxTurns, never retried, its trajectory and usage kept", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) => callTools([{ id: `c${turn}`, name: "weather", args: { city: "Paris" } }]))
      const agent = yield* withTools(server.base, { maxTurns: 3 })
      const [trial] = yield* runAll(agent, [task("t1", "loop")], {
        parallelism: 1,
        retry: { retries: 2, base: "1 millis" }
      })
      assert.strictEqual(trial!.status, "failed")
      assert.strictEqual(trial!.error!.type, "MaxTurns")
      assert.strictEqual(trial!.metadata["attempts"], 1)
      assert.strictEqual(server.received.length, 3)
      const steps = trial!.error!.trajectory!
      assert.deepStrictEqual(steps.map((s) => s.type), [
        "model", "tool_call", "tool_result", "model", "tool_call", "tool_result", "model", "tool_call", "tool_result"
      ])
      assert.deepStrictEqual(trial!.error!.usage, { input_tokens: 30, output_tokens: 15, total_tokens: 45, model: "m-1" })
    })))

  it.effect("a 429 mid-loop is honoured: the turn is asked again after its Retry-After (TestClock), the tools not run twice", () =>
    live(Effect.gen(function*() {
      let refusals = 0
      const server = yield* modelServer((turn) => {
        if (turn === 2 && refusals === 0) {
          refusals++
          return { status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after": "7" } }
        }
        return turn === 1 ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }]) : answer("20C")
      })
      // The requests the model client sends, counted as each is sent (not as
      // it arrives), and a latch opened when the loop starts the 7 s wait.
      let sent = 0
      const counting = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, HttpClient.tapRequest(() => Effect.sync(() => sent++)))
      )
      const waiting = yield* Latch.make()
      const testClock = yield* Clock.Clock
      const clock: Clock.Clock = {
        ...testClock,
        sleep: (duration) => {
          if (Duration.toMillis(duration) === 7000) Latch.openUnsafe(waiting)
          return testClock.sleep(duration)
        }
      }
      // The agent keeps the context it was made in: its client and its clock.
      const agent = yield* withTools(server.base, { retry: { retries: 2, base: "1 second" } }).pipe(
        Effect.provideService(Clock.Clock, clock),
        Effect.provide(counting)
      )
      const fiber = yield* runAll(agent, [task("t1", "weather?")], { parallelism: 1 }).pipe(Effect.forkChild)
      yield* waiting.await
      assert.strictEqual(sent, 2)
      // 6.99 s on: not asked again yet.
      yield* TestClock.adjust("6990 millis")
      assert.strictEqual(sent, 2)
      assert.strictEqual(server.received.length, 2)
      yield* TestClock.adjust("10 millis")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(sent, 3)
      assert.strictEqual(server.received.length, 3)
      assert.strictEqual(trial!.status, "completed")
      assert.strictEqual(trial!.output!.output_text, "20C")
      assert.strictEqual(trial!.output!.trajectory!.filter((s) => s.type === "tool_call").length, 1)
      // One attempt of the trial: the retry was the model call's own.
      assert.strictEqual(trial!.metadata["attempts"], 1)
    })))

  it.effect("a timeout keeps the path up to it: finished steps, the call still running (its time so far), the usage; the message says what it did", () =>
    live(Effect.gen(function*() {
      const Slow = Tool.make("slow", { parameters: Schema.Struct({}), success: Schema.String })
      const slowKit = Toolkit.make(Weather, Convert, Slow)
      const slowHandlers = slowKit.toLayer({
        weather: () => Effect.succeed({ celsius: 20 }),
        to_fahrenheit: ({ celsius }) => Effect.succeed(celsius * 9 / 5 + 32),
        slow: () => Effect.never
      })
      const server = yield* modelServer((turn) =>
        turn === 1
          ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }])
          : callTools([{ id: "c2", name: "slow", args: {} }, { id: "c3", name: "to_fahrenheit", args: { celsius: 20 } }])
      )
      const agent = yield* withTools(server.base, {}, { toolkit: slowKit, layer: slowHandlers })
      const fiber = yield* runAll(agent, [task("t1", "weather?")], { parallelism: 1, timeout: "5 seconds" }).pipe(Effect.forkChild)
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5))).pipe(Effect.repeat({ until: () => server.received.length >= 2 }))
      // The second turn's calls under way (to_fahrenheit done, slow never), then the timeout.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      yield* TestClock.adjust("5 seconds")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(trial!.status, "failed")
      assert.strictEqual(trial!.error!.type, "Timeout")
      assert.strictEqual(trial!.error!.message, "the agent call did not finish within 5s (in turn 2: running slow)")
      assert.deepStrictEqual(
        trial!.error!.trajectory!.map(({ started_at: _s, ...step }) => step),
        [
          { type: "model", content: "", duration_ms: 0, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, model: "m-1" } },
          { type: "tool_call", name: "weather", id: "c1", arguments: { city: "Paris" }, duration_ms: 0 },
          { type: "tool_result", name: "weather", id: "c1", content: { celsius: 20 }, duration_ms: 0 },
          { type: "model", content: "", duration_ms: 0, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, model: "m-1" } },
          { type: "tool_call", name: "slow", id: "c2", arguments: {}, duration_ms: 5000 },
          { type: "tool_call", name: "to_fahrenheit", id: "c3", arguments: { celsius: 20 }, duration_ms: 0 },
          { type: "tool_result", name: "to_fahrenheit", id: "c3", content: 68, duration_ms: 0 }
        ]
      )
      assert.deepStrictEqual(trial!.error!.usage, { input_tokens: 20, output_tokens: 10, total_tokens: 30, model: "m-1" })
    })))

  it.effect("a model error that retries do not mend fails the trial with ModelError, naming the turn, trajectory kept", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1
          ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }])
          : { status: 401, body: { error: { message: "bad key" } } }
      )
      const agent = yield* withTools(server.base, { retry: { retries: 2, base: "1 millis" } })
      const [trial] = yield* runAll(agent, [task("t1", "weather?")], { parallelism: 1, retry: { retries: 2, base: "1 millis" } })
      assert.strictEqual(trial!.error!.type, "ModelError")
      assert.include(trial!.error!.message, "the model call of turn 2 failed")
      assert.strictEqual(server.received.length, 2)
      assert.strictEqual(trial!.metadata["attempts"], 1)
      assert.deepStrictEqual(trial!.error!.trajectory!.map((s) => s.type), ["model", "tool_call", "tool_result"])
    })))

  it.effect("spans: one chat span per model turn and one execute_tool span per call, with the GenAI attributes", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1 ? callTools([{ id: "c1", name: "weather", args: { city: "Paris" } }]) : answer("20C")
      )
      const agent = yield* withTools(server.base)
      const spans: Array<{ name: string; attributes: ReadonlyMap<string, unknown> }> = []
      const tracer = Tracer.make({
        span: (options) => {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      yield* runAll(agent, [task("t1", "weather?")], { parallelism: 1 }).pipe(Effect.withTracer(tracer))
      const chat = spans.filter((s) => s.name === "chat m-1")
      assert.strictEqual(chat.length, 2)
      assert.strictEqual(chat[0]!.attributes.get("gen_ai.operation.name"), "chat")
      assert.strictEqual(chat[0]!.attributes.get("gen_ai.request.model"), "m-1")
      assert.strictEqual(chat[0]!.attributes.get("gen_ai.usage.input_tokens"), 10)
      const tool = spans.filter((s) => s.name === "execute_tool weather")
      assert.strictEqual(tool.length, 1)
      assert.strictEqual(tool[0]!.attributes.get("gen_ai.tool.name"), "weather")
      assert.strictEqual(tool[0]!.attributes.get("gen_ai.operation.name"), "execute_tool")
      assert.strictEqual(tool[0]!.attributes.get("gen_ai.tool.call.id"), "c1")
    })))
})

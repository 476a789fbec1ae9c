/**
 * `anthropic:` agents against a scripted Messages API server on 127.0.0.1:
 * a plain answer (the exact body and headers sent), a two-tool loop in
 * three turns (tool_use and tool_result blocks, exact bodies), cache reads
 * and writes in the usage and priced, a 529 with retry-after waited out
 * under TestClock, a 401 named, the key never in a record, a missing key
 * refused naming the variable.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Clock, ConfigProvider, Duration, Effect, Fiber, Latch, Layer, Redacted, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { TestClock } from "effect/testing"
import * as AnthropicAgent from "../src/agents/Anthropic.ts"
import * as MessagesModel from "../src/agents/MessagesModel.ts"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as ModelUser from "../src/agents/users/Model.ts"
import * as Users from "../src/agents/users/Users.ts"
import * as Pricing from "../src/summary/Pricing.ts"
import { answer, error, type MessagesBody, messagesServer, usage, useTools } from "./messages-server.ts"

const KEY = "sk-ant-SECRET-key-0123456789"

const Weather = Tool.make("weather", {
  description: "The temperature of a city in Celsius",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ celsius: Schema.Number })
})
const Convert = Tool.make("to_fahrenheit", {
  parameters: Schema.Struct({ celsius: Schema.Number }),
  success: Schema.Number
})
const toolkit = Toolkit.make(Weather, Convert)
const handlers = toolkit.toLayer({
  weather: () => Effect.succeed({ celsius: 20 }),
  to_fahrenheit: ({ celsius }) => Effect.succeed(celsius * 9 / 5 + 32)
})

const task = (id: string, instruction: string): AgentEvalTask => ({ id, inputs: { instruction } })

const withKey = (key: string | null) => ConfigProvider.layer(ConfigProvider.fromUnknown(key === null ? {} : { ANTHROPIC_API_KEY: key }))

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

const build = (base: string, extra: Partial<Parameters<typeof AnthropicAgent.kind.build>[1]> = {}, key: string | null = KEY) =>
  AnthropicAgent.kind.build({ _tag: "Anthropic", baseUrl: base }, { model: "claude-test", apiKey: undefined, cwd: process.cwd(), ...extra }).pipe(
    Effect.provide(withKey(key))
  )

const withTools = (base: string, options: Partial<ToolAgent.Options> = {}) =>
  Effect.gen(function*() {
    const tools = yield* ModuleTools.fromExport({ toolkit, layer: handlers }, "--tools test")
    const model = MessagesModel.layer({
      baseUrl: base,
      model: "claude-test",
      apiKey: Redacted.make(KEY),
      request: { system: "Use the tools.", temperature: 0 }
    })
    return yield* ToolAgent.make(model, {
      maxTurns: 10,
      toolParallelism: 4,
      model: "claude-test",
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
  Stream.runCollect(runTrials(Stream.fromIterable(tasks), agent, options)).pipe(Effect.map((trials) => [...trials]))

const bodies = (received: ReadonlyArray<{ readonly body: string }>) => received.map((r) => JSON.parse(r.body) as MessagesBody)

describe("anthropic: agents", () => {
  it.effect("a plain answer: POST /v1/messages with x-api-key, anthropic-version and the request options, exactly", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer(() => answer("Paris", usage(12, 3)))
      const agent = yield* build(server.base, {
        request: {
          system: "Answer in one word.",
          temperature: 0.2,
          maxOutputTokens: 64,
          headers: [{ name: "anthropic-beta", value: "prompt-caching-2024-07-31" }],
          body: { top_k: 5, metadata: { user_id: "team-a" } }
        }
      })
      const [trial] = yield* runAll(agent, [task("t1", "Capital of France?")], { parallelism: 1 })
      assert.strictEqual(trial!.status, "completed")
      assert.strictEqual(trial!.output!.output_text, "Paris")
      assert.deepStrictEqual(trial!.output!.usage, { input_tokens: 12, output_tokens: 3, total_tokens: 15, model: "claude-test" })
      assert.strictEqual(server.received.length, 1)
      const [sent] = server.received
      assert.strictEqual(sent!.method, "POST")
      assert.strictEqual(sent!.path, "/v1/messages")
      assert.strictEqual(sent!.headers["x-api-key"], KEY)
      assert.strictEqual(sent!.headers["anthropic-version"], "2023-06-01")
      assert.strictEqual(sent!.headers["anthropic-beta"], "prompt-caching-2024-07-31")
      assert.strictEqual(sent!.headers["content-type"], "application/json")
      assert.strictEqual(sent!.headers["authorization"], undefined)
      assert.deepStrictEqual(JSON.parse(sent!.body), {
        model: "claude-test",
        messages: [{ role: "user", content: "Capital of France?" }],
        system: "Answer in one word.",
        max_tokens: 64,
        temperature: 0.2,
        top_k: 5,
        metadata: { user_id: "team-a" }
      })
    })))

  it.effect("without options: max_tokens 4096 (the API requires one), nothing else added", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer(() => answer("4"))
      const agent = yield* build(`${server.base}/`)
      yield* runAll(agent, [task("t1", "2 + 2?")], { parallelism: 1 })
      assert.deepStrictEqual(bodies(server.received), [{
        model: "claude-test",
        messages: [{ role: "user", content: "2 + 2?" }],
        max_tokens: 4096
      }])
    })))

  it.effect("cache reads and writes: counted in input_tokens, kept apart, and priced at their own prices", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer(() =>
        answer("ok", usage(100, 200, { cache_creation_input_tokens: 600, cache_read_input_tokens: 300 }))
      )
      const agent = yield* build(server.base)
      const [trial] = yield* runAll(agent, [task("t1", "long prompt")], { parallelism: 1 })
      const spent = trial!.output!.usage!
      assert.deepStrictEqual(spent, {
        input_tokens: 1000,
        output_tokens: 200,
        total_tokens: 1200,
        cached_input_tokens: 300,
        cache_write_input_tokens: 600,
        model: "claude-test"
      })
      const pricing = Pricing.make("p.yaml", {
        models: { "claude-test": { input: 3, output: 15, cached_input: 0.3, cache_write_input: 3.75 } }
      })
      // 100 * 3 + 300 * 0.3 + 600 * 3.75 + 200 * 15 = 5640 per million
      assert.strictEqual(pricing.price(spent).cost_usd, 0.00564)
    })))

  it.effect("with tools: two tools in three turns, tool_use and tool_result blocks, usage summed with the cache's", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer((turn) =>
        turn === 1
          ? useTools([{ id: "toolu_1", name: "weather", input: { city: "Paris" } }], undefined, usage(50, 5, { cache_creation_input_tokens: 40 }))
          : turn === 2
          ? useTools([{ id: "toolu_2", name: "to_fahrenheit", input: { celsius: 20 } }], "converting", usage(10, 6, { cache_read_input_tokens: 40 }))
          : answer("68F", usage(12, 2, { cache_read_input_tokens: 40 }))
      )
      const agent = yield* withTools(server.base)
      const [trial] = yield* runAll(agent, [task("t1", "How warm is Paris in Fahrenheit?")], { parallelism: 1 })
      assert.strictEqual(trial!.status, "completed")
      const output = trial!.output!
      assert.strictEqual(output.output_text, "68F")
      assert.deepStrictEqual(
        output.trajectory!.map((step) => [step.type, "name" in step ? step.name : undefined]),
        [["model", undefined], ["tool_call", "weather"], ["tool_result", "weather"], ["model", undefined], ["tool_call", "to_fahrenheit"], [
          "tool_result",
          "to_fahrenheit"
        ], ["model", undefined]]
      )
      assert.deepStrictEqual(output.usage, {
        input_tokens: 192,
        output_tokens: 13,
        total_tokens: 205,
        cached_input_tokens: 80,
        cache_write_input_tokens: 40,
        model: "claude-test"
      })
      const sent = bodies(server.received)
      assert.strictEqual(sent.length, 3)
      const tools = [
        {
          name: "weather",
          description: "The temperature of a city in Celsius",
          input_schema: sent[0]!["tools"] === undefined ? undefined : (sent[0]!["tools"] as Array<{ input_schema: unknown }>)[0]!.input_schema
        },
        { name: "to_fahrenheit", input_schema: (sent[0]!["tools"] as Array<{ input_schema: unknown }>)[1]!.input_schema }
      ]
      assert.deepStrictEqual((tools[0]!.input_schema as { properties: unknown }).properties, { city: { type: "string" } })
      assert.deepStrictEqual(sent[2], {
        model: "claude-test",
        system: "Use the tools.",
        max_tokens: 4096,
        temperature: 0,
        tools,
        tool_choice: { type: "auto" },
        messages: [
          { role: "user", content: [{ type: "text", text: "How warm is Paris in Fahrenheit?" }] },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "{\"celsius\":20}" }] },
          {
            role: "assistant",
            content: [{ type: "text", text: "converting" }, { type: "tool_use", id: "toolu_2", name: "to_fahrenheit", input: { celsius: 20 } }]
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "68" }] }
        ]
      })
    })))

  it.effect("a 529 overloaded with retry-after is waited out (TestClock) and asked again, using no retry", () =>
    live(Effect.gen(function*() {
      let refusals = 0
      const server = yield* messagesServer(() => {
        if (refusals === 0) {
          refusals++
          return error(529, "overloaded_error", "Overloaded", { "retry-after": "7" })
        }
        return answer("back")
      })
      const waiting = yield* Latch.make()
      const testClock = yield* Clock.Clock
      const clock: Clock.Clock = {
        ...testClock,
        sleep: (duration) => {
          if (Duration.toMillis(duration) === 7000) Latch.openUnsafe(waiting)
          return testClock.sleep(duration)
        }
      }
      const agent = yield* build(server.base)
      const fiber = yield* runAll(agent, [task("t1", "hi")], { parallelism: 1, retry: { retries: 0, base: "1 second" } }).pipe(
        Effect.provideService(Clock.Clock, clock),
        Effect.forkChild
      )
      yield* waiting.await
      assert.strictEqual(server.received.length, 1)
      yield* TestClock.adjust("6990 millis")
      assert.strictEqual(server.received.length, 1)
      yield* TestClock.adjust("10 millis")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(server.received.length, 2)
      assert.strictEqual(trial!.status, "completed")
      assert.strictEqual(trial!.output!.output_text, "back")
    })))

  it.effect("a 529 with retry-after in the tool loop is waited out (TestClock), the turn asked again, the tools not run twice", () =>
    live(Effect.gen(function*() {
      let refusals = 0
      const server = yield* messagesServer((turn) => {
        if (turn === 2 && refusals === 0) {
          refusals++
          return error(529, "overloaded_error", "Overloaded", { "retry-after": "7" })
        }
        return turn === 1 ? useTools([{ id: "toolu_1", name: "weather", input: { city: "Paris" } }]) : answer("20C")
      })
      const waiting = yield* Latch.make()
      const testClock = yield* Clock.Clock
      const clock: Clock.Clock = {
        ...testClock,
        sleep: (duration) => {
          if (Duration.toMillis(duration) === 7000) Latch.openUnsafe(waiting)
          return testClock.sleep(duration)
        }
      }
      const agent = yield* withTools(server.base, { retry: { retries: 0, base: "1 second" } }).pipe(Effect.provideService(Clock.Clock, clock))
      const fiber = yield* runAll(agent, [task("t1", "weather?")], { parallelism: 1 }).pipe(Effect.forkChild)
      yield* waiting.await
      assert.strictEqual(server.received.length, 2)
      yield* TestClock.adjust("6990 millis")
      assert.strictEqual(server.received.length, 2)
      yield* TestClock.adjust("10 millis")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(server.received.length, 3)
      assert.strictEqual(trial!.status, "completed")
      assert.strictEqual(trial!.output!.output_text, "20C")
      assert.strictEqual(trial!.output!.trajectory!.filter((s) => s.type === "tool_call").length, 1)
    })))

  it.effect("a 401 is named, never retried, the key nowhere in the record (one call and the tool loop)", () =>
    live(Effect.gen(function*() {
      const refused = yield* messagesServer(() => error(401, "authentication_error", `invalid x-api-key ${KEY}`))
      const agent = yield* build(refused.base)
      const [trial] = yield* runAll(agent, [task("t1", "hi")], { parallelism: 1, retry: { retries: 2, base: "1 second" } })
      assert.strictEqual(refused.received.length, 1)
      assert.strictEqual(trial!.status, "failed")
      assert.strictEqual(trial!.error!.type, "HttpStatusError")
      assert.strictEqual(trial!.error!.message, `HTTP 401 from ${refused.base}/v1/messages: invalid x-api-key <redacted>`)
      assert.notInclude(JSON.stringify(trial), KEY)

      const loopRefused = yield* withTools(refused.base)
      const [inLoop] = yield* runAll(loopRefused, [task("t1", "hi")], { parallelism: 1 })
      assert.strictEqual(inLoop!.error!.type, "ModelError")
      assert.match(inLoop!.error!.message, /AuthenticationError|401/)
      assert.notInclude(JSON.stringify(inLoop), KEY)
    })))

  it.effect("the key said back in an answer is scrubbed from the record", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer((_turn, _body, request) => answer(`your key is ${String(request.headers["x-api-key"])}`))
      const agent = yield* build(server.base)
      const [trial] = yield* runAll(agent, [task("t1", "say my key")], { parallelism: 1 })
      assert.strictEqual(trial!.output!.output_text, "your key is <redacted>")
      assert.notInclude(JSON.stringify(trial), KEY)
    })))

  it.effect("no ANTHROPIC_API_KEY, no --model, or --model-seed: refused before any call, naming what is missing", () =>
    live(Effect.gen(function*() {
      const noKey = yield* Effect.flip(build("http://127.0.0.1:9", {}, null))
      assert.strictEqual(noKey.message, "--agent anthropic:http://127.0.0.1:9 needs ANTHROPIC_API_KEY (sent as x-api-key); it is not set")
      assert.strictEqual((noKey as { exitCode?: number }).exitCode, 2)
      const empty = yield* Effect.flip(build("http://127.0.0.1:9", {}, ""))
      assert.strictEqual(empty.message, noKey.message)
      const noModel = yield* Effect.flip(build("http://127.0.0.1:9", { model: undefined }))
      assert.strictEqual(noModel.message, "--agent anthropic:http://127.0.0.1:9 needs --model NAME")
      assert.strictEqual((noModel as { exitCode?: number }).exitCode, 2)
      const seeded = yield* Effect.flip(build("http://127.0.0.1:9", { request: { seed: 1 } }))
      assert.include(seeded.message, "the Messages API takes no seed")
    })))
})

describe("judge:anthropic:URL", () => {
  const graded: AgentEvalTask = { id: "j1", inputs: { instruction: "What is 2 + 2?" }, reference: "4" }
  const trialOf = (answerText: string): AgentEvalTrial => ({
    id: "j1:1",
    task_id: "j1",
    status: "completed",
    output: { output_text: answerText },
    metadata: { started_at: "1970-01-01T00:00:00.000Z", finished_at: "1970-01-01T00:00:00.000Z", latency_ms: 0 }
  })

  it.effect("grades through the Messages API: x-api-key, the judge's request options in the body, its usage on the score", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer(() => answer("Correct.\nGRADE: C", usage(40, 5, { cache_read_input_tokens: 10 })))
      const scorer = yield* Scorers.fromSpec(`judge:anthropic:${server.base}`, {
        cwd: process.cwd(),
        judgeModel: "claude-judge",
        judgeRequest: { system: "Be strict.", temperature: 0, maxOutputTokens: 300, headers: [{ name: "X-Team", value: "evals" }] }
      }).pipe(Effect.provide(withKey(KEY)))
      const score = yield* scorer.score(graded, trialOf("4"))
      assert.isTrue(score.passed)
      assert.deepStrictEqual(score.usage, {
        input_tokens: 50,
        output_tokens: 5,
        total_tokens: 55,
        cached_input_tokens: 10,
        model: "claude-judge"
      })
      const [sent] = server.received
      assert.strictEqual(sent!.path, "/v1/messages")
      assert.strictEqual(sent!.headers["x-api-key"], KEY)
      assert.strictEqual(sent!.headers["anthropic-version"], "2023-06-01")
      assert.strictEqual(sent!.headers["x-team"], "evals")
      const body = JSON.parse(sent!.body) as MessagesBody
      assert.deepStrictEqual(Object.keys(body).sort(), ["max_tokens", "messages", "model", "system", "temperature"])
      assert.strictEqual(body["system"], "Be strict.")
      assert.strictEqual(body["max_tokens"], 300)
      assert.strictEqual(body["temperature"], 0)
      assert.strictEqual(body.messages.length, 1)
      assert.strictEqual(body.messages[0]!.role, "user")
      assert.include(String(body.messages[0]!.content), "[Reference answer]\n4")
    })))

  it.effect("without ANTHROPIC_API_KEY: refused naming it", () =>
    live(Effect.gen(function*() {
      const refused = yield* Effect.flip(
        Scorers.fromSpec("judge:anthropic:http://127.0.0.1:9", { cwd: process.cwd(), judgeModel: "m" }).pipe(Effect.provide(withKey(null)))
      )
      assert.include(refused.message, "--score judge:anthropic:http://127.0.0.1:9 needs ANTHROPIC_API_KEY (sent as x-api-key); it is not set")
    })))
})

describe("--user anthropic:URL", () => {
  it.effect("plays the user on the Messages API: the instruction as system, the greeting first, the roles mirrored, its usage", () =>
    live(Effect.gen(function*() {
      const server = yield* messagesServer((turn) =>
        turn === 1 ? answer("I need a refund.", usage(30, 4)) : answer(`Thanks. ${ModelUser.STOP}`, usage(50, 3))
      )
      const spec = Users.parse(`anthropic:${server.base}`)
      assert.notStrictEqual(typeof spec, "string")
      const user = yield* Users.build(spec as Users.Spec, { model: "claude-user", apiKey: undefined, cwd: process.cwd() }).pipe(
        Effect.provide(withKey(KEY))
      )
      const base = { task: task("t1", "x"), instruction: "You want a refund.", trial: undefined }
      const first = yield* user({ ...base, conversation: [], turn: 1 })
      assert.deepStrictEqual(first, {
        text: "I need a refund.",
        ends: false,
        usage: { input_tokens: 30, output_tokens: 4, total_tokens: 34, model: "claude-user" }
      })
      const second = yield* user({
        ...base,
        conversation: [{ role: "user", content: "I need a refund." }, { role: "assistant", content: "Done." }],
        turn: 2
      })
      assert.isTrue(second.ends)
      const [one, two] = bodies(server.received)
      assert.strictEqual(server.received[0]!.headers["x-api-key"], KEY)
      assert.deepStrictEqual(one, {
        model: "claude-user",
        system: ModelUser.systemPrompt("You want a refund."),
        messages: [{ role: "user", content: ModelUser.GREETING }],
        max_tokens: 4096
      })
      assert.deepStrictEqual(two!.messages, [
        { role: "user", content: ModelUser.GREETING },
        { role: "assistant", content: "I need a refund." },
        { role: "user", content: "Done." }
      ])
    })))

  it.effect("without a key: refused naming ANTHROPIC_API_KEY", () =>
    live(Effect.gen(function*() {
      const spec = Users.parse("anthropic:http://127.0.0.1:9") as Users.Spec
      const refused = yield* Effect.flip(
        Users.build(spec, { model: "m", apiKey: undefined, cwd: process.cwd() }).pipe(Effect.provide(withKey(null)))
      )
      assert.include(refused.message, "--user anthropic:http://127.0.0.1:9 needs ANTHROPIC_API_KEY (or AGENT_TRIALS_USER_API_KEY)")
    })))
})

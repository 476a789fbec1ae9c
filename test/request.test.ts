/**
 * The request options below the command: the bodies `Request` builds for
 * either API and the flags it records, the option Schemas' refusals, an
 * `openai:` tool loop sending them on every turn (exact bodies, against a
 * scripted server on 127.0.0.1), and a judge on the Messages API refusing a
 * seed.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Schema, Stream } from "effect"
import { Tool, Toolkit } from "effect/ai"
import * as ChatModel from "../src/agents/ChatModel.ts"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import * as Request from "../src/domain/Request.ts"
import * as Options from "../src/programs/Options.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import { answer, callTools, type ChatBody, modelServer } from "./tool-model-server.ts"

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

const refusal = (schema: Schema.Codec<unknown, string>, text: string): string => {
  const result = Schema.decodeUnknownExit(schema)(text)
  return result._tag === "Failure" ? String(result.cause) : "accepted"
}

describe("Request", () => {
  const options: Request.Options = {
    system: "Be brief.",
    temperature: 0,
    maxOutputTokens: 10,
    seed: 3,
    headers: [{ name: "X-A", value: "1" }, { name: "x-a", value: "2" }],
    body: { top_p: 0.5, temperature: 1 }
  }

  it("chatBody: the system message first, then the fields, --request's last (they win)", () => {
    assert.deepStrictEqual(Request.chatBody({ model: "m", messages: [{ role: "user", content: "hi" }] }, options), {
      model: "m",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
      temperature: 1,
      max_tokens: 10,
      seed: 3,
      top_p: 0.5
    })
    const untouched = { model: "m", messages: [] }
    assert.strictEqual(Request.chatBody(untouched, undefined), untouched)
  })

  it("messagesBody: system, max_tokens (the fallback when none), no seed; headersOf: a later name wins", () => {
    assert.deepStrictEqual(Request.messagesBody({ model: "m", messages: [] }, { system: "S" }, 4096), {
      model: "m",
      messages: [],
      system: "S",
      max_tokens: 4096
    })
    assert.deepStrictEqual(Request.headersOf(options), { "x-a": "2" })
    assert.strictEqual(Request.headersOf({}), undefined)
  })

  it("flags: as given, header values redacted; the judges' with their prefix", () => {
    assert.deepStrictEqual(Request.flags(options), [
      "--system \"Be brief.\"",
      "--temperature 0",
      "--max-output-tokens 10",
      "--model-seed 3",
      "--header x-a=<redacted>",
      "--header x-a=<redacted>",
      "--request {\"top_p\":0.5,\"temperature\":1}"
    ])
    assert.deepStrictEqual(Request.flags({ seed: 1, temperature: 0.5 }, "judge-"), ["--judge-temperature 0.5", "--judge-seed 1"])
    assert.isTrue(Request.isEmpty({}))
  })

  it("the option Schemas refuse with words that say what is expected", () => {
    assert.include(refusal(Options.Temperature, "3"), "Expected a number from 0 to 2, like 0 or 0.7, got \"3\"")
    assert.include(refusal(Options.Temperature, "-1"), "Expected a number from 0 to 2")
    assert.strictEqual(refusal(Options.Temperature, "0.7"), "accepted")
    assert.include(refusal(Options.Seed, "1.5"), "Expected an integer, like 42, got \"1.5\"")
    assert.strictEqual(refusal(Options.Seed, "-7"), "accepted")
    assert.include(refusal(Options.Header, "NoEquals"), "Expected NAME=VALUE")
    assert.include(refusal(Options.Header, "bad name=1"), "Expected NAME=VALUE")
    assert.deepStrictEqual(Schema.decodeUnknownSync(Options.Header)("X-Key=a=b"), { name: "X-Key", value: "a=b" })
    assert.include(refusal(Options.RequestBody, "{\"a\": 1"), "Expected a JSON object, like {\"top_p\": 0.9}, got text that is not JSON")
    assert.include(refusal(Options.RequestBody, "3"), "got a number")
    assert.include(refusal(Options.RequestBody, "null"), "got null")
  })
})

const Add = Tool.make("add", { parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }), success: Schema.Number })
const toolkit = Toolkit.make(Add)
const handlers = toolkit.toLayer({ add: ({ a, b }) => Effect.succeed(a + b) })

describe("openai: with --tools and request options", () => {
  it.effect("every turn of the loop sends the system prompt, the options and the headers", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer((turn) =>
        turn === 1 ? callTools([{ id: "c1", name: "add", args: { a: 2, b: 2 } }]) : answer("4")
      )
      const tools = yield* ModuleTools.fromExport({ toolkit, layer: handlers }, "--tools test")
      const agent = yield* ToolAgent.make(
        ChatModel.layer({
          baseUrl: `${server.base}/v1`,
          model: "m",
          apiKey: undefined,
          request: { system: "Use add.", temperature: 0, seed: 9, headers: [{ name: "X-Team", value: "evals" }], body: { parallel_tool_calls: false } }
        }),
        {
          maxTurns: 4,
          toolParallelism: 1,
          model: "m",
          cwd: process.cwd(),
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
        }
      )
      const [trial] = yield* Stream.runCollect(runTrials(Stream.fromIterable([{ id: "t", inputs: { instruction: "2 + 2?" } }]), agent, { parallelism: 1 }))
      assert.strictEqual(trial!.output!.output_text, "4")
      assert.strictEqual(server.received.length, 2)
      for (const request of server.received) {
        assert.strictEqual(request.headers["x-team"], "evals")
        const body = JSON.parse(request.body) as ChatBody & Record<string, unknown>
        assert.deepStrictEqual(body.messages[0], { role: "system", content: "Use add." })
        assert.deepStrictEqual([body["temperature"], body["seed"], body["parallel_tool_calls"], body["max_tokens"]], [0, 9, false, undefined])
      }
      const second = JSON.parse(server.received[1]!.body) as ChatBody
      assert.deepStrictEqual(second.messages.map((m) => m["role"]), ["system", "user", "assistant", "tool"])
    })))
})

describe("judge:anthropic: with --judge-seed", () => {
  it.effect("is refused: the Messages API takes no seed", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        Scorers.fromSpec("judge:anthropic:http://127.0.0.1:9", { cwd: process.cwd(), judgeModel: "m", judgeRequest: { seed: 1 } }).pipe(
          Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ ANTHROPIC_API_KEY: "sk-ant-0123456789" })))
        )
      )
      assert.strictEqual(refused.message, "--score judge:anthropic:http://127.0.0.1:9: the Messages API takes no seed: drop --judge-seed")
    }))
})

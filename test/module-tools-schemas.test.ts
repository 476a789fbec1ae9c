/**
 * Module tools declared with a Zod schema or as the Vercel AI SDK declares
 * them (issue 37, item 19), with the real `zod` and `ai` packages: the model
 * server on 127.0.0.1 receives each tool's JSON Schema exactly (never
 * `{"type":"object","properties":{}}` for a tool that declared arguments),
 * arguments that do not fit are a tool error the model sees (checked by the
 * schema itself, `execute` never called on them), `execute` gets the
 * schema's output (defaults applied); parameters that give no JSON Schema
 * are refused, naming the tool and why.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { tool, jsonSchema } from "ai"
import { Effect, Layer, Schema, Stream } from "effect"
import { z } from "zod"
import * as ChatModel from "../src/agents/ChatModel.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import * as ToolAgent from "../src/agents/tools/Agent.ts"
import { runTrials } from "../src/runner/Runner.ts"
import { sentTool, zodObject } from "./sent-tools.ts"
import { answer, callTools, modelServer } from "./tool-model-server.ts"

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

// One trial over `tools`: turn 1 makes `calls`, turn 2 answers.
const loop = (tools: unknown, calls: Parameters<typeof callTools>[0]) =>
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
    const [trial] = yield* Stream.runCollect(runTrials(Stream.make({ id: "t1", inputs: { instruction: "go" } }), agent, { parallelism: 1 }))
    const sent = server.received.map((r) => JSON.parse(r.body) as { readonly tools: unknown })
    return { trial: trial!, sent }
  })

const weatherSchema = z.object({ city: z.string().describe("the city"), days: z.number().int().min(1).default(1) })
const weatherJson = zodObject({
  city: { type: "string", description: "the city" },
  days: { default: 1, type: "integer", minimum: 1, maximum: 9007199254740991 }
}, ["city"])

describe("module tools declared with Zod, a Standard Schema or the AI SDK", () => {
  it.effect("a Zod schema as parameters: its JSON Schema sent exactly, arguments checked by Zod, execute gets Zod's output", () =>
    live(Effect.gen(function*() {
      const seen: Array<unknown> = []
      const { sent, trial } = yield* loop({
        weather: {
          description: "The weather of a city",
          parameters: weatherSchema,
          execute: (args: unknown) => {
            seen.push(args)
            return "sunny"
          }
        }
      }, [
        { id: "c1", name: "weather", args: { city: 7 } },
        { id: "c2", name: "weather", args: { city: "Paris", days: 0 } },
        { id: "c3", name: "weather", args: { city: "Paris" } }
      ])
      assert.deepStrictEqual(sent[0]!.tools, [sentTool("weather", "The weather of a city", weatherJson)])
      assert.strictEqual(trial.status, "completed")
      const results = trial.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true, s.content]), [
        ["c1", true, "the arguments do not fit the parameters of weather: /city Invalid input: expected string, received number"],
        ["c2", true, "the arguments do not fit the parameters of weather: /days Too small: expected number to be >=1"],
        ["c3", false, "sunny"]
      ])
      // The default filled in by Zod.
      assert.deepStrictEqual(seen, [{ city: "Paris", days: 1 }])
    })))

  it.effect("an AI SDK tool({ inputSchema: z.object(...) }) set, and one with jsonSchema(...): JSON Schemas sent, arguments checked, execute called as the SDK calls it", () =>
    live(Effect.gen(function*() {
      const contexts: Array<unknown> = []
      const tools = {
        add: tool({
          description: "Add two numbers",
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }, options) => {
            contexts.push([options.toolCallId, options.abortSignal instanceof AbortSignal])
            return a + b
          }
        }),
        shout: tool({
          description: "Upper-case a text",
          inputSchema: jsonSchema<{ text: string }>({
            type: "object",
            properties: { text: { type: "string" } },
            required: ["text"],
            additionalProperties: false
          }),
          execute: async ({ text }) => text.toUpperCase()
        })
      }
      const { sent, trial } = yield* loop(tools, [
        { id: "c1", name: "add", args: { a: 2, b: 3 } },
        { id: "c2", name: "add", args: { a: 2 } },
        { id: "c3", name: "shout", args: { text: "hi" } },
        { id: "c4", name: "shout", args: { text: "hi", extra: 1 } }
      ])
      assert.deepStrictEqual(sent[0]!.tools, [
        sentTool("add", "Add two numbers", zodObject({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"])),
        sentTool("shout", "Upper-case a text", {
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
          additionalProperties: false
        })
      ])
      const results = trial.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true, s.content]), [
        ["c1", false, 5],
        ["c2", true, "the arguments do not fit the parameters of add: /b Invalid input: expected number, received undefined"],
        ["c3", false, "HI"],
        ["c4", true, "the arguments do not fit the parameters of shout: (root) must NOT have additional properties"]
      ])
      assert.deepStrictEqual(contexts, [["c1", true]])
    })))

  it.effect("an AI SDK tool whose execute streams (an async generator): the model sees its last value", () =>
    live(Effect.gen(function*() {
      const { trial } = yield* loop({
        count: tool({
          inputSchema: z.object({ to: z.number() }),
          async *execute({ to }) {
            for (let n = 1; n < to; n++) yield `at ${n}`
            yield `counted to ${to}`
          }
        })
      }, [{ id: "c1", name: "count", args: { to: 3 } }])
      const results = trial.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true, s.content]), [["c1", false, "counted to 3"]])
    })))

  it.effect("an Effect Schema as parameters: its JSON Schema sent, arguments decoded by it", () =>
    live(Effect.gen(function*() {
      const seen: Array<unknown> = []
      const { sent, trial } = yield* loop({
        half: {
          parameters: Schema.Struct({ n: Schema.Finite }),
          execute: (args: { readonly n: number }) => {
            seen.push(args)
            return args.n / 2
          }
        }
      }, [{ id: "c1", name: "half", args: { n: "4" } }, { id: "c2", name: "half", args: { n: 4 } }])
      assert.deepStrictEqual(sent[0]!.tools, [{
        type: "function",
        function: { name: "half", parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"], additionalProperties: true } }
      }])
      const results = trial.output!.trajectory!.filter((s) => s.type === "tool_result")
      assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true]), [["c1", true], ["c2", false]])
      assert.match(String(results[0]!.content), /^the arguments do not fit the parameters of half: /)
      assert.deepStrictEqual(seen, [{ n: 4 }])
    })))

  it.effect("parameters that give no JSON Schema are refused at connect, naming the tool and why", () =>
    Effect.gen(function*() {
      const opaque = {
        "~standard": { version: 1, vendor: "opaque", validate: (value: unknown) => ({ value }) }
      }
      const refuse = (tools: unknown) => Effect.map(Effect.flip(ModuleTools.fromExport(tools, "--tools m.ts")), (e) => e.message)
      assert.strictEqual(
        yield* refuse({ lookup: { parameters: opaque, execute: () => 1 } }),
        "--tools m.ts: the parameters of tool \"lookup\" (a Standard Schema of vendor \"opaque\") cannot be turned into a JSON Schema: " +
          "it has no ~standard.jsonSchema (Standard JSON Schema); declare the parameters as a JSON Schema object, or with a library that gives one (Zod 4.6 does)"
      )
      assert.strictEqual(
        yield* refuse({ find: { inputSchema: opaque, execute: () => 1 } }),
        "--tools m.ts: the inputSchema of tool \"find\" (a Standard Schema of vendor \"opaque\") cannot be turned into a JSON Schema: " +
          "it has no ~standard.jsonSchema (Standard JSON Schema); declare the parameters as a JSON Schema object, or with a library that gives one (Zod 4.6 does)"
      )
      // A Zod schema JSON Schema cannot say: Zod's converter throws, and its reason is given.
      assert.strictEqual(
        yield* refuse({ when: { parameters: z.object({ at: z.date() }), execute: () => 1 } }),
        "--tools m.ts: the parameters of tool \"when\" (a Standard Schema of vendor \"zod\") cannot be turned into a JSON Schema: " +
          "draft-07: Date cannot be represented in JSON Schema; draft-2020-12: Date cannot be represented in JSON Schema"
      )
      // Something that is no schema at all.
      class Params {
        readonly a = 1
      }
      assert.strictEqual(
        yield* refuse({ odd: { parameters: new Params(), execute: () => 1 } }),
        "--tools m.ts: the parameters of tool \"odd\" are a Params object: expected a JSON Schema object, a Zod schema or a Standard Schema with a JSON Schema"
      )
      assert.strictEqual(
        yield* refuse({ scalar: { parameters: z.string(), execute: () => 1 } }),
        "--tools m.ts: the parameters of tool \"scalar\" describe \"string\", but a tool's arguments are an object (JSON Schema type \"object\")"
      )
    }))
})

/**
 * The agents' raw POST (domain/internal/rawPost.ts, provided by the command's
 * `httpClient` layer) against the `HttpClient` path it stands in for: the same
 * server, the same tasks, the same records and errors, word for word, and the
 * same request headers; and it is the path taken only while no tracer takes
 * the client spans.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream, Tracer } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../src/domain/Agent.ts"
import * as HttpAgent from "../src/agents/Http.ts"
import * as OpenAiAgent from "../src/agents/OpenAi.ts"
import { httpClient } from "../src/cli/node.ts"
import { RawPost, type RawPostFn } from "../src/domain/internal/rawPost.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { closedPort, type Handler, json, serve } from "./http-server.ts"

const KEY = "sk-raw-post-test-0123456789"

// Answers by `inputs.mode`; the openai ones echo the key, which no record may keep.
const scenarios: Handler = (request, res) => {
  const body = JSON.parse(request.body) as { readonly inputs?: Record<string, unknown>; readonly messages?: ReadonlyArray<{ content: string }> }
  const mode = body.inputs?.["mode"] ?? JSON.parse(body.messages![0]!.content)["mode"]
  switch (mode) {
    case "ok":
      return request.path.startsWith("/v1")
        ? json(res, 200, {
          choices: [{ message: { role: "assistant", content: `the key is ${KEY}` } }],
          usage: { prompt_tokens: 3, completion_tokens: 4 },
          [`${KEY}`]: { nested: [KEY, 1, null, { __proto__: KEY }] }
        })
        : json(res, 200, { output_text: "fine", metadata: { list: [1, "two"] } })
    case "429":
      return json(res, 429, { error: { message: "slow down" } }, { "retry-after": "2" })
    case "500":
      return json(res, 500, "upstream exploded\nwhile thinking")
    case "malformed":
      return json(res, 200, "{\"output_text\": \"unterminated")
    default:
      return json(res, 400, { error: { message: "unknown mode" } })
  }
}

const modes = ["ok", "429", "500", "malformed"]
const tasks = modes.map((mode): AgentEvalTask => ({ id: mode, inputs: { mode } }))

// What a record says, less its times.
const comparable = (trial: AgentEvalTrial) => ({ status: trial.status, output: trial.output, error: trial.error && { ...trial.error, occurred_at: "" } })

const runWith = <E>(agent: Agent<E, HttpClient.HttpClient>, layer: Layer.Layer<HttpClient.HttpClient>) =>
  runTrials(Stream.fromIterable(tasks), agent, { parallelism: 4 }).pipe(
    Stream.runCollect,
    Effect.map((trials) => new Map(trials.map((t) => [t.task_id, comparable(t)] as const))),
    Effect.provide(layer)
  )

// The command's layer, its raw POST counted.
const counted = () => {
  const calls = { n: 0 }
  const layer = Layer.effect(
    RawPost,
    Effect.map(Effect.service(RawPost), (raw) =>
      raw === undefined ? undefined : ((url, headers, body, done) => {
        calls.n++
        return raw(url, headers, body, done)
      }) satisfies RawPostFn)
  ).pipe(Layer.provideMerge(httpClient))
  return { calls, layer }
}

describe("the raw POST", () => {
  it.live("openai: and http:// agents: the same records and errors as through the HttpClient, the same headers", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve(scenarios)
      const agents = [
        OpenAiAgent.make({ baseUrl: `${server.base}/v1`, model: "m", apiKey: Redacted.make(KEY) }),
        HttpAgent.make(`${server.base}/agent`, { headers: { "X-Custom": "yes", Authorization: `Bearer ${KEY}` } })
      ]
      for (const agent of agents) {
        const viaClient = yield* runWith(agent, NodeHttpClient.layerUndici)
        const headersViaClient = server.received.splice(0).map((r) => [r.headers["accept"], r.headers["content-type"], r.headers["authorization"], r.headers["x-custom"]])
        const { calls, layer } = counted()
        const viaRaw = yield* runWith(agent, layer)
        const headersViaRaw = server.received.splice(0).map((r) => [r.headers["accept"], r.headers["content-type"], r.headers["authorization"], r.headers["x-custom"]])
        assert.strictEqual(calls.n, modes.length)
        assert.deepStrictEqual(viaRaw, viaClient)
        assert.deepStrictEqual(headersViaRaw.sort(), headersViaClient.sort())
        assert.isFalse(JSON.stringify([...viaRaw]).includes(KEY))
      }
      const viaClient = yield* runWith(agents[0]!, NodeHttpClient.layerUndici)
      assert.strictEqual(viaClient.get("ok")!.status, "completed")
      assert.strictEqual(viaClient.get("429")!.error!.type, "HttpStatusError")
      assert.strictEqual(viaClient.get("malformed")!.error!.type, "InvalidAgentOutput")
    })))

  it.live("no server: the same NetworkError", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const agent = HttpAgent.make(`http://127.0.0.1:${port}/agent`)
      const viaClient = yield* runWith(agent, NodeHttpClient.layerUndici)
      const { calls, layer } = counted()
      const viaRaw = yield* runWith(agent, layer)
      assert.strictEqual(calls.n, modes.length)
      assert.deepStrictEqual(viaRaw, viaClient)
      assert.strictEqual(viaRaw.get("ok")!.error!.type, "NetworkError")
    }))

  it.live("a tracer that takes the spans: the HttpClient path, not the raw one", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serve(scenarios)
      const agent = HttpAgent.make(`${server.base}/agent`)
      const spans: Array<string> = []
      const tracer = Tracer.make({
        span: (options) => {
          spans.push(options.name)
          return Tracer.nativeTracer.span(options)
        }
      })
      const { calls, layer } = counted()
      yield* runWith(agent, layer).pipe(Effect.provideService(Tracer.Tracer, tracer))
      assert.strictEqual(calls.n, 0)
      // The client span, named by its method (Effect's default `SpanNameGenerator`).
      assert.isTrue(spans.includes("POST"))
    })))

  it.live("an interrupted call aborts its request: a timeout closes the connection the server holds, and the trial fails with Timeout", () =>
    Effect.scoped(Effect.gen(function*() {
      let closed = 0
      // Never answers; counts the requests whose connection the client closed.
      const server = yield* serve((_request, res) => {
        res.on("close", () => closed++)
      })
      const { calls, layer } = counted()
      const trials = yield* runTrials(Stream.fromIterable(tasks.slice(0, 2)), HttpAgent.make(`${server.base}/agent`), {
        parallelism: 2,
        timeout: "200 millis"
      }).pipe(Stream.runCollect, Effect.provide(layer))
      assert.strictEqual(calls.n, 2)
      assert.deepStrictEqual(trials.map((t) => t.error?.type), ["Timeout", "Timeout"])
      // The abort reaches the socket in the loop's next turns: wait for it, bounded by the test's timeout.
      while (closed < 2) yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
      assert.strictEqual(closed, 2)
    })))
})

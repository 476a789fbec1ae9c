/**
 * The HTTP and OpenAI agents against a real node:http server on 127.0.0.1,
 * run through the real runner and the real undici client.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Exit, Fiber, Redacted, Stream } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../src/Agent.ts"
import * as HttpAgent from "../src/agents/Http.ts"
import { HttpStatusError, retryAfterMs } from "../src/agents/HttpErrors.ts"
import * as OpenAiAgent from "../src/agents/OpenAi.ts"
import { runTrials } from "../src/Runner.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/Trial.ts"
import { closedPort, type Handler, json, serve } from "./http-server.ts"

const run = <E>(tasks: ReadonlyArray<AgentEvalTask>, agent: Agent<E, HttpClient.HttpClient>) =>
  runTrials(Stream.fromIterable(tasks), agent, { parallelism: 4 }).pipe(
    Stream.runCollect,
    Effect.map((trials) => new Map(trials.map((t) => [t.task_id, t] as const))),
    Effect.provide(NodeHttpClient.layerUndici)
  )

const one = <E>(task: AgentEvalTask, agent: Agent<E, HttpClient.HttpClient>) =>
  Effect.map(run([task], agent), (trials) => trials.get(task.id)!)

const failure = (trial: AgentEvalTrial) => {
  assert.strictEqual(trial.status, "failed")
  return trial.error!
}

// Answers by `inputs.mode`, so one run exercises several outcomes at once.
const scenarios: Handler = (request, res) => {
  const task = JSON.parse(request.body) as AgentEvalTask
  switch (task.inputs["mode"]) {
    case "full":
      return json(res, 200, { output_text: `full ${task.id}`, response: { raw: [1, 2] }, metadata: { tokens: 7 } })
    case "text":
      return json(res, 200, { output_text: `text ${task.id}` })
    case "500":
      return json(res, 500, "upstream exploded\nwhile thinking")
    case "429":
      return json(res, 429, { error: { message: "slow down" } }, { "retry-after": "2" })
    case "malformed":
      return json(res, 200, "{\"output_text\": \"unterminated")
    case "shape":
      return json(res, 200, { text: "no output_text here" })
    case "string":
      return json(res, 200, "\"just a JSON string\"")
    default:
      return json(res, 400, { error: { message: `unknown mode ${String(task.inputs["mode"])}` } })
  }
}

const task = (id: string, mode: string, extra: Record<string, unknown> = {}): AgentEvalTask => ({
  id,
  inputs: { mode, ...extra }
})

describe("HttpAgent", () => {
  it.live("completes with a full AgentOutput and with only output_text; the server gets exactly the task", () =>
    Effect.gen(function*() {
      const server = yield* serve(scenarios)
      const tasks = [
        task("a", "full", { nested: { list: [1, "two", null] } }),
        { ...task("b", "text"), intent: "say hi", reference: { answer: 42 }, metadata: { split: "dev" } }
      ]
      const trials = yield* run(tasks, HttpAgent.make(`${server.base}/agent`, { headers: { "x-run": "r1" } }))
      assert.deepStrictEqual(trials.get("a")!.output, {
        output_text: "full a",
        response: { raw: [1, 2] },
        metadata: { tokens: 7 }
      })
      assert.deepStrictEqual(trials.get("b")!.output, { output_text: "text b" })
      assert.strictEqual(server.received.length, 2)
      for (const request of server.received) {
        assert.strictEqual(request.method, "POST")
        assert.strictEqual(request.path, "/agent")
        assert.match(request.headers["content-type"] ?? "", /^application\/json/)
        assert.strictEqual(request.headers["x-run"], "r1")
        const sent = JSON.parse(request.body) as AgentEvalTask
        assert.deepStrictEqual(sent, tasks.find((t) => t.id === sent.id))
      }
    }))

  it.live("a non-2xx status fails the trial with HttpStatusError naming the status, URL and body", () =>
    Effect.gen(function*() {
      const server = yield* serve(scenarios)
      const error = failure(yield* one(task("x", "500"), HttpAgent.make(`${server.base}/agent`)))
      assert.strictEqual(error.type, "HttpStatusError")
      assert.strictEqual(error.message, `HTTP 500 from ${server.base}/agent: upstream exploded while thinking`)
    }))

  it.live("429 with Retry-After: 2 carries retryAfterMs 2000 and the server's error message", () =>
    Effect.gen(function*() {
      const server = yield* serve(scenarios)
      const agent = HttpAgent.make(`${server.base}/agent`)
      const error = yield* Effect.flip(agent(task("x", "429"))).pipe(Effect.provide(NodeHttpClient.layerUndici))
      assert.instanceOf(error, HttpStatusError)
      assert.strictEqual((error as HttpStatusError).status, 429)
      assert.strictEqual((error as HttpStatusError).retryAfterMs, 2000)
      assert.strictEqual(error.message, `HTTP 429 from ${server.base}/agent: slow down`)
      const trial = yield* one(task("y", "429"), agent)
      assert.deepInclude(failure(trial), { type: "HttpStatusError", message: error.message })
    }))

  it.live("a 2xx body that is not JSON, or not an AgentOutput, is InvalidAgentOutput with a preview", () =>
    Effect.gen(function*() {
      const server = yield* serve(scenarios)
      const trials = yield* run(
        [task("m", "malformed"), task("s", "shape"), task("j", "string")],
        HttpAgent.make(`${server.base}/agent`)
      )
      const malformed = failure(trials.get("m")!)
      assert.strictEqual(malformed.type, "InvalidAgentOutput")
      assert.include(malformed.message, "is not JSON")
      assert.include(malformed.message, "{\"output_text\": \"unterminated")
      for (const id of ["s", "j"]) {
        const error = failure(trials.get(id)!)
        assert.strictEqual(error.type, "InvalidAgentOutput")
        assert.include(error.message, `Response from ${server.base}/agent is not { output_text: string`)
      }
      assert.include(failure(trials.get("s")!).message, "{\"text\":\"no output_text here\"}")
      assert.include(failure(trials.get("j")!).message, "\"just a JSON string\"")
    }))

  it.live("a closed port fails the trial with NetworkError", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const error = failure(yield* one(task("x", "full"), HttpAgent.make(`http://127.0.0.1:${port}/agent`)))
      assert.strictEqual(error.type, "NetworkError")
      assert.include(error.message, `POST http://127.0.0.1:${port}/agent failed`)
      assert.include(error.message, "ECONNREFUSED")
    }))

  it.live("credential header values never reach an error message", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, res) => json(res, 403, `denied: ${request.headers.authorization}`))
      const agent = HttpAgent.make(`${server.base}/agent`, { headers: { Authorization: "Bearer tok-SECRET-9" } })
      const trial = yield* one(task("x", "full"), agent)
      assert.strictEqual(server.received[0]!.headers.authorization, "Bearer tok-SECRET-9")
      assert.strictEqual(failure(trial).message, `HTTP 403 from ${server.base}/agent: denied: <redacted>`)
    }))

  it.live("interrupting the run aborts the request: the server sees its socket close", () =>
    Effect.gen(function*() {
      const arrived = yield* Deferred.make<void>()
      const closed = yield* Deferred.make<void>()
      const server = yield* serve((_request, _res, req) => {
        req.socket.on("close", () => Deferred.doneUnsafe(closed, Exit.void))
        Deferred.doneUnsafe(arrived, Exit.void) // and never answer
      })
      const trials = runTrials(Stream.make(task("x", "full")), HttpAgent.make(`${server.base}/agent`), { parallelism: 4 })
      const fiber = yield* Effect.forkChild(Stream.runCollect(trials))
      yield* Deferred.await(arrived)
      yield* Fiber.interrupt(fiber)
      // The client layer (and its connection pool) outlives the run, and the
      // server is still up: only the aborted request can close this socket.
      yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(server.received.length, 1)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("the runner keeps at most `parallelism` requests in flight against the server", () =>
    Effect.gen(function*() {
      let active = 0
      let peak = 0
      const server = yield* serve((request, res) => {
        peak = Math.max(peak, ++active)
        setTimeout(() => {
          active--
          json(res, 200, { output_text: (JSON.parse(request.body) as AgentEvalTask).id })
        }, 10)
      })
      const tasks = Array.from({ length: 24 }, (_, i) => task(`t${i}`, "full"))
      const trials = yield* run(tasks, HttpAgent.make(`${server.base}/agent`))
      assert.strictEqual(trials.size, 24)
      assert.isTrue([...trials.values()].every((t) => t.status === "completed" && t.output?.output_text === t.task_id))
      assert.isTrue(peak >= 1 && peak <= 4, `peak ${peak}`)
    }))
})

describe("retryAfterMs", () => {
  it("reads whole seconds and HTTP dates, relative to now", () => {
    const now = Date.parse("2015-10-21T07:27:00Z")
    assert.strictEqual(retryAfterMs("2", now), 2000)
    assert.strictEqual(retryAfterMs(" 0 ", now), 0)
    assert.strictEqual(retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", now), 60_000)
    assert.strictEqual(retryAfterMs("Wednesday, 21-Oct-15 07:27:30 GMT", now), 30_000)
    assert.strictEqual(retryAfterMs("Wed, 21 Oct 2015 07:00:00 GMT", now), 0, "a past date is no wait")
    assert.isUndefined(retryAfterMs(undefined, now))
    assert.isUndefined(retryAfterMs("soon", now))
    assert.isUndefined(retryAfterMs("-1", now))
    assert.isUndefined(retryAfterMs("1.5", now))
  })
})

const KEY = "sk-test-SECRET-123"

const completion = (content: unknown) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "tiny-1",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
})

describe("OpenAiAgent", () => {
  it.live("sends the model and the instruction with the key; output_text, response and metadata from the body", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, res) => {
        const body = JSON.parse(request.body) as { messages: Array<{ content: string }> }
        json(res, 200, completion(`echo: ${body.messages[0]!.content}`))
      })
      const agent = OpenAiAgent.make({ baseUrl: `${server.base}/v1/`, model: "tiny-1", apiKey: Redacted.make(KEY) })
      const trial = yield* one({ id: "q", inputs: { instruction: "Say hi", other: 1 } }, agent)
      assert.deepStrictEqual(trial.output, {
        output_text: "echo: Say hi",
        response: completion("echo: Say hi"),
        metadata: { model: "tiny-1", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }
      })
      const [request] = server.received
      assert.strictEqual(request!.path, "/v1/chat/completions")
      assert.strictEqual(request!.headers.authorization, `Bearer ${KEY}`)
      assert.deepStrictEqual(JSON.parse(request!.body), {
        model: "tiny-1",
        messages: [{ role: "user", content: "Say hi" }]
      })
    }))

  it.live("without a string instruction sends the inputs as JSON; without a key sends no Authorization", () =>
    Effect.gen(function*() {
      const server = yield* serve((_request, res) => json(res, 200, { choices: [{ message: { content: "ok" } }] }))
      const inputs = { question: "2+2?", instruction: { not: "a string" } }
      const trial = yield* one(
        { id: "q", inputs },
        OpenAiAgent.make({ baseUrl: server.base, model: "m", apiKey: undefined })
      )
      assert.deepStrictEqual(trial.output, {
        output_text: "ok",
        response: { choices: [{ message: { content: "ok" } }] }
      })
      const [request] = server.received
      assert.isUndefined(request!.headers.authorization)
      assert.deepStrictEqual(JSON.parse(request!.body), {
        model: "m",
        messages: [{ role: "user", content: JSON.stringify(inputs) }]
      })
    }))

  it.live("the key never appears in any trial, even when the server echoes it back", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, res) => {
        const auth = request.headers.authorization ?? ""
        const task = JSON.parse(request.body) as { messages: Array<{ content: string }> }
        switch (task.messages[0]!.content) {
          case "401":
            return json(res, 401, { error: { message: `Incorrect API key provided: ${auth}`, header: auth } })
          case "401-raw":
            return json(res, 401, `no entry for ${"x".repeat(175)} ${auth} ${encodeURIComponent(auth)}`)
          case "200-echo":
            return json(res, 200, { ...completion(`you sent ${auth}`), echoed: auth })
          default:
            return json(res, 200, { choices: [], note: auth })
        }
      })
      const agent = OpenAiAgent.make({ baseUrl: server.base, model: "m", apiKey: Redacted.make(KEY) })
      const trials = yield* run(
        ["401", "401-raw", "200-echo", "no-choices"].map((instruction) => ({ id: instruction, inputs: { instruction } })),
        agent
      )
      assert.strictEqual(server.received.length, 4)
      const record = JSON.stringify([...trials.values()])
      assert.notInclude(record, KEY)
      assert.notInclude(record, "SECRET")
      assert.deepInclude(failure(trials.get("401")!), {
        type: "HttpStatusError",
        message: `HTTP 401 from ${server.base}/chat/completions: Incorrect API key provided: Bearer <redacted>`
      })
      // The key straddles the 200-character preview cut: scrubbed before truncation.
      const raw = failure(trials.get("401-raw")!)
      assert.strictEqual(raw.type, "HttpStatusError")
      assert.notInclude(raw.message, "sk-")
      assert.strictEqual(trials.get("200-echo")!.output?.output_text, "you sent Bearer <redacted>")
      assert.strictEqual(failure(trials.get("no-choices")!).type, "InvalidAgentOutput")
    }))

  it.live("a null or missing content is InvalidAgentOutput", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, res) => {
        const task = JSON.parse(request.body) as { messages: Array<{ content: string }> }
        if (task.messages[0]!.content === "refuse") {
          return json(res, 200, { choices: [{ message: { content: null, refusal: "I can't help with that." } }] })
        }
        return json(res, 200, { choices: [{ message: { role: "assistant" } }] })
      })
      const agent = OpenAiAgent.make({ baseUrl: server.base, model: "m", apiKey: undefined })
      const trials = yield* run([{ id: "missing", inputs: {} }, { id: "refuse", inputs: { instruction: "refuse" } }], agent)
      const missing = failure(trials.get("missing")!)
      assert.strictEqual(missing.type, "InvalidAgentOutput")
      assert.include(missing.message, "has no string at choices[0].message.content")
      assert.include(failure(trials.get("refuse")!).message, "the model refused: I can't help with that.")
    }))

  it.effect("keyFromConfig reads OPENAI_API_KEY as Redacted; unset or empty is undefined", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.provideService(OpenAiAgent.keyFromConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))
      const key = yield* read({ OPENAI_API_KEY: KEY })
      assert.isTrue(Redacted.isRedacted(key))
      assert.strictEqual(Redacted.value(key!), KEY)
      assert.notInclude(String(key), KEY)
      assert.isUndefined(yield* read({}))
      assert.isUndefined(yield* read({ OPENAI_API_KEY: "" }))
    }))
})

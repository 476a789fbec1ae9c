/**
 * The HTTP and OpenAI agents against a real node:http server on 127.0.0.1,
 * run through the real runner and the real undici client.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Exit, Fiber, Redacted, Stream } from "effect"
import { Headers, type HttpClient } from "effect/http"
import type { Agent } from "../src/domain/Agent.ts"
import * as HttpAgent from "../src/agents/Http.ts"
import { HttpStatusError, retryAfterMs } from "../src/domain/HttpErrors.ts"
import { redactUrl, scrubber, urlSecrets } from "../src/internal/redact.ts"
import * as OpenAiAgent from "../src/agents/OpenAi.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
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

  it.live("the runner keeps exactly `parallelism` requests in flight against the server", () =>
    Effect.gen(function*() {
      let active = 0
      let peak = 0
      // Held until 4 have arrived, then answered together 10 ms later: a
      // runner that kept fewer in flight would never fill a batch (the run
      // times out), one that sent a fifth would be seen in the meantime.
      const held: Array<() => void> = []
      const server = yield* serve((request, res) => {
        peak = Math.max(peak, ++active)
        held.push(() => {
          active--
          json(res, 200, { output_text: (JSON.parse(request.body) as AgentEvalTask).id })
        })
        if (held.length === 4) {
          const batch = held.splice(0)
          setTimeout(() => batch.forEach((answer) => answer()), 10)
        }
      })
      const tasks = Array.from({ length: 24 }, (_, i) => task(`t${i}`, "full"))
      const trials = yield* run(tasks, HttpAgent.make(`${server.base}/agent`)).pipe(
        Effect.timeoutOrElse({
          duration: "60 seconds",
          orElse: () => Effect.die(`the run did not keep 4 requests in flight: ${server.received.length} of 24 arrived`)
        })
      )
      assert.strictEqual(trials.size, 24)
      assert.isTrue([...trials.values()].every((t) => t.status === "completed" && t.output?.output_text === t.task_id))
      assert.strictEqual(peak, 4)
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
        metadata: { model: "tiny-1", usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
        usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5, model: "tiny-1" }
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

describe("redactUrl", () => {
  it("replaces userinfo and every query and fragment value; names, host and path stay as written", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["http://127.0.0.1:8080/agent", "http://127.0.0.1:8080/agent"],
      ["ftp://x", "ftp://x"],
      ["https://me:pw@Host.example:8443/v1/", "https://<redacted>@Host.example:8443/v1/"],
      ["https://ghp_TOKEN@host/x", "https://<redacted>@host/x"],
      ["http:me:pw@host/x", "http:<redacted>@host/x"],
      [
        "http://h/a?api_key=sk-1&mode=fast&empty=&debug&&x=1=2",
        "http://h/a?api_key=<redacted>&mode=<redacted>&empty=&<redacted>&&x=<redacted>"
      ],
      ["http://h/a?key=sk%2D1%20x&q=a+b&%6Bey=v%3D", "http://h/a?key=<redacted>&q=<redacted>&%6Bey=<redacted>"],
      [
        "http://h/cb?state=s1#access_token=tok&token_type=bearer",
        "http://h/cb?state=<redacted>#access_token=<redacted>&token_type=<redacted>"
      ],
      ["http://h/page#section", "http://h/page#<redacted>"],
      // An @ after the host is part of the path or query, not userinfo.
      ["http://host/users/@me?x=a@b", "http://host/users/@me?x=<redacted>"]
    ]
    for (const [url, shown] of cases) assert.strictEqual(redactUrl(url), shown, url)
  })

  it("redacts text that is not a valid URL too, hiding more when unsure where the userinfo ends", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["http://user:SECRET@[bad", "http://<redacted>@[bad"],
      // The URL parser would end the authority at ? or #: that text is invalid, and all of it is hidden.
      ["http://user:pa?SECRET#x@host/p?k=v", "http://<redacted>@host/p?k=<redacted>"],
      ["http://:SECRET@", "http://<redacted>@"],
      ["not a url ?token=SECRET", "not a url ?token=<redacted>"]
    ]
    for (const [url, shown] of cases) assert.strictEqual(redactUrl(url), shown, url)
  })

  it("no secret survives, wherever it sits and however it is spelled", () => {
    const secret = "S3CR3T-v4lue"
    const spellings = [secret, encodeURIComponent(`${secret}/+ x`), `${secret}%3D%3D`]
    const templates = [
      (s: string) => `https://${s}@h/p`,
      (s: string) => `https://u:${s}@h/p`,
      (s: string) => `https://u:${s}@[::1/p`,
      (s: string) => `https://h/p?${s}`,
      (s: string) => `https://h/p?a=1&b=${s}&c`,
      (s: string) => `https://h/p?a=1;b=${s}`,
      (s: string) => `https://h/p#t=${s}`,
      (s: string) => `openai-typo://u:${s}@h?x=${s}`
    ]
    for (const template of templates) {
      for (const spelling of spellings) {
        const url = template(spelling)
        assert.notInclude(redactUrl(url), secret, url)
        assert.include(redactUrl(url), "<redacted>", url)
      }
    }
  })
})

describe("urlSecrets", () => {
  it("feeds the scrubber the password, credential-named values and other long values, in every spelling", () => {
    const scrub = scrubber(urlSecrets(
      "http://bob:pw1@h/a?api_key=k9&v=1&format=json&session=abcdefghij&q=LONG%2FVALUE+1&x=a b"
    ))
    // Server-side spellings: as sent, decoded, JSON-escaped.
    assert.strictEqual(scrub("abcdefghij|LONG%2FVALUE+1|LONG/VALUE 1"), "<redacted>|<redacted>|<redacted>")
    // A password or credential shorter than 8 characters only after its name, as the URL carries it.
    assert.strictEqual(
      scrub("bob:pw1 ?api_key=k9 api_key%3Dk9 {\"u\":\"api_key=k9\"}"),
      "bob:<redacted> ?api_key=<redacted> api_key%3D<redacted> {\"u\":\"api_key=<redacted>\"}"
    )
    // Short values on their own, values that are no credential, and the user
    // name are left alone: scrubbing them would rewrite every "1" or "json" of an output.
    assert.strictEqual(scrub("pw1 k9; bob asked for v=1 in json, a b"), "pw1 k9; bob asked for v=1 in json, a b")
    // The parser sends "a b" as "a%20b"; a long one is scrubbed in both spellings.
    const spaced = scrubber(urlSecrets("http://h/?q=long value here"))
    assert.strictEqual(spaced("long value here / long%20value%20here"), "<redacted> / <redacted>")
    assert.deepStrictEqual(urlSecrets("http://h/agent?v=1"), [])
  })

  it("a short value counts as a credential by the words of its name, not by substrings", () => {
    const scrub = scrubber(urlSecrets(
      "http://h/?accessToken=t1&X-Amz-Signature=s2&AWSAccessKeyId=a3&apikey=k4&sig=g5&keyword=cats&author=me&monkey=m6"
    ))
    assert.strictEqual(
      scrub("accessToken=t1&X-Amz-Signature=s2&AWSAccessKeyId=a3&apikey=k4&sig=g5"),
      "accessToken=<redacted>&X-Amz-Signature=<redacted>&AWSAccessKeyId=<redacted>&apikey=<redacted>&sig=<redacted>"
    )
    assert.strictEqual(scrub("keyword=cats, author=me and monkey=m6"), "keyword=cats, author=me and monkey=m6")
  })
})

describe("scrubber", () => {
  it("replaces a secret only as a whole token, in every spelling a server may echo", () => {
    const key = "sk-live-12345678"
    const scrub = scrubber([key])
    const cases: ReadonlyArray<readonly [string, string]> = [
      [key, "<redacted>"],
      [`Bearer ${key}`, "Bearer <redacted>"],
      [`{"key":"${key}","n":1}`, `{"key":"<redacted>","n":1}`],
      [`key=${key}&x=${key}.`, "key=<redacted>&x=<redacted>."],
      // After a percent or JSON escape, which ends in a letter or digit but delimits.
      [`Bearer%20${key}%20`, "Bearer%20<redacted>%20"],
      [`line\\n${key}\\u0020${key}`, "line\\n<redacted>\\u0020<redacted>"],
      // Part of a longer word or number: not the secret, left as it is.
      [`x${key} ${key}9 ${key}_b ${key}é`, `x${key} ${key}9 ${key}_b ${key}é`]
    ]
    for (const [text, scrubbed] of cases) assert.strictEqual(scrub(text), scrubbed, text)
  })

  it("never scrubs a secret shorter than 8 characters on its own: a one-letter key rewrites nothing", () => {
    const body = JSON.stringify(completion("x marks the index, max 1x"))
    assert.strictEqual(scrubber(["x", "1234567", ""])(body), body)
    // A longer one that contains another is removed whole.
    assert.strictEqual(scrubber(["abcdefgh", "abcdefgh-ijkl"])("abcdefgh-ijkl abcdefgh"), "<redacted> <redacted>")
  })
})

// Every credential of these tests contains "SECRET", so one check covers them all.
const SECRET_URL_PARTS = "alice:pw-SECRET-1@"
const SECRET_QUERY = "api_key=SECRET&sig=SECRET-sig%2B2&v=1"

// Echoes everything a careless server could: the request line (raw and
// decoded) and every header, in an error or, for mode 200, in the output.
const echo: Handler = (request, res) => {
  const seen = `${request.path} ${decodeURIComponent(request.path)} ${JSON.stringify(request.headers)}`
  const mode = (JSON.parse(request.body) as { inputs?: { mode?: string }; messages?: Array<{ content: string }> })
  const which = mode.inputs?.mode ?? mode.messages?.[0]?.content
  switch (which) {
    case "200":
      return json(res, 200, { output_text: `you called ${seen}`, choices: [{ message: { content: `you called ${seen}` } }] })
    case "400":
      return json(res, 400, `bad request ${seen}`, { location: request.path })
    default:
      return json(res, 500, { error: { message: `failed ${seen}` } })
  }
}

const assertNoSecret = (trials: ReadonlyMap<string, AgentEvalTrial>) => {
  const record = JSON.stringify([...trials.values()])
  assert.notInclude(record, "SECRET", record)
}

describe("secrets in the agent URL and headers", () => {
  it.live("http agent: an echoing server's 500, 400 and 200 bodies keep no URL secret or credential header", () =>
    Effect.gen(function*() {
      const server = yield* serve(echo)
      const agent = HttpAgent.make(`http://${SECRET_URL_PARTS}127.0.0.1:${server.port}/agent?${SECRET_QUERY}`, {
        headers: { "X-Api-Key": "xk-SECRET-3", Authorization: "Bearer SECRET-bearer-4" }
      })
      const trials = yield* run(["500", "400", "200"].map((mode) => task(mode, mode)), agent)
      assert.strictEqual(server.received.length, 3)
      // The secrets did reach the server (so the echo carried them)...
      assert.include(server.received[0]!.path, "api_key=SECRET&sig=SECRET-sig%2B2")
      assert.strictEqual(server.received[0]!.headers["x-api-key"], "xk-SECRET-3")
      // ...and none came back into a trial.
      assertNoSecret(trials)
      const shown = `http://<redacted>@127.0.0.1:${server.port}/agent?api_key=<redacted>&sig=<redacted>&v=<redacted>`
      assert.strictEqual(failure(trials.get("500")!).type, "HttpStatusError")
      assert.isTrue(failure(trials.get("500")!).message.startsWith(`HTTP 500 from ${shown}: failed /agent?api_key=<redacted>&sig=<redacted>&v=1`))
      assert.isTrue(failure(trials.get("400")!).message.startsWith(`HTTP 400 from ${shown}: bad request /agent?`))
      assert.include(trials.get("200")!.output!.output_text, "you called /agent?api_key=<redacted>&sig=<redacted>&v=1")
      assert.include(trials.get("200")!.output!.output_text, `"x-api-key":"<redacted>","authorization":"<redacted>"`)
    }))

  it.live("http agent: a closed port's NetworkError names the URL without its secrets", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const trials = yield* run([task("x", "500")], HttpAgent.make(`http://${SECRET_URL_PARTS}127.0.0.1:${port}/agent?${SECRET_QUERY}`))
      assertNoSecret(trials)
      const error = failure(trials.get("x")!)
      assert.strictEqual(error.type, "NetworkError")
      assert.include(error.message, `POST http://<redacted>@127.0.0.1:${port}/agent?api_key=<redacted>&sig=<redacted>&v=<redacted> failed`)
      assert.include(error.message, "ECONNREFUSED")
    }))

  it.live("http agent: the header names come from Headers.CurrentRedactedNames, so a program's own list is obeyed", () =>
    Effect.gen(function*() {
      const server = yield* serve(echo)
      const agent = HttpAgent.make(`${server.base}/agent`, {
        headers: { "x-api-key": "xk-SECRET-3", "X-Tenant-Token": "tt-SECRET-5", "x-trace": "visible-trace-id" }
      })
      const byDefault = failure((yield* run([task("d", "500")], agent)).get("d")!).message
      assert.include(byDefault, "<redacted>", "x-api-key is on Effect's default list")
      assert.notInclude(byDefault, "xk-SECRET-3")
      assert.include(byDefault, "tt-SECRET-5", "a header Effect does not list is left alone by default")

      const names = [...Headers.CurrentRedactedNames.defaultValue(), /-token$/i]
      const trials = yield* run([task("c", "500"), task("c2", "400")], agent).pipe(
        Effect.provideService(Headers.CurrentRedactedNames, names)
      )
      assertNoSecret(trials)
      assert.include(failure(trials.get("c")!).message, "visible-trace-id")
    }))

  it.live("openai agent: base URL secrets and the key stay out of every trial; the query follows the path", () =>
    Effect.gen(function*() {
      const server = yield* serve(echo)
      const agent = OpenAiAgent.make({
        baseUrl: `http://${SECRET_URL_PARTS}127.0.0.1:${server.port}/v1/?${SECRET_QUERY}`,
        model: "m",
        apiKey: Redacted.make("sk-SECRET-6")
      })
      const trials = yield* run(["500", "400", "200"].map((mode) => ({ id: mode, inputs: { instruction: mode } })), agent)
      assert.deepStrictEqual(
        server.received.map((r) => r.path),
        Array(3).fill(`/v1/chat/completions?${SECRET_QUERY}`)
      )
      assert.strictEqual(server.received[0]!.headers.authorization, "Bearer sk-SECRET-6")
      assertNoSecret(trials)
      assert.include(
        failure(trials.get("500")!).message,
        `HTTP 500 from http://<redacted>@127.0.0.1:${server.port}/v1/chat/completions?api_key=<redacted>&sig=<redacted>&v=<redacted>: `
      )
      assert.include(trials.get("200")!.output!.output_text, `"authorization":"Bearer <redacted>"`)

      const port = yield* closedPort
      const closed = yield* one(
        { id: "x", inputs: {} },
        OpenAiAgent.make({ baseUrl: `http://${SECRET_URL_PARTS}127.0.0.1:${port}/v1?${SECRET_QUERY}`, model: "m", apiKey: undefined })
      )
      assert.notInclude(JSON.stringify(closed), "SECRET")
      assert.include(failure(closed).message, `POST http://<redacted>@127.0.0.1:${port}/v1/chat/completions?api_key=<redacted>`)
    }))

  it.live("a 2xx body is scrubbed after parsing: a secret that looks like a number leaves valid JSON behind", () =>
    Effect.gen(function*() {
      const server = yield* serve((_request, res) => json(res, 200, `{"output_text": "n=12345678901", "metadata": {"n": 12345678901}}`))
      const trial = yield* one(task("x", "200"), HttpAgent.make(`${server.base}/agent?project=12345678901`))
      assert.strictEqual(trial.status, "completed")
      assert.deepStrictEqual(trial.output, { output_text: "n=<redacted>", metadata: { n: 12345678901 } })
    }))
})

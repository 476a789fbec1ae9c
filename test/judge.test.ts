/**
 * The LLM judge against a real OpenAI-compatible server on 127.0.0.1, through
 * the real undici client: grades, the prompt it sends, garbled grades,
 * retries after a 429 with Retry-After and after a 500 (waits on the
 * TestClock, driven by the judge's counts), timeouts, and the API key kept
 * out of every score.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Random, Redacted } from "effect"
import { TestClock } from "effect/testing"
import type * as http from "node:http"
import * as Judge from "../src/scoring/Judge.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import type { AgentEvalTask, AgentEvalTrial, Score } from "../src/domain/Trial.ts"
import { json, type Received, serve } from "./http-server.ts"

const KEY = "sk-judge-SECRET-4242"
const EPOCH = "1970-01-01T00:00:00.000Z"

const task = (id: string, reference: unknown = "4"): AgentEvalTask => ({ id, inputs: { instruction: `What is 2 + 2? (${id})` }, reference })

const trial = (id: string, output: string): AgentEvalTrial => ({
  id: `${id}:trial`,
  task_id: id,
  status: "completed",
  output: { output_text: output },
  metadata: { started_at: EPOCH, finished_at: EPOCH, latency_ms: 1 }
})

const completion = (content: string) => ({ choices: [{ message: { role: "assistant", content } }], model: "judge-1" })

type Reply = (res: http.ServerResponse, request: Received) => void

// Replies in order per task id (read from the question); the last one repeats.
const scripted = (replies: Record<string, ReadonlyArray<Reply>>) => {
  const seen = new Map<string, number>()
  return (request: Received, res: http.ServerResponse) => {
    const body = JSON.parse(request.body) as { readonly messages: ReadonlyArray<{ readonly content: string }> }
    const id = /\(([^)]+)\)/.exec(body.messages[0].content)?.[1] ?? "?"
    const n = seen.get(id) ?? 0
    seen.set(id, n + 1)
    const script = replies[id] ?? [(r) => json(r, 404, { error: { message: `no script for ${id}` } })]
    script[Math.min(n, script.length - 1)](res, request)
  }
}

const make = (base: string, options: Partial<Judge.Options> = {}) =>
  Judge.make({ baseUrl: `${base}/v1`, model: "judge-model", apiKey: Redacted.make(KEY), ...options })

const run = (judge: Judge.Judge, id: string, output: string, reference?: unknown) =>
  judge.score(reference === undefined ? task(id) : task(id, reference), trial(id, output)).pipe(Effect.provide(NodeHttpClient.layerUndici))

// Real I/O under the TestClock: poll on live time until `done`, at most 10 s.
const until = (done: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2000 && !done(); i++) yield* TestClock.withLive(Effect.sleep("5 millis"))
    assert.isTrue(done(), `timed out waiting for ${what}`)
  })

// Every jitter draw is 0: a backoff is half its nominal delay.
const noJitter = Effect.provideService(Random.Random, { nextDoubleUnsafe: () => 0, nextIntUnsafe: () => 0 })

const assertNoKey = (score: Score) => assert.notInclude(JSON.stringify(score), KEY.slice(3))

describe("Judge", () => {
  it.effect("grades C and I, keeping the judge's text; sends the model, the key and the prompt", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({
        right: [(res) => json(res, 200, completion("The answer says 4, as the reference does.\nGRADE: C"))],
        wrong: [(res) => json(res, 200, completion("The answer says 5; the reference says 4.\n\n**GRADE: I**"))]
      }))
      const judge = make(server.base)
      assert.strictEqual(judge.name, "judge")
      assert.deepStrictEqual(yield* run(judge, "right", "It is 4."), {
        value: 1,
        passed: true,
        explanation: "The answer says 4, as the reference does.\nGRADE: C"
      })
      assert.deepStrictEqual(yield* run(judge, "wrong", "It is 5."), {
        value: 0,
        passed: false,
        explanation: "The answer says 5; the reference says 4.\n\n**GRADE: I**"
      })
      assert.strictEqual(server.received.length, 2)
      const request = server.received[0]
      assert.strictEqual(request.path, "/v1/chat/completions")
      assert.strictEqual(request.headers.authorization, `Bearer ${KEY}`)
      const body = JSON.parse(request.body)
      assert.deepStrictEqual(body, {
        model: "judge-model",
        messages: [{ role: "user", content: Judge.prompt(task("right"), "4", "It is 4.") }]
      })
      const prompt = body.messages[0].content as string
      assert.include(prompt, "[Question]\nWhat is 2 + 2? (right)\n")
      assert.include(prompt, "[Reference answer]\n4\n")
      assert.include(prompt, "[Answer]\nIt is 4.\n")
      assert.include(prompt, "`GRADE: C` if the answer is correct or `GRADE: I` if it is incorrect")
      assert.deepStrictEqual(judge.counts(), { attempts: 2, retries: 0, active: 0, waiting: 0 })
    }))

  it.effect("judge:...,trajectory sends the trial's steps in the prompt, built from the --score spec", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({ path: [(res) => json(res, 200, completion("It searched, then answered.\nGRADE: C"))] }))
      const judge = yield* Scorers.fromSpec(`judge:${server.base}/v1,trajectory`, {
        cwd: process.cwd(),
        judgeModel: "judge-model",
        apiKey: Redacted.make(KEY)
      })
      const steps = [
        { type: "model" as const, started_at: EPOCH, duration_ms: 2 },
        { type: "tool_call" as const, name: "add", arguments: { a: 2, b: 2 }, started_at: EPOCH, duration_ms: 1 },
        { type: "tool_result" as const, name: "add", content: 4, started_at: EPOCH, duration_ms: 0 },
        { type: "model" as const, content: "It is 4.", started_at: EPOCH, duration_ms: 2 }
      ]
      const acted: AgentEvalTrial = { ...trial("path", "It is 4."), output: { output_text: "It is 4.", trajectory: steps } }
      const score = yield* judge.score(task("path"), acted).pipe(Effect.provide(NodeHttpClient.layerUndici))
      assert.isTrue(score.passed)
      const prompt = JSON.parse(server.received[0].body).messages[0].content as string
      assert.strictEqual(prompt, Judge.prompt(task("path"), "4", "It is 4.", steps))
      assert.include(prompt, "1. model turn\n2. tool call add {\"a\":2,\"b\":2}\n3. tool result add: 4\n4. model turn: It is 4.\n")
    }))

  it("gradeOf: the last grade wins; markdown around it is fine; GRADE: Correct is no grade", () => {
    assert.strictEqual(Judge.gradeOf("GRADE: C"), "C")
    assert.strictEqual(Judge.gradeOf("I must answer with GRADE: C or GRADE: I.\nIt is wrong.\nGRADE: I"), "I")
    assert.strictEqual(Judge.gradeOf("**GRADE:** `C`"), "C")
    assert.strictEqual(Judge.gradeOf("grade: c"), "C")
    assert.strictEqual(Judge.gradeOf("GRADE: Correct"), undefined)
    assert.strictEqual(Judge.gradeOf("Looks right to me."), undefined)
    assert.strictEqual(Judge.gradeOf(""), undefined)
  })

  it("the prompt shows a non-string reference as JSON, and the inputs when there is no instruction", () => {
    const text = Judge.prompt({ id: "x", inputs: { a: 1 } }, { answer: [4] }, "four")
    assert.include(text, `[Question]\n{\n  "a": 1\n}\n`)
    assert.include(text, `[Reference answer]\n{\n  "answer": [\n    4\n  ]\n}\n`)
  })

  it.effect("a garbled grade is a score with an UnusableGrade error that keeps the text", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({ garbled: [(res) => json(res, 200, completion("Looks about right to me."))] }))
      const judge = make(server.base, { retry: { retries: 2, base: "1 second" } })
      const score = yield* run(judge, "garbled", "It is 4.")
      assert.deepStrictEqual(score, {
        value: 0,
        passed: false,
        explanation: "Looks about right to me.",
        error: {
          type: "UnusableGrade",
          message: `the judge at ${server.base}/v1/chat/completions gave no final GRADE: C or GRADE: I line: Looks about right to me.`,
          occurred_at: EPOCH
        }
      })
      // Not retried: the endpoint answered; another call is another opinion, not a repair.
      assert.strictEqual(server.received.length, 1)
    }))

  it.effect("a 429 with Retry-After: 2 waits exactly 2 s on the Clock, then succeeds", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({
        busy: [
          (res) => json(res, 429, { error: { message: "slow down" } }, { "retry-after": "2" }),
          (res) => json(res, 200, completion("Matches.\nGRADE: C"))
        ]
      }))
      const judge = make(server.base, { retry: { retries: 2, base: "100 millis" } })
      const fiber = yield* Effect.forkChild(run(judge, "busy", "4"))
      yield* until(() => judge.counts().waiting === 1, "the retry wait")
      assert.deepStrictEqual(judge.counts(), { attempts: 1, retries: 1, active: 0, waiting: 1 })
      yield* TestClock.adjust("1999 millis")
      // A woken wait starts the next attempt at once, before any I/O: none yet.
      assert.strictEqual(judge.counts().attempts, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(judge.counts().attempts, 2)
      const score = yield* Fiber.join(fiber)
      assert.deepStrictEqual(score, { value: 1, passed: true, explanation: "Matches.\nGRADE: C" })
      assert.strictEqual(server.received.length, 2)
      assert.deepStrictEqual(judge.counts(), { attempts: 2, retries: 1, active: 0, waiting: 0 })
    }))

  it.effect("a 500 is retried after the jittered backoff, then succeeds", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({
        flaky: [(res) => json(res, 500, "upstream exploded"), (res) => json(res, 200, completion("GRADE: I"))]
      }))
      const judge = make(server.base, { retry: { retries: 2, base: "1 second" } })
      const fiber = yield* Effect.forkChild(run(judge, "flaky", "5").pipe(noJitter))
      yield* until(() => judge.counts().waiting === 1, "the retry wait")
      // Retry 1 after base * 2^0 * (0.5 + jitter / 2) = 1000 * 0.5 ms.
      yield* TestClock.adjust("499 millis")
      assert.strictEqual(judge.counts().attempts, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(judge.counts().attempts, 2)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { value: 0, passed: false, explanation: "GRADE: I" })
    }))

  it.effect("retries run out: the last failure is the score's error; a 400 is not retried", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({
        down: [(res) => json(res, 503, { error: { message: "down" } })],
        bad: [(res) => json(res, 400, { error: { message: "unknown model judge-model" } })]
      }))
      const judge = make(server.base, { retry: { retries: 1, base: "1 second" } })
      const fiber = yield* Effect.forkChild(run(judge, "down", "4").pipe(noJitter))
      yield* until(() => judge.counts().waiting === 1, "the retry wait")
      yield* TestClock.adjust("500 millis")
      const down = yield* Fiber.join(fiber)
      assert.deepStrictEqual(down.error, {
        type: "HttpStatusError",
        message: `HTTP 503 from ${server.base}/v1/chat/completions: down`,
        occurred_at: "1970-01-01T00:00:00.500Z"
      })
      const bad = yield* run(judge, "bad", "4")
      assert.strictEqual(bad.error?.type, "HttpStatusError")
      assert.include(bad.error?.message, "unknown model judge-model")
      assert.strictEqual(server.received.length, 3)
    }))

  it.effect("an attempt past the timeout is a Timeout error", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({ hang: [() => undefined] }))
      const judge = make(server.base, { timeout: "10 seconds", retry: { retries: 0, base: "1 second" } })
      const fiber = yield* Effect.forkChild(run(judge, "hang", "4"))
      yield* until(() => server.received.length === 1, "the request")
      yield* TestClock.adjust("10 seconds")
      const score = yield* Fiber.join(fiber)
      assert.deepStrictEqual(score.error, {
        type: "Timeout",
        message: `the judge call to ${server.base}/v1/chat/completions did not finish within 10s`,
        occurred_at: "1970-01-01T00:00:10.000Z"
      })
      assert.deepStrictEqual(judge.counts(), { attempts: 1, retries: 0, active: 0, waiting: 0 })
    }))

  it.effect("no completion in a 2xx, or no JSON, is InvalidJudgeResponse; no reference is an error before any call", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({
        empty: [(res) => json(res, 200, { choices: [] })],
        html: [(res) => json(res, 200, "<html>oops</html>")]
      }))
      const judge = make(server.base)
      const empty = yield* run(judge, "empty", "4")
      assert.strictEqual(empty.error?.type, "InvalidJudgeResponse")
      assert.include(empty.error?.message, "has no string at choices[0].message.content")
      const html = yield* run(judge, "html", "4")
      assert.strictEqual(html.error?.type, "InvalidJudgeResponse")
      assert.include(html.error?.message, "is not JSON")
      const missing = yield* judge.score({ id: "none", inputs: {} }, trial("none", "4")).pipe(Effect.provide(NodeHttpClient.layerUndici))
      assert.strictEqual(missing.error?.type, "MissingReference")
      assert.strictEqual(server.received.length, 2)
    }))

  it.effect("the API key never reaches a score, whatever the server echoes", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({
        echoed: [
          (res, request) => json(res, 429, { error: { message: `slow down, ${request.headers.authorization}` } }, { "retry-after": "1" }),
          (res, request) => json(res, 500, `boom ${request.headers.authorization}`),
          (res, request) => json(res, 200, completion(`You sent ${request.headers.authorization}.\nGRADE: C`))
        ],
        failing: [(res) => json(res, 401, { error: { message: `bad key ${KEY}` } })],
        garbled: [(res) => json(res, 200, completion(`key=${KEY} and no grade`))]
      }))
      const judge = make(server.base, { retry: { retries: 2, base: "1 second" } })
      const fiber = yield* Effect.forkChild(run(judge, "echoed", "4").pipe(noJitter))
      yield* until(() => judge.counts().waiting === 1, "the first wait")
      yield* TestClock.adjust("1 second")
      yield* until(() => judge.counts().retries === 2 && judge.counts().waiting === 1, "the second wait")
      yield* TestClock.adjust("1 second")
      const echoed = yield* Fiber.join(fiber)
      assert.deepStrictEqual(echoed, { value: 1, passed: true, explanation: "You sent Bearer <redacted>.\nGRADE: C" })
      const failing = yield* run(judge, "failing", "4")
      assert.strictEqual(failing.error?.message, `HTTP 401 from ${server.base}/v1/chat/completions: bad key <redacted>`)
      const garbled = yield* run(judge, "garbled", "4")
      assert.strictEqual(garbled.explanation, "key=<redacted> and no grade")
      for (const score of [echoed, failing, garbled]) assertNoKey(score)
      // The server did see it: the scrubbing is what kept it out.
      assert.isTrue(server.received.every((r) => r.headers.authorization === `Bearer ${KEY}`))
    }))

  it.effect("Scorers.fromSpec: judge:BASE_URL with a judge model, the key from OPENAI_API_KEY", () =>
    Effect.gen(function*() {
      const server = yield* serve(scripted({ env: [(res) => json(res, 200, completion("GRADE: C"))] }))
      const scorer = yield* Scorers.fromSpec(`strict-judge=judge:${server.base}/v1`, { cwd: process.cwd(), judgeModel: "m-1" }).pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ OPENAI_API_KEY: "sk-from-env-77" }))
      )
      assert.strictEqual(scorer.name, "strict-judge")
      const score = yield* scorer.score(task("env"), trial("env", "4")).pipe(Effect.provide(NodeHttpClient.layerUndici))
      assert.isTrue(score.passed)
      assert.strictEqual(server.received[0].headers.authorization, "Bearer sk-from-env-77")
      assert.strictEqual(JSON.parse(server.received[0].body).model, "m-1")
    }))
})

/**
 * Rate limits are not the agent's failures: the real HTTP agent and the real
 * undici client against a local server that answers some requests with 429
 * and `Retry-After`, through the runner with the CLI's retry policy. The
 * waits are virtual (TestClock); the requests are real.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { HttpStatusError } from "../src/domain/HttpErrors.ts"
import { TestClock } from "effect/testing"
import * as HttpAgent from "../src/agents/Http.ts"
import * as Policy from "../src/runner/Policy.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { json, serve } from "./http-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// A fixed draw in [0, 1) per (task, nth request): the same answers whatever
// order the requests come in.
const draw = (id: string, nth: number): number =>
  createHash("sha256").update(`${id}#${nth}`).digest().readUInt32BE(0) / 2 ** 32

type Answer = (id: string, nth: number) => { readonly status: number; readonly retryAfter?: string }

const server = (answer: Answer) =>
  Effect.gen(function*() {
    const counts = new Map<string, number>()
    const s = yield* serve((request, res) => {
      const id = (JSON.parse(request.body) as AgentEvalTask).id
      const nth = (counts.get(id) ?? 0) + 1
      counts.set(id, nth)
      const { retryAfter, status } = answer(id, nth)
      if (status === 200) return json(res, 200, { output_text: `ok ${id}` })
      json(res, status, { error: { message: "slow down" } }, retryAfter === undefined ? {} : { "retry-after": retryAfter })
    })
    return { url: `${s.base}/agent`, counts }
  })

const tasks = (n: number) => Stream.fromIterable(Array.from({ length: n }, (_, i): AgentEvalTask => ({ id: `t${i}`, inputs: { i } })))

// Runs the trials, moving virtual time on a second at a time while the real
// requests are answered in between; at most `maxSteps` steps.
const drive = <R>(run: Effect.Effect<ReadonlyArray<AgentEvalTrial>, unknown, R>, maxSteps: number) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(run)
    let steps = 0
    while (fiber.pollUnsafe() === undefined && steps < maxSteps) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
      yield* TestClock.adjust("1 second")
      steps++
    }
    assert.isDefined(fiber.pollUnsafe(), `not done after ${maxSteps} virtual seconds`)
    return yield* Fiber.join(fiber)
  })

describe("rate limits", () => {
  it.effect("10% of requests refused with 429 + Retry-After: 1, 2,000 trials at parallelism 64, the CLI's policy: none fails", () =>
    Effect.gen(function*() {
      const throttled = (id: string, nth: number) => draw(id, nth) < 0.1
      const s = yield* server((id, nth) => throttled(id, nth) ? { status: 429, retryAfter: "1" } : { status: 200 })
      const n = 2000
      // Tasks refused more times in a row than --retries 2 allows: the ones
      // that failed before rate limits stopped using up retries.
      const refusedThrice = Array.from({ length: n }, (_, i) => `t${i}`).filter((id) =>
        throttled(id, 1) && throttled(id, 2) && throttled(id, 3)
      )
      assert.isAtLeast(refusedThrice.length, 1, "the draws refuse some task three times in a row")

      const trials = yield* drive(
        Stream.runCollect(runTrials(tasks(n), HttpAgent.make(s.url), { parallelism: 64, retry: Policy.defaultRetry })),
        600
      )

      assert.strictEqual(trials.length, n)
      const failed = trials.filter((t) => t.status !== "completed")
      assert.deepStrictEqual(failed.map((t) => `${t.task_id}: ${JSON.stringify(t.error)}`), [])
      let refusals = 0
      for (const trial of trials) {
        const requests = s.counts.get(trial.task_id)!
        assert.strictEqual(trial.metadata["attempts"], requests, trial.task_id)
        // Every refusal was a rate-limit wait of 1 s, none a retry.
        const waits = requests - 1
        refusals += waits
        if (waits === 0) continue
        assert.strictEqual(trial.metadata["rate_limit_waits"], waits, trial.task_id)
        assert.deepStrictEqual(trial.metadata["retry_delays_ms"], Array.from({ length: waits }, () => 1000), trial.task_id)
      }
      for (const id of refusedThrice) assert.isAtLeast(s.counts.get(id)!, 4, id)
      // About 10% of the requests were refused.
      const requests = [...s.counts.values()].reduce((a, b) => a + b, 0)
      assert.isTrue(refusals / requests > 0.07 && refusals / requests < 0.13, `${refusals} of ${requests} refused`)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.effect("still refused when it can wait no more: RateLimited, not HttpStatusError; a 503 without Retry-After stays a failure", () =>
    Effect.gen(function*() {
      const s = yield* server((id) =>
        id === "t0"
          ? { status: 429, retryAfter: "1" } // always: waits 1 s until 5 s are spent
          : id === "t1"
          ? { status: 429 } // no Retry-After: retried with the backoff, using up the retries
          : id === "t2"
          ? { status: 503 } // a server error, not a rate limit
          : { status: 503, retryAfter: "2" } // a 503 with Retry-After is a rate limit
      )
      const retry: Policy.RetryPolicy = { ...Policy.defaultRetry, rateLimitWaitMax: "5 seconds" }
      const trials = yield* drive(
        Stream.runCollect(runTrials(tasks(4), HttpAgent.make(s.url), { parallelism: 4, retry })),
        120
      )
      const byId = new Map(trials.map((t) => [t.task_id, t] as const))
      const t0 = byId.get("t0")!
      assert.strictEqual(t0.error?.type, "RateLimited")
      assert.match(t0.error!.message, /^HTTP 429 from http:\/\/127\.0\.0\.1:\d+\/agent: slow down: still rate limited after 5 Retry-After waits \(5s in all; --rate-limit-wait-max 5s\)$/)
      assert.strictEqual(t0.metadata["attempts"], 6)
      assert.strictEqual(s.counts.get("t0"), 6)
      assert.strictEqual(t0.metadata["rate_limit_wait_ms"], 5000)

      const t1 = byId.get("t1")!
      assert.strictEqual(t1.error?.type, "RateLimited")
      assert.match(t1.error!.message, /: still rate limited, with no Retry-After to wait for, after 2 retries$/)
      assert.strictEqual(s.counts.get("t1"), 3)
      assert.notProperty(t1.metadata, "rate_limit_waits")

      const t2 = byId.get("t2")!
      assert.strictEqual(t2.error?.type, "HttpStatusError")
      assert.strictEqual(s.counts.get("t2"), 3)

      const t3 = byId.get("t3")!
      assert.strictEqual(t3.error?.type, "RateLimited")
      // 2 s, 2 s, then the 1 s left of the 5.
      assert.deepStrictEqual(t3.metadata["retry_delays_ms"], [2000, 2000, 1000])
      assert.strictEqual(s.counts.get("t3"), 4)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 60_000 })

  it.live("the CLI with default flags at --parallelism 64: 2,000 trials, 10% of requests refused with 429 + Retry-After: 1, none fails", () =>
    Effect.gen(function*() {
      const s = yield* server((id, nth) => draw(id, nth) < 0.1 ? { status: 429, retryAfter: "1" } : { status: 200 })
      const out = path.join(tempDir(), "out.jsonl")
      const result = yield* Effect.promise(() =>
        run(["--synthetic", "2000", "--agent", s.url, "--parallelism", "64", "--out", out, "--no-progress"])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const trials = readTrials(out)
      assert.strictEqual(trials.length, 2000)
      assert.deepStrictEqual(trials.filter((t) => t.status !== "completed").map((t) => `${t.task_id}: ${JSON.stringify(t.error)}`), [])
      const refused = trials.filter((t) => (t.metadata["rate_limit_waits"] as number | undefined) !== undefined)
      assert.isAbove(refused.length, 100, "about 10% of the trials were refused at least once")
      // Some were refused more times in a row than --retries 2 would have allowed.
      assert.isTrue(trials.some((t) => (t.metadata["rate_limit_waits"] as number | undefined ?? 0) >= 3))
      for (const t of trials) assert.strictEqual(t.metadata["attempts"], s.counts.get(t.task_id), t.task_id)
    }), { timeout: 180_000 })

  it.effect("judges and tool loops (Policy.retrySchedule): rate-limit waits use up no retry, and stop at rateLimitWaitMax", () =>
    Effect.gen(function*() {
      const refusal = new HttpStatusError({ status: 429, message: "HTTP 429", retryAfterMs: 1000 })
      // Refused 5 times, then answered: 5 waits of 1 s with --retries 1.
      let calls = 0
      const call = Effect.suspend(() => ++calls <= 5 ? Effect.fail(refusal) : Effect.succeed("graded"))
      const delays: Array<number> = []
      const retry: Policy.RetryPolicy = { ...Policy.defaultRetry, retries: 1 }
      const fiber = yield* Effect.forkChild(Effect.retry(call, Policy.retrySchedule(retry, (_, ms) => delays.push(ms))))
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), "graded")
      assert.deepStrictEqual(delays, [1000, 1000, 1000, 1000, 1000])

      // Always refused: waits until 3 s are spent, then the refusal is the failure.
      let refused = 0
      const never = Effect.suspend(() => (refused++, Effect.fail(refusal)))
      const bounded: Policy.RetryPolicy = { ...retry, rateLimitWaitMax: "3 seconds" }
      const failed = yield* Effect.forkChild(Effect.flip(Effect.retry(never, Policy.retrySchedule(bounded))))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* Fiber.join(failed)).status, 429)
      assert.strictEqual(refused, 4)
    }))
})

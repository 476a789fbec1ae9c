/**
 * Failure handling under TestClock: the exact retry schedule, Retry-After,
 * what is never retried, timeouts, the bounds while trials wait to retry, the
 * rate cap, adaptive concurrency, the failure budget, and interruption
 * mid-retry. Every wait is virtual; nothing here reads the wall clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Clock, Data, Effect, Exit, Fiber, Random, Semaphore, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Agent from "../src/domain/Agent.ts"
import { HttpStatusError, NetworkError } from "../src/domain/HttpErrors.ts"
import { AgentError, InvalidAgentOutput } from "../src/domain/Errors.ts"
import { executeTrial } from "../src/runner/internal/execute.ts"
import { Starvation } from "../src/runner/internal/starvation.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import * as PolicyInternal from "../src/runner/internal/policy.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Policy from "../src/runner/Policy.ts"
import { type RunOptions, runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask, AgentEvalTrial, AgentOutput } from "../src/domain/Trial.ts"
import { tasksStream } from "./fixtures.ts"

class Flaky extends Data.TaggedError("Flaky")<{ readonly message: string; readonly retryable: boolean }> {}

const index = (task: AgentEvalTask) => task.inputs["i"] as number
const ok = (text: string): AgentOutput => ({ output_text: text })
const status = (code: number, retryAfterMs?: number) =>
  new HttpStatusError({
    status: code,
    message: `HTTP ${code}`,
    ...(retryAfterMs === undefined ? undefined : { retryAfterMs })
  })

// Jitter draws handed out in order; the last one repeats.
const scriptedJitter = (draws: ReadonlyArray<number>) => <A, E, R>(self: Effect.Effect<A, E, R>) => {
  let i = 0
  const next = () => draws[Math.min(i++, draws.length - 1)]!
  return Effect.provideService(self, Random.Random, {
    nextDoubleUnsafe: next,
    nextIntUnsafe: () => Math.floor(next() * Number.MAX_SAFE_INTEGER)
  })
}

const collect = <AE>(n: number, agent: Agent.Agent<AE>, options: RunOptions) =>
  Stream.runCollect(runTrials(tasksStream(n), agent, options))

const now = Clock.currentTimeMillis

// Forks `self`, advances virtual time by `stepMs` until it is done, calling
// `sample` after every step; gives up after `maxSteps`.
const drive = <A, E>(
  self: Effect.Effect<A, E>,
  options: { readonly stepMs: number; readonly maxSteps: number; readonly sample?: (t: number) => void }
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(self)
    yield* TestClock.adjust(0)
    options.sample?.(yield* now)
    for (let step = 0; step < options.maxSteps && fiber.pollUnsafe() === undefined; step++) {
      yield* TestClock.adjust(options.stepMs)
      options.sample?.(yield* now)
    }
    assert.isDefined(fiber.pollUnsafe(), `not done after ${options.maxSteps} steps of ${options.stepMs} ms`)
    return yield* Fiber.join(fiber)
  })

describe("retry schedule", () => {
  it.effect("retryable failures then success: each wait is round(min(max, base*2^(k-1)) * (0.5 + j/2))", () =>
    Effect.gen(function*() {
      const starts: Array<number> = []
      const agent: Agent.Agent<HttpStatusError> = () =>
        Effect.flatMap(now, (t) => {
          starts.push(t)
          return starts.length <= 4 ? Effect.fail(status(500)) : Effect.succeed(ok("fifth time lucky"))
        })
      const probe = new MutableProbe()
      const retry = { retries: 5, base: "100 millis", max: "500 millis" } as const
      const [trial] = yield* collect(1, agent, { parallelism: 1, probe, retry }).pipe(
        scriptedJitter([0, 0.5, 0.99, 0.25]),
        Effect.forkChild,
        Effect.flatMap((fiber) => Effect.andThen(TestClock.adjust("1 minute"), Fiber.join(fiber)))
      )
      // k=1: 100*0.5; k=2: 200*0.75; k=3: 400*0.995; k=4: 800 capped at 500, *0.625 = 312.5.
      const delays = [50, 150, 398, 313]
      assert.deepStrictEqual(trial.metadata["retry_delays_ms"], delays)
      assert.deepStrictEqual(starts, [0, 50, 200, 598, 911])
      assert.strictEqual(trial.status, "completed")
      assert.deepStrictEqual(trial.output, ok("fifth time lucky"))
      assert.strictEqual(trial.metadata["attempts"], 5)
      assert.strictEqual(trial.metadata.started_at, new Date(0).toISOString())
      assert.strictEqual(trial.metadata.finished_at, new Date(911).toISOString())
      assert.strictEqual(probe.retries, 4)
      assert.strictEqual(probe.started, 5)
    }))

  it.effect("the jitter comes from Effect's Random: a seed fixes the whole schedule", () =>
    Effect.gen(function*() {
      const retry = { retries: 6, base: "40 millis", max: "1 second" } as const
      const draws = yield* Effect.all(Array.from({ length: 6 }, () => Random.next)).pipe(Random.withSeed("policy"))
      const expected = draws.map((j, i) => Math.round(Math.min(1000, 40 * 2 ** i) * (0.5 + j / 2)))
      const runOnce = Effect.gen(function*() {
        const starts: Array<number> = []
        const agent: Agent.Agent<NetworkError> = () =>
          Effect.flatMap(now, (t) => {
            starts.push(t)
            return Effect.fail(new NetworkError({ url: "http://agent.test", problem: "connection reset" }))
          })
        const fiber = yield* collect(1, agent, { parallelism: 1, retry }).pipe(Random.withSeed("policy"), Effect.forkChild)
        yield* TestClock.adjust("1 minute")
        const [trial] = yield* Fiber.join(fiber)
        return { trial, starts }
      })
      const first = yield* runOnce
      const second = yield* runOnce
      assert.deepStrictEqual(first.trial.metadata["retry_delays_ms"], expected)
      assert.deepStrictEqual(second.trial.metadata["retry_delays_ms"], expected)
      // Every wait is within [half, all] of its capped exponential step.
      expected.forEach((d, i) => {
        const step = Math.min(1000, 40 * 2 ** i)
        assert.isTrue(d >= step / 2 && d <= step, `delay ${i + 1}: ${d} not in [${step / 2}, ${step}]`)
      })
      // Retries exhausted: retries + 1 attempts, each one `delay` after the last.
      assert.strictEqual(first.trial.metadata["attempts"], 7)
      assert.strictEqual(first.trial.error?.type, "NetworkError")
      const gaps = first.starts.slice(1).map((t, i) => t - first.starts[i]!)
      assert.deepStrictEqual(gaps, expected)
    }))

  it.effect("Retry-After on 429/503 is waited as told, capped at retryAfterMax; elsewhere it is ignored", () =>
    Effect.gen(function*() {
      const script = [
        status(429, 0),
        status(429, 2000),
        status(503, 90_000), // capped at 5 s
        status(429), // no Retry-After: backoff
        status(500, 2000) // Retry-After only counts on 429 and 503
      ]
      const starts: Array<number> = []
      const agent: Agent.Agent<HttpStatusError> = () =>
        Effect.flatMap(now, (t) => {
          const error = script[starts.push(t) - 1]
          return error === undefined ? Effect.succeed(ok("done")) : Effect.fail(error)
        })
      const retry = { retries: 5, base: "100 millis", max: "1 second", retryAfterMax: "5 seconds" } as const
      const [trial] = yield* collect(1, agent, { parallelism: 1, retry }).pipe(
        scriptedJitter([0]),
        Effect.forkChild,
        Effect.flatMap((fiber) => Effect.andThen(TestClock.adjust("1 minute"), Fiber.join(fiber)))
      )
      // The three rate limits' waits use up no retry: the 429 without
      // Retry-After is retry k=1 (100*0.5), the 500 retry k=2 (200*0.5).
      assert.deepStrictEqual(trial.metadata["retry_delays_ms"], [0, 2000, 5000, 50, 100])
      assert.deepStrictEqual(starts, [0, 0, 2000, 7000, 7050, 7150])
      assert.strictEqual(trial.status, "completed")
      assert.strictEqual(trial.metadata["attempts"], 6)
      assert.strictEqual(trial.metadata["rate_limit_waits"], 3)
      assert.strictEqual(trial.metadata["rate_limit_wait_ms"], 7000)
    }))

  it.effect("non-retryable failures fail at once; retryable ones get retries + 1 attempts", () =>
    Effect.gen(function*() {
      const calls = new Map<number, number>()
      const cases: ReadonlyArray<readonly [string, boolean, (i: number) => Effect.Effect<AgentOutput, unknown>]> = [
        ["HttpStatusError", false, () => Effect.fail(status(400))],
        ["HttpStatusError", false, () => Effect.fail(status(404))],
        ["HttpStatusError", false, () => Effect.fail(status(422, 1000))],
        ["InvalidAgentOutput", false, () => Effect.fail(new InvalidAgentOutput({ message: "no output_text" }))],
        ["RangeError", false, () => Effect.die(new RangeError("a bug in the agent"))],
        ["AgentError", false, () => Effect.fail(new AgentError({ message: "refused" }))],
        ["Flaky", false, () => Effect.fail(new Flaky({ message: "not this time", retryable: false }))],
        ["TypeError", false, () => {
          throw new TypeError("thrown before returning an Effect")
        }],
        ["NetworkError", true, () => Effect.fail(new NetworkError({ url: "http://agent.test", problem: "ECONNRESET" }))],
        ["HttpStatusError", true, () => Effect.fail(status(408))],
        // A 429 without Retry-After uses up the retries, and is recorded as the rate limit it is.
        ["RateLimited", true, () => Effect.fail(status(429))],
        ["HttpStatusError", true, () => Effect.fail(status(502))],
        ["Flaky", true, () => Effect.fail(new Flaky({ message: "try again", retryable: true }))],
        ["AgentError", true, () =>
          Effect.fail(new AgentError({ message: "overloaded", cause: { retryable: true } }))],
        ["Timeout", true, () => Effect.fail(new Policy.Timeout({ message: "slow", timeout_ms: 1 }))]
      ]
      const agent: Agent.Agent<unknown> = (task) => {
        const i = index(task)
        calls.set(i, (calls.get(i) ?? 0) + 1)
        return cases[i]![2](i)
      }
      const retry = { retries: 2, base: "10 millis", max: "1 second" } as const
      const trials = yield* collect(cases.length, agent, { parallelism: 4, retry }).pipe(
        Effect.forkChild,
        Effect.flatMap((fiber) => Effect.andThen(TestClock.adjust("1 second"), Fiber.join(fiber)))
      )
      const byIndex = new Map(trials.map((t) => [Number(t.task_id.slice(1)), t] as const))
      assert.strictEqual(byIndex.size, cases.length)
      cases.forEach(([type, retryable], i) => {
        const trial = byIndex.get(i)!
        const attempts = retryable ? 3 : 1
        const what = `case ${i} (${type}, ${retryable ? "retryable" : "not retryable"})`
        assert.strictEqual(trial.status, "failed", what)
        assert.strictEqual(trial.error?.type, type, what)
        assert.strictEqual(calls.get(i), attempts, what)
        assert.strictEqual(trial.metadata["attempts"], attempts, what)
        if (retryable) assert.lengthOf(trial.metadata["retry_delays_ms"] as Array<number>, 2, what)
        else assert.notProperty(trial.metadata, "retry_delays_ms", what)
      })
    }))
})

describe("timeouts", () => {
  it.effect("a hung call times out on virtual time only; every attempt times out: Timeout with retries + 1 attempts", () =>
    Effect.gen(function*() {
      const starts: Array<number> = []
      const agent: Agent.Agent = () => Effect.andThen(Effect.flatMap(now, (t) => Effect.sync(() => starts.push(t))), Effect.never)
      const probe = new MutableProbe()
      const retry = { retries: 2, base: "100 millis", max: "1 second" } as const
      const fiber = yield* collect(1, agent, { parallelism: 1, probe, timeout: "2 seconds", retry }).pipe(
        scriptedJitter([0]),
        Effect.forkChild
      )
      // 0: attempt 1; 2000: timeout, wait 50; 2050: attempt 2; 4050: timeout, wait 100; 4150: attempt 3; 6150: timeout.
      yield* TestClock.adjust("6149 millis")
      assert.deepStrictEqual(starts, [0, 2050, 4150])
      assert.isUndefined(fiber.pollUnsafe(), "done before the third timeout")
      assert.strictEqual(probe.active, 1)
      yield* TestClock.adjust("1 millis")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(trial.status, "failed")
      assert.strictEqual(trial.error?.type, "Timeout")
      assert.include(trial.error?.message, "did not finish within 2")
      assert.strictEqual(trial.metadata["attempts"], 3)
      assert.deepStrictEqual(trial.metadata["retry_delays_ms"], [50, 100])
      assert.strictEqual(trial.metadata.latency_ms, 2000)
      assert.strictEqual(trial.metadata.finished_at, new Date(6150).toISOString())
      assert.strictEqual(probe.active, 0)
      assert.strictEqual(probe.liveFibers, 0)
    }))

  it.effect("a Promise agent sees its AbortSignal fire at each timeout", () =>
    Effect.gen(function*() {
      let calls = 0
      let aborted = 0
      const agent = Agent.fromPromise((_task, { signal }) => {
        calls++
        return new Promise<string>(() => signal.addEventListener("abort", () => aborted++))
      })
      const retry = { retries: 1, base: "500 millis", max: "500 millis" } as const
      const fiber = yield* collect(1, agent, { parallelism: 1, timeout: "1 second", retry }).pipe(
        scriptedJitter([0]),
        Effect.forkChild
      )
      yield* TestClock.adjust(0)
      assert.deepStrictEqual({ calls, aborted }, { calls: 1, aborted: 0 })
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual({ calls, aborted }, { calls: 1, aborted: 1 })
      yield* TestClock.adjust("250 millis")
      assert.deepStrictEqual({ calls, aborted }, { calls: 2, aborted: 1 })
      yield* TestClock.adjust("1 second")
      const [trial] = yield* Fiber.join(fiber)
      assert.deepStrictEqual({ calls, aborted }, { calls: 2, aborted: 2 })
      assert.strictEqual(trial.error?.type, "Timeout")
      assert.strictEqual(trial.metadata["attempts"], 2)
    }))
})

describe("bounds while retrying", () => {
  it.effect("trials waiting to retry keep their place: outstanding <= parallelism, active <= parallelism, no permit held", () =>
    Effect.gen(function*() {
      const P = 4
      const attempts = new Map<number, number>()
      // 100 ms per call; the first two attempts of every task fail with 503.
      const agent: Agent.Agent<HttpStatusError> = (task) => {
        const i = index(task)
        const n = (attempts.get(i) ?? 0) + 1
        attempts.set(i, n)
        return Effect.andThen(Effect.sleep("100 millis"), n <= 2 ? Effect.fail(status(503)) : Effect.succeed(ok(task.id)))
      }
      const probe = new MutableProbe()
      const samples: Array<{ t: number; active: number; outstanding: number; started: number }> = []
      const retry = { retries: 2, base: "1 second", max: "1 second" } as const
      const trials = yield* drive(
        collect(12, agent, { parallelism: P, probe, retry }).pipe(scriptedJitter([0])),
        {
          stepMs: 10,
          maxSteps: 1000,
          sample: (t) => samples.push({ t, active: probe.active, outstanding: probe.outstanding, started: probe.started })
        }
      )
      for (const s of samples) {
        assert.isAtMost(s.outstanding, P, `outstanding at ${s.t} ms`)
        assert.isAtMost(s.active, P, `active at ${s.t} ms`)
      }
      // A batch of 4: call 0-100, wait 100-600, call 600-700, wait 700-1200, call 1200-1300.
      for (const t of [100, 300, 590, 700, 1000, 1190]) {
        const s = samples.find((s) => s.t === t)!
        assert.deepStrictEqual(s, { t, active: 0, outstanding: P, started: t < 600 ? 4 : 8 }, `at ${t} ms: all waiting`)
      }
      assert.deepStrictEqual(samples.find((s) => s.t === 650), { t: 650, active: P, outstanding: P, started: 8 })
      assert.strictEqual(samples.at(-1)!.t, 3900)
      assert.strictEqual(trials.length, 12)
      assert.isTrue(trials.every((t) => t.status === "completed" && t.metadata["attempts"] === 3))
      assert.strictEqual(probe.peakOutstanding, P)
      assert.strictEqual(probe.peakActive, P)
      assert.strictEqual(probe.retries, 24)
      assert.strictEqual(probe.liveFibers, 0)
    }))

  it.effect("the backoff wait does not hold the active-call permit: another trial calls meanwhile", () =>
    Effect.gen(function*() {
      const semaphore = yield* Semaphore.make(1)
      const probe = new MutableProbe()
      const config = { semaphore, probe, starvation: new Starvation(), redactor: Redactor.make(), retry: { retries: 1, base: "10 seconds", max: "10 seconds" } } as const
      let aCalls = 0
      const a: Agent.Agent<HttpStatusError> = () => ++aCalls === 1 ? Effect.fail(status(503)) : Effect.succeed(ok("a"))
      const b: Agent.Agent = () => Effect.as(Effect.sleep("1 second"), ok("b"))
      const task = (id: string): AgentEvalTask => ({ id, inputs: {} })
      const fa = yield* executeTrial(task("a"), undefined, a, config).pipe(scriptedJitter([0]), Effect.forkChild)
      yield* TestClock.adjust(0)
      assert.deepStrictEqual({ aCalls, active: probe.active, outstanding: probe.outstanding }, {
        aCalls: 1,
        active: 0,
        outstanding: 1
      })
      const fb = yield* Effect.forkChild(executeTrial(task("b"), undefined, b, config))
      yield* TestClock.adjust("1 second")
      const trialB = fb.pollUnsafe()
      assert.isDefined(trialB, "b waited for a's backoff: the wait held the only permit")
      assert.strictEqual(Exit.isSuccess(trialB!) && trialB.value.status, "completed")
      assert.isUndefined(fa.pollUnsafe())
      yield* TestClock.adjust("4 seconds")
      const trialA = yield* Fiber.join(fa)
      assert.strictEqual(trialA.status, "completed")
      assert.deepStrictEqual(trialA.metadata["retry_delays_ms"], [5000])
      assert.strictEqual(trialA.metadata.finished_at, new Date(5000).toISOString())
    }))
})

describe("rate", () => {
  it.effect("5 per second: call starts evenly spaced, at most 5 in any virtual second, retries included", () =>
    Effect.gen(function*() {
      const starts: Array<number> = []
      const seen = new Set<string>()
      // Task t3 fails once (retried at once: Retry-After 0); the retry needs a slot too.
      const agent: Agent.Agent<HttpStatusError> = (task) =>
        Effect.flatMap(now, (t) => {
          starts.push(t)
          if (task.id === "t3" && !seen.has(task.id)) {
            seen.add(task.id)
            return Effect.fail(status(429, 0))
          }
          return Effect.succeed(ok(task.id))
        })
      const fiber = yield* collect(12, agent, {
        parallelism: 8,
        rate: { limit: 5, per: "1 second" },
        retry: { retries: 1, base: "1 millis" }
      }).pipe(Effect.forkChild)
      yield* TestClock.adjust("2399 millis")
      assert.isUndefined(fiber.pollUnsafe(), "the 13th call start is due at 2400 ms")
      yield* TestClock.adjust("1 millis")
      const trials = yield* Fiber.join(fiber)
      assert.strictEqual(trials.length, 12)
      assert.deepStrictEqual(starts, Array.from({ length: 13 }, (_, k) => k * 200))
      const perSecond = [0, 0, 0]
      for (const t of starts) perSecond[Math.floor(t / 1000)]++
      assert.deepStrictEqual(perSecond, [5, 5, 3])
    }))
})

describe("adaptive concurrency", () => {
  it.effect("429s halve the limit 8 -> 4 -> 2 -> 1, then it climbs back one step at a time to 8 and no higher", () =>
    Effect.gen(function*() {
      const P = 8
      const probe = new MutableProbe()
      const overLimitAtStart: Array<string> = []
      // Every call takes 1 s; calls that start in the first 6 s are throttled.
      const agent: Agent.Agent<HttpStatusError> = (task) =>
        Effect.flatMap(now, (startedAt) => {
          if (probe.active > probe.limit) overLimitAtStart.push(`${task.id}@${startedAt}: ${probe.active}>${probe.limit}`)
          return Effect.andThen(
            Effect.sleep("1 second"),
            startedAt < 6000 ? Effect.fail(status(429)) : Effect.succeed(ok(task.id))
          )
        })
      const limits: Array<number> = []
      const overLimit: Array<string> = []
      let peakAfterRecovery = 0
      const trials = yield* drive(
        collect(120, agent, {
          parallelism: P,
          probe,
          adaptive: true,
          retry: { retries: 50, base: "1 second", max: "1 second" }
        }).pipe(scriptedJitter([0])),
        {
          stepMs: 100,
          maxSteps: 2000,
          sample: (t) => {
            if (limits.at(-1) !== probe.limit) limits.push(probe.limit)
            if (probe.active > probe.limit) overLimit.push(`${t}: ${probe.active}>${probe.limit}`)
            if (limits.length > 1 && probe.limit === P) peakAfterRecovery = Math.max(peakAfterRecovery, probe.active)
          }
        }
      )
      assert.deepStrictEqual(limits, [8, 4, 2, 1, 2, 3, 4, 5, 6, 7, 8])
      assert.deepStrictEqual(overLimitAtStart, [], "a call started above the limit")
      assert.deepStrictEqual(overLimit, [], "more calls active than the limit")
      assert.strictEqual(probe.lowestLimit, 1)
      assert.strictEqual(probe.highestLimit, P)
      assert.strictEqual(probe.peakActive, P)
      assert.strictEqual(peakAfterRecovery, P, "the permits given back are used again")
      assert.strictEqual(trials.length, 120)
      assert.isTrue(trials.every((t) => t.status === "completed"))
    }))

  it.effect("one burst of 429s is one decrease: calls started before the decrease do not halve again", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      // All 8 first calls are throttled together at 1 s; everything after succeeds.
      const agent: Agent.Agent<HttpStatusError> = () =>
        Effect.flatMap(now, (startedAt) =>
          Effect.andThen(Effect.sleep("1 second"), startedAt === 0 ? Effect.fail(status(429)) : Effect.succeed(ok("ok"))))
      const fiber = yield* collect(8, agent, {
        parallelism: 8,
        probe,
        adaptive: true,
        retry: { retries: 1, base: "10 seconds", max: "10 seconds" }
      }).pipe(scriptedJitter([0]), Effect.forkChild)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(probe.limit, 4)
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      assert.strictEqual(probe.lowestLimit, 4)
    }))

  it.effect("after a 429 halves the limit, 500s, timeouts and defects never raise it back; successes then do", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const failuresEndMs = 31_000
      // Every call takes 1 s. The first 8 are throttled together (one decrease,
      // 8 -> 4); calls that start before 31 s fail with a 500, time out or
      // die, in turn; calls after that succeed.
      let calls = 0
      const agent: Agent.Agent<HttpStatusError> = () =>
        Effect.flatMap(now, (startedAt) => {
          const n = calls++
          if (startedAt === 0) return Effect.andThen(Effect.sleep("1 second"), Effect.fail(status(429)))
          if (startedAt >= failuresEndMs) return Effect.andThen(Effect.sleep("1 second"), Effect.succeed(ok("ok")))
          return n % 3 === 0
            ? Effect.andThen(Effect.sleep("1 second"), Effect.fail(status(500)))
            : n % 3 === 1
            ? Effect.never
            : Effect.andThen(Effect.sleep("1 second"), Effect.die("agent bug"))
        })
      const changes: Array<readonly [ms: number, limit: number]> = []
      const trials = yield* drive(
        collect(200, agent, { parallelism: 8, probe, adaptive: true, timeout: "1 second" }),
        {
          stepMs: 100,
          maxSteps: 1000,
          sample: (t) => {
            if (changes.at(-1)?.[1] !== probe.limit) changes.push([t, probe.limit])
          }
        }
      )
      // No raise until the first successes: the 4 calls started at 31 s end at
      // 32 s; then each round of calls at limit L is L successes, one raise.
      assert.deepStrictEqual(changes, [[0, 8], [1000, 4], [32_000, 5], [33_000, 6], [34_000, 7], [35_000, 8]])
      const types = new Map<string, number>()
      for (const t of trials) types.set(t.error?.type ?? t.status, (types.get(t.error?.type ?? t.status) ?? 0) + 1)
      // 8 throttled, then 4 calls a second for 30 s: 120 other failures.
      assert.deepStrictEqual(
        Object.fromEntries(types),
        { HttpStatusError: 8 + 40, Timeout: 40, Defect: 40, completed: 200 - 128 }
      )
    }))

  it.effect("a failure between successes neither counts toward a raise nor resets the count", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      probe.limit = probe.lowestLimit = probe.highestLimit = 8
      const adaptive = new PolicyInternal.AdaptiveLimit(yield* Semaphore.make(8), 8, probe)
      const call = (outcome: PolicyInternal.CallOutcome) => adaptive.onOutcome(adaptive.start(), outcome)
      yield* call("throttled")
      assert.strictEqual(adaptive.limit, 4)
      for (let i = 0; i < 100; i++) yield* call("failed")
      assert.strictEqual(adaptive.limit, 4, "failures raised the limit")
      for (let i = 0; i < 3; i++) {
        yield* call("succeeded")
        yield* call("failed")
      }
      assert.strictEqual(adaptive.limit, 4, "3 successes raised a limit of 4")
      yield* call("succeeded")
      assert.strictEqual(adaptive.limit, 5, "the 4th success, failures in between, did not raise it")
      assert.strictEqual(probe.highestLimit, 8)
      assert.strictEqual(probe.lowestLimit, 4)
    }))
})

describe("failure budget", () => {
  const oddFails: Agent.Agent<string> = (task) =>
    index(task) % 2 === 1 ? Effect.fail(`odd ${task.id}`) : Effect.succeed(ok(task.id))

  const runBudget = <AE>(n: number, agent: Agent.Agent<AE>, maxFailures: Policy.MaxFailures, parallelism = 1) =>
    Effect.gen(function*() {
      const emitted: Array<AgentEvalTrial> = []
      const exit = yield* runTrials(tasksStream(n), agent, { parallelism, maxFailures }).pipe(
        Stream.runForEach((t) => Effect.sync(() => emitted.push(t))),
        Effect.exit
      )
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      return { emitted, error }
    })

  it.effect("count: the trial that goes over is emitted, then MaxFailuresExceeded", () =>
    Effect.gen(function*() {
      const { emitted, error } = yield* runBudget(10, oddFails, { _tag: "Count", count: 2 })
      assert.deepStrictEqual(emitted.map((t) => t.task_id), ["t0", "t1", "t2", "t3", "t4", "t5"])
      assert.instanceOf(error, Policy.MaxFailuresExceeded)
      const e = error as Policy.MaxFailuresExceeded
      assert.deepStrictEqual({ failed: e.failed, finished: e.finished }, { failed: 3, finished: 6 })
      assert.strictEqual(e.message, "stopped: 3 of 6 finished trials failed, more than the limit of 2 failed trials")

      const zero = yield* runBudget(10, oddFails, { _tag: "Count", count: 0 })
      assert.deepStrictEqual(zero.emitted.map((t) => t.task_id), ["t0", "t1"])
      assert.instanceOf(zero.error, Policy.MaxFailuresExceeded)

      const within = yield* runBudget(10, oddFails, { _tag: "Count", count: 5 })
      assert.strictEqual(within.emitted.length, 10)
      assert.isUndefined(within.error)
    }))

  it.effect("fraction: judged from 20 finished trials on", () =>
    Effect.gen(function*() {
      const failing = (ids: ReadonlySet<number>): Agent.Agent<string> => (task) =>
        ids.has(index(task)) ? Effect.fail("no") : Effect.succeed(ok(task.id))
      const tenPercent = { _tag: "Fraction", fraction: 0.1 } as const
      // 5 early failures: over 10% from the start, but judged only at 20 finished.
      const early = yield* runBudget(50, failing(new Set([0, 1, 2, 3, 4])), tenPercent)
      assert.strictEqual(early.emitted.length, 20)
      assert.deepInclude(early.error, { failed: 5, finished: 20 })
      assert.strictEqual(
        (early.error as Error).message,
        "stopped: 5 of 20 finished trials failed, more than the limit of 10% failed trials"
      )
      // 2 of 20 is not more than 10%; the third failure at 21 finished is (3 > 2.1).
      const later = yield* runBudget(50, failing(new Set([0, 1, 20])), tenPercent)
      assert.strictEqual(later.emitted.length, 21)
      assert.deepInclude(later.error, { failed: 3, finished: 21 })
      // Exactly 10% at 20, 30, 40 and 50 finished: never more.
      const within = yield* runBudget(50, failing(new Set([0, 1, 29, 39, 49])), tenPercent)
      assert.strictEqual(within.emitted.length, 50)
      assert.isUndefined(within.error)
    }))

  it.effect("fraction: exactly the budget is not over it (29 of 100 failed with 29%)", () =>
    Effect.gen(function*() {
      const last29: Agent.Agent<string> = (task) => index(task) >= 71 ? Effect.fail("no") : Effect.succeed(ok(task.id))
      const limit = Policy.parseMaxFailures("29%")!
      const { emitted, error } = yield* runBudget(100, last29, limit)
      assert.strictEqual(emitted.length, 100)
      assert.isUndefined(error)
      assert.isFalse(Policy.exceeded(limit, 29, 100))
      assert.isTrue(Policy.exceeded(limit, 30, 100))
      assert.isFalse(Policy.exceeded(Policy.parseMaxFailures("57%")!, 57, 100))
      assert.isFalse(Policy.exceeded(Policy.parseMaxFailures("0.7%")!, 7, 1000))
      assert.isTrue(Policy.exceeded(Policy.parseMaxFailures("0.7%")!, 8, 1000))
    }))

  it("the budget as flags give it, and as messages name it", () => {
    assert.deepStrictEqual(Policy.parseMaxFailures("25"), { _tag: "Count", count: 25 })
    assert.deepStrictEqual(Policy.parseMaxFailures("10%"), { _tag: "Fraction", fraction: 0.1 })
    for (const bad of ["", "-1", "1.5", "ten", "101%", "%"]) assert.isUndefined(Policy.parseMaxFailures(bad), bad)
    assert.strictEqual(Policy.describeMaxFailures({ _tag: "Count", count: 25 }), "25 failed trials")
    for (const percent of ["7", "10", "12.5", "29", "57", "33.3"]) {
      assert.strictEqual(Policy.describeMaxFailures(Policy.parseMaxFailures(`${percent}%`)!), `${percent}% failed trials`)
    }
  })

  it.effect("with calls in flight: the stream fails after the trial that goes over, nothing is left running", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const agent: Agent.Agent<string> = (task) => Effect.andThen(Effect.sleep("1 second"), Effect.fail(`no ${task.id}`))
      const emitted: Array<AgentEvalTrial> = []
      const fiber = yield* runTrials(tasksStream(100), agent, {
        parallelism: 4,
        probe,
        maxFailures: { _tag: "Count", count: 1 }
      }).pipe(Stream.runForEach((t) => Effect.sync(() => emitted.push(t))), Effect.exit, Effect.forkChild)
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.join(fiber)
      assert.strictEqual(emitted.length, 2)
      assert.isTrue(Exit.isFailure(exit))
      assert.instanceOf(Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined, Policy.MaxFailuresExceeded)
      assert.isAtMost(probe.started, 8)
      assert.strictEqual(probe.outstanding, 0)
      assert.strictEqual(probe.active, 0)
      assert.strictEqual(probe.liveFibers, 0)
    }))
})

describe("interruption mid-retry", () => {
  it.effect("a run interrupted while its trials wait to retry leaves nothing behind", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const agent: Agent.Agent<HttpStatusError> = () => Effect.andThen(Effect.sleep("100 millis"), Effect.fail(status(503)))
      const emitted: Array<AgentEvalTrial> = []
      const fiber = yield* runTrials(tasksStream(20), agent, {
        parallelism: 4,
        probe,
        timeout: "1 second",
        retry: { retries: 5, base: "10 seconds", max: "10 seconds" }
      }).pipe(Stream.runForEach((t) => Effect.sync(() => emitted.push(t))), Effect.forkChild)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(
        { active: probe.active, outstanding: probe.outstanding, started: probe.started, retries: probe.retries },
        { active: 0, outstanding: 4, started: 4, retries: 4 }
      )
      assert.isAbove(probe.liveFibers, 0)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(probe.liveFibers, 0)
      assert.strictEqual(probe.outstanding, 0)
      assert.strictEqual(probe.active, 0)
      assert.deepStrictEqual(emitted, [])
    }))
})

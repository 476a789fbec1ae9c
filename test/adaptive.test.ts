/**
 * `adaptive: true` (`--adaptive`) as additive-increase, multiplicative-decrease
 * under TestClock: a server that refuses a share of its requests whatever the
 * load does not pin the limit low, the limit climbs back to the parallelism
 * when the 429s stop and never beyond, and a 429's Retry-After holds the next
 * decrease. Every wait is virtual; the counts are the probe's.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Semaphore, Stream } from "effect"
import { TestClock } from "effect/testing"
import type * as Agent from "../src/domain/Agent.ts"
import { HttpStatusError } from "../src/domain/HttpErrors.ts"
import * as PolicyInternal from "../src/runner/internal/policy.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { type RunOptions, runTrials } from "../src/runner/Runner.ts"
import type { AgentOutput } from "../src/domain/Trial.ts"
import { tasksStream } from "./fixtures.ts"

const ok = (text: string): AgentOutput => ({ output_text: text })
const status = (code: number, retryAfterMs?: number) =>
  new HttpStatusError({
    status: code,
    message: `HTTP ${code}`,
    ...(retryAfterMs === undefined ? undefined : { retryAfterMs })
  })
const now = Clock.currentTimeMillis

// Forks `self` and advances virtual time by `stepMs` until it is done,
// calling `sample` after every step.
const drive = <A, E>(self: Effect.Effect<A, E>, stepMs: number, maxSteps: number, sample: (t: number) => void) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(self)
    yield* TestClock.adjust(0)
    sample(yield* now)
    for (let step = 0; step < maxSteps && fiber.pollUnsafe() === undefined; step++) {
      yield* TestClock.adjust(stepMs)
      sample(yield* now)
    }
    assert.isDefined(fiber.pollUnsafe(), `not done after ${maxSteps} steps of ${stepMs} ms`)
    return yield* Fiber.join(fiber)
  })

const collect = <AE>(n: number, agent: Agent.Agent<AE>, options: RunOptions) =>
  Stream.runCollect(runTrials(tasksStream(n), agent, options))

// A seeded draw in [0, 1): the same script on every run.
const lcg = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648

describe("adaptive concurrency: additive increase, multiplicative decrease", () => {
  // 6000 trials against a server whose calls take 20 ms and that refuses one
  // call in ten (a seeded draw) with 429 + Retry-After: 1 s, whatever the load.
  const refusingTenth = (adaptive: boolean) =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const draw = lcg(7)
      let calls = 0
      let refused = 0
      let overLimit = 0
      const agent: Agent.Agent<HttpStatusError> = (task) => {
        if (probe.active > probe.limit) overLimit++
        return Effect.andThen(
          Effect.sleep("20 millis"),
          Effect.suspend(() => {
            calls++
            if (draw() < 0.1) {
              refused++
              return Effect.fail(status(429, 1000))
            }
            return Effect.succeed(ok(task.id))
          })
        )
      }
      // The limit, every 10 ms after the first 3 s.
      const limits: Array<number> = []
      const started = yield* now
      const trials = yield* drive(
        collect(6000, agent, { parallelism: 64, probe, adaptive, retry: { retries: 2, base: "1 second" } }),
        10,
        10_000,
        (t) => {
          if (t - started >= 3000) limits.push(probe.limit)
        }
      )
      const wallMs = (yield* now) - started
      return { probe, trials, calls, refused, overLimit, limits, wallMs }
    })

  it.effect("a server refusing 10% with 429 + Retry-After: 1 s whatever the load: the limit settles, and the run takes about the wall of a fixed parallelism", () =>
    Effect.gen(function*() {
      const fixed = yield* refusingTenth(false)
      const run = yield* refusingTenth(true)
      assert.strictEqual(run.trials.length, 6000)
      assert.isTrue(run.trials.every((t) => t.status === "completed"), "a trial was not completed")
      // The same script: the same share refused.
      assert.isAbove(run.refused / run.calls, 0.09)
      assert.isBelow(run.refused / run.calls, 0.11)
      assert.strictEqual(run.overLimit, 0, "a call started above the limit")
      assert.isAtMost(run.probe.highestLimit, 64)
      // The old rule (a halving on any 429 of a call started after the last
      // decrease) fell to 1 and stayed near 4, for twice the wall (32.4 s vs 15.8 s).
      const low = Math.min(...run.limits)
      const mean = run.limits.reduce((a, b) => a + b, 0) / run.limits.length
      assert.isAtLeast(low, 2, `the limit fell to ${low}`)
      assert.isAtLeast(mean, 10, `the limit's mean was ${mean}`)
      assert.isAtMost(run.wallMs, fixed.wallMs * 1.1, `${run.wallMs} ms adaptive vs ${fixed.wallMs} ms fixed`)
    }))

  it.effect("with no more 429s the limit climbs back one step per window of successes to the parallelism, and no higher", () =>
    Effect.gen(function*() {
      const P = 64
      const probe = new MutableProbe()
      // Every call takes 20 ms; those that start before 200 ms are refused
      // (no Retry-After: each window's first refusal halves the limit).
      let overLimit = 0
      const agent: Agent.Agent<HttpStatusError> = (task) =>
        Effect.flatMap(now, (startedAt) => {
          if (probe.active > probe.limit) overLimit++
          return Effect.andThen(
            Effect.sleep("20 millis"),
            startedAt < 200 ? Effect.fail(status(429)) : Effect.succeed(ok(task.id))
          )
        })
      const changes: Array<readonly [ms: number, limit: number]> = []
      const trials = yield* drive(
        collect(20_000, agent, {
          parallelism: P,
          probe,
          adaptive: true,
          retry: { retries: 20, base: "20 millis", max: "20 millis" }
        }),
        5,
        100_000,
        (t) => {
          if (changes.at(-1)?.[1] !== probe.limit) changes.push([t, probe.limit])
        }
      )
      assert.strictEqual(trials.length, 20_000)
      assert.isTrue(trials.every((t) => t.status === "completed"))
      assert.strictEqual(overLimit, 0, "more calls active than the limit")
      assert.strictEqual(probe.lowestLimit, 1)
      assert.strictEqual(probe.highestLimit, P)
      const bottom = changes.findIndex(([, limit]) => limit === 1)
      const climb = changes.slice(bottom).map(([, limit]) => limit)
      // Down by halves, then up by one at a time, all the way, and never down again.
      assert.deepStrictEqual(changes.slice(0, bottom + 1).map(([, limit]) => limit), [64, 32, 16, 8, 4, 2, 1])
      assert.deepStrictEqual(climb, Array.from({ length: P }, (_, k) => k + 1))
      // A window at limit L is L calls of 20 ms side by side: 63 windows.
      const [lastMs] = changes.at(-1)!
      const [bottomMs] = changes[bottom]!
      assert.isAtMost(lastMs - bottomMs, 63 * 20 + 100, `climbing 1 -> ${P} took ${lastMs - bottomMs} ms`)
    }))

  it.effect("a 429's Retry-After holds the next decrease; a 429 of a call started before a decrease never makes another", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      probe.limit = probe.lowestLimit = probe.highestLimit = 64
      const adaptive = new PolicyInternal.AdaptiveLimit(yield* Semaphore.make(64), 64, probe, 5000)
      const early = adaptive.start()
      yield* adaptive.onOutcome(adaptive.start(), "throttled", status(429, 1000))
      assert.strictEqual(adaptive.limit, 32)
      yield* adaptive.onOutcome(early, "throttled", status(429))
      assert.strictEqual(adaptive.limit, 32, "a call started before the decrease lowered it again")
      yield* TestClock.adjust("999 millis")
      yield* adaptive.onOutcome(adaptive.start(), "throttled", status(429, 1000))
      assert.strictEqual(adaptive.limit, 32, "lowered again within the Retry-After")
      yield* TestClock.adjust("1 millis")
      yield* adaptive.onOutcome(adaptive.start(), "throttled", status(429, 60_000))
      assert.strictEqual(adaptive.limit, 16, "not lowered once the Retry-After passed")
      // A Retry-After longer than the cap holds for the cap only.
      yield* TestClock.adjust("5 seconds")
      yield* adaptive.onOutcome(adaptive.start(), "throttled", status(429))
      assert.strictEqual(adaptive.limit, 8)
      // Without Retry-After, the next window's first 429 halves at once.
      yield* adaptive.onOutcome(adaptive.start(), "throttled", status(429))
      assert.strictEqual(adaptive.limit, 4)
      // A 429 breaks the row of successes: 3 + 4 successes around one raise nothing; 4 in a row do.
      for (let i = 0; i < 3; i++) yield* adaptive.onOutcome(adaptive.start(), "succeeded")
      yield* adaptive.onOutcome(early, "throttled", status(429))
      for (let i = 0; i < 3; i++) yield* adaptive.onOutcome(adaptive.start(), "succeeded")
      assert.strictEqual(adaptive.limit, 4)
      yield* adaptive.onOutcome(adaptive.start(), "succeeded")
      assert.strictEqual(adaptive.limit, 5)
      assert.strictEqual(probe.lowestLimit, 4)
    }))
})

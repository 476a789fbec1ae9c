/**
 * The gate test: the original bug side by side with the fix. Every agent call
 * is held on one gate; while it is closed we read the probe.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { runTrialsEager } from "../src/runner/Eager.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { helperFibers, runTrials } from "../src/runner/Runner.ts"
import { gatedAgent, tasksStream } from "./fixtures.ts"

const PARALLELISM = 8
// Unordered Stream.mapEffect forks one helper fiber (the loop that pulls the
// next task once a slot is free) besides the per-trial fibers.
const HELPER_FIBERS = helperFibers(false)

const gateRun = (
  runner: typeof runTrials,
  taskCount: number,
  waves: number,
  ordered = false
) =>
  Effect.gen(function*() {
    const probe = new MutableProbe()
    const { agent, gate } = yield* gatedAgent()
    const completed: Array<number> = []
    const fiber = yield* runner(tasksStream(taskCount), agent, { parallelism: PARALLELISM, probe, ordered }).pipe(
      Stream.runForEach(() => Effect.sync(() => completed.push(1))),
      Effect.forkChild
    )
    yield* TestClock.adjust(0)
    const held = probe.snapshot()

    yield* gate.open
    const afterWave: Array<number> = []
    for (let wave = 1; wave <= waves; wave++) {
      yield* TestClock.adjust("1 second")
      afterWave.push(probe.completed)
    }
    return { probe, held, afterWave, fiber, completed }
  })

describe("gate: 512 tasks, parallelism 8, every call held", () => {
  it.effect("eager (the original shape): 8 active, but all 512 admitted", () =>
    Effect.gen(function*() {
      const { held, afterWave, fiber, probe } = yield* gateRun(runTrialsEager, 512, 3)
      assert.strictEqual(held.active, 8)
      assert.strictEqual(held.peakActive, 8)
      assert.strictEqual(held.outstanding, 512)
      assert.isAtLeast(held.liveFibers, 512)
      assert.deepStrictEqual(afterWave, [8, 16, 24])
      yield* TestClock.adjust("64 seconds")
      yield* Fiber.join(fiber)
      assert.strictEqual(probe.completed, 512)
      assert.strictEqual(probe.peakActive, 8)
    }))

  it.effect("bounded: 8 active, 8 outstanding, fibers within parallelism + helpers", () =>
    Effect.gen(function*() {
      const { held, afterWave, fiber, probe, completed } = yield* gateRun(runTrials, 512, 3)
      assert.strictEqual(held.active, 8)
      assert.strictEqual(held.peakActive, 8)
      assert.strictEqual(held.outstanding, 8)
      assert.strictEqual(held.peakOutstanding, 8)
      assert.strictEqual(held.liveFibers, PARALLELISM + HELPER_FIBERS)
      assert.strictEqual(held.started, 8)
      // Wave by wave: each virtual second finishes exactly one batch of 8 and
      // admits the next 8, never more.
      assert.deepStrictEqual(afterWave, [8, 16, 24])
      assert.strictEqual(probe.peakOutstanding, 8)
      yield* TestClock.adjust("64 seconds")
      yield* Fiber.join(fiber)
      assert.strictEqual(completed.length, 512)
      assert.strictEqual(probe.peakActive, 8)
      assert.strictEqual(probe.peakOutstanding, 8)
      assert.strictEqual(probe.peakLiveFibers, PARALLELISM + HELPER_FIBERS)
      assert.strictEqual(probe.liveFibers, 0)
    }))

  it.effect("bounded with 100,000 tasks: the same bound", () =>
    Effect.gen(function*() {
      const { held, afterWave, fiber, probe } = yield* gateRun(runTrials, 100_000, 2)
      assert.strictEqual(held.peakActive, 8)
      assert.strictEqual(held.outstanding, 8)
      assert.strictEqual(held.liveFibers, PARALLELISM + HELPER_FIBERS)
      assert.deepStrictEqual(afterWave, [8, 16])
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(probe.peakOutstanding, 8)
      assert.strictEqual(probe.peakLiveFibers, PARALLELISM + HELPER_FIBERS)
      assert.strictEqual(probe.liveFibers, 0)
      assert.strictEqual(probe.outstanding, 0)
      assert.strictEqual(probe.active, 0)
    }))

  it.effect("bounded, ordered mode: at most 8 admitted, fibers within 8 + 2 helpers", () =>
    Effect.gen(function*() {
      const { held, afterWave, fiber, probe, completed } = yield* gateRun(runTrials, 512, 3, true)
      // Ordered Stream.mapEffect keeps N-2 results queued behind the one being
      // awaited and forks the next only once it can queue it: with every call
      // held, 7 of the 8 slots are in use.
      assert.strictEqual(held.peakActive, PARALLELISM - 1)
      assert.strictEqual(held.outstanding, PARALLELISM - 1)
      assert.strictEqual(held.liveFibers, PARALLELISM - 1 + helperFibers(true))
      assert.deepStrictEqual(afterWave, [8, 16, 24])
      yield* TestClock.adjust("64 seconds")
      yield* Fiber.join(fiber)
      assert.strictEqual(completed.length, 512)
      assert.isAtMost(probe.peakOutstanding, PARALLELISM)
      assert.isAtMost(probe.peakLiveFibers, PARALLELISM + helperFibers(true))
      assert.strictEqual(probe.liveFibers, 0)
    }))
})

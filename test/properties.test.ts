/**
 * Property tests: for random task counts, parallelism, latencies and failures,
 * the bounded runner returns exactly what a trivially correct sequential
 * reference returns, and never exceeds its bounds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import type { Agent } from "../src/domain/Agent.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { taskIterable } from "./fixtures.ts"

// A deterministic per-task draw from the run's seed (xorshift-mixed).
const draw = (seed: number, i: number, salt: number): number => {
  let x = (seed ^ Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0
  x ^= x << 13
  x ^= x >>> 17
  x ^= x << 5
  return (x >>> 0) / 0x100000000
}

interface Plan {
  readonly latencyMs: (i: number) => number
  readonly fails: (i: number) => boolean
}

const plan = (seed: number, failRate: number): Plan => ({
  latencyMs: (i) => Math.floor(draw(seed, i, 1) * 50),
  fails: (i) => draw(seed, i, 2) < failRate
})

const index = (task: AgentEvalTask) => task.inputs["i"] as number

const simulated = (p: Plan): Agent<string> => (task) => {
  const i = index(task)
  return Effect.sleep(p.latencyMs(i)).pipe(
    Effect.andThen(p.fails(i) ? Effect.fail(`failure ${i}`) : Effect.succeed({ output_text: `answer ${i * 2}` }))
  )
}

// The reference: what each task's trial must be, computed without any runner.
const reference = (n: number, p: Plan) =>
  Array.from({ length: n }, (_, i) => ({
    id: `t${i}:trial`,
    task_id: `t${i}`,
    status: p.fails(i) ? "failed" : "completed",
    output: p.fails(i) ? undefined : `answer ${i * 2}`,
    error: p.fails(i) ? `failure ${i}` : undefined
  }))

describe("bounded runner properties", () => {
  it.effect.prop(
    "one trial per task, same results as the reference, bounds held",
    {
      n: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3000 })),
      parallelism: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 64 })),
      seed: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 31 - 1 })),
      failPercent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
      ordered: Schema.Boolean
    },
    ({ n, parallelism, seed, failPercent, ordered }) =>
      Effect.gen(function*() {
        const p = plan(seed, failPercent / 100)
        const probe = new MutableProbe()
        const fiber = yield* runTrials(Stream.fromIterable(taskIterable(n)), simulated(p), {
          parallelism,
          probe,
          ordered
        }).pipe(Stream.runCollect, Effect.forkChild)
        // Latencies are under 50 ms of virtual time, so each step finishes at
        // least one wave; n steps always suffice.
        for (let step = 0; step <= n && fiber.pollUnsafe() === undefined; step++) {
          yield* TestClock.adjust("50 millis")
        }
        const trials = yield* Fiber.join(fiber)

        const actual = trials
          .map((t) => ({
            id: t.id,
            task_id: t.task_id,
            status: t.status,
            output: t.output?.output_text,
            error: t.error?.message
          }))
          .sort((a, b) => Number(a.task_id.slice(1)) - Number(b.task_id.slice(1)))
        assert.deepStrictEqual(actual, reference(n, p))
        if (ordered) assert.deepStrictEqual(trials.map((t) => t.task_id), reference(n, p).map((t) => t.task_id))

        assert.isAtMost(probe.peakActive, parallelism)
        assert.isAtMost(probe.peakOutstanding, parallelism)
        if (n > 0) assert.isAtLeast(probe.peakActive, 1)
        assert.strictEqual(probe.started, n)
        assert.strictEqual(probe.completed, n)
        assert.strictEqual(probe.failed, reference(n, p).filter((t) => t.status === "failed").length)
        // Back to baseline: nothing active, nothing outstanding, no fiber left.
        assert.strictEqual(probe.active, 0)
        assert.strictEqual(probe.outstanding, 0)
        assert.strictEqual(probe.liveFibers, 0)
      }),
    { timeout: 120_000, arbitrary: { runs: 60 } }
  )
})

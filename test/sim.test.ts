/**
 * The simulated agent's latency: without `jitter`, the jitter is at most
 * half the latency (`sim:latency=1ms` is 0.5 to 1.5 ms, never 0 ms); an
 * explicit jitter is kept; plain `sim` stays 20 ms ± 10 ms.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as Sim from "../src/agents/Sim.ts"
import * as Spec from "../src/agents/AgentKinds.ts"

const optionsOf = (text: string): Sim.SimOptions => {
  const spec = Spec.parse(text)
  if (typeof spec === "string" || spec._tag !== "Sim") return assert.fail(`not a sim spec: ${text}: ${String(spec)}`)
  return spec.options
}

// The latencies `text`'s agent draws for 2,000 trial ids, from its outputs,
// after every call has slept its time on the TestClock.
const drawn = (text: string) =>
  Effect.gen(function*() {
    const agent = Sim.make({ ...optionsOf(text), failRate: 0 })
    const fibers = yield* Effect.forEach(
      Array.from({ length: 2000 }, (_, i) => i),
      (i) => Effect.forkChild(agent({ id: `task-${i}`, inputs: {} }, { id: `task-${i}:1`, epoch: 1 }))
    )
    yield* TestClock.adjust("1 minute")
    const outputs = yield* Fiber.joinAll(fibers)
    return outputs.map((o) => (o.metadata as { simulated_latency_ms: number }).simulated_latency_ms)
  })

describe("sim latency and jitter", () => {
  it.effect("latency=1ms without jitter: every latency within [0.5, 1.5] ms, spread over it", () =>
    Effect.gen(function*() {
      assert.strictEqual(optionsOf("sim:latency=1ms").jitterMs, 0.5)
      const ms = yield* drawn("sim:latency=1ms")
      const outside = ms.filter((x) => x < 0.5 || x > 1.5)
      assert.deepStrictEqual(outside.slice(0, 5), [], `${outside.length} of ${ms.length} outside [0.5, 1.5]`)
      assert.isBelow(Math.min(...ms), 0.6)
      assert.isAbove(Math.max(...ms), 1.4)
    }))

  it.effect("an explicit jitter is honoured, even above the latency", () =>
    Effect.gen(function*() {
      assert.strictEqual(optionsOf("sim:latency=1ms,jitter=10ms").jitterMs, 10)
      const ms = yield* drawn("sim:latency=1ms,jitter=10ms")
      assert.isAbove(Math.max(...ms), 10)
      assert.isAbove(ms.filter((x) => x === 0).length, 0)
      assert.deepStrictEqual(optionsOf("sim:latency=1ms,jitter=0ms").jitterMs, 0)
      // Given before the latency, it is still the one given.
      assert.strictEqual(optionsOf("sim:jitter=3ms,latency=1ms").jitterMs, 3)
    }))

  it("the default sim stays 20 ms ± 10 ms; a larger latency keeps the 10 ms jitter", () => {
    assert.deepStrictEqual(optionsOf("sim"), Sim.defaults)
    assert.deepStrictEqual(optionsOf("sim"), { latencyMs: 20, jitterMs: 10, failRate: 0.02, seed: 1 })
    assert.strictEqual(optionsOf("sim:fail=0.1").jitterMs, 10)
    assert.strictEqual(optionsOf("sim:latency=200ms").jitterMs, 10)
    assert.strictEqual(optionsOf("sim:latency=8ms").jitterMs, 4)
    assert.strictEqual(optionsOf("sim:latency=0ms").jitterMs, 0)
  })
})

describe("sim tokens", () => {
  it.effect("tokens=N: a seeded usage per trial, input within [N/2, 3N/2], a fifth as output, a quarter cached; none by default", () =>
    Effect.gen(function*() {
      const agent = Sim.make({ ...optionsOf("sim:latency=0ms,tokens=800"), failRate: 0 })
      const usages = yield* Effect.forEach(Array.from({ length: 500 }, (_, i) => i), (i) =>
        Effect.map(agent({ id: `t${i}`, inputs: {} }, { id: `t${i}:1`, epoch: 1 }), (o) => o.usage!))
      for (const u of usages) {
        assert.isAtLeast(u.input_tokens, 400)
        assert.isAtMost(u.input_tokens, 1200)
        assert.strictEqual(u.output_tokens, Math.round(u.input_tokens / 5))
        assert.strictEqual(u.total_tokens, u.input_tokens + u.output_tokens)
        assert.strictEqual(u.cached_input_tokens, Math.floor(u.input_tokens / 4))
        assert.strictEqual(u.model, "sim")
      }
      const mean = usages.reduce((a, u) => a + u.input_tokens, 0) / usages.length
      assert.approximately(mean, 800, 40)
      // The same seed and trial: the same usage.
      const again = yield* agent({ id: "t7", inputs: {} }, { id: "t7:1", epoch: 1 })
      assert.deepStrictEqual(again.usage, usages[7])
      const plain = yield* Sim.make({ ...optionsOf("sim:latency=0ms"), failRate: 0 })({ id: "t", inputs: {} })
      assert.isUndefined(plain.usage)
      assert.strictEqual(Spec.parse("sim:tokens=many"), `--agent sim:tokens=many: tokens: expected an integer >= 0, got "many"`)
      assert.strictEqual(Sim.kind.format({ _tag: "Sim", options: optionsOf("sim:tokens=800") }), "sim:latency=20ms,jitter=10ms,fail=0.02,seed=1,tokens=800")
    }))
})

import { assert, describe, it } from "@effect/vitest"
import type { ApproachName } from "../scripts/bench/catalog.ts"
import { approachRounds, contextApproaches, expand, quickPlan } from "../scripts/bench/plan.ts"
import { type RunRecord, spread, summarise } from "../scripts/bench/summary.ts"
import { targets } from "../scripts/bench/targets.ts"

// A finished child run of the 1 ms agent at T=1e5 P=64, with its wall time.
const run = (approach: ApproachName, round: number, wallMs: number): RunRecord => ({
  agent: "sleep1ms",
  trials: 100_000,
  parallelism: 64,
  approach,
  round,
  status: "ok",
  result: {
    completed: 100_000,
    wallMs,
    cpuMs: 1_000,
    mainCpuMs: 700,
    baseRssMb: 99,
    baseHeapMb: 10,
    peakRssMb: 150,
    peakHeapMb: 57,
    samples: 100,
    maxSampleGapMs: 30,
    ...(approach === "unordered" && { probe: { peakLiveFibers: 65, peakOutstanding: 64, peakActive: 64, liveFibers: 0 } })
  }
})

// Target (c) judged on rounds whose ratios (bare's wall / runTrials' wall) are given.
const targetC = (ratios: ReadonlyArray<number>) => {
  const runs = ratios.flatMap((ratio, i) => [run("unordered", i + 1, 2_400 / ratio), run("bare", i + 1, 2_400)])
  const found = targets(summarise(runs)).find((t) => t.name.startsWith("(c)"))
  assert.isDefined(found)
  return found!
}

describe("bench figures", () => {
  it("spread: lowest, quartiles by interpolation, highest", () => {
    assert.deepStrictEqual(spread([5, 1, 3, 2, 4]), { min: 1, q1: 2, q3: 4, max: 5 })
    assert.deepStrictEqual(spread([1, 2, 3, 4]), { min: 1, q1: 1.75, q3: 3.25, max: 4 })
    assert.deepStrictEqual(spread([7]), { min: 7, q1: 7, q3: 7, max: 7 })
  })

  it("target (c) is judged on the median per-round ratio and prints how the rounds spread", () => {
    const failing = targetC([0.95, 0.96, 0.965, 0.968, 0.99, 1.0, 0.94])
    assert.strictEqual(failing.verdict, "FAIL")
    assert.include(failing.lines[0]!, "= 0.965x (median of 7 per-round ratios; need >= 0.97x) -> FAIL")
    assert.include(failing.lines[1]!, "per-round ratios: 0.940 to 1.000, middle half 0.955 to 0.979")
    const passing = targetC([0.95, 0.97, 0.975, 0.98, 0.99, 0.96, 1.02, 0.972, 0.93])
    assert.strictEqual(passing.verdict, "PASS")
    assert.include(passing.lines[0]!, "= 0.972x (median of 9 per-round ratios")
  })

  it("the quick plan runs the pair (c) compares 15 rounds, its context 7", () => {
    const configs = expand(quickPlan, {})
    const c = configs.find((config) => config.agent === "sleep1ms")
    assert.isDefined(c)
    assert.strictEqual(c!.minRounds, 15)
    assert.strictEqual(c!.contextRounds, 7)
    assert.deepStrictEqual([...c!.approaches].sort(), ["bare", "pmap", "raw", "unordered"])
    assert.deepStrictEqual(contextApproaches, ["raw", "pmap"])
    const rounds = (a: ApproachName, base: number, given: boolean) => approachRounds(a, c!, base, given)
    assert.deepStrictEqual([rounds("unordered", 3, false), rounds("bare", 3, false), rounds("raw", 3, false), rounds("pmap", 3, false)], [15, 15, 7, 7])
    // `--rounds N` sets every approach's rounds, the context's at most 7 here.
    assert.deepStrictEqual([rounds("unordered", 20, true), rounds("raw", 20, true), rounds("raw", 2, true)], [20, 7, 2])
    // The other configurations keep the default number of rounds for every approach.
    for (const other of configs.filter((config) => config.agent !== "sleep1ms")) {
      assert.isUndefined(other.minRounds)
      assert.isUndefined(other.contextRounds)
    }
  })
})

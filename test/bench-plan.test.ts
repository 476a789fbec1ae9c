import { assert, describe, it } from "@effect/vitest"
import { agentNames } from "../scripts/bench/agents.ts"
import { approachNames, type RunSpec } from "../scripts/bench/catalog.ts"
import { prepareWorker, runChild, runChildren } from "../scripts/bench/child.ts"
import { expand, fullParts, fullPlan, type PartSizes, quickParts, quickPlan } from "../scripts/bench/plan.ts"
import { TOOL_PARALLELISM } from "../scripts/bench/tools.ts"
import { WIRE_TARGET_P } from "../scripts/bench/wire.ts"

// The sizes the parts' flags replace, each a count of trials, rows or entries.
const counts = ["cliRss", "datasets", "readerRows", "tools", "cache", "cacheEntries", "world", "adaptive", "wire"] as const

describe("bench plan", () => {
  it("the quick plan runs every approach with some agent, every agent, and each pair the targets compare", () => {
    const configs = expand(quickPlan, {})
    assert.deepStrictEqual(
      [...new Set(configs.flatMap((c) => c.approaches))].sort(),
      [...approachNames].sort()
    )
    assert.deepStrictEqual([...new Set(configs.map((c) => c.agent))].sort(), [...agentNames].sort())
    const has = (agent: string, ...approaches: Array<string>) =>
      configs.some((c) => c.agent === agent && c.parallelism === 64 && approaches.every((a) => c.approaches.some((b) => b === a)))
    // (a) the probe of both runners, (b) and (d) tick's pair, (c) sleep1ms's pair, (s) the scoring stage beside unordered.
    assert.isTrue(has("tick", "unordered", "ordered"))
    assert.isTrue(has("tick", "unordered", "bare"))
    assert.isTrue(has("sleep1ms", "unordered", "bare"))
    assert.isTrue(has("tick", "unordered", "scored"))
    // One child per configuration where the plan says so, never where (b) and (d) read tick's CPU and RSS ratios.
    assert.deepStrictEqual(configs.filter((c) => c.sharedChild === true).map((c) => c.agent).sort(), ["noop", "sleep1ms"])
    assert.isTrue(expand(fullPlan, {}).every((c) => c.sharedChild === undefined))
    // Smaller than the full plan's sizes: no quick configuration runs more trials than the full plan's largest for its agent.
    for (const c of configs) {
      const full = Math.max(...fullPlan.filter((g) => g.agent === c.agent).flatMap((g) => g.trials))
      assert.isAtMost(c.trials, full, `${c.agent} T=${c.trials}`)
    }
  })

  it("every part runs in the quick bench, no larger than in the full one, at the sizes its targets need", () => {
    for (const key of counts) {
      assert.isAbove(quickParts[key], 0, key)
      assert.isAtMost(quickParts[key], fullParts[key], key)
    }
    // The wire's targets are judged at P=64, and the adaptive run against fixed parallelisms the full part tries too.
    assert.include(quickParts.wireParallelism, WIRE_TARGET_P)
    assert.isAbove(quickParts.adaptiveFixed.length, 0)
    for (const p of quickParts.adaptiveFixed) assert.include(fullParts.adaptiveFixed, p)
    // (h) compares peak live fibers at N and N/10: at N/10 below the parallelism the loop could not fill its slots.
    assert.isAtLeast(quickParts.tools / 10, TOOL_PARALLELISM)
    assert.isAtMost(quickParts.timeoutS, fullParts.timeoutS)
  })

  it("the full bench keeps its sizes, every world run, and starts the CLI as users do", () => {
    const expected: PartSizes = {
      cliRss: 1e7,
      datasets: 1e6,
      readerRows: 2e5,
      tools: 1e5,
      cache: 1e5,
      cacheEntries: 1e6,
      world: 2000,
      worldAll: true,
      adaptive: 3000,
      adaptiveRounds: 2,
      adaptiveFixed: [8, 16, 32, 64],
      wire: 2e4,
      wireParallelism: [8, 64, 256],
      launcher: "npm",
      timeoutS: 1800
    }
    assert.deepStrictEqual(fullParts, expected)
    assert.strictEqual(quickParts.launcher, "script")
    assert.isFalse(quickParts.worldAll)
  })
})

describe("bench children", () => {
  const spec = (approach: RunSpec["approach"]): RunSpec => ({ approach, agent: "tick", trials: 200, parallelism: 8, sampleMs: 25 })
  const options = async () => ({ maxOldSpaceMb: 512, timeoutMs: 30_000, loader: "strip" as const, workerPath: await prepareWorker("strip") })

  it("one child runs several specs in order, a result for each; a run after the first says so", async () => {
    const outcomes = await runChildren([spec("unordered"), spec("bare"), spec("raw")], await options())
    assert.deepStrictEqual(outcomes.map((o) => o.status), ["ok", "ok", "ok"])
    const results = outcomes.map((o) => ("result" in o ? o.result : undefined))
    assert.deepStrictEqual(results.map((r) => r?.completed), [200, 200, 200])
    assert.deepStrictEqual(results.map((r) => r?.sharedChild), [undefined, true, true])
    // The probe is agent-trials' own: only the runTrials run has it.
    assert.deepStrictEqual(results.map((r) => r?.probe !== undefined), [true, false, false])
    const alone = await runChild(spec("unordered"), await options())
    assert.strictEqual(alone.status, "ok")
    assert.isUndefined("result" in alone ? alone.result.sharedChild : "no result")
  })

  it("a child that ends before its specs are run gives each of them its end, not a result", async () => {
    const bad = { ...spec("raw"), approach: "nope" } as unknown as RunSpec
    const outcomes = await runChildren([spec("raw"), bad], await options())
    assert.deepStrictEqual(outcomes.map((o) => o.status), ["crashed", "crashed"])
    // The worker refuses the specs before running any: its exit is each run's end, with no figures.
    for (const o of outcomes) {
      assert.isFalse("result" in o)
      assert.match("detail" in o ? o.detail : "", /^exit 1: /)
    }
  })
})

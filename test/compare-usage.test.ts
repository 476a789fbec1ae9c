/**
 * `Compare.compare` on results files whose trials report token usage and
 * cost: the per-trial tokens and cost before and after and their paired
 * change, checked against values computed by hand in the comments and
 * against `Statistics.pairedDifference` (or CR1 by its formula, clustered) on
 * the known per-task differences; unpriced files (tokens, no cost), a file
 * with usage against one without (no delta), and files without usage (no
 * `usage` at all).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import * as Compare from "../src/programs/compare/Compare.ts"
import type { AgentEvalTrial, Usage } from "../src/domain/Trial.ts"
import * as Statistics from "../src/statistics/Statistics.ts"
import { removeTempDirs, tempDir, writeJsonl } from "./cli-helpers.ts"
import * as Kinds from "../src/programs/Kinds.ts"

afterAll(removeTempDirs)

const metadata = { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 }
const taskOf = (id: string) => id.slice(0, id.lastIndexOf(":"))

/** A usage of `tokens` in all, priced at `cost` when given. */
const spent = (tokens: number, cost?: number): Usage => ({
  input_tokens: tokens - 10,
  output_tokens: 10,
  total_tokens: tokens,
  model: "m",
  ...(cost === undefined ? {} : { cost_usd: cost })
})

/** A completed trial scored by `exact`, with its agent's usage and, when given, its judge's on the score. */
const trial = (id: string, pass: boolean, agent?: Usage, judge?: Usage): AgentEvalTrial => ({
  id,
  task_id: taskOf(id),
  status: "completed",
  output: { output_text: "x", ...(agent === undefined ? {} : { usage: agent }) },
  metadata,
  scores: { exact: { value: pass ? 1 : 0, passed: pass, ...(judge === undefined ? {} : { usage: judge }) } }
})
/** A failed trial whose attempts spent `usage`. */
const failed = (id: string, usage: Usage): AgentEvalTrial => ({
  id,
  task_id: taskOf(id),
  status: "failed",
  error: { type: "AgentError", message: "no", occurred_at: metadata.finished_at, usage },
  metadata
})

const file = (name: string, trials: ReadonlyArray<AgentEvalTrial>) => writeJsonl(path.join(tempDir(), name), trials)
const compare = (a: string, b: string) => Compare.compare(a, b).pipe(Effect.provide([NodeServices.layer, Kinds.layer()]))

const close = (actual: number | null | undefined, expected: number, what: string) => {
  assert.isNumber(actual, what)
  assert.approximately(actual!, expected, 1e-12 * Math.max(1, Math.abs(expected)), what)
}
const closeInterval = (actual: readonly [number, number] | null | undefined, expected: readonly [number, number] | null, what: string) => {
  assert.isNotNull(expected, `${what}: expected`)
  assert.isArray(actual, what)
  close(actual![0], expected![0], `${what} low`)
  close(actual![1], expected![1], `${what} high`)
}

// Per trial, agent + judge (tokens, USD), base -> new; t4 has 2 epochs, t5's new trial failed
// after spending 50 tokens, t6 reports no usage in base (left out of usage: 5 of 6 paired tasks).
//   task  base tokens        new tokens         d      base cost                  new cost              d
//   t1    100+20 = 120       130+20 = 150      +30     .001+.0002 = .0012        .0008+.0002 = .0010   -.0002
//   t2    200                260               +60     .002                      .0026                 +.0006
//   t3    150+30 = 180       180                 0     .0015+.0003 = .0018       .0009                 -.0009
//   t4    (100+300)/2 = 200  (250+250)/2 = 250 +50     (.001+.003)/2 = .002      .0025                 +.0005
//   t5    100                failed 50         -50     .001                      .0005                 -.0005
// tokens: base mean 800/5 = 160, new 890/5 = 178, d̄ = 90/5 = 18; deviations 12 42 -18 32 -68,
//   Σ² = 7880, s² = 1970, SE = √(1970/5) = √394: 18 ± t(0.975, 4)·√394, p = 2·t.sf(18/√394, 4).
// cost: base mean .008/5 = .0016, new .0075/5 = .0015, d̄ = -.0001; deviations -1 7 -8 6 -4 (e-4),
//   Σ² = 166e-8, s² = 41.5e-8, SE = √8.3e-8: -.0001 ± t(0.975, 4)·√8.3e-8, p = 2·t.sf(.0001/√8.3e-8, 4).
// t(0.975, 4) and the p-values: scipy 1.17.1 on this machine.
const T4 = 2.7764451051977934
const tokensD = [30, 60, 0, 50, -50]
const costD = [-0.0002, 0.0006, -0.0009, 0.0005, -0.0005]
const baseTrials = (priced: boolean): Array<AgentEvalTrial> => {
  const u = (tokens: number, cost: number) => spent(tokens, priced ? cost : undefined)
  return [
    trial("t1:1", true, u(100, 0.001), u(20, 0.0002)),
    trial("t2:1", true, u(200, 0.002)),
    trial("t3:1", true, u(150, 0.0015), u(30, 0.0003)),
    trial("t4:1", true, u(100, 0.001)),
    trial("t4:2", true, u(300, 0.003)),
    trial("t5:1", true, u(100, 0.001)),
    trial("t6:1", true)
  ]
}
const newTrials = (priced: boolean): Array<AgentEvalTrial> => {
  const u = (tokens: number, cost: number) => spent(tokens, priced ? cost : undefined)
  return [
    trial("t1:1", true, u(130, 0.0008), u(20, 0.0002)),
    trial("t2:1", true, u(260, 0.0026)),
    trial("t3:1", true, u(180, 0.0009)),
    trial("t4:1", true, u(250, 0.0025)),
    trial("t4:2", false, u(250, 0.0025)),
    failed("t5:1", u(50, 0.0005)),
    trial("t6:1", true, u(999, 0.01))
  ]
}

/** The per-task differences as `Statistics.pairedDifference` takes them: base 0, new d. */
const reference = (d: ReadonlyArray<number>) =>
  Statistics.pairedDifference(new Map(d.map((_, i) => [`t${i}`, 0])), new Map(d.map((x, i) => [`t${i}`, x])))

describe("Compare: usage (tokens and cost per trial)", () => {
  it.live("priced files: tokens and cost per trial, their paired change and interval as by hand and by pairedDifference", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", baseTrials(true)), file("new.jsonl", newTrials(true)))
      const u = c.usage
      assert.isDefined(u)
      assert.deepStrictEqual(u!.base, { trials: 6, priced_trials: 6 })
      assert.deepStrictEqual(u!.new, { trials: 7, priced_trials: 7 })

      const tokens = u!.tokens!
      assert.deepInclude(tokens, { n: 5, df: 4, clusters: null, design_effect: null })
      close(tokens.base_mean, 160, "tokens base mean")
      close(tokens.new_mean, 178, "tokens new mean")
      close(tokens.delta, 18, "tokens delta")
      close(tokens.standard_error, Math.sqrt(394), "tokens SE")
      closeInterval(tokens.ci95, [18 - T4 * Math.sqrt(394), 18 + T4 * Math.sqrt(394)], "tokens ci95 by hand")
      assert.approximately(tokens.p_value!, 0.41578679644245997, 1e-9, "tokens p")
      const byStats = reference(tokensD)
      close(tokens.delta, byStats.mean!, "tokens delta, pairedDifference")
      closeInterval(tokens.ci95, byStats.ci95, "tokens ci95, pairedDifference")

      const cost = u!.cost_usd!
      assert.deepInclude(cost, { n: 5, df: 4 })
      close(cost.base_mean, 0.0016, "cost base mean")
      close(cost.new_mean, 0.0015, "cost new mean")
      close(cost.delta, -0.0001, "cost delta")
      close(cost.standard_error, Math.sqrt(8.3e-8), "cost SE")
      closeInterval(cost.ci95, [-0.0001 - T4 * Math.sqrt(8.3e-8), -0.0001 + T4 * Math.sqrt(8.3e-8)], "cost ci95 by hand")
      closeInterval(cost.ci95, reference(costD).ci95, "cost ci95, pairedDifference")
      assert.approximately(cost.p_value!, 0.7460053592303809, 1e-9, "cost p")

      // The scores are compared as without usage: usage is no scorer, judged nothing, gates nothing.
      const plain = yield* compare(
        file("base.jsonl", baseTrials(true).map(withoutUsage)),
        file("new.jsonl", newTrials(true).map(withoutUsage))
      )
      assert.deepStrictEqual(c.scorers, plain.scorers)
      assert.deepStrictEqual(c.pass_at_1, plain.pass_at_1)
      assert.deepStrictEqual(c.judged, ["exact"])
    }))

  it.live("unpriced files: tokens, and no cost (cost_usd null)", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", baseTrials(false)), file("new.jsonl", newTrials(false)))
      assert.deepStrictEqual(c.usage?.base, { trials: 6, priced_trials: 0 })
      assert.isNull(c.usage?.cost_usd)
      close(c.usage?.tokens?.delta, 18, "tokens delta")
      closeInterval(c.usage?.tokens?.ci95, reference(tokensD).ci95, "tokens ci95")
      // One priced side is no pair of costs either.
      const half = yield* compare(file("base.jsonl", baseTrials(true)), file("new.jsonl", newTrials(false)))
      assert.isNull(half.usage?.cost_usd)
      assert.deepStrictEqual([half.usage?.base.priced_trials, half.usage?.new.priced_trials], [6, 0])
      close(half.usage?.tokens?.delta, 18, "tokens delta, one side priced")
    }))

  it.live("usage in one file only: its counts, no tokens or cost change; neither file: no usage field", () =>
    Effect.gen(function*() {
      const one = yield* compare(file("base.jsonl", baseTrials(true)), file("new.jsonl", newTrials(true).map(withoutUsage)))
      assert.deepStrictEqual(one.usage, {
        base: { trials: 6, priced_trials: 6 },
        new: { trials: 0, priced_trials: 0 },
        tokens: null,
        cost_usd: null
      })
      const none = yield* compare(
        file("base.jsonl", baseTrials(true).map(withoutUsage)),
        file("new.jsonl", newTrials(true).map(withoutUsage))
      )
      assert.isFalse("usage" in none)
      assert.notInclude(JSON.stringify(none), "usage")
    }))

  it.live("clustered (metadata.stderr_cluster): the usage change on the scorers' clusters, CR1 by its formula", () =>
    Effect.gen(function*() {
      // Clusters by passage: t1, t2 in A; t3, t4 in B; t5 in C (t6 has no usage): G 3, 2 df.
      const passage: Record<string, string> = { t1: "A", t2: "A", t3: "B", t4: "B", t5: "C", t6: "C" }
      const clustered = (t: AgentEvalTrial): AgentEvalTrial => ({
        ...t,
        metadata: { ...t.metadata, stderr_cluster: { by: "passage", value: passage[t.task_id] } }
      })
      const c = yield* compare(
        file("base.jsonl", baseTrials(true).map(clustered)),
        file("new.jsonl", newTrials(true).map(clustered))
      )
      assert.strictEqual(c.stderr_cluster, "passage")
      const tokens = c.usage!.tokens!
      assert.deepInclude(tokens, { n: 5, df: 2, clusters: 3 })
      // CR1: sqrt(G/(G-1)·Σ_g (Σ_{i∈g} (d_i - d̄))²) / n. Tokens: sums of deviations by cluster
      // A 12+42 = 54, B -18+32 = 14, C -68: √(3/2·(2916 + 196 + 4624)) / 5 = √11604 / 5.
      const se = Math.sqrt(1.5 * (54 * 54 + 14 * 14 + 68 * 68)) / 5
      close(se, Math.sqrt(11604) / 5, "CR1 by hand")
      close(tokens.standard_error, se, "tokens clustered SE")
      // t(0.975, 2) = 4.302652729749462, p = 2·t.sf(18/SE, 2) = 0.49135492136317277 (scipy 1.17.1).
      closeInterval(tokens.ci95, [18 - 4.302652729749462 * se, 18 + 4.302652729749462 * se], "tokens ci95 on 2 df")
      assert.approximately(tokens.p_value!, 0.49135492136317277, 1e-9, "tokens p on 2 df")
      assert.strictEqual(c.scorers[0].clusters, 3, "the scorer on the same clusters (t6 with t5 in C)")
    }))
})

describe("Compare.format and Compare.toHtml: usage", () => {
  // The rows of the first test's figures: tokens 160 -> 178, +18, 18 ∓ 2.7764451·√394 = [-37.11, +73.11],
  // p 0.4158; cost $0.0016 -> $0.0015, -$0.0001, -.0001 ∓ 2.7764451·√8.3e-8 = [-$0.00089991, +$0.00069991].
  const tokensRow = /^ {4}tokens {3}5 {7}160 {6}178 {6}\+18 {7}\[-37\.1, \+73\.1\] {14}0\.4158$/m
  const costRow = /^ {4}cost {5}5 {7}\$0\.0016 {2}\$0\.0015 {2}-\$0\.0001 {2}\[-\$0\.0008999, \+\$0\.0006999\] {2}0\.7460$/m

  it.live("priced: a table of tokens and cost under the scorers', before pass@1; the page's section", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", baseTrials(true)), file("new.jsonl", newTrials(true)))
      const text = Compare.format(c)
      assert.match(text, tokensRow)
      assert.match(text, costRow)
      assert.include(
        text,
        "\n\n  usage per trial, agent + judges (a task's value: its trials' mean; shown, never gated):\n" +
          "    measure  paired  base     new      delta     95% CI                      p\n"
      )
      assert.isBelow(text.indexOf("usage per trial"), text.indexOf("  pass@1 ("))
      assert.isAbove(text.indexOf("usage per trial"), text.indexOf("  exact "))
      const html = Compare.toHtml(c)
      assert.include(html, "<h2>Usage per trial</h2>")
      assert.include(
        html,
        `<tr><td>tokens</td><td class="num">5</td><td class="num">160</td><td class="num">178</td><td class="num">+18</td>` +
          `<td class="num">[-37.1, +73.1]</td><td class="num">0.4158</td></tr>`
      )
      assert.include(html, `<td class="num">[-$0.0008999, +$0.0006999]</td>`)
      assert.include(html, "Shown, never gated: the verdict and the exit code are the scorers&#39;.")
    }))

  it.live("unpriced: the tokens row, no cost row, and a line that says why", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", baseTrials(false)), file("new.jsonl", newTrials(false)))
      const text = Compare.format(c)
      assert.match(text, /^ {4}tokens {3}5 {7}160 {3}178 {2}\+18 {4}\[-37\.1, \+73\.1\] {2}0\.4158$/m)
      assert.notMatch(text, /^ {4}cost /m)
      assert.include(text, "\n    cost: neither file is priced (run --pricing FILE): no change in cost\n")
      const html = Compare.toHtml(c)
      assert.notInclude(html, "<td>cost</td>")
      assert.include(html, "Cost: neither file is priced (run --pricing FILE): no change in cost.")
      const a = file("base.jsonl", baseTrials(true))
      const half = Compare.format(yield* compare(a, file("new.jsonl", newTrials(false))))
      assert.include(half, `\n    cost: only ${a} is priced (run --pricing FILE): no change in cost\n`)
    }))

  it.live("usage in one file only: one line instead of a delta; neither: text and page as without the feature", () =>
    Effect.gen(function*() {
      const a = file("base.jsonl", baseTrials(true))
      const b = file("new.jsonl", newTrials(true).map(withoutUsage))
      const one = yield* compare(a, b)
      const text = Compare.format(one)
      assert.include(text, `\n\n  usage: only ${a} reports token usage (6 trials), ${b} none: no change in tokens or cost\n\n`)
      assert.notMatch(text, /^ {4}(tokens|cost) /m)
      assert.include(Compare.toHtml(one), `Only one side: only ${a} reports token usage (6 trials), ${b} none`)
      const flipped = Compare.format(yield* compare(b, a))
      assert.include(flipped, `  usage: only ${a} reports token usage (6 trials), ${b} none: no change in tokens or cost`)

      const none = yield* compare(file("base.jsonl", baseTrials(true).map(withoutUsage)), b)
      assert.notInclude(Compare.format(none), "usage")
      assert.notInclude(Compare.toHtml(none), "Usage per trial")
    }))

  it.live("clustered: a clusters column", () =>
    Effect.gen(function*() {
      const clustered = (t: AgentEvalTrial): AgentEvalTrial => ({
        ...t,
        metadata: { ...t.metadata, stderr_cluster: { by: "passage", value: t.task_id < "t3" ? "A" : "B" } }
      })
      const c = yield* compare(
        file("base.jsonl", baseTrials(false).map(clustered)),
        file("new.jsonl", newTrials(false).map(clustered))
      )
      // t1, t2 in A; t3, t4, t5 in B: 2 clusters.
      assert.match(Compare.format(c), /^ {4}measure {2}paired .* {2}p {2,}clusters\n {4}tokens {3}5 .* {2}2$/m)
      assert.include(Compare.toHtml(c), `<th class="num">clusters</th></tr></thead><tbody><tr><td>tokens</td>`)
    }))
})

/** The trial without any usage: its agent's, its error's and its scores'. */
const withoutUsage = (t: AgentEvalTrial): AgentEvalTrial => {
  const { usage: _o, ...output } = t.output ?? { output_text: "" }
  const strip = <A extends { readonly usage?: Usage }>(x: A): Omit<A, "usage"> => {
    const { usage: _u, ...rest } = x
    return rest
  }
  return {
    ...t,
    ...(t.output === undefined ? {} : { output }),
    ...(t.error === undefined ? {} : { error: strip(t.error) }),
    ...(t.scores === undefined ? {} : { scores: Object.fromEntries(Object.entries(t.scores).map(([k, s]) => [k, strip(s)])) })
  }
}

/**
 * `Compare.compare` on small results files written here, every number checked
 * against a value computed by hand in the comments: per-task means over
 * epochs (a failed trial 0), the paired difference with its Student t
 * interval, pass@1 before and after, flips, unmatched tasks and scorers, and
 * the refusals (a missing file, a bad line, no scorer or task in common, an
 * unknown --pass).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import * as Compare from "../src/programs/compare/Compare.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { removeTempDirs, tempDir, writeJsonl } from "./cli-helpers.ts"
import * as Kinds from "../src/programs/Kinds.ts"

afterAll(removeTempDirs)

const metadata = { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 }
const taskOf = (id: string) => id.slice(0, id.lastIndexOf(":"))

/** A completed trial with scores given as `[value, passed]`. */
const scored = (id: string, scores: Record<string, readonly [number, boolean]>): AgentEvalTrial => ({
  id,
  task_id: taskOf(id),
  status: "completed",
  output: { output_text: "x" },
  metadata,
  scores: Object.fromEntries(Object.entries(scores).map(([name, [value, passed]]) => [name, { value, passed }]))
})
const completed = (id: string): AgentEvalTrial => ({
  id,
  task_id: taskOf(id),
  status: "completed",
  output: { output_text: "x" },
  metadata
})
const failed = (id: string, type = "AgentError"): AgentEvalTrial => ({
  id,
  task_id: taskOf(id),
  status: "failed",
  error: { type, message: "no", occurred_at: metadata.finished_at },
  metadata
})

const file = (name: string, trials: ReadonlyArray<AgentEvalTrial | string>) => writeJsonl(path.join(tempDir(), name), trials)

// t(0.975, 4), from a table.
const T4 = 2.776445105

const close = (actual: number | null, expected: number, what: string) => {
  assert.isNotNull(actual, what)
  assert.approximately(actual!, expected, 1e-9, what)
}
const closeInterval = (actual: readonly [number, number] | null, expected: readonly [number, number], what: string) => {
  assert.isNotNull(actual, what)
  close(actual![0], expected[0], `${what} low`)
  close(actual![1], expected[1], `${what} high`)
}

// Two scorers on tasks t1..t5 in both files, with 1 or 2 epochs; a task in
// each file only; `judge` only in the new file (every score of it failed, so
// a rule that counted it would make every new trial fail).
//
// Per task, exact (base -> new):   t1 (1+1)/2=1 -> (1+0)/2=0.5   d -0.5
//                                   t2 1 -> 0                     d -1
//                                   t3 (1+failed 0)/2=0.5 -> (1+0)/2=0.5   d 0
//                                   t4 1 -> failed 0              d -1
//                                   t5 1 -> 0                     d -1
//   d̄ = -3.5/5 = -0.7; deviations .2 -.3 .7 -.3 -.3, Σ² = 0.8, s² = 0.2, SE = √(0.2/5) = 0.2;
//   interval -0.7 ± 2.776445105·0.2 = [-1.255289021, -0.144710979]: wholly below 0, regressed.
// Per task, sim: t1 (.8+.6)/2=.7 -> (.9+.5)/2=.7 d 0; t2 1 -> .5 d -.5; t3 (.4+0)/2=.2 -> .6 d +.4;
//   t4 .9 -> 0 d -.9; t5 .5 -> .3 d -.2. d̄ = -1.2/5 = -0.24; deviations .24 -.26 .64 -.66 .04,
//   Σ² = 0.972, s² = 0.243, SE = √0.0486; interval -0.24 ± 2.776445105·√0.0486 holds 0.
// Means over the paired tasks: exact 4.5/5 = 0.9 -> 1/5 = 0.2; sim 3.3/5 = 0.66 -> 2.1/5 = 0.42.
const baseTrials = [
  scored("t1:1", { exact: [1, true], sim: [0.8, true] }),
  scored("t1:2", { exact: [1, true], sim: [0.6, true] }),
  scored("t2:1", { exact: [1, true], sim: [1, true] }),
  scored("t3:1", { exact: [1, true], sim: [0.4, false] }),
  failed("t3:2"),
  scored("t4:1", { exact: [1, true], sim: [0.9, true] }),
  scored("t5:1", { exact: [1, true], sim: [0.5, true] }),
  scored("b-only:1", { exact: [1, true], sim: [1, true] })
]
const newTrials = [
  scored("t5:1", { exact: [0, false], sim: [0.3, false], judge: [0, false] }),
  scored("t1:1", { exact: [1, true], sim: [0.9, true], judge: [0, false] }),
  scored("t1:2", { exact: [0, false], sim: [0.5, true], judge: [0, false] }),
  scored("t2:1", { exact: [0, false], sim: [0.5, true], judge: [0, false] }),
  scored("t3:1", { exact: [1, true], sim: [0.6, true], judge: [0, false] }),
  scored("t3:2", { exact: [0, false], sim: [0.6, true], judge: [0, false] }),
  failed("t4:1"),
  scored("n-only:1", { exact: [1, true], sim: [1, true], judge: [0, false] })
]

const compare = (a: string, b: string, options: Compare.CompareOptions = {}) =>
  Compare.compare(a, b, options).pipe(Effect.provide([NodeServices.layer, Kinds.layer()]))
const refusal = (a: string, b: string, options: Compare.CompareOptions = {}) =>
  Effect.flip(compare(a, b, options)).pipe(Effect.map((e) => {
    assert.strictEqual(e._tag, "CompareInputError")
    return e.message
  }))

describe("Compare.compare", () => {
  it.live("paired difference per scorer over per-task means of epochs: hand-computed mean, SE and t interval", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", baseTrials), file("new.jsonl", newTrials))
      assert.strictEqual(c.measure, "scores")
      assert.deepStrictEqual(c.scorers.map((s) => s.name), ["exact", "sim"])
      const [exact, sim] = c.scorers
      assert.deepInclude(exact, { n: 5, df: 4, verdict: "regressed", reason: null })
      close(exact.base_mean, 0.9, "exact base mean")
      close(exact.new_mean, 0.2, "exact new mean")
      close(exact.delta, -0.7, "exact delta")
      close(exact.sd, Math.sqrt(0.2), "exact sd")
      close(exact.standard_error, 0.2, "exact SE")
      closeInterval(exact.ci95, [-0.7 - T4 * 0.2, -0.7 + T4 * 0.2], "exact ci95")

      assert.deepInclude(sim, { n: 5, df: 4, verdict: "no_significant_change", reason: null })
      close(sim.base_mean, 0.66, "sim base mean")
      close(sim.new_mean, 0.42, "sim new mean")
      close(sim.delta, -0.24, "sim delta")
      close(sim.standard_error, Math.sqrt(0.0486), "sim SE")
      closeInterval(sim.ci95, [-0.24 - T4 * Math.sqrt(0.0486), -0.24 + T4 * Math.sqrt(0.0486)], "sim ci95")

      // The tests beside the intervals (scipy 1.17.1 on this machine): exact t = -0.7/0.2 = -3.5 on 4 df,
      // p = 2·t.sf(3.5, 4) = 0.024896163460222748; sim t = -0.24/√0.0486, p = 0.33750185654036463.
      // Holm over the m = 2 judged: 0.0249·2 = 0.049792326920445495, then max(0.3375·1, 0.0498).
      // mde80 = (t.ppf(0.975, 4) + t.ppf(0.8, 4))·sd/√5: exact 0.743481936486595, sim 0.8195181198158198.
      // t1 and t3 have 2 epochs: no McNemar.
      close(exact.p_value, 0.024896163460222748, "exact p")
      close(exact.p_holm, 0.049792326920445495, "exact p_holm")
      close(sim.p_value, 0.33750185654036463, "sim p")
      close(sim.p_holm, 0.33750185654036463, "sim p_holm")
      close(exact.mde80, 0.743481936486595, "exact mde80")
      close(sim.mde80, 0.8195181198158198, "sim mde80")
      assert.deepInclude(exact, { mcnemar_p: null })
      assert.deepInclude(c.pass_at_1, { mcnemar_p: null })
      // pass@1: d̄ -0.6, SE² 0.085 (below): p = 2·t.sf(0.6/√0.085, 4) = 0.1087009513249236.
      close(c.pass_at_1.p_value, 0.1087009513249236, "pass@1 p")
      assert.deepStrictEqual(c.judged, ["exact", "sim"])
      // Holm-adjusted 0.0498 < 0.05 and delta < 0.
      assert.deepStrictEqual(c.regressed, ["exact"])
      assert.deepStrictEqual(c.scorers_only_in_base, [])
      assert.deepStrictEqual(c.scorers_only_in_new, ["judge"])
      assert.deepStrictEqual(c.tasks, { paired: 5, only_in_base: ["b-only"], only_in_new: ["n-only"] })
      assert.deepInclude(c.base, { trials: 8, failed_trials: 1, tasks: 6, scorers: ["exact", "sim"] })
      assert.deepInclude(c.new, { trials: 8, failed_trials: 1, tasks: 6, scorers: ["exact", "sim", "judge"] })
    }))

  it.live("pass@1 and flips under every shared scorer (judge, in the new file only, does not decide)", () =>
    Effect.gen(function*() {
      // A trial passes when exact and sim passed. Per task, passed / trials:
      // base t1 2/2, t2 1, t3 0/2 (sim failed, then a failed trial), t4 1, t5 1, b-only 1;
      // new  t1 1/2, t2 0, t3 1/2, t4 0 (failed), t5 0, n-only 1.
      // Paired: 4/5 = 0.8 -> 1/5 = 0.2, d = -.5 -1 .5 -1 -1: d̄ -0.6, Σ(d - d̄)² = 1.7, s² = 0.425, SE² = 0.085.
      const c = yield* compare(file("base.jsonl", baseTrials), file("new.jsonl", newTrials))
      assert.strictEqual(c.pass_rule, "every shared scorer")
      const p = c.pass_at_1
      assert.strictEqual(p.tasks, 5)
      close(p.base, 0.8, "pass@1 base")
      close(p.new, 0.2, "pass@1 new")
      close(p.delta, -0.6, "pass@1 delta")
      closeInterval(p.ci95, [-0.6 - T4 * Math.sqrt(0.085), -0.6 + T4 * Math.sqrt(0.085)], "pass@1 ci95")
      assert.strictEqual(p.base_all.tasks, 6)
      close(p.base_all.pass_at_1, 5 / 6, "base pass@1 over its own tasks")
      assert.strictEqual(p.new_all.tasks, 6)
      close(p.new_all.pass_at_1, 2 / 6, "new pass@1 over its own tasks")
      // A task passes when all its trials passed: t1, t2, t4, t5 before; none of t1..t5 after.
      assert.deepStrictEqual(c.flips, { pass_to_fail: ["t1", "t2", "t4", "t5"], fail_to_pass: [] })
    }))

  it.live("the files swapped: every difference negated, flips reversed, the regression an improvement", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("new.jsonl", newTrials), file("base.jsonl", baseTrials))
      const exact = c.scorers.find((s) => s.name === "exact")!
      close(exact.delta, 0.7, "exact delta")
      closeInterval(exact.ci95, [0.7 - T4 * 0.2, 0.7 + T4 * 0.2], "exact ci95")
      assert.strictEqual(exact.verdict, "improved")
      assert.deepStrictEqual(c.regressed, [])
      assert.deepStrictEqual(c.flips, { pass_to_fail: [], fail_to_pass: ["t1", "t2", "t4", "t5"] })
      assert.deepStrictEqual(c.scorers_only_in_base, ["judge"])
    }))

  it.live("--pass sim: only sim decides", () =>
    Effect.gen(function*() {
      // sim passed, per task: base t1 2/2, t2 1, t3 0/2, t4 1, t5 1; new t1 2/2, t2 1, t3 2/2, t4 0, t5 0.
      // Paired 0.8 -> 0.6; d = 0 0 1 -1 -1: d̄ -0.2, Σ(d - d̄)² = 2.8, s² = 0.7, SE² = 0.14.
      const c = yield* compare(file("base.jsonl", baseTrials), file("new.jsonl", newTrials), { pass: "sim" })
      assert.strictEqual(c.pass_rule, "sim")
      close(c.pass_at_1.base, 0.8, "base")
      close(c.pass_at_1.new, 0.6, "new")
      closeInterval(c.pass_at_1.ci95, [-0.2 - T4 * Math.sqrt(0.14), -0.2 + T4 * Math.sqrt(0.14)], "ci95")
      assert.deepStrictEqual(c.flips, { pass_to_fail: ["t4", "t5"], fail_to_pass: ["t3"] })
      // The scorers' own comparison does not depend on the pass rule.
      assert.deepStrictEqual(c.regressed, ["exact"])
    }))

  it.live("--pass names a scorer both files must have", () =>
    Effect.gen(function*() {
      const a = file("base.jsonl", baseTrials)
      const b = file("new.jsonl", newTrials)
      const unknown = yield* refusal(a, b, { pass: "nope" })
      assert.strictEqual(unknown, `--pass nope: no such scorer in ${a} (its scorers: exact, sim)`)
      const onlyNew = yield* refusal(a, b, { pass: "judge" })
      assert.strictEqual(onlyNew, `--pass judge: no such scorer in ${a} (its scorers: exact, sim)`)
    }))

  it.live("fewer than 2 paired tasks: a delta but no interval and no verdict, with the reason", () =>
    Effect.gen(function*() {
      const c = yield* compare(
        file("a.jsonl", [scored("t1:1", { exact: [1, true] }), scored("a:1", { exact: [1, true] })]),
        file("b.jsonl", [scored("t1:1", { exact: [0, false] }), scored("b:1", { exact: [0, false] })])
      )
      const [exact] = c.scorers
      assert.deepInclude(exact, { n: 1, delta: -1, ci95: null, df: null, verdict: "no_verdict" })
      assert.include(exact.reason!, "1 paired task")
      assert.include(exact.reason!, "at least 2")
      assert.deepStrictEqual(c.regressed, [])
      assert.isTrue(c.notes.some((n) => n.startsWith("exact: no verdict")), c.notes.join("\n"))
      assert.deepStrictEqual(c.flips.pass_to_fail, ["t1"])
    }))

  it.live("equal differences: zero spread, a zero-width interval, and still a verdict", () =>
    Effect.gen(function*() {
      const c = yield* compare(
        file("a.jsonl", ["t1", "t2", "t3"].map((t) => scored(`${t}:1`, { sim: [0.9, true] }))),
        file("b.jsonl", ["t1", "t2", "t3"].map((t) => scored(`${t}:1`, { sim: [0.8, true] })))
      )
      const [sim] = c.scorers
      close(sim.delta, -0.1, "delta")
      close(sim.standard_error, 0, "SE")
      assert.strictEqual(sim.verdict, "regressed")
    }))

  it.live("neither file scored: completion is compared, and said to be only that", () =>
    Effect.gen(function*() {
      // Completion per task: base t1 1, t2 1, t3 (1 + 0)/2 = 0.5; new t1 1, t2 0, t3 0.
      // d = 0 -1 -0.5: d̄ -0.5, deviations .5 -.5 0, Σ² 0.5, s² 0.25, SE² 0.25/3; t(0.975, 2) = 4.30265273.
      const c = yield* compare(
        file("a.jsonl", [completed("t1:1"), completed("t2:1"), completed("t3:1"), failed("t3:2")]),
        file("b.jsonl", [completed("t1:1"), failed("t2:1"), failed("t3:1"), failed("t3:2")])
      )
      assert.strictEqual(c.measure, "completion")
      assert.strictEqual(c.pass_rule, "completed")
      const [done] = c.scorers
      assert.deepInclude(done, { name: "completed", n: 3, df: 2, verdict: "no_significant_change" })
      close(done.base_mean, 2.5 / 3, "base mean")
      close(done.delta, -0.5, "delta")
      closeInterval(done.ci95, [-0.5 - 4.30265273 * Math.sqrt(0.25 / 3), -0.5 + 4.30265273 * Math.sqrt(0.25 / 3)], "ci95")
      assert.deepStrictEqual(c.flips, { pass_to_fail: ["t2"], fail_to_pass: [] })
      assert.isTrue(c.notes.some((n) => n.includes("not correctness")), c.notes.join("\n"))
      assert.include(Compare.format(c), "NOT correctness")
    }))

  it.live("InvalidTask lines and completed trials without scores are left out, and noted", () =>
    Effect.gen(function*() {
      const c = yield* compare(
        file("a.jsonl", [
          scored("t1:1", { exact: [1, true] }),
          scored("t2:1", { exact: [1, true] }),
          completed("t2:2"),
          failed("line-7:trial", "InvalidTask")
        ]),
        file("b.jsonl", [scored("t1:1", { exact: [1, true] }), scored("t2:1", { exact: [0, false] })])
      )
      // t2 in base: its unscored trial counts for no scorer: exact 1 (not 0.5), and it passes.
      const [exact] = c.scorers
      close(exact.base_mean, 1, "base mean")
      close(exact.delta, -0.5, "delta")
      assert.deepInclude(c.base, { trials: 3, tasks: 2, invalid_lines: 1, unscored_trials: 1 })
      assert.deepStrictEqual(c.tasks.only_in_base, [])
      assert.deepStrictEqual(c.flips.pass_to_fail, ["t2"])
      assert.strictEqual(c.notes.length, 2, c.notes.join("\n"))
    }))

  it.live("task ids listed in numeric order", () =>
    Effect.gen(function*() {
      const ids = ["t10", "t9", "t100", "t1"]
      const c = yield* compare(
        file("a.jsonl", ids.map((t) => scored(`${t}:1`, { exact: [1, true] }))),
        file("b.jsonl", ids.map((t) => scored(`${t}:1`, { exact: [0, false] })))
      )
      assert.deepStrictEqual(c.flips.pass_to_fail, ["t1", "t9", "t10", "t100"])
    }))

  it.live("refusals: a missing file, a bad line, a file without trials, no scorer or no task in common", () =>
    Effect.gen(function*() {
      const good = file("good.jsonl", [scored("t1:1", { exact: [1, true] }), scored("t2:1", { exact: [1, true] })])
      const missing = path.join(tempDir(), "missing.jsonl")
      assert.strictEqual(yield* refusal(missing, good), `results file not found: ${missing}`)

      const broken = file("broken.jsonl", [scored("t1:1", { exact: [1, true] }), "{not json"])
      assert.match(yield* refusal(good, broken), new RegExp(`^${broken.replace(/[.\\/]/g, "\\$&")}:2: not valid JSON`))
      const notTrial = file("not-trial.jsonl", [JSON.stringify({ id: "t1:1" })])
      assert.strictEqual(yield* refusal(good, notTrial), `${notTrial}:1: not an AgentEvalTrial`)

      const empty = file("empty.jsonl", [])
      assert.strictEqual(yield* refusal(good, empty), `${empty} holds no trials`)

      const unscored = file("unscored.jsonl", [completed("t1:1")])
      assert.strictEqual(
        yield* refusal(good, unscored),
        `no scorer in common: ${good} has exact, ${unscored} has none; ` +
          `score both with the same scorers (agent-trials score RESULTS --score SPEC --out FILE)`
      )
      const other = file("other.jsonl", [scored("t1:1", { judge: [1, true] })])
      assert.include(yield* refusal(good, other), `no scorer in common: ${good} has exact, ${other} has judge`)

      const elsewhere = file("elsewhere.jsonl", [scored("u1:1", { exact: [1, true] })])
      assert.strictEqual(
        yield* refusal(good, elsewhere),
        `no tasks in common: ${good} has 2 tasks (t1, t2), ${elsewhere} has 1 (u1); tasks are matched by task_id`
      )
    }))
})

describe("Compare: McNemar, Holm and mde80", () => {
  it.live("one epoch of pass/fail verdicts: McNemar's exact p on the flipped tasks, per scorer and for pass@1", () =>
    Effect.gen(function*() {
      // t1 passed before only (b = 1); t2..t7 after only (c = 6); t8 both. By hand:
      // p = 2·P(X <= 1), X ~ Bin(7, 1/2) = 2·(1 + 7)/128 = 0.125.
      const before = [true, false, false, false, false, false, false, true]
      const after = [false, true, true, true, true, true, true, true]
      const c = yield* compare(
        file("a.jsonl", before.map((ok, i) => scored(`t${i + 1}:1`, { exact: [ok ? 1 : 0, ok] }))),
        file("b.jsonl", after.map((ok, i) => scored(`t${i + 1}:1`, { exact: [ok ? 1 : 0, ok] })))
      )
      close(c.scorers[0].mcnemar_p, 0.125, "scorer McNemar")
      close(c.pass_at_1.mcnemar_p, 0.125, "pass@1 McNemar")
      assert.deepStrictEqual(c.flips, { pass_to_fail: ["t1"], fail_to_pass: ["t2", "t3", "t4", "t5", "t6", "t7"] })
      // No discordant task: p = 1.
      const same = yield* compare(
        file("a.jsonl", before.map((ok, i) => scored(`t${i + 1}:1`, { exact: [ok ? 1 : 0, ok] }))),
        file("b.jsonl", before.map((ok, i) => scored(`t${i + 1}:1`, { exact: [ok ? 1 : 0, ok] })))
      )
      assert.strictEqual(same.scorers[0].mcnemar_p, 1)
      assert.strictEqual(same.pass_at_1.mcnemar_p, 1)
    }))

  it.live("Holm over the judged scorers: a drop whose own interval is below 0 is no regression among 3 scorers", () =>
    Effect.gen(function*() {
      // exact per task a, b, c: 1 -> 0.5, 1 -> 0, 1 -> 0: d = -0.5 -1 -1, d̄ -5/6, s² = 1/12, SE 1/6,
      // t = -5 on 2 df; closed form for 2 df: p = 1 - |t|/√(t² + 2) = 1 - 5/√27 = 0.03774955135...
      // Its interval [-1.5504, -0.1162] lies below 0: verdict regressed. judge and style do not move
      // (p = 1). Holm over m = 3: 3·0.03775 = 0.11325 > 0.05: not in `regressed`. With exact alone
      // (m = 1) p_holm = p < 0.05: regressed.
      const tasks = ["a", "b", "c"]
      const trials = (values: ReadonlyArray<number>, names: ReadonlyArray<string>) =>
        tasks.map((t, i) =>
          scored(`${t}:1`, {
            exact: [values[i], values[i] === 1],
            ...Object.fromEntries(names.map((n) => [n, [0.5, true] as const]))
          })
        )
      const three = yield* compare(
        file("a.jsonl", trials([1, 1, 1], ["judge", "style"])),
        file("b.jsonl", trials([0.5, 0, 0], ["judge", "style"]))
      )
      const [exact, judge] = three.scorers
      const p = 1 - 5 / Math.sqrt(27)
      close(exact.p_value, p, "exact p")
      close(exact.p_holm, 3 * p, "exact p_holm")
      assert.strictEqual(judge.p_value, 1)
      assert.strictEqual(judge.p_holm, 1)
      assert.strictEqual(exact.verdict, "regressed")
      assert.deepStrictEqual(three.judged, ["exact", "judge", "style"])
      assert.deepStrictEqual(three.regressed, [])
      assert.include(Compare.format(three), "no scorer regressed (3 scorers judged;")

      const one = yield* compare(file("a.jsonl", trials([1, 1, 1], [])), file("b.jsonl", trials([0.5, 0, 0], [])))
      close(one.scorers[0].p_holm, p, "p_holm, m = 1")
      assert.deepStrictEqual(one.regressed, ["exact"])
    }))

  it.live("one scorer: Holm's regressed is the interval's verdict regressed, on 40 random pairs of files", () =>
    Effect.gen(function*() {
      let seed = 23
      const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
      let regressions = 0
      for (let round = 0; round < 40; round++) {
        const n = 3 + Math.floor(random() * 15)
        const drop = random() * 0.5
        const values = (shift: number) =>
          Array.from({ length: n }, (_, i) => {
            const v = Math.min(1, Math.max(0, 0.6 + (random() - 0.5) * 0.6 - shift))
            return scored(`t${i}:1`, { sim: [v, v >= 0.5] })
          })
        const c = yield* compare(file("a.jsonl", values(0)), file("b.jsonl", values(drop)))
        const s = c.scorers[0]
        assert.strictEqual(c.regressed.includes("sim"), s.verdict === "regressed", `round ${round}: p ${s.p_value}, ci ${s.ci95}`)
        assert.strictEqual(s.p_holm, s.p_value)
        if (s.verdict === "regressed") regressions++
      }
      assert.isAbove(regressions, 5)
      assert.isBelow(regressions, 35)
    }))
})

describe("Compare.format and Compare.toHtml", () => {
  it.live("text: the table row, pass@1, flips capped at 10 with the rest counted; HTML: self-contained", () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: 13 }, (_, i) => `t${i}`)
      const c = yield* compare(
        file("a.jsonl", ids.map((t) => scored(`${t}:1`, { exact: [1, true] }))),
        file("b.jsonl", ids.map((t, i) => scored(`${t}:1`, { exact: i < 12 ? [0, false] : [1, true] })))
      )
      // d = -1 twelve times and 0 once: d̄ = -12/13.
      const text = Compare.format(c)
      // p = 2·t.sf(12, 12) = 4.835928486645684e-08 (scipy; t = -(12/13)/(√(1/13)/√13) = -12); McNemar
      // on 12 pass -> fail and none back: 2·2^-12 = 0.00048828125.
      assert.match(text, /^ {2}exact {3}13 {6}1\.0000 {2}0\.0769 {2}-0\.9231 {2}\[-1\.\d{4}, -0\.\d{4}\] {2}4\.8e-8 {2}4\.8e-8 {2}0\.0005 {5}regressed$/m)
      close(c.scorers[0].p_value, 4.835928486645684e-08, "p")
      close(c.scorers[0].mcnemar_p, 0.00048828125, "McNemar")
      assert.include(text, "McNemar exact p 0.0005")
      assert.include(text, "pass -> fail (every trial passed before, not after): 12 tasks: t0, t1, t2, t3, t4, t5, t6, t7, t8,\n    t9 and 2 more")
      assert.include(text, "pass@1 (a trial passes when every shared scorer passed): 1.0000 -> 0.0769 over 13 paired tasks")
      assert.include(text, "regressed (delta < 0 and Holm-adjusted p < 0.05, 1 scorer judged, family-wise 5%): exact")
      assert.strictEqual(c.flips.pass_to_fail.length, 12)

      const html = Compare.toHtml(c)
      assert.isTrue(html.startsWith("<!doctype html>"))
      assert.include(html, "<svg")
      // The axis of the changes reaches 0, with a labelled tick there.
      assert.match(html, /<text x="[\d.]+" y="[\d.]+" text-anchor="middle">0<\/text>/)
      assert.include(html, "t11")
      // No request leaves the page: no src or href, and a policy that forbids them.
      assert.notMatch(html, /\s(src|href)=/)
      assert.include(html, "default-src 'none'")
      const json = /<script type="application\/json" id="comparison">([^<]*)<\/script>/.exec(html)
      assert.isNotNull(json)
      assert.deepStrictEqual(JSON.parse(json![1]), JSON.parse(JSON.stringify(c)))
    }))

  it.live("id lists break between ids: text lines of at most 100 columns, cut after a comma; HTML ids in boxes of their own", () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: 13 }, (_, i) => `task-with-a-rather-long-name-${i}`)
      const c = yield* compare(
        file("a.jsonl", [...ids.map((t) => scored(`${t}:1`, { exact: [1, true] })), ...ids.slice(0, 4).map((t) => scored(`base-only-${t}:1`, { exact: [1, true] }))]),
        file("b.jsonl", ids.map((t) => scored(`${t}:1`, { exact: [0, false] })))
      )
      const lines = Compare.format(c).split("\n")
      const start = lines.findIndex((l) => l.startsWith("  pass -> fail"))
      const end = lines.findIndex((l, i) => i > start && !l.startsWith("    "))
      const list = lines.slice(start, end)
      assert.isAtLeast(list.length, 3, list.join("\n"))
      for (const l of list) assert.isAtMost(l.length, 100, l)
      // Every shown id whole on one line: each line ends at a comma, the last id or "and N more".
      const shown = list.join(" ").split(/,? +/)
      for (const id of ids.slice(0, 10)) assert.include(shown, id)
      for (const l of list.slice(0, -1)) assert.match(l, /(,|-9)$/, l)
      assert.match(list.at(-1)!, /^ {4}.*and 3 more$/)
      assert.include(list.join("\n"), "task-with-a-rather-long-name-9")
      const only = lines.filter((l) => l.startsWith("  only in base") || (l.startsWith("    ") && l.includes("base-only-")))
      assert.strictEqual(only.join(" ").match(/base-only-task-with-a-rather-long-name-\d/g)?.length, 4)
      for (const l of only) assert.isAtMost(l.length, 100, l)

      const html = Compare.toHtml(c)
      for (const id of ids) assert.include(html, `<span class="id">${id}</span>`)
      assert.include(html, `<span class="id">${ids[0]}</span>, <span class="id">${ids[1]}</span>`)
      assert.include(html, ".ids .id{display:inline-block;max-width:100%;overflow-wrap:anywhere}")
    }))

  it.live("the verdict says improved when a scorer improved: the page's card and the text; regressed wins; else no significant change", () =>
    Effect.gen(function*() {
      const ids = Array.from({ length: 6 }, (_, i) => `t${i}`)
      const worse = file("worse.jsonl", ids.map((t) => scored(`${t}:1`, { exact: [0, false], sim: [0.5, true] })))
      const better = file("better.jsonl", ids.map((t) => scored(`${t}:1`, { exact: [1, true], sim: [0.5, true] })))
      const card = (html: string) => /<div class="label">verdict<\/div><div class="value">([^<]*)<\/div>(?:<div class="note">([^<]*)<\/div>)?/.exec(html)
      const up = yield* compare(worse, better)
      assert.deepStrictEqual(up.scorers.map((s) => s.verdict), ["improved", "no_significant_change"])
      const upCard = card(Compare.toHtml(up))
      assert.deepStrictEqual([upCard?.[1], upCard?.[2]], ["improved", "exact"])
      assert.include(Compare.toHtml(up), `<div class="stat good"><div class="label">verdict</div>`)
      const upText = Compare.format(up)
      assert.include(upText, "  improved (95% CI of the change wholly above 0): exact\n")
      assert.match(upText, /no scorer regressed \(2 scorers judged; a regression needs delta < 0 and a Holm-adjusted p < 0.05, family-wise 5%\)$/)

      const down = yield* compare(better, worse)
      assert.deepStrictEqual(card(Compare.toHtml(down))?.slice(1), ["regressed", "exact"])
      assert.notInclude(Compare.format(down), "  improved (")

      const same = yield* compare(better, better)
      const sameCard = card(Compare.toHtml(same))
      assert.strictEqual(sameCard?.[1], "no significant change")
      assert.notInclude(Compare.toHtml(same), "no regression")
    }))

  it.live("HTML: bidi and control characters in task ids, scorer names and file names show as code points, never raw", () =>
    Effect.gen(function*() {
      const RLO = "\u202e"
      const c = yield* compare(
        file(`base${RLO}.jsonl`, [scored(`inv${RLO}gnp.exe:1`, { [`ex${RLO}`]: [1, true] }), scored(`a\u0007:1`, { [`ex${RLO}`]: [1, true] })]),
        file("new.jsonl", [scored(`inv${RLO}gnp.exe:1`, { [`ex${RLO}`]: [0, false] }), scored(`a\u0007:1`, { [`ex${RLO}`]: [1, true] }), scored(`new\u2066:1`, { [`ex${RLO}`]: [1, true] })])
      )
      const html = Compare.toHtml(c)
      assert.notMatch(html, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/)
      // The flipped task, the task only in new, the scorer (table and chart) and the base file.
      assert.include(html, `inv<span class="ctl">&lt;U+202E&gt;</span>gnp.exe`)
      assert.include(html, `new<span class="ctl">&lt;U+2066&gt;</span>`)
      assert.include(html, `<td>ex<span class="ctl">&lt;U+202E&gt;</span></td>`)
      assert.include(html, `>ex&lt;U+202E&gt;</text>`)
      assert.include(html, `base<span class="ctl">&lt;U+202E&gt;</span>.jsonl`)
      // The data block keeps the values (escaped as JSON).
      const json = /<script type="application\/json" id="comparison">([^<]*)<\/script>/.exec(html)![1]!
      assert.deepStrictEqual(JSON.parse(json).flips.pass_to_fail, [`inv${RLO}gnp.exe`])
    }))
})

/** The trial with these extra metadata fields (what `run --group-by` / `--stderr-cluster` writes). */
const withMetadata = (trial: AgentEvalTrial, extra: Record<string, unknown>): AgentEvalTrial => ({
  ...trial,
  metadata: { ...trial.metadata, ...extra }
})
// A sim score, passed at 0.5 and up.
const sim = (id: string, value: number) => scored(id, { sim: [value, value >= 0.5] })

// CR1 by its formula, apart from Clustered.accumulator: sqrt(G/(G-1)·Σ_g (Σ_{i∈g} (d_i - d̄))²) / n.
const cr1 = (d: ReadonlyArray<number>, clusters: ReadonlyArray<string>): number => {
  const n = d.length
  const mean = d.reduce((a, b) => a + b, 0) / n
  const sums = new Map<string, number>()
  d.forEach((x, i) => sums.set(clusters[i], (sums.get(clusters[i]) ?? 0) + x - mean))
  const g = sums.size
  let squares = 0
  for (const s of sums.values()) squares += s * s
  return Math.sqrt(g / (g - 1) * squares) / n
}

describe("Compare: groups (metadata.groups)", () => {
  // sim per task (one epoch), base -> new, its category and level (a number, as text "1"):
  //   t1 math 1   1.0 -> 0.5  d -0.5   pass 1 -> 1 (0.5 passes)
  //   t2 math 1   0.8 -> 0.6  d -0.2   pass 1 -> 1
  //   t3 math 1   0.6 -> 0.0  d -0.6   pass 1 -> 0
  //   t4 prose 2  0.4 -> 0.8  d +0.4   pass 0 -> 1
  //   t5 prose 2  0.5 -> 0.7  d +0.2   pass 1 -> 1   (the new file puts it in math: counted in prose)
  //   t6 null 2   0.9 -> 0.9  d  0     pass 1 -> 1
  //   t7 math     only in base: not paired, in no group.
  // math: n 3, base 2.4/3 = 0.8, new 1.1/3, d̄ = -1.3/3; deviations -1/15, 7/30, -1/6, Σ² = 13/150,
  //   s² = 13/300, SE = √(13/900) = √13/30; t = -(13/30)/(√13/30) = -√13 on 2 df, closed form for 2 df:
  //   p = 1 - |t|/√(t² + 2) = 1 - √(13/15) = 0.06905066374873725 (scipy 2·t.sf(√13, 2) agrees);
  //   t(0.975, 2) = 4.30265273.
  // prose: n 2, base 0.45, new 0.75, d̄ 0.3, deviations ±0.1, s² 0.02, SE 0.1, t = 3 on 1 df:
  //   p = 1 - 2·atan(3)/π = 0.20483276469913347; t(0.975, 1) = 12.706204736174694.
  // (missing): t6 alone: n 1, delta 0, no SE, no interval, no p.
  // pass@1 (every shared scorer, sim): math 3/3 -> 2/3 (t3 fails), d = 0 0 -1: d̄ -1/3, s² = 1/3,
  //   SE = 1/3, t = -1 on 2 df: p = 1 - 1/√(1 + 2) = 1 - 1/√3; prose 1/2 -> 2/2, d = 1 0: d̄ 0.5, SE 0.5, t = 1 on
  //   1 df: p = 0.5; (missing) 1 -> 1.
  // level "1" is math's tasks (same figures); level "2" is t4 t5 t6: d = .4 .2 0, d̄ .2, s² .04, SE √(.04/3).
  const values: ReadonlyArray<readonly [string, number, number, string | null, number]> = [
    ["t1", 1, 0.5, "math", 1],
    ["t2", 0.8, 0.6, "math", 1],
    ["t3", 0.6, 0, "math", 1],
    ["t4", 0.4, 0.8, "prose", 2],
    ["t5", 0.5, 0.7, "prose", 2],
    ["t6", 0.9, 0.9, null, 2]
  ]
  const grouped = (side: "base" | "new") =>
    values.map(([t, before, after, category, level]) =>
      withMetadata(sim(`${t}:1`, side === "base" ? before : after), {
        groups: { category: side === "new" && t === "t5" ? "math" : category, level: JSON.stringify(level) }
      })
    )
  const baseFile = () =>
    file("base.jsonl", [...grouped("base"), withMetadata(sim("t7:1", 1), { groups: { category: "math", level: "1" } })])

  it.live("per path and value, the paired change of each scorer and of pass@1, hand-computed; a task in its base group", () =>
    Effect.gen(function*() {
      const c = yield* compare(baseFile(), file("new.jsonl", grouped("new")))
      assert.deepStrictEqual(Object.keys(c.groups), ["category", "level"])
      assert.deepStrictEqual(Object.keys(c.groups.category), ["math", "prose", "(missing)"])
      assert.deepStrictEqual(Object.keys(c.groups.level), ["1", "2"])

      const math = c.groups.category.math
      assert.strictEqual(math.tasks, 3)
      const m = math.scorers.sim
      assert.deepInclude(m, { n: 3, df: 2, clusters: null })
      close(m.base_mean, 0.8, "math base")
      close(m.new_mean, 1.1 / 3, "math new")
      close(m.delta, -1.3 / 3, "math delta")
      close(m.standard_error, Math.sqrt(13) / 30, "math SE")
      closeInterval(m.ci95, [-1.3 / 3 - 4.30265273 * Math.sqrt(13) / 30, -1.3 / 3 + 4.30265273 * Math.sqrt(13) / 30], "math ci95")
      close(m.p_value, 0.06905066374873725, "math p")
      assert.deepInclude(math.pass_at_1, { tasks: 3 })
      close(math.pass_at_1.base, 1, "math pass@1 base")
      close(math.pass_at_1.new, 2 / 3, "math pass@1 new")
      close(math.pass_at_1.delta, -1 / 3, "math pass@1 delta")
      close(math.pass_at_1.standard_error, 1 / 3, "math pass@1 SE")
      close(math.pass_at_1.p_value, 1 - 1 / Math.sqrt(3), "math pass@1 p")

      // t5 is counted in prose (its base group), though the new file puts it in math.
      const prose = c.groups.category.prose
      assert.strictEqual(prose.tasks, 2)
      const p = prose.scorers.sim
      assert.deepInclude(p, { n: 2, df: 1 })
      close(p.base_mean, 0.45, "prose base")
      close(p.new_mean, 0.75, "prose new")
      close(p.delta, 0.3, "prose delta")
      close(p.standard_error, 0.1, "prose SE")
      closeInterval(p.ci95, [0.3 - 12.706204736174694 * 0.1, 0.3 + 12.706204736174694 * 0.1], "prose ci95")
      close(p.p_value, 0.20483276469913347, "prose p")
      close(prose.pass_at_1.delta, 0.5, "prose pass@1 delta")
      close(prose.pass_at_1.p_value, 0.5, "prose pass@1 p")

      const missing = c.groups.category["(missing)"]
      assert.deepStrictEqual(missing.scorers.sim, {
        n: 1,
        base_mean: 0.9,
        new_mean: 0.9,
        delta: 0,
        standard_error: null,
        df: null,
        ci95: null,
        p_value: null,
        clusters: null
      })
      assert.deepInclude(missing.pass_at_1, { tasks: 1, base: 1, new: 1, delta: 0, ci95: null, p_value: null })

      assert.deepStrictEqual(c.groups.level["1"], math)
      close(c.groups.level["2"].scorers.sim.delta, 0.2, "level 2 delta")
      close(c.groups.level["2"].scorers.sim.standard_error, Math.sqrt(0.04 / 3), "level 2 SE")

      assert.include(
        c.notes,
        `group by category: 1 paired task is in another group in ${c.new.file} than in ${c.base.file}: ` +
          `each is counted in its group in ${c.base.file} (its first trial there)`
      )
      // The whole comparison is as without groups: d over the 6 paired tasks.
      close(c.scorers[0].delta, -0.7 / 6, "overall delta")
      assert.strictEqual(c.stderr_cluster, null)
    }))

  it.live("text: a table per path, a row per measure and pass@1, largest groups first, capped at 50 values; HTML: a section per path", () =>
    Effect.gen(function*() {
      const c = yield* compare(baseFile(), file("new.jsonl", grouped("new")))
      const text = Compare.format(c)
      assert.include(
        text,
        "  by category: 3 values (a task in its group in base; per-group p not corrected for the many groups, and no gate)\n" +
          "    value      tasks  measure  paired  base    new     delta    95% CI              p\n" +
          "    math       3      sim      3       0.8000  0.3667  -0.4333  [-0.9504, +0.0838]  0.0691\n" +
          "                      pass@1   3       1.0000  0.6667  -0.3333  [-1.7676, +1.1009]  0.4226\n" +
          "    prose      2      sim      2       0.4500  0.7500  +0.3000  [-0.9706, +1.5706]  0.2048\n" +
          "                      pass@1   2       0.5000  1.0000  +0.5000  [-5.8531, +6.8531]  0.5000\n" +
          "    (missing)  1      sim      1       0.9000  0.9000  0.0000   -                   -\n" +
          "                      pass@1   1       1.0000  1.0000  0.0000   -                   -\n"
      )
      assert.include(text, "  by level: 2 values")

      const html = Compare.toHtml(c)
      assert.include(html, "<h2>By category (3 values)</h2>")
      assert.include(html, "<td>prose</td><td class=\"num\">2</td><td>sim</td>")
      assert.include(html, "not corrected for the many groups, and gate nothing")

      // 60 values of one group each: 50 shown, the rest counted.
      const many = Array.from({ length: 60 }, (_, i) => `t${i}`)
      const wide = yield* compare(
        file("a.jsonl", many.map((t, i) => withMetadata(sim(`${t}:1`, 1), { groups: { id: `v${i}` } }))),
        file("b.jsonl", many.map((t) => sim(`${t}:1`, 0)))
      )
      const lines = Compare.format(wide).split("\n")
      assert.strictEqual(lines.filter((l) => /^ {4}v\d+ /.test(l)).length, 50)
      assert.include(lines, "    and 10 more values in --json")
      assert.strictEqual(Object.keys(wide.groups.id).length, 60)
    }))

  it.live("without metadata.groups: groups {} and no group table", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", baseTrials), file("new.jsonl", newTrials))
      assert.deepStrictEqual(c.groups, {})
      assert.notInclude(Compare.format(c), "  by ")
      assert.notInclude(Compare.toHtml(c), "<h2>By ")
    }))

  it.live("a metadata.groups that is not an object of text values or nulls, or a bad stderr_cluster: refused with file and line", () =>
    Effect.gen(function*() {
      const good = file("good.jsonl", [sim("t1:1", 1)])
      const line2 = (extra: Record<string, unknown>) => file("bad.jsonl", [sim("t1:1", 1), withMetadata(sim("t2:1", 1), extra)])
      const number = line2({ groups: { category: 3 } })
      assert.strictEqual(
        yield* refusal(good, number),
        `${number}:2: metadata.groups["category"] must be the task's value as text or null, got 3`
      )
      const list = line2({ groups: ["math"] })
      assert.strictEqual(
        yield* refusal(list, good),
        `${list}:2: metadata.groups must be an object of PATH to the task's value as text or null, got ["math"]`
      )
      const cluster = line2({ stderr_cluster: { by: "passage" } })
      assert.strictEqual(
        yield* refusal(good, cluster),
        `${cluster}:2: metadata.stderr_cluster must be null or { "by": PATH, "value": text or null }, got {"by":"passage"}`
      )
    }))
})

describe("Compare: clustered standard errors (metadata.stderr_cluster)", () => {
  // sim per task, base -> new, and its passage (t7 has none: a cluster of its own):
  //   t1 A 1.0 -> 0.5 d -0.5   t2 A 0.8 -> 0.4 d -0.4   t3 B 0.6 -> 0.6 d 0   t4 B 0.5 -> 0.3 d -0.2
  //   t5 B 0.9 -> 0.6 d -0.3   t6 C 0.7 -> 0.8 d +0.1   t7 null 0.4 -> 0.2 d -0.2
  // n 7, G 4, d̄ = -1.5/7. CR1 by the formula (cr1 above; numpy 2.4.6 on this machine gives
  // 0.0964164229470834); p = 2·t.sf(|d̄|/SE, 3) = 0.11278019742930577, mde80 = (t.ppf(0.975, 3) +
  // t.ppf(0.8, 3))·SE = 0.40118088928744794, design effect (SE/(s/√7))² = 1.4537559704732963,
  // t(0.975, 3) = 3.1824463052837078 (scipy 1.17.1).
  // pass@1 (passed at 0.5 and up): d = 0 -1 0 -1 0 0 0: CR1 0.0999791731748236, p 0.0646968421951495.
  const rows: ReadonlyArray<readonly [string, number, number, string | null]> = [
    ["t1", 1, 0.5, "A"],
    ["t2", 0.8, 0.4, "A"],
    ["t3", 0.6, 0.6, "B"],
    ["t4", 0.5, 0.3, "B"],
    ["t5", 0.9, 0.6, "B"],
    ["t6", 0.7, 0.8, "C"],
    ["t7", 0.4, 0.2, null]
  ]
  const d = rows.map(([, x, y]) => y - x)
  const keys = rows.map(([t, , , g]) => g ?? t)
  const trials = (side: "base" | "new", by: string | null = "passage") =>
    rows.map(([t, before, after, passage]) =>
      withMetadata(sim(`${t}:1`, side === "base" ? before : after), {
        stderr_cluster: by === null ? null : { by, value: by === "task" ? t : passage }
      })
    )

  it.live("both files cluster by one PATH: CR1 over G clusters, t on G - 1 df, for the scorer and pass@1", () =>
    Effect.gen(function*() {
      const c = yield* compare(file("base.jsonl", trials("base")), file("new.jsonl", trials("new")))
      assert.strictEqual(c.stderr_cluster, "passage")
      const [s] = c.scorers
      assert.deepInclude(s, { n: 7, df: 3, clusters: 4 })
      const se = cr1(d, keys)
      close(se, 0.0964164229470834, "CR1 by the formula against numpy")
      close(s.delta, -1.5 / 7, "delta")
      close(s.standard_error, se, "clustered SE")
      closeInterval(s.ci95, [-1.5 / 7 - 3.1824463052837078 * se, -1.5 / 7 + 3.1824463052837078 * se], "ci95")
      close(s.p_value, 0.11278019742930577, "p on 3 df")
      close(s.p_holm, 0.11278019742930577, "p_holm, one scorer")
      close(s.mde80, 0.40118088928744794, "mde80 on 3 df")
      close(s.design_effect, 1.4537559704732963, "design effect")
      // McNemar stays on tasks: t2 and t4 passed only before, none only after: 2·2^-2 = 0.5.
      close(s.mcnemar_p, 0.5, "McNemar")
      close(c.pass_at_1.delta, -2 / 7, "pass@1 delta")
      const passSe = cr1([0, -1, 0, -1, 0, 0, 0], keys)
      close(passSe, 0.0999791731748236, "pass@1 CR1 against numpy")
      closeInterval(c.pass_at_1.ci95, [-2 / 7 - 3.1824463052837078 * passSe, -2 / 7 + 3.1824463052837078 * passSe], "pass@1 ci95")
      close(c.pass_at_1.p_value, 0.0646968421951495, "pass@1 p")
      assert.include(
        Compare.format(c),
        "\n  standard errors clustered by passage: CR1 over the clusters of paired tasks; intervals, p and MDE on t " +
          "with clusters - 1 df\n    sim: 4 clusters, design effect 1.45\n"
      )
      const html = Compare.toHtml(c)
      assert.include(html, "Standard errors are clustered by passage")
      assert.include(html, `<th class="num">design effect</th>`)

      // Unclustered, the same differences on 6 df: another SE (s/√7), no clusters.
      const plain = yield* compare(file("base.jsonl", trials("base", null)), file("new.jsonl", trials("new", "task")))
      assert.strictEqual(plain.stderr_cluster, null)
      assert.deepInclude(plain.scorers[0], { df: 6, clusters: null, design_effect: null })
      close(plain.scorers[0].standard_error, 0.0964164229470834 / Math.sqrt(1.4537559704732963), "iid SE")
      assert.deepStrictEqual(plain.notes, [])
    }))

  it.live("groups under clustering: each group's change on its own clusters", () =>
    Effect.gen(function*() {
      // kind x: t1..t4 (clusters A, A, B, B: G 2, 1 df); kind y: t5..t7 (B, C, t7: G 3).
      const kinds = (side: "base" | "new") =>
        trials(side).map((t, i) => withMetadata(t, { groups: { kind: i < 4 ? "x" : "y" } }))
      const c = yield* compare(file("base.jsonl", kinds("base")), file("new.jsonl", kinds("new")))
      const x = c.groups.kind.x.scorers.sim
      assert.deepInclude(x, { n: 4, df: 1, clusters: 2 })
      close(x.standard_error, cr1(d.slice(0, 4), keys.slice(0, 4)), "x CR1")
      const y = c.groups.kind.y.scorers.sim
      assert.deepInclude(y, { n: 3, df: 2, clusters: 3 })
      close(y.standard_error, cr1(d.slice(4), keys.slice(4)), "y CR1")
    }))

  it.live("the files disagree (another PATH, or none): tasks are the unit, and a note names both", () =>
    Effect.gen(function*() {
      const a = file("base.jsonl", trials("base"))
      const other = file("new.jsonl", trials("new", "topic"))
      const c = yield* compare(a, other)
      assert.strictEqual(c.stderr_cluster, null)
      assert.deepInclude(c.scorers[0], { df: 6, clusters: null, design_effect: null })
      assert.include(
        c.notes,
        `standard errors not clustered: the files cluster them differently (metadata.stderr_cluster: ` +
          `${a} by passage, ${other} by topic); tasks are the unit`
      )
      const none = file("none.jsonl", trials("new").map((t) => ({ ...t, metadata })))
      const d2 = yield* compare(a, none)
      assert.strictEqual(d2.stderr_cluster, null)
      assert.include(d2.notes.join("\n"), `${a} by passage, ${none} by none); tasks are the unit`)
      // One file's own records disagree (a resumed run of an older version): not clustered either.
      const mixed = file("mixed.jsonl", [...trials("new").slice(0, 6), { ...trials("new")[6], metadata }])
      const d3 = yield* compare(a, mixed)
      assert.strictEqual(d3.stderr_cluster, null)
      assert.include(d3.notes.join("\n"), `${mixed} by passage, none (its records disagree)`)
    }))

  it.live("one cluster: no clustered interval, no p, no verdict, and the reason says clusters", () =>
    Effect.gen(function*() {
      const one = (side: "base" | "new") =>
        trials(side).map((t) => withMetadata(t, { stderr_cluster: { by: "passage", value: "A" } }))
      const c = yield* compare(file("base.jsonl", one("base")), file("new.jsonl", one("new")))
      assert.deepInclude(c.scorers[0], {
        n: 7,
        clusters: 1,
        standard_error: null,
        ci95: null,
        df: null,
        p_value: null,
        mde80: null,
        verdict: "no_verdict",
        reason: "7 paired tasks with a value in both files, in 1 cluster of passage: a clustered interval needs at least 2 clusters"
      })
      assert.deepStrictEqual(c.judged, [])
    }))

  it.live("a task in another cluster in the new file: the base file's value is used, and noted", () =>
    Effect.gen(function*() {
      const moved = trials("new").map((t) =>
        t.task_id === "t6" ? withMetadata(t, { stderr_cluster: { by: "passage", value: "A" } }) : t
      )
      const c = yield* compare(file("base.jsonl", trials("base")), file("new.jsonl", moved))
      assert.deepInclude(c.scorers[0], { clusters: 4 })
      close(c.scorers[0].standard_error, 0.0964164229470834, "SE on the base file's clusters")
      assert.isTrue(c.notes.some((n) => n.startsWith("stderr_cluster by passage: 1 paired task has another cluster value")))
    }))
})

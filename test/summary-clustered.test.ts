/**
 * The summary's clustered figures (issue 21, items 1 to 3): CR1 standard
 * errors and t intervals on G - 1, the design effects, Wilson on n_eff,
 * clustering read off the records (`metadata.stderr_cluster`), breakdowns by
 * `metadata.groups`, and pass@k / pass^k at the k asked for.
 *
 * Reference values were computed outside this code, with numpy 2 and scipy
 * 1.17.1 on this machine:
 *
 *   def cr1(x, g):  # x values, g cluster labels
 *       m = x.mean(); G = len(set(g))
 *       S = [(x[g == k] - m).sum() for k in sorted(set(g))]
 *       se = sqrt(G / (G - 1) * sum(s**2 for s in S)) / len(x)
 *       deff = (se / (x.std(ddof=1) / sqrt(len(x))))**2
 *       ci = m -/+ scipy.stats.t.ppf(0.975, G - 1) * se
 *   wilson(p, n): the textbook Wilson score interval, z = norm.ppf(0.975)
 */
import { assert, describe, it } from "@effect/vitest"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Summary from "../src/summary/Summary.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"

const at = "2026-01-01T00:00:00.000Z"

const trial = (
  taskId: string,
  epoch: number,
  value: number | "failed",
  labels: Record<string, unknown> = {}
): AgentEvalTrial => ({
  id: `${taskId}:${epoch}`,
  task_id: taskId,
  ...(value === "failed"
    ? { status: "failed" as const, error: { type: "AgentError", message: "x", occurred_at: at } }
    : { status: "completed" as const, output: { output_text: "y" }, scores: { exact: { value, passed: value === 1 } } }),
  metadata: { started_at: at, finished_at: at, latency_ms: 1, epoch, ...labels }
})

const make = (acc: Summary.Accumulator, passK?: ReadonlyArray<number>) =>
  Summary.make({
    runId: "r",
    resultsFile: "f",
    outcome: "finished",
    acc,
    probe: new MutableProbe().snapshot(),
    wallMs: 1000,
    parallelism: 2,
    passK
  })

// 3 tasks x 2 epochs: a passes both, b passes one and fails one (a failed
// trial), c gets 0 twice.
const sixTrials = (labels: (task: string) => Record<string, unknown> = () => ({})) => [
  trial("a", 1, 1, labels("a")),
  trial("a", 2, 1, labels("a")),
  trial("b", 1, 1, labels("b")),
  trial("b", 2, "failed", labels("b")),
  trial("c", 1, 0, labels("c")),
  trial("c", 2, 0, labels("c"))
]

describe("clustered by task (epochs > 1)", () => {
  it("CR1 standard error, t interval on G - 1, design effects and Wilson on n_eff match numpy/scipy", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials()) acc.add(t)
    const s = make(acc).scoring!
    const exact = s.scorers["exact"]!
    // values 1,1 | 1 | 0,0 in clusters a, b, c: cr1 -> se 0.36660605559646725,
    // ci (-0.9773785458548229, 2.1773785458548227), deff 2.24.
    assert.strictEqual(s.stderr_cluster, "task")
    assert.strictEqual(exact.mean, 0.6)
    assert.strictEqual(exact.standard_error, 0.3666)
    assert.deepStrictEqual(exact.ci95, [-0.9774, 2.1774])
    assert.strictEqual(exact.clusters, 3)
    assert.strictEqual(exact.design_effect, 2.24)
    // iid: sd(1,1,1,0,0) / sqrt(5) = 0.5477 / 2.2361
    assert.strictEqual(exact.iid_standard_error, 0.2449)
    // Pass indicators 1,1 | 1,0 | 0,0: deff 1.6666666666666665, so n_eff = 6 / 1.667 = 3.6 and
    // Wilson(0.5, 3.6) = (0.14075638831899123, 0.8592436116810087).
    assert.strictEqual(exact.pass_rate_design_effect, 1.6667)
    assert.deepStrictEqual(exact.pass_rate_ci95, [0.1408, 0.8592])
    assert.deepStrictEqual(s.pass_rate_ci95, [0.1408, 0.8592])
    assert.strictEqual(s.pass_rate_design_effect, 1.6667)
    assert.strictEqual(s.clusters, 3)
    // Unclustered (iid Wilson on n = 6) it would be narrower: the check would fail without n_eff.
    const iid = new Summary.Accumulator(2, { scorers: ["exact"], stderrCluster: null })
    for (const t of sixTrials()) iid.add(t)
    const flat = make(iid).scoring!
    assert.strictEqual(flat.stderr_cluster, null)
    assert.strictEqual(flat.scorers["exact"]!.clusters, null)
    assert.strictEqual(flat.scorers["exact"]!.design_effect, null)
    assert.strictEqual(flat.scorers["exact"]!.standard_error, 0.2449)
    // Wilson(3, 6) = (0.18761, 0.81239)
    assert.deepStrictEqual(flat.scorers["exact"]!.pass_rate_ci95, [0.1876, 0.8124])
  })

  it("the text says how the errors are clustered and gives the design effects", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials()) acc.add(t)
    const text = Summary.format(make(acc))
    assert.include(text, "standard errors: clustered by task (its epochs) over 3 clusters")
    assert.include(text, "mean 0.6 ± 0.3666 (95% CI [-0.9774, 2.1774], design effect 2.24)")
    assert.include(text, "pass rate 0.5 (95% Wilson CI [0.1408, 0.8592], design effect 1.6667)")
  })

  it("a task's cluster is closed once its epochs are in: memory stays with the tasks in flight", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (let i = 0; i < 1000; i++) {
      acc.add(trial(`t${i}`, 1, i % 3 === 0 ? 1 : 0))
      acc.add(trial(`t${i}`, 2, i % 3 === 0 ? 1 : 0))
    }
    assert.strictEqual(acc.scoring!.incompleteTasks, 0)
    const s = make(acc).scoring!
    assert.strictEqual(s.scorers["exact"]!.clusters, 1000)
    // Both epochs of a task agree: the design effect is about 2 (the epochs add nothing).
    assert.closeTo(s.scorers["exact"]!.design_effect!, 2, 0.01)
  })
})

describe("clustering read off the records", () => {
  const byPassage = (task: string) => ({
    epochs: 2,
    stderr_cluster: { by: "metadata.passage", value: task === "c" ? "Q" : "P" }
  })

  it("--stderr-cluster PATH on the records: clusters by its value, matching numpy/scipy", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials(byPassage)) acc.add(t)
    const s = make(acc).scoring!
    // values 1,1,1 | 0,0 in clusters P, Q: se 0.4800000000000001, ci (-5.498978273363854, 6.698978273363854),
    // deff 3.8400000000000007; pass indicators 1,1,1,0 | 0,0: deff 2.2222222222222223,
    // Wilson(0.5, 6 / 2.2222) = (0.11683944870324597, 0.883160551296754).
    assert.strictEqual(s.stderr_cluster, "metadata.passage")
    assert.strictEqual(s.scorers["exact"]!.clusters, 2)
    assert.strictEqual(s.scorers["exact"]!.standard_error, 0.48)
    assert.deepStrictEqual(s.scorers["exact"]!.ci95, [-5.499, 6.699])
    assert.strictEqual(s.scorers["exact"]!.design_effect, 3.84)
    assert.deepStrictEqual(s.pass_rate_ci95, [0.1168, 0.8832])
    assert.include(Summary.format(make(acc)), "standard errors: clustered by metadata.passage over 2 clusters")
  })

  it("a task without the PATH's value is a cluster of its own, never pooled with others", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    const labels = (task: string) => ({ stderr_cluster: { by: "metadata.passage", value: task === "c" ? "Q" : null } })
    for (const t of sixTrials(labels)) acc.add(t)
    // a and b have no value: their own clusters, so a, b, Q: the same figures as by task.
    const s = make(acc).scoring!
    assert.strictEqual(s.scorers["exact"]!.clusters, 3)
    assert.strictEqual(s.scorers["exact"]!.standard_error, 0.3666)
  })

  it("stderr_cluster null on the records (--stderr-cluster none) turns clustering off with epochs > 1", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials(() => ({ stderr_cluster: null }))) acc.add(t)
    const s = make(acc).scoring!
    assert.strictEqual(s.stderr_cluster, null)
    assert.strictEqual(s.scorers["exact"]!.standard_error, 0.2449)
    assert.include(Summary.format(make(acc)), "standard errors: not clustered")
  })
})

describe("groups (--group-by, on the records)", () => {
  it("per PATH, value and scorer: n, mean, interval and pass rate; a missing value is (missing)", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    const labels = (task: string) => ({ groups: { "metadata.subject": task === "a" ? "math" : task === "b" ? "math" : null } })
    for (const t of sixTrials(labels)) acc.add(t)
    const s = make(acc).scoring!
    const math = s.groups["metadata.subject"]!["math"]!["exact"]!
    const missing = s.groups["metadata.subject"]!["(missing)"]!["exact"]!
    // math: a (1, 1) and b (1, failed): 4 trials, 3 values of 1, 3 passed; clusters a, b.
    assert.strictEqual(math.trials, 4)
    assert.strictEqual(math.mean, 1)
    assert.strictEqual(math.pass_rate, 0.75)
    assert.strictEqual(math.clusters, 2)
    // (missing): c (0, 0).
    assert.strictEqual(missing.trials, 2)
    assert.strictEqual(missing.mean, 0)
    assert.strictEqual(missing.pass_rate, 0)
    const text = Summary.format(make(acc))
    assert.include(text, "group metadata.subject = math: exact mean 1 [1, 1], pass rate 0.75")
    assert.include(text, "group metadata.subject = (missing): exact mean 0")
  })

  it("a group value is shown on the terminal with its controls as code points: it cannot reorder or break lines", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials(() => ({ groups: { "metadata.subject": "gnp\u202e.exe\nscore exact: mean 1" } }))) acc.add(t)
    const text = Summary.format(make(acc))
    assert.include(text, "group metadata.subject = gnp<U+202E>.exe<U+000A>score exact: mean 1: exact mean")
    assert.notInclude(text, "\u202e")
  })

  it("no groups on the records: groups is {}", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials()) acc.add(t)
    assert.deepStrictEqual(make(acc).scoring!.groups, {})
  })
})

describe("pass@k at the k asked for", () => {
  it("estimates and t intervals over tasks for pass@k and pass^k; pass^1 is not printed twice", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact"] })
    for (const t of sixTrials()) acc.add(t)
    const s = make(acc, [1, 2])
    // Tasks pass 2, 1, 0 of 2: pass@1 per task 1, 0.5, 0 (mean 0.5, sd 0.5); pass@2: 1, 1, 0;
    // pass^2: 1, 0, 0. Interval: mean -/+ t(0.975, 2) sd / sqrt(3), t(0.975, 2) = 4.302652729911275.
    const p = s.scoring!.pass_at_k
    assert.deepStrictEqual(p.ks, [1, 2])
    assert.strictEqual(p.estimates["pass@1"], 0.5)
    assert.deepStrictEqual(p.ci95["pass@1"], [-0.7421, 1.7421])
    assert.strictEqual(p.estimates["pass@2"], 0.6667)
    assert.deepStrictEqual(p.ci95["pass@2"], [-0.7676, 2.1009])
    assert.strictEqual(p.estimates["pass^2"], 0.3333)
    assert.deepStrictEqual(p.ci95["pass^2"], [-1.1009, 1.7676])
    const text = Summary.format(s)
    assert.include(text, "pass@k counting passed trials: pass@1 0.5 [-0.7421, 1.7421], pass@2 0.6667 [-0.7676, 2.1009], pass^2 0.3333")
    assert.notInclude(text, "pass^1")
    // The default k: 1, min(5, K), K.
    assert.deepStrictEqual(make(acc).scoring!.pass_at_k.ks, [1, 2])
    assert.deepStrictEqual(Summary.defaultPassK(10), [1, 5, 10])
  })
})

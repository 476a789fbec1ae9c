/**
 * Issue 21 end to end, in child processes: 40 tasks x 4 epochs whose answers
 * depend strongly on the task (test/fixtures/agent-clustered.ts: most tasks
 * pass or fail on every epoch), so the 4 trials of a task are far from
 * independent. The clustered interval must be wider than the iid one by the
 * design effect, the figures must be those of an independent CR1 computed
 * here from the results file, and `run`, `score` and `compare` must give the
 * same figures from their JSON. Then the gates (`--fail-under`), the chosen
 * k (`--pass-k`), `--stderr-cluster PATH|none` and `--group-by`.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as StudentT from "../src/statistics/StudentT.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const AGENT = `module:${path.join(repoRoot, "test/fixtures/agent-clustered.ts")}#answer`
const DIFFICULTY = [0, 0.05, 0.95, 1, 0.5]
const SUBJECTS = ["math", "law", "art", "bio"]

const writeTasks = (dir: string) =>
  writeJsonl(
    path.join(dir, "tasks.jsonl"),
    Array.from({ length: 40 }, (_, i) => ({
      id: `q${i}`,
      inputs: { p: DIFFICULTY[i % 5] },
      reference: "yes",
      metadata: { subject: SUBJECTS[i % 4], passage: `p${Math.floor(i / 8)}` }
    }))
  )

const round4 = (x: number) => Math.round(x * 1e4) / 1e4

// CR1 by the formula, over the values of one scorer by cluster key, written
// here apart from src/statistics/Clustered.ts (two sums over the trials, not
// its one-pass shifted sums).
const cr1 = (values: ReadonlyArray<{ readonly x: number; readonly cluster: string }>) => {
  const n = values.length
  const mean = values.reduce((a, v) => a + v.x, 0) / n
  const sums = new Map<string, number>()
  for (const v of values) sums.set(v.cluster, (sums.get(v.cluster) ?? 0) + (v.x - mean))
  const g = sums.size
  const se = Math.sqrt(g / (g - 1) * [...sums.values()].reduce((a, s) => a + s * s, 0)) / n
  const sd = Math.sqrt(values.reduce((a, v) => a + (v.x - mean) ** 2, 0) / (n - 1))
  const iid = sd / Math.sqrt(n)
  const t = StudentT.quantile(0.975, g - 1)
  return { mean, se, iid, g, deff: (se / iid) ** 2, ci95: [mean - t * se, mean + t * se] }
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

const valuesOf = (trials: ReadonlyArray<AgentEvalTrial>, key: (t: AgentEvalTrial) => string) =>
  trials.map((t) => ({ x: t.scores!["exact"]!.value, cluster: key(t) }))

describe("40 tasks x 4 epochs with task-dependent answers", () => {
  it("clustered by task: wider than iid by the design effect; run, score and compare give the same figures", async () => {
    const dir = tempDir()
    const tasks = writeTasks(dir)
    const out = path.join(dir, "run.jsonl")
    const summaryFile = path.join(dir, "run.json")
    const ran = await run([
      "--tasks", tasks, "--agent", AGENT, "--epochs", "4", "--score", "exact", "--out", out,
      "--summary", summaryFile, "--no-progress", "--group-by", "metadata.subject"
    ])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const trials = readTrials(out)
    assert.strictEqual(trials.length, 160)
    // Every record says how its statistics are grouped.
    for (const t of trials) {
      assert.strictEqual(t.metadata["epochs"], 4)
      assert.deepStrictEqual(t.metadata["stderr_cluster"], { by: "task", value: t.task_id })
      assert.strictEqual((t.metadata["groups"] as Record<string, string>)["metadata.subject"], SUBJECTS[Number(t.task_id.slice(1)) % 4])
    }
    const s = readJson(summaryFile).scoring
    const exact = s.scorers.exact
    const reference = cr1(valuesOf(trials, (t) => t.task_id))
    assert.strictEqual(s.stderr_cluster, "task")
    assert.strictEqual(exact.clusters, 40)
    assert.strictEqual(exact.mean, round4(reference.mean))
    assert.strictEqual(exact.standard_error, round4(reference.se))
    assert.strictEqual(exact.iid_standard_error, round4(reference.iid))
    assert.deepStrictEqual(exact.ci95, reference.ci95.map(round4))
    assert.strictEqual(exact.design_effect, round4(reference.deff))
    // Strongly task-dependent answers: the epochs of a task mostly agree, DEFF well above 1 (at most 4).
    assert.isAbove(exact.design_effect, 2)
    assert.isAtMost(exact.design_effect, 4)
    // Wider than iid by the design effect: SE_clustered = SE_iid * sqrt(DEFF).
    assert.closeTo(exact.standard_error, exact.iid_standard_error * Math.sqrt(exact.design_effect), 2e-4)
    const iidHalfWidth = StudentT.quantile(0.975, 159) * reference.iid
    assert.isAbove((exact.ci95[1] - exact.ci95[0]) / 2, 1.4 * iidHalfWidth)
    // The pass rate's Wilson interval is on n_eff = 160 / DEFF of the pass indicators (here the same 0/1 values).
    assert.strictEqual(exact.pass_rate_design_effect, exact.design_effect)
    const neff = 160 / reference.deff
    const p = exact.passed / 160
    const z = 1.959963984540054
    const center = (p + z * z / (2 * neff)) / (1 + z * z / neff)
    const half = z * Math.sqrt(p * (1 - p) / neff + z * z / (4 * neff * neff)) / (1 + z * z / neff)
    assert.deepStrictEqual(exact.pass_rate_ci95, [round4(center - half), round4(center + half)])
    assert.deepStrictEqual(s.pass_rate_ci95, exact.pass_rate_ci95)
    assert.include(ran.stdout, "standard errors: clustered by task (its epochs) over 40 clusters")
    assert.include(ran.stdout, `design effect ${exact.design_effect}`)
    // Groups: math holds tasks 0, 4, 8, ...: its figures are a CR1 over its own trials.
    const math = cr1(valuesOf(trials.filter((t) => Number(t.task_id.slice(1)) % 4 === 0), (t) => t.task_id))
    // Keyed by the value's JSON text.
    assert.strictEqual(s.groups["metadata.subject"]["\"math\""].exact.mean, round4(math.mean))
    assert.strictEqual(s.groups["metadata.subject"]["\"math\""].exact.standard_error, round4(math.se))
    assert.include(ran.stdout, "group metadata.subject = \"math\": exact mean")

    // score: the same figures from the records alone (the run's epochs, clusters and groups are on them).
    const scoredSummary = path.join(dir, "score.json")
    const scored = await run(
      [out, "--score", "exact", "--tasks", tasks, "--out", path.join(dir, "scored.jsonl"), "--summary", scoredSummary],
      { command: "score" }
    )
    assert.strictEqual(scored.code, 0, describeResult(scored))
    const again = readJson(scoredSummary).scoring
    for (const key of ["scorers", "stderr_cluster", "clusters", "pass_rate_ci95", "pass_rate_design_effect", "pass_at_k", "groups"]) {
      assert.deepStrictEqual(again[key], s[key], `score's scoring.${key}`)
    }

    // compare: each file's own figures are the run summary's.
    const comparison = path.join(dir, "compare.json")
    const compared = await run([out, path.join(dir, "scored.jsonl"), "--json", comparison], { command: "compare" })
    assert.strictEqual(compared.code, 0, describeResult(compared))
    const c = readJson(comparison)
    for (const side of ["base", "new"]) {
      for (const key of ["scorers", "stderr_cluster", "clusters", "pass_rate_ci95", "pass_at_k", "groups"]) {
        assert.deepStrictEqual(c[side].scoring[key], s[key], `compare ${side}.scoring.${key}`)
      }
    }
  })

  it("--stderr-cluster none gives the iid figures; --stderr-cluster metadata.passage clusters by passage", async () => {
    const dir = tempDir()
    const tasks = writeTasks(dir)
    const flags = ["--tasks", tasks, "--agent", AGENT, "--epochs", "4", "--score", "exact", "--no-progress"]
    const none = await run([...flags, "--out", path.join(dir, "none.jsonl"), "--summary", path.join(dir, "none.json"), "--stderr-cluster", "none"])
    assert.strictEqual(none.code, 0, describeResult(none))
    const flat = readJson(path.join(dir, "none.json")).scoring
    const trials = readTrials(path.join(dir, "none.jsonl"))
    assert.isTrue(trials.every((t) => t.metadata["stderr_cluster"] === null))
    const reference = cr1(valuesOf(trials, (t) => t.task_id))
    assert.strictEqual(flat.stderr_cluster, null)
    assert.strictEqual(flat.scorers.exact.standard_error, round4(reference.iid))
    assert.strictEqual(flat.scorers.exact.clusters, null)
    assert.strictEqual(flat.scorers.exact.design_effect, null)
    assert.include(none.stdout, "standard errors: not clustered")

    const byPassage = await run([
      ...flags, "--out", path.join(dir, "passage.jsonl"), "--summary", path.join(dir, "passage.json"),
      "--stderr-cluster", "metadata.passage"
    ])
    assert.strictEqual(byPassage.code, 0, describeResult(byPassage))
    const passageTrials = readTrials(path.join(dir, "passage.jsonl"))
    const passage = readJson(path.join(dir, "passage.json")).scoring
    const reference5 = cr1(valuesOf(passageTrials, (t) => (t.metadata["stderr_cluster"] as { value: string }).value))
    assert.strictEqual(reference5.g, 5)
    assert.strictEqual(passage.stderr_cluster, "metadata.passage")
    assert.strictEqual(passage.scorers.exact.clusters, 5)
    assert.strictEqual(passage.scorers.exact.standard_error, round4(reference5.se))
    assert.deepStrictEqual(passage.scorers.exact.ci95, reference5.ci95.map(round4))
    // A resume with another clustering is another run: refused, naming both.
    const resumed = await run([
      ...flags, "--out", path.join(dir, "passage.jsonl"), "--resume", "--stderr-cluster", "none"
    ])
    assert.strictEqual(resumed.code, 2, describeResult(resumed))
    assert.include(resumed.stderr, "--stderr-cluster metadata.passage")
    assert.include(resumed.stderr, "--stderr-cluster none")
  })

  it("--pass-k: estimates and intervals at the k asked for; a k above the epochs is refused, exit 2", async () => {
    const dir = tempDir()
    const tasks = writeTasks(dir)
    const flags = ["--tasks", tasks, "--agent", AGENT, "--epochs", "4", "--score", "exact", "--no-progress"]
    const ok = await run([...flags, "--out", path.join(dir, "k.jsonl"), "--summary", path.join(dir, "k.json"), "--pass-k", "2,1,3"])
    assert.strictEqual(ok.code, 0, describeResult(ok))
    const p = readJson(path.join(dir, "k.json")).scoring.pass_at_k
    assert.deepStrictEqual(p.ks, [1, 2, 3])
    assert.deepStrictEqual(Object.keys(p.estimates), ["pass@1", "pass@2", "pass@3", "pass^1", "pass^2", "pass^3"])
    // pass^3 per task: C(c, 3) / C(4, 3) over the histogram of tasks by passes.
    const h: Array<number> = p.tasks_by_passes
    const perTask = h.flatMap((count, c) => Array.from({ length: count }, () => c < 3 ? 0 : c === 3 ? 1 / 4 : 1))
    const mean = perTask.reduce((a, b) => a + b, 0) / perTask.length
    const sd = Math.sqrt(perTask.reduce((a, x) => a + (x - mean) ** 2, 0) / (perTask.length - 1))
    const half = StudentT.quantile(0.975, perTask.length - 1) * sd / Math.sqrt(perTask.length)
    assert.strictEqual(p.estimates["pass^3"], round4(mean))
    assert.deepStrictEqual(p.ci95["pass^3"], [round4(mean - half), round4(mean + half)])

    const refused = await run([...flags, "--out", path.join(dir, "k5.jsonl"), "--pass-k", "1,5"])
    assert.strictEqual(refused.code, 2, describeResult(refused))
    assert.include(refused.stderr, "--pass-k 5: above --epochs 4")
    assert.isFalse(fs.existsSync(path.join(dir, "k5.jsonl")))
  })

  it("--fail-under: exit 1 when a gate fails, the gates in the summary; an unknown name is exit 2 before any trial", async () => {
    const dir = tempDir()
    const tasks = writeTasks(dir)
    const flags = ["--tasks", tasks, "--agent", AGENT, "--epochs", "4", "--score", "exact", "--no-progress"]
    const out = path.join(dir, "g.jsonl")
    const summaryFile = path.join(dir, "g.json")
    // The mean is about 0.5 and its interval about 0.35-0.65: mean >= 0.4 passes, lower bound >= 0.4 does not.
    const gated = await run([...flags, "--out", out, "--summary", summaryFile, "--fail-under", "exact=0.4", "--fail-under", "passed=0.4@lower"])
    assert.strictEqual(gated.code, 1, describeResult(gated))
    const summary = readJson(summaryFile)
    assert.deepStrictEqual(summary.gates.map((g: { gate: string; verdict: string }) => [g.gate, g.verdict]), [
      ["exact=0.4", "pass"],
      ["passed=0.4@lower", "fail"]
    ])
    assert.strictEqual(summary.gates[1].value, summary.scoring.pass_rate_ci95[0])
    assert.include(gated.stdout, "gate exact=0.4: pass")
    assert.include(gated.stdout, "gate passed=0.4@lower: FAIL")
    assert.include(gated.stderr, "passed=0.4@lower")
    // Everything was recorded all the same.
    assert.strictEqual(readTrials(out).length, 160)

    // score gates the same way.
    const scored = await run(
      [out, "--score", "exact", "--tasks", tasks, "--out", path.join(dir, "s.jsonl"), "--fail-under", "exact=0.4"],
      { command: "score" }
    )
    assert.strictEqual(scored.code, 0, describeResult(scored))
    const scoredFail = await run(
      [out, "--score", "exact", "--tasks", tasks, "--out", path.join(dir, "s2.jsonl"), "--fail-under", "exact=0.9"],
      { command: "score" }
    )
    assert.strictEqual(scoredFail.code, 1, describeResult(scoredFail))

    const unknown = await run([...flags, "--out", path.join(dir, "u.jsonl"), "--fail-under", "exactly=0.4"])
    assert.strictEqual(unknown.code, 2, describeResult(unknown))
    assert.include(unknown.stderr, "exactly is not a scorer of this run")
    assert.isFalse(fs.existsSync(path.join(dir, "u.jsonl")))
  })

  it("--group-by: no value, a JSON null and the text \"(missing)\" are three groups, 1 and \"1\" two; run, score and compare agree", async () => {
    const dir = tempDir()
    // Two tasks per value, each passing (p 1) or not (p 0) by its value, so a pooled group would show a mean between.
    const levels: ReadonlyArray<readonly [key: string, level: unknown, p: number]> = [
      ["(missing)", undefined, 1],
      ["null", null, 0],
      ["\"(missing)\"", "(missing)", 0],
      ["1", 1, 1],
      ["\"1\"", "1", 0]
    ]
    const tasks = writeJsonl(
      path.join(dir, "tasks.jsonl"),
      levels.flatMap(([, level, p], i) =>
        [0, 1].map((j) => ({
          id: `t${i}-${j}`,
          inputs: { p },
          reference: "yes",
          metadata: level === undefined ? {} : { level }
        }))
      )
    )
    const out = path.join(dir, "run.jsonl")
    const summaryFile = path.join(dir, "run.json")
    const ran = await run([
      "--tasks", tasks, "--agent", AGENT, "--score", "exact", "--out", out, "--summary", summaryFile,
      "--no-progress", "--group-by", "metadata.level"
    ])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const expected = Object.fromEntries(levels.map(([key, , p]) => [key, p]))
    const means = (groups: Record<string, Record<string, { readonly mean: number; readonly trials: number }>>) =>
      Object.fromEntries(Object.entries(groups).map(([key, g]) => [key, g.exact.trials === 2 ? g.exact.mean : -1]))
    const s = readJson(summaryFile).scoring
    assert.deepStrictEqual(means(s.groups["metadata.level"]), expected)
    // The text tells the missing value from the text "(missing)".
    assert.include(ran.stdout, "group metadata.level = (missing): exact mean 1")
    assert.include(ran.stdout, "group metadata.level = \"(missing)\": exact mean 0")
    assert.include(ran.stdout, "group metadata.level = 1: exact mean 1")
    assert.include(ran.stdout, "group metadata.level = \"1\": exact mean 0")

    const scoredSummary = path.join(dir, "score.json")
    const scored = await run(
      [out, "--score", "exact", "--tasks", tasks, "--out", path.join(dir, "scored.jsonl"), "--summary", scoredSummary],
      { command: "score" }
    )
    assert.strictEqual(scored.code, 0, describeResult(scored))
    assert.deepStrictEqual(means(readJson(scoredSummary).scoring.groups["metadata.level"]), expected)

    const comparison = path.join(dir, "compare.json")
    const compared = await run([out, path.join(dir, "scored.jsonl"), "--json", comparison], { command: "compare" })
    assert.strictEqual(compared.code, 0, describeResult(compared))
    const byLevel = readJson(comparison).groups["metadata.level"] as Record<string, { readonly tasks: number }>
    assert.deepStrictEqual(
      Object.fromEntries(Object.entries(byLevel).map(([key, g]) => [key, g.tasks])),
      Object.fromEntries(levels.map(([key]) => [key, 2]))
    )
  })
})

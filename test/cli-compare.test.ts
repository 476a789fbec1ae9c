/**
 * `agent-trials compare` in child processes: its exit codes (0; 1 with
 * `--fail-on-regression` when a scorer regressed under Holm's correction, or
 * with `--non-inferiority M` when an interval reaches -M; 2 on bad input,
 * with one line on stderr), its `--json` and `--html` files, and two real
 * `run`s compared both ways.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const compare = (args: ReadonlyArray<string>) => run(args, { command: "compare" })

const metadata = { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 }
const exact = (id: string, pass: boolean): AgentEvalTrial => ({
  id,
  task_id: id.slice(0, id.lastIndexOf(":")),
  status: "completed",
  output: { output_text: "x" },
  metadata,
  scores: { exact: { value: pass ? 1 : 0, passed: pass } }
})

// exact per task (base -> new): t1 1 -> 0, t2 1 -> 0, t3 1 -> 1, t4 (1+1)/2 -> (1+0)/2, t5 0 -> 0.
// d = -1 -1 0 -0.5 0: d̄ = -2.5/5 = -0.5; deviations -.5 -.5 .5 0 .5, Σ² = 1, s² = 0.25,
// SE = √(0.25/5) = √0.05; t(0.975, 4) = 2.776445105: interval -0.5 ± 0.620832 = [-1.120832, 0.120832].
// Not wholly below 0: no regression by the interval, although the mean fell.
const T4 = 2.776445105
const writePair = (dir: string) => ({
  base: writeJsonl(path.join(dir, "base.jsonl"), [
    exact("t1:1", true), exact("t2:1", true), exact("t3:1", true), exact("t4:1", true), exact("t4:2", true),
    exact("t5:1", false), exact("gone:1", true)
  ]),
  next: writeJsonl(path.join(dir, "new.jsonl"), [
    exact("t1:1", false), exact("t2:1", false), exact("t3:1", true), exact("t4:1", true), exact("t4:2", false),
    exact("t5:1", false), exact("added:1", true)
  ])
})

describe.concurrent("agent-trials compare", () => {
  it("hand-made files: the text, the --json numbers against hand-computed ones, --html; exit 0", async () => {
    const dir = tempDir()
    const { base, next } = writePair(dir)
    const json = path.join(dir, "c.json")
    const html = path.join(dir, "c.html")
    const result = await compare([base, next, "--json", json, "--html", html, "--fail-on-regression"])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.strictEqual(result.stderr, "")
    // p = 2·t.sf(√5, 4) = 0.08900934250008567; mde80 = (2.7764451 + 0.9409646)·0.5/√5 = 0.8312380750
    // (scipy 1.17.1 t.sf and t.ppf on this machine).
    assert.match(
      result.stdout,
      /^ {2}exact {3}5 {7}0\.8000 {2}0\.3000 {2}-0\.5000 {2}\[-1\.1208, \+0\.1208\] {2}0\.0890 {2}0\.0890 {2}no significant change \(detectable at 80% power: ±0\.8312\)$/m
    )
    assert.include(result.stdout, "pass -> fail (every trial passed before, not after): 3 tasks: t1, t2, t4")
    assert.include(result.stdout, "only in base (not matched): 1 task: gone")
    assert.include(result.stdout, "only in new (not matched): 1 task: added")
    assert.include(result.stdout, "no scorer regressed (1 scorer judged;")

    const c = JSON.parse(fs.readFileSync(json, "utf8"))
    assert.deepStrictEqual(Object.keys(c), [
      "base", "new", "measure", "pass_rule", "tasks", "scorers", "scorers_only_in_base", "scorers_only_in_new",
      "pass_at_1", "flips", "judged", "regressed", "notes", "stderr_cluster", "groups"
    ])
    // No metadata.groups, no metadata.stderr_cluster: tasks are the unit, no breakdown.
    assert.strictEqual(c.stderr_cluster, null)
    assert.deepStrictEqual(c.groups, {})
    const s = c.scorers[0]
    assert.deepStrictEqual(Object.keys(s), [
      "name", "n", "base_mean", "new_mean", "delta", "sd", "standard_error", "df", "ci95", "p_value", "p_holm",
      "mcnemar_p", "mde80", "verdict", "reason", "clusters", "design_effect"
    ])
    assert.deepInclude(s, { clusters: null, design_effect: null })
    assert.deepInclude(s, { name: "exact", n: 5, df: 4, verdict: "no_significant_change", reason: null })
    assert.approximately(s.delta, -0.5, 1e-12)
    assert.approximately(s.standard_error, Math.sqrt(0.05), 1e-12)
    assert.approximately(s.ci95[0], -0.5 - T4 * Math.sqrt(0.05), 1e-9)
    assert.approximately(s.ci95[1], -0.5 + T4 * Math.sqrt(0.05), 1e-9)
    assert.approximately(s.p_value, 0.08900934250008567, 1e-12)
    assert.strictEqual(s.p_holm, s.p_value)
    assert.approximately(s.mde80, 0.8312380750135809, 1e-12)
    // t4 has two epochs: no McNemar.
    assert.isNull(s.mcnemar_p)
    // pass@1 over paired tasks: base (1+1+1+1+0)/5 = 0.8, new (0+0+1+0.5+0)/5 = 0.3.
    assert.approximately(c.pass_at_1.base, 0.8, 1e-12)
    assert.approximately(c.pass_at_1.new, 0.3, 1e-12)
    assert.deepStrictEqual(c.flips, { pass_to_fail: ["t1", "t2", "t4"], fail_to_pass: [] })
    assert.deepStrictEqual(c.tasks, { paired: 5, only_in_base: ["gone"], only_in_new: ["added"] })
    assert.deepStrictEqual(c.regressed, [])

    const page = fs.readFileSync(html, "utf8")
    assert.isTrue(page.startsWith("<!doctype html>"))
    assert.include(page, "<svg")
    assert.notMatch(page, /\s(src|href)=/)
  })

  it("metadata.groups and stderr_cluster: the JSON groups and stderr_cluster, the text's per-group table", async () => {
    const dir = tempDir()
    // exact per task, base -> new, by difficulty (the run's --group-by difficulty), one epoch:
    //   a1 easy 1 -> 1, a2 easy 1 -> 0, b1 hard 0 -> 1, b2 hard 1 -> 1, b3 hard 0 -> 1.
    // easy: d = 0 -1: d̄ -0.5, s² 0.5, SE 0.5, t = -1 on 1 df: p = 1 - 2·atan(1)/π = 0.5;
    //   t(0.975, 1) = 12.706204736: -0.5 ± 6.3531 = [-6.8531, +5.8531].
    // hard: d = 1 0 1: d̄ 2/3, s² 1/3, SE 1/3, t = 2 on 2 df: p = 1 - 2/√6 = 0.18350341907227397;
    //   t(0.975, 2) = 4.30265273: 2/3 ± 1.4342 = [-0.7676, +2.1009].
    // pass@1 is exact's pass, the same figures. Both files say stderr_cluster by task: tasks are the unit.
    const rows: ReadonlyArray<readonly [string, boolean, boolean, string]> = [
      ["a1", true, true, "easy"],
      ["a2", true, false, "easy"],
      ["b1", false, true, "hard"],
      ["b2", true, true, "hard"],
      ["b3", false, true, "hard"]
    ]
    const side = (name: string, after: boolean) =>
      writeJsonl(path.join(dir, name), rows.map(([t, before, later, difficulty]) => {
        const trial = exact(`${t}:1`, after ? later : before)
        return {
          ...trial,
          metadata: { ...trial.metadata, groups: { difficulty }, stderr_cluster: { by: "task", value: t } }
        }
      }))
    const json = path.join(dir, "c.json")
    const result = await compare([side("base.jsonl", false), side("new.jsonl", true), "--json", json])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.include(
      result.stdout,
      "\n  by difficulty: 2 values (a task in its group in base; per-group p not corrected for the many groups, and no gate)\n" +
        "    value  tasks  measure  paired  base    new     delta    95% CI              p\n" +
        "    hard   3      exact    3       0.3333  1.0000  +0.6667  [-0.7676, +2.1009]  0.1835\n" +
        "                  pass@1   3       0.3333  1.0000  +0.6667  [-0.7676, +2.1009]  0.1835\n" +
        "    easy   2      exact    2       1.0000  0.5000  -0.5000  [-6.8531, +5.8531]  0.5000\n" +
        "                  pass@1   2       1.0000  0.5000  -0.5000  [-6.8531, +5.8531]  0.5000\n"
    )
    assert.notInclude(result.stdout, "standard errors clustered")

    const c = JSON.parse(fs.readFileSync(json, "utf8"))
    assert.strictEqual(c.stderr_cluster, null)
    assert.deepStrictEqual(Object.keys(c.groups), ["difficulty"])
    assert.deepStrictEqual(Object.keys(c.groups.difficulty), ["easy", "hard"])
    const easy = c.groups.difficulty.easy
    assert.deepStrictEqual(Object.keys(easy), ["tasks", "scorers", "pass_at_1"])
    assert.strictEqual(easy.tasks, 2)
    assert.deepStrictEqual(Object.keys(easy.scorers.exact), [
      "n", "base_mean", "new_mean", "delta", "standard_error", "df", "ci95", "p_value", "clusters"
    ])
    assert.deepInclude(easy.scorers.exact, { n: 2, base_mean: 1, new_mean: 0.5, delta: -0.5, df: 1, clusters: null })
    assert.approximately(easy.scorers.exact.standard_error, 0.5, 1e-12)
    assert.approximately(easy.scorers.exact.p_value, 0.5, 1e-12)
    assert.approximately(easy.scorers.exact.ci95[0], -0.5 - 12.706204736 * 0.5, 1e-8)
    assert.deepStrictEqual(Object.keys(easy.pass_at_1), ["tasks", "base", "new", "delta", "standard_error", "ci95", "p_value"])
    assert.deepInclude(easy.pass_at_1, { tasks: 2, base: 1, new: 0.5, delta: -0.5 })
    const hard = c.groups.difficulty.hard.scorers.exact
    assert.deepInclude(hard, { n: 3, df: 2 })
    assert.approximately(hard.delta, 2 / 3, 1e-12)
    assert.approximately(hard.standard_error, 1 / 3, 1e-12)
    assert.approximately(hard.p_value, 0.18350341907227397, 1e-12)
    assert.approximately(hard.ci95[1], 2 / 3 + 4.30265273 / 3, 1e-8)
  })

  it("--fail-on-regression: exit 1 and the regressed scorer named on stderr with its Holm-adjusted p; without the flag exit 0", async () => {
    const dir = tempDir()
    // exact drops on every task, judge holds. exact: d = -1 five times and -0.5: d̄ = -11/12,
    // s² = (5/144 + 25/144)/5 = 1/24, SE = √(1/24)/√6 = 1/12, t = -11 on 5 df: p = 1.0805220554498285e-4
    // (2·scipy t.sf(11, 5)); Holm over 2 judged: 2.161e-4; t(0.975, 5) = 2.5705818:
    // -0.9167 ± 0.2142 = [-1.1309, -0.7025].
    const tasks = ["a", "b", "c", "d", "e", "f"]
    const base = writeJsonl(path.join(dir, "base.jsonl"), tasks.map((t) => ({
      ...exact(`${t}:1`, true),
      scores: { exact: { value: 1, passed: true }, judge: { value: 0.5, passed: true } }
    })))
    const next = writeJsonl(path.join(dir, "new.jsonl"), tasks.map((t, i) => ({
      ...exact(`${t}:1`, false),
      scores: { exact: { value: i === 0 ? 0.5 : 0, passed: false }, judge: { value: 0.5, passed: true } }
    })))
    const failing = await compare([base, next, "--fail-on-regression"])
    assert.strictEqual(failing.code, 1, describeResult(failing))
    assert.strictEqual(
      failing.stderr.trim(),
      "agent-trials: regression: exact (delta -0.9167, 95% CI [-1.1309, -0.7025], Holm-adjusted p 0.0002 of 2 scorers judged)"
    )
    assert.include(failing.stdout, "regressed (delta < 0 and Holm-adjusted p < 0.05, 2 scorers judged, family-wise 5%): exact")
    assert.match(failing.stdout, /^ {2}judge .* 1\.0000 {2}1\.0000 .*no significant change/m)

    const plain = await compare([base, next])
    assert.strictEqual(plain.code, 0, describeResult(plain))
    assert.include(plain.stdout, "regressed (delta < 0 and Holm-adjusted p < 0.05, 2 scorers judged, family-wise 5%): exact")
  })

  it("--fail-on-regression with Holm: an interval below 0 among 2 scorers is no regression (exit 0); alone it is (exit 1)", async () => {
    const dir = tempDir()
    // exact: d = -0.5 -1 -1 over 3 tasks: t = -5 on 2 df, p = 1 - 5/√27 = 0.0377 (closed form for 2 df),
    // interval [-1.5504, -0.1162] below 0; judge does not move (p = 1). Holm, m = 2: 0.0755 >= 0.05.
    const tasks = ["a", "b", "c"]
    const trials = (values: ReadonlyArray<number>, judge: boolean) =>
      tasks.map((t, i) => ({
        ...exact(`${t}:1`, values[i] === 1),
        scores: {
          exact: { value: values[i], passed: values[i] === 1 },
          ...(judge ? { judge: { value: 0.5, passed: true } } : {})
        }
      }))
    const json = path.join(dir, "c.json")
    const [two, alone] = await Promise.all([
      compare([
        writeJsonl(path.join(dir, "b2.jsonl"), trials([1, 1, 1], true)),
        writeJsonl(path.join(dir, "n2.jsonl"), trials([0.5, 0, 0], true)),
        "--fail-on-regression",
        "--json",
        json
      ]),
      compare([
        writeJsonl(path.join(dir, "b1.jsonl"), trials([1, 1, 1], false)),
        writeJsonl(path.join(dir, "n1.jsonl"), trials([0.5, 0, 0], false)),
        "--fail-on-regression"
      ])
    ])
    assert.strictEqual(two.code, 0, describeResult(two))
    assert.match(two.stdout, /^ {2}exact .* 0\.0377 {2}0\.0755 .*regressed$/m)
    assert.include(two.stdout, "no scorer regressed (2 scorers judged;")
    const c = JSON.parse(fs.readFileSync(json, "utf8"))
    assert.deepStrictEqual(c.judged, ["exact", "judge"])
    assert.deepStrictEqual(c.regressed, [])
    assert.strictEqual(c.scorers[0].verdict, "regressed")
    assert.approximately(c.scorers[0].p_holm, 2 * (1 - 5 / Math.sqrt(27)), 1e-12)

    assert.strictEqual(alone.code, 1, describeResult(alone))
    assert.strictEqual(
      alone.stderr.trim(),
      "agent-trials: regression: exact (delta -0.8333, 95% CI [-1.5504, -0.1162], Holm-adjusted p 0.0377 of 1 scorer judged)"
    )
  })

  it("--non-inferiority M: exit 1 naming the scorer whose interval reaches -M, 0 within the margin, 2 on a bad M", async () => {
    const dir = tempDir()
    const { base, next } = writePair(dir)
    // exact: 95% CI [-1.1208, +0.1208] (above).
    const [tight, wide, both, negative, word] = await Promise.all([
      compare([base, next, "--non-inferiority", "0.5"]),
      compare([base, next, "--non-inferiority", "1.2"]),
      compare([base, next, "--non-inferiority", "0.5", "--fail-on-regression"]),
      compare([base, next, "--non-inferiority", "-1"]),
      compare([base, next, "--non-inferiority", "lots"])
    ])
    assert.strictEqual(tight.code, 1, describeResult(tight))
    assert.strictEqual(
      tight.stderr.trim(),
      "agent-trials: not non-inferior within 0.5 (the 95% CI must lie above -0.5): exact (95% CI lower bound -1.1208)"
    )
    assert.strictEqual(wide.code, 0, describeResult(wide))
    assert.strictEqual(wide.stderr, "")
    // No regression (p 0.089), but not non-inferior: exit 1 all the same.
    assert.strictEqual(both.code, 1, describeResult(both))
    assert.include(both.stderr, "not non-inferior within 0.5")
    for (const bad of [negative, word]) {
      assert.strictEqual(bad.code, 2, describeResult(bad))
      assert.include(bad.stderr, "--non-inferiority")
    }
    assert.include(word.stderr, 'Expected --non-inferiority to be a number from 0 up, like 0.02, got "lots"')

    // One paired task: no interval, so non-inferiority is not shown: exit 1.
    const one = await compare([
      writeJsonl(path.join(dir, "one-a.jsonl"), [exact("t1:1", true)]),
      writeJsonl(path.join(dir, "one-b.jsonl"), [exact("t1:1", true)]),
      "--non-inferiority",
      "0.1"
    ])
    assert.strictEqual(one.code, 1, describeResult(one))
    assert.include(one.stderr, "exact (no interval: 1 paired task)")
  })

  it("one paired task: no interval, no verdict, the reason printed, exit 0 with --fail-on-regression", async () => {
    const dir = tempDir()
    const base = writeJsonl(path.join(dir, "base.jsonl"), [exact("t1:1", true)])
    const next = writeJsonl(path.join(dir, "new.jsonl"), [exact("t1:1", false)])
    const result = await compare([base, next, "--fail-on-regression"])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.include(result.stdout, "note: exact: no verdict: 1 paired task with a value in both files: an interval needs at least 2")
    assert.match(result.stdout, /^ {2}exact .* -1\.0000 {2}- .*no verdict$/m)
  })

  it("bad input: one line on stderr and exit 2", async () => {
    const dir = tempDir()
    const { base, next } = writePair(dir)
    const missing = path.join(dir, "missing.jsonl")
    const broken = writeJsonl(path.join(dir, "broken.jsonl"), [exact("t1:1", true), "{oops"])
    const elsewhere = writeJsonl(path.join(dir, "elsewhere.jsonl"), [exact("zz:1", true)])
    const badGroups = writeJsonl(path.join(dir, "bad-groups.jsonl"), [
      exact("t1:1", true),
      { ...exact("t2:1", true), metadata: { ...metadata, groups: "math" } }
    ])
    // A file concatenated with itself: each trial would count twice.
    const twice = path.join(dir, "twice.jsonl")
    fs.writeFileSync(twice, fs.readFileSync(next, "utf8").repeat(2))
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [[missing, next], `agent-trials: results file not found: ${missing}`],
      [[base, broken], `agent-trials: ${broken}:2: not valid JSON`],
      [[base, twice], `agent-trials: ${twice}:8: duplicate trial id "t1:1" (first at line 1)`],
      [[base, next, "--pass", "judge"], `agent-trials: --pass judge: no such scorer in ${base} (its scorers: exact)`],
      [[base, elsewhere], `agent-trials: no tasks in common: ${base} has 6 tasks`],
      [
        [badGroups, next],
        `agent-trials: ${badGroups}:2: metadata.groups must be an object of PATH to the task's value as text or null, got "math"`
      ]
    ]
    const results = await Promise.all(cases.map(([args]) => compare(args)))
    results.forEach((result, i) => {
      const [args, expected] = cases[i]
      assert.strictEqual(result.code, 2, `${args.join(" ")}: ${describeResult(result)}`)
      const lines = result.stderr.trim().split("\n")
      assert.strictEqual(lines.length, 1, `${args.join(" ")}: ${describeResult(result)}`)
      assert.isTrue(lines[0].startsWith(expected), `${args.join(" ")}: ${lines[0]}`)
    })
    const noArgument = await compare([base])
    assert.strictEqual(noArgument.code, 2, describeResult(noArgument))
  })

  it("two real runs (fail=0.02 against fail=0.3, scored by the default exact): exit 1 one way, 0 the other", async () => {
    const dir = tempDir()
    const good = path.join(dir, "good.jsonl")
    const worse = path.join(dir, "worse.jsonl")
    const runs = await Promise.all([
      run(["--synthetic", "200", "--agent", "sim:latency=1ms,jitter=0ms,fail=0.02", "--out", good, "--no-progress"]),
      run(["--synthetic", "200", "--agent", "sim:latency=1ms,jitter=0ms,fail=0.3", "--out", worse, "--no-progress"])
    ])
    for (const r of runs) assert.strictEqual(r.code, 0, describeResult(r))

    const json = path.join(dir, "c.json")
    const [forward, backward] = await Promise.all([
      compare([good, worse, "--fail-on-regression", "--json", json]),
      compare([worse, good, "--fail-on-regression"])
    ])
    assert.strictEqual(forward.code, 1, describeResult(forward))
    assert.match(
      forward.stderr.trim(),
      /^agent-trials: regression: exact \(delta -0\.\d{4}, 95% CI \[-0\.\d{4}, -0\.\d{4}\], Holm-adjusted p \S+ of 1 scorer judged\)$/
    )
    assert.strictEqual(backward.code, 0, describeResult(backward))
    assert.match(backward.stdout, /^ {2}exact .* improved$/m)

    // The sim agent answers right when it does not fail: per task, passed = completed.
    const passedIn = (file: string) => new Map(readTrials(file).map((t) => [t.task_id, t.status === "completed"]))
    const before = passedIn(good)
    const after = passedIn(worse)
    const passToFail = [...before].filter(([id, ok]) => ok && !after.get(id)).map(([id]) => id)
    const failToPass = [...before].filter(([id, ok]) => !ok && after.get(id)).map(([id]) => id)
    assert.isAbove(passToFail.length, 10)
    const c = JSON.parse(fs.readFileSync(json, "utf8"))
    assert.deepStrictEqual([...c.flips.pass_to_fail].sort(), passToFail.sort())
    assert.deepStrictEqual([...c.flips.fail_to_pass].sort(), failToPass.sort())
    const d = (failToPass.length - passToFail.length) / 200
    assert.approximately(c.scorers[0].delta, d, 1e-12)
    assert.deepStrictEqual(c.regressed, ["exact"])
    // The text lists 10 of them and counts the rest; the JSON has them all.
    assert.include(forward.stdout, `pass -> fail (every trial passed before, not after): ${passToFail.length} tasks: `)
    assert.include(forward.stdout, ` and ${passToFail.length - 10} more`)
  })

  it("passed as each run recorded it: two runs with --pass exact are judged by exact; runs with different --pass are named in a note", async () => {
    const dir = tempDir()
    // Half the tasks answer yes (exact passes), half no (the scorer no passes): never both.
    const tasks = writeJsonl(
      path.join(dir, "tasks.jsonl"),
      Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, inputs: { p: i < 5 ? 1 : 0 }, reference: "yes" }))
    )
    const agent = `module:${path.join(repoRoot, "test/fixtures/agent-clustered.ts")}#answer`
    const runWith = async (name: string, pass: string) => {
      const out = path.join(dir, `${name}.jsonl`)
      const ran = await run([
        "--tasks", tasks, "--agent", agent, "--score", "exact", "--score", "no=regex:^no$", "--pass", pass,
        "--out", out, "--no-progress"
      ])
      assert.strictEqual(ran.code, 0, describeResult(ran))
      return out
    }
    const [a, b, c] = await Promise.all([runWith("a", "exact"), runWith("b", "exact"), runWith("c", "no")])
    const comparison = async (args: ReadonlyArray<string>, name: string) => {
      const json = path.join(dir, `${name}.json`)
      const result = await compare([...args, "--json", json])
      assert.strictEqual(result.code, 0, describeResult(result))
      return { stdout: result.stdout, c: JSON.parse(fs.readFileSync(json, "utf8")) }
    }

    // Both recorded --pass exact: judged by exact, as the runs were (not by every shared scorer, which no trial passes).
    const same = await comparison([a, b], "same")
    assert.strictEqual(same.c.pass_rule, "exact")
    assert.strictEqual(same.c.pass_at_1.base, 0.5)
    assert.strictEqual(same.c.pass_at_1.new, 0.5)
    assert.isFalse(same.c.notes.some((n: string) => n.includes("pass rules")))
    assert.include(same.stdout, "pass@1 (a trial passes when --pass exact passed): 0.5000 -> 0.5000")

    // exact then no: each judged by its own run's rule, and a note says so.
    const differ = await comparison([a, c], "differ")
    assert.strictEqual(differ.c.pass_rule, "each run's own")
    assert.deepStrictEqual(differ.c.pass_rules, { base: "exact", new: "no" })
    assert.strictEqual(differ.c.pass_at_1.base, 0.5)
    assert.strictEqual(differ.c.pass_at_1.new, 0.5)
    // The yes tasks passed before (exact) and not after (no), the no tasks the reverse.
    assert.deepStrictEqual(differ.c.flips.pass_to_fail, ["t0", "t1", "t2", "t3", "t4"])
    assert.deepStrictEqual(differ.c.flips.fail_to_pass, ["t5", "t6", "t7", "t8", "t9"])
    const note = `the runs recorded different pass rules: ${a} was run with --pass exact, ${c} with --pass no: ` +
      `each file's trials are judged passed by its own run's rule`
    assert.isTrue(differ.c.notes.some((n: string) => n.startsWith(note)), JSON.stringify(differ.c.notes))
    assert.include(differ.stdout, note)

    // Told otherwise: --pass judges both, and the note still names the two rules.
    const told = await comparison([a, c, "--pass", "exact"], "told")
    assert.strictEqual(told.c.pass_rule, "exact")
    assert.strictEqual(told.c.pass_rules, undefined)
    assert.deepStrictEqual(told.c.flips, { pass_to_fail: [], fail_to_pass: [] })
    assert.isTrue(
      told.c.notes.some((n: string) => n.includes("with --pass no: both are judged by --pass exact here")),
      JSON.stringify(told.c.notes)
    )
  })
})

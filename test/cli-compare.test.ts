/**
 * `agent-trials compare` in child processes: its exit codes (0; 1 with
 * `--fail-on-regression` when a scorer regressed; 2 on bad input, with one
 * line on stderr), its `--json` and `--html` files, and two real `run`s
 * compared both ways.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/Trial.ts"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

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
    assert.match(result.stdout, /^ {2}exact {3}5 {7}0\.8000 {2}0\.3000 {2}-0\.5000 {2}\[-1\.1208, \+0\.1208\] {2}no significant change$/m)
    assert.include(result.stdout, "pass -> fail (every trial passed before, not after): 3 tasks: t1, t2, t4")
    assert.include(result.stdout, "only in base (not matched): 1 task: gone")
    assert.include(result.stdout, "only in new (not matched): 1 task: added")
    assert.include(result.stdout, "no scorer regressed")

    const c = JSON.parse(fs.readFileSync(json, "utf8"))
    assert.deepStrictEqual(Object.keys(c), [
      "base", "new", "measure", "pass_rule", "tasks", "scorers", "scorers_only_in_base", "scorers_only_in_new",
      "pass_at_1", "flips", "regressed", "notes"
    ])
    const s = c.scorers[0]
    assert.deepStrictEqual(Object.keys(s), [
      "name", "n", "base_mean", "new_mean", "delta", "sd", "standard_error", "df", "ci95", "verdict", "reason"
    ])
    assert.deepInclude(s, { name: "exact", n: 5, df: 4, verdict: "no_significant_change", reason: null })
    assert.approximately(s.delta, -0.5, 1e-12)
    assert.approximately(s.standard_error, Math.sqrt(0.05), 1e-12)
    assert.approximately(s.ci95[0], -0.5 - T4 * Math.sqrt(0.05), 1e-9)
    assert.approximately(s.ci95[1], -0.5 + T4 * Math.sqrt(0.05), 1e-9)
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

  it("--fail-on-regression: exit 1 and the regressed scorer named on stderr; without the flag exit 0", async () => {
    const dir = tempDir()
    // Every task drops from 1 to 0 on exact; judge holds: exact regressed, judge did not.
    const tasks = ["a", "b", "c"]
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
    // d = -0.5 -1 -1: d̄ -5/6; s² = (1/9 + 1/36 + 1/36)/2 = 1/12; SE = √(1/36) = 1/6;
    // t(0.975, 2) = 4.30265273: -0.8333 ± 0.7171 = [-1.5504, -0.1162].
    assert.strictEqual(failing.stderr.trim(), "agent-trials: regression: exact (delta -0.8333, 95% CI [-1.5504, -0.1162])")
    assert.include(failing.stdout, "regressed (95% CI of the change wholly below 0): exact")
    assert.match(failing.stdout, /^ {2}judge .* no significant change$/m)

    const plain = await compare([base, next])
    assert.strictEqual(plain.code, 0, describeResult(plain))
    assert.include(plain.stdout, "regressed (95% CI of the change wholly below 0): exact")
  })

  it("one paired task: no interval, no verdict, the reason printed, exit 0 with --fail-on-regression", async () => {
    const dir = tempDir()
    const base = writeJsonl(path.join(dir, "base.jsonl"), [exact("t1:1", true)])
    const next = writeJsonl(path.join(dir, "new.jsonl"), [exact("t1:1", false)])
    const result = await compare([base, next, "--fail-on-regression"])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.include(result.stdout, "note: exact: no verdict: 1 paired task with a value in both files: an interval needs at least 2")
    assert.match(result.stdout, /^ {2}exact .* -1\.0000 {2}- {7}no verdict$/m)
  })

  it("bad input: one line on stderr and exit 2", async () => {
    const dir = tempDir()
    const { base, next } = writePair(dir)
    const missing = path.join(dir, "missing.jsonl")
    const broken = writeJsonl(path.join(dir, "broken.jsonl"), [exact("t1:1", true), "{oops"])
    const elsewhere = writeJsonl(path.join(dir, "elsewhere.jsonl"), [exact("zz:1", true)])
    // A file concatenated with itself: each trial would count twice.
    const twice = path.join(dir, "twice.jsonl")
    fs.writeFileSync(twice, fs.readFileSync(next, "utf8").repeat(2))
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [[missing, next], `agent-trials: results file not found: ${missing}`],
      [[base, broken], `agent-trials: ${broken}:2: not valid JSON`],
      [[base, twice], `agent-trials: ${twice}:8: duplicate trial id "t1:1" (first at line 1)`],
      [[base, next, "--pass", "judge"], `agent-trials: --pass judge: no such scorer in ${base} (its scorers: exact)`],
      [[base, elsewhere], `agent-trials: no tasks in common: ${base} has 6 tasks`],
      [[base, next, "--json", path.join(dir, "no", "such", "dir", "c.json")], `agent-trials: cannot write --json ${path.join(dir, "no", "such", "dir", "c.json")}`]
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
    assert.match(forward.stderr.trim(), /^agent-trials: regression: exact \(delta -0\.\d{4}, 95% CI \[-0\.\d{4}, -0\.\d{4}\]\)$/)
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
})

/**
 * Scoring from the command line, end to end in child processes: `run
 * --score`, the default `exact` of synthetic runs, bad specs, and the `score`
 * command with `--tasks` and `--resume`. Every statistic is checked against a
 * count made here from the results file.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Statistics from "../src/statistics/Statistics.ts"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  parseScoreSummary,
  parseSummary,
  readTrials,
  removeTempDirs,
  run,
  syntheticIds,
  tempDir,
  writeJsonl
} from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const round4 = (x: number) => Math.round(x * 1e4) / 1e4
const SIM = "sim:latency=1ms,jitter=0ms,fail=0.2,seed=7"

describe.concurrent("agent-trials run --score", () => {
  it("--synthetic 50 --score exact --score numeric: records carry scores, statistics match the file", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const result = await run([
      "--synthetic", "50", "--agent", SIM, "--score", "exact", "--score", "numeric",
      "--score-parallelism", "3", "--out", out, "--no-progress", "--summary", summaryFile
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out)
    assertExactlyOnce(trials, syntheticIds(50))
    const completed = trials.filter((t) => t.status === "completed")
    const failed = trials.filter((t) => t.status === "failed")
    assert.isAbove(failed.length, 0, "the sim agent at fail=0.2 should fail some of 50 trials")
    assert.isAbove(completed.length, 0)
    // The sim agent answers with the reference: every completed trial passes both.
    for (const t of completed) {
      assert.deepStrictEqual(t.scores, { exact: { value: 1, passed: true }, numeric: { value: 1, passed: true } })
    }
    for (const t of failed) assert.isUndefined(t.scores, `${t.id} failed but was scored`)

    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    const c = completed.length
    const wilson = Statistics.wilson(c, 50)!.map(round4)
    for (const name of ["exact", "numeric"]) {
      const s = summary.scoring.scorers[name]
      assert.strictEqual(s.trials, 50)
      assert.strictEqual(s.scored, c)
      assert.strictEqual(s.failed_trials, failed.length)
      assert.strictEqual(s.errors, 0)
      assert.strictEqual(s.passed, c)
      assert.strictEqual(s.mean, 1)
      assert.strictEqual(s.standard_error, 0)
      assert.strictEqual(s.pass_rate, round4(c / 50))
      assert.deepStrictEqual(s.pass_rate_ci95, wilson)
    }
    // A failed trial counts in n and never passes.
    assert.strictEqual(summary.scoring.trials, 50)
    assert.strictEqual(summary.scoring.passed, c)
    assert.strictEqual(summary.scoring.pass_at_k.estimates["pass@1"], round4(c / 50))
    assert.deepStrictEqual(summary.scoring.pass_at_k.tasks_by_passes, [failed.length, c])
    assert.strictEqual(summary.scoring.parallelism, 3)
    assert.isAtMost(summary.scoring.peak_outstanding, 3)
    assert.isAtLeast(summary.scoring.peak_outstanding, 1)
    assert.include(result.stdout, `passed (every scorer passed): ${c} of 50 trials, pass rate ${round4(c / 50)}`)
    assert.include(result.stdout, `score exact: trials 50 (scored ${c}, failed trials ${failed.length}, scorer errors 0)`)
    assert.strictEqual(parseSummary(result.stdout).completed, c)
  })

  it("--epochs 3 --pass: pass@k from scores, with one scorer deciding", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    // Each task's reference is "i+i"; the sim agent answers it, so `strict`
    // (exact) passes and `never` (a regex no answer matches) does not.
    const result = await run([
      "--synthetic", "20", "--epochs", "3", "--agent", SIM, "--score", "strict=exact", "--score", "never=regex:^x$",
      "--pass", "strict", "--out", out, "--no-progress", "--summary", summaryFile
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out)
    const byTask = new Map<string, number>()
    for (const t of trials) {
      const passed = t.scores?.["strict"]?.passed === true
      byTask.set(t.task_id, (byTask.get(t.task_id) ?? 0) + (passed ? 1 : 0))
    }
    const histogram = [0, 0, 0, 0]
    for (const c of byTask.values()) histogram[c]++
    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.strictEqual(summary.scoring.pass_rule, "strict")
    assert.deepStrictEqual(summary.scoring.pass_at_k.tasks_by_passes, histogram)
    const expected = Statistics.passAtK([...byTask.values()].map((c) => ({ n: 3, c })), 3).estimate!
    assert.strictEqual(summary.scoring.pass_at_k.estimates["pass@3"], round4(expected))
    assert.strictEqual(summary.scoring.scorers.never.passed, 0)
    // The completed-trial pass@k stays, labelled for what it counts.
    assert.strictEqual(summary.pass_at_k.counts, "completed trials")
  })

  it("scores synthetic runs with exact by default; --score none and --tasks runs say they are not scored", async () => {
    const dir = tempDir()
    const scored = await run(["--synthetic", "10", "--agent", SIM, "--out", path.join(dir, "a.jsonl"), "--no-progress"])
    assert.strictEqual(scored.code, 0, describeResult(scored))
    for (const t of readTrials(path.join(dir, "a.jsonl"))) {
      if (t.status === "completed") assert.deepStrictEqual(t.scores, { exact: { value: 1, passed: true } })
    }
    const none = await run(["--synthetic", "10", "--epochs", "2", "--score", "none", "--out", path.join(dir, "b.jsonl"), "--no-progress"])
    assert.strictEqual(none.code, 0, describeResult(none))
    assert.isTrue(readTrials(path.join(dir, "b.jsonl")).every((t) => t.scores === undefined))
    assert.include(none.stdout, "pass@k above counts completed trials, not correct answers")
    const fromEnv = await run(["--synthetic", "5", "--agent", SIM, "--out", path.join(dir, "e.jsonl"), "--no-progress"], {
      env: { AGENT_TRIALS_SCORE: "n=numeric:tolerance=1%" }
    })
    assert.strictEqual(fromEnv.code, 0, describeResult(fromEnv))
    for (const t of readTrials(path.join(dir, "e.jsonl"))) {
      if (t.status === "completed") assert.deepStrictEqual(Object.keys(t.scores ?? {}), ["n"])
    }
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "t1", inputs: {}, reference: "x" }])
    const fromFile = await run(["--tasks", tasks, "--out", path.join(dir, "c.jsonl"), "--no-progress"])
    assert.strictEqual(fromFile.code, 0, describeResult(fromFile))
    assert.include(fromFile.stdout, "not scored (no --score)")
  })

  it("a bad spec or --pass exits 2 with a message naming the flag", async () => {
    const dir = tempDir()
    const bad = await run(["--synthetic", "5", "--score", "exactly", "--out", path.join(dir, "a.jsonl"), "--no-progress"])
    assert.strictEqual(bad.code, 2, describeResult(bad))
    assert.include(bad.stderr, `agent-trials: --score exactly: unknown scorer "exactly"`)
    assert.isFalse(fs.existsSync(path.join(dir, "a.jsonl")))
    const judge = await run(["--synthetic", "5", "--score", "judge:http://127.0.0.1:9/v1", "--no-progress"])
    assert.strictEqual(judge.code, 2, describeResult(judge))
    assert.include(judge.stderr, "needs a judge model (--judge-model NAME)")
    const pass = await run(["--synthetic", "5", "--score", "exact", "--pass", "numeric", "--no-progress"])
    assert.strictEqual(pass.code, 2, describeResult(pass))
    assert.include(pass.stderr, "--pass numeric: no scorer has that name (scorers: exact)")
  })
})

describe.concurrent("agent-trials score", () => {
  it("scores a results file with references from --tasks, then --resume finishes a torn scored file exactly once", async () => {
    const dir = tempDir()
    const tasks = writeJsonl(
      path.join(dir, "tasks.jsonl"),
      Array.from({ length: 40 }, (_, i) => ({ id: `t${i}`, inputs: {}, reference: String(i * 3) }))
    )
    const results = path.join(dir, "results.jsonl")
    const ran = await run(["--tasks", tasks, "--agent", SIM, "--out", results, "--no-progress"])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const unscored = readTrials(results)
    assert.isTrue(unscored.every((t) => t.scores === undefined))
    const ids = unscored.map((t) => t.id)
    const completed = unscored.filter((t) => t.status === "completed").length

    const out = path.join(dir, "scored.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const scored = await run(
      [results, "--score", "exact", "--score", "loose=levenshtein", "--tasks", tasks, "--out", out, "--summary", summaryFile],
      { command: "score" }
    )
    assert.strictEqual(scored.code, 0, describeResult(scored))
    const trials = readTrials(out)
    assertExactlyOnce(trials, ids)
    for (const t of trials) {
      if (t.status === "completed") {
        assert.deepStrictEqual(Object.keys(t.scores ?? {}), ["exact", "loose"])
        assert.isTrue(t.scores!["exact"]!.passed)
        assert.isTrue(t.scores!["loose"]!.passed)
      } else {
        assert.isUndefined(t.scores)
      }
    }
    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.strictEqual(summary.scoring.passed, completed)
    assert.strictEqual(summary.scoring.trials, 40)
    // Scoring figures (trials scored, scorer calls, the scoring's wall time), never the agent calls'
    // (latency, peaks, retries) that score never made.
    const text = parseScoreSummary(scored.stdout)
    assert.strictEqual(text.scored, completed)
    assert.strictEqual(text.failed, 40 - completed)
    assert.strictEqual(text.scorerCalls, 2 * completed)
    assert.strictEqual(summary.command, "score")
    assert.strictEqual(summary.scorer_calls, 2 * completed)
    assert.strictEqual(summary.trials.this_run.total, 40)
    for (const agentFigure of ["latency_ms", "peak_active_calls", "peak_live_fibers", "retries", "concurrency_limit"]) {
      assert.notProperty(summary, agentFigure)
    }
    assert.notInclude(scored.stdout, "latency ms")
    assert.notInclude(scored.stdout, "peak active calls")

    // Without --tasks, and no run definition beside the file naming its tasks (a copy without it), a scorer has
    // no reference: a score with an error, not a crash.
    const bare = path.join(dir, "bare.jsonl")
    fs.copyFileSync(results, bare)
    const blind = await run([bare, "--score", "exact", "--out", path.join(dir, "blind.jsonl")], { command: "score" })
    assert.strictEqual(blind.code, 0, describeResult(blind))
    const blindTrials = readTrials(path.join(dir, "blind.jsonl"))
    const first = blindTrials.find((t) => t.status === "completed")!
    assert.strictEqual(first.scores!["exact"]!.error!.type, "MissingReference")

    // A crash left 15 scored lines and half of the 16th.
    const partial = path.join(dir, "partial.jsonl")
    const lines = fs.readFileSync(out, "utf8").split("\n")
    fs.writeFileSync(partial, lines.slice(0, 15).join("\n") + "\n" + lines[15]!.slice(0, 30))
    const resumed = await run(
      [results, "--score", "exact", "--score", "loose=levenshtein", "--tasks", tasks, "--out", partial, "--resume"],
      { command: "score" }
    )
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    assert.include(resumed.stdout, "resuming: 15 trials already scored")
    const all = readTrials(partial)
    assertExactlyOnce(all, ids)
    assert.isTrue(all.every((t) => t.status === "failed" || t.scores?.["exact"]?.passed === true))
    const s = parseScoreSummary(resumed.stdout)
    assert.strictEqual(s.alreadyRecorded, 15)
    assert.strictEqual(s.written, 25)
    assert.strictEqual(s.total, 40)
  })

  it("refuses bad input with exit 2: no --score, --out the input, a bad line", async () => {
    const dir = tempDir()
    const results = writeJsonl(path.join(dir, "r.jsonl"), [{ id: "x" }])
    const none = await run([results, "--out", path.join(dir, "o.jsonl")], { command: "score" })
    assert.strictEqual(none.code, 2, describeResult(none))
    assert.include(none.stderr, "score needs at least one --score SPEC")
    const same = await run([results, "--score", "exact", "--out", results], { command: "score" })
    assert.strictEqual(same.code, 2, describeResult(same))
    assert.include(same.stderr, "is the results file being scored")
    const badLine = await run([results, "--score", "exact", "--out", path.join(dir, "o2.jsonl")], { command: "score" })
    assert.strictEqual(badLine.code, 2, describeResult(badLine))
    assert.include(badLine.stderr, `${results}:1: not an AgentEvalTrial`)
  })

  it("a results line that is not valid UTF-8: exit 2 naming the file, line and byte offset", async () => {
    const dir = tempDir()
    const results = path.join(dir, "r.jsonl")
    const trial = (id: string) => ({
      id,
      task_id: id.slice(0, id.lastIndexOf(":")),
      status: "completed",
      output: { output_text: "x" },
      metadata: { started_at: "2026-01-01T00:00:00Z", finished_at: "2026-01-01T00:00:01Z", latency_ms: 1 }
    })
    const first = Buffer.from(JSON.stringify(trial("a:1")) + "\n")
    const bad = Buffer.from(JSON.stringify(trial("bX:1")) + "\n")
    bad[bad.indexOf("X")] = 0xc3
    fs.writeFileSync(results, Buffer.concat([first, bad]))
    const scored = await run([results, "--score", "exact", "--out", path.join(dir, "o.jsonl")], { command: "score" })
    assert.strictEqual(scored.code, 2, describeResult(scored))
    assert.include(scored.stderr, `${results}:2: not valid UTF-8 (byte offset ${first.length + bad.indexOf(0xc3)})`)
  })

  it("a results file that holds a trial twice (concatenated with itself): exit 2 naming the id and both lines", async () => {
    const dir = tempDir()
    const trial = (id: string) => ({
      id,
      task_id: id.slice(0, id.lastIndexOf(":")),
      status: "completed",
      output: { output_text: "x" },
      metadata: { started_at: "2026-01-01T00:00:00Z", finished_at: "2026-01-01T00:00:01Z", latency_ms: 1 }
    })
    const once = writeJsonl(path.join(dir, "once.jsonl"), [trial("a:1"), trial("b:1"), trial("c:1")])
    const twice = path.join(dir, "twice.jsonl")
    fs.writeFileSync(twice, fs.readFileSync(once, "utf8").repeat(2))
    const scored = await run([twice, "--score", "exact", "--out", path.join(dir, "o.jsonl")], { command: "score" })
    assert.strictEqual(scored.code, 2, describeResult(scored))
    assert.include(scored.stderr, `${twice}:4: duplicate trial id "a:1" (first at line 1)`)
    const fine = await run([once, "--score", "exact", "--out", path.join(dir, "o2.jsonl")], { command: "score" })
    assert.strictEqual(fine.code, 0, describeResult(fine))
    assert.strictEqual(readTrials(path.join(dir, "o2.jsonl")).length, 3)
  })
})

describe.concurrent("agent-trials score: the tasks as run reads them", () => {
  // A CSV whose id and reference are other columns: read without --map, no id would match.
  const csvTasks = (dir: string) => {
    const file = path.join(dir, "tasks.csv")
    fs.writeFileSync(file, "qid,question,answer\n" + Array.from({ length: 12 }, (_, i) => `q${i},What is ${i} + ${i}?,${2 * i}`).join("\n") + "\n")
    return file
  }
  const MAP = "id=qid,inputs.instruction=question,reference=answer"
  const PERFECT = "sim:latency=1ms,jitter=0ms,fail=0,seed=1"
  const exactOf = (file: string) => readTrials(file).map((t) => t.scores!["exact"]!)

  it("without --tasks: the run definition's tasks, read with its --format and --map; --tasks, --format, --map, --json-path as run takes them", async () => {
    const dir = tempDir()
    const tasks = csvTasks(dir)
    const results = path.join(dir, "run.jsonl")
    const ran = await run(["--tasks", tasks, "--map", MAP, "--agent", PERFECT, "--out", results, "--no-progress"])
    assert.strictEqual(ran.code, 0, describeResult(ran))

    // Not told: the tasks the run read, as it read them; every trial has its reference and passes.
    const told = path.join(dir, "recorded.jsonl")
    const scored = await run([results, "--score", "exact", "--out", told], { command: "score" })
    assert.strictEqual(scored.code, 0, describeResult(scored))
    assert.include(scored.stdout, `tasks: ${tasks} (the tasks ${results}.run.json names), read with --format csv --map ${MAP}`)
    assert.deepStrictEqual(exactOf(told).map((s) => [s.value, s.error?.type]), Array.from({ length: 12 }, () => [1, undefined]))

    // The same rows as a .json file's nested array, read with --json-path and --map given to score.
    const json = path.join(dir, "tasks.json")
    fs.writeFileSync(json, JSON.stringify({
      data: { rows: Array.from({ length: 12 }, (_, i) => ({ qid: `q${i}`, question: `What is ${i} + ${i}?`, answer: String(2 * i) })) }
    }))
    const flagged = path.join(dir, "flags.jsonl")
    const withFlags = await run(
      [results, "--score", "exact", "--tasks", json, "--json-path", "data.rows", "--map", MAP, "--out", flagged],
      { command: "score" }
    )
    assert.strictEqual(withFlags.code, 0, describeResult(withFlags))
    assert.deepStrictEqual(exactOf(flagged).map((s) => s.value), Array.from({ length: 12 }, () => 1))
  })

  it("a task file whose ids match none of the records: exit 2 naming the file and both sides' ids, nothing written", async () => {
    const dir = tempDir()
    const tasks = csvTasks(dir)
    const results = path.join(dir, "run.jsonl")
    const ran = await run(["--tasks", tasks, "--map", MAP, "--agent", PERFECT, "--out", results, "--no-progress"])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    // The same CSV under another name, read without --map: its ids are row-1, row-2, ...
    const copy = path.join(dir, "copy.csv")
    fs.copyFileSync(tasks, copy)
    const out = path.join(dir, "scored.jsonl")
    const refused = await run([results, "--score", "exact", "--tasks", copy, "--out", out], { command: "score" })
    assert.strictEqual(refused.code, 2, describeResult(refused))
    const lines = refused.stderr.trim().split("\n")
    assert.strictEqual(lines.length, 1, refused.stderr)
    assert.include(lines[0], `--tasks ${copy}: none of its task ids ("row-1", "row-2", "row-3", ...) is the task_id of a trial in ${results}`)
    assert.include(lines[0], "--map id=COLUMN")
    assert.isFalse(fs.existsSync(out))
    // A dataset flag with nothing to read: exit 2 naming it.
    const bare = path.join(dir, "bare.jsonl")
    fs.copyFileSync(results, bare)
    const nothing = await run([bare, "--score", "exact", "--map", MAP, "--out", out], { command: "score" })
    assert.strictEqual(nothing.code, 2, describeResult(nothing))
    assert.include(nothing.stderr, "--map: no tasks to read")
  })
})

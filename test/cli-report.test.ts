/**
 * `agent-trials report` and `run --report`, end to end in child processes:
 * the page's figures against the run's own summary file (clustered standard
 * errors, design effects, pass@k at the run's k, groups), the task file's
 * input and reference in the rows, and bad input (exit 2, one line naming the
 * file, line or flag).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Aggregate from "../src/report/Aggregate.ts"
import * as Html from "../src/report/Html.ts"
import type * as Summary from "../src/summary/Summary.ts"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const SIM = "sim:latency=1ms,jitter=1ms,fail=0.2,seed=3"

const report = (args: ReadonlyArray<string>) => run(args, { command: "report" })

const rowsOf = (html: string): Array<Aggregate.Row> =>
  (JSON.parse(/<script type="application\/json" id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
    rows: Array<Aggregate.Row>
  }).rows

// The big value of the stat tile labelled `label`.
const stat = (html: string, label: string): string | undefined =>
  new RegExp(`<div class="label">${label}</div><div class="value">([^<]*)</div>`).exec(html)?.[1]

// A task file; the sim agent answers each task's reference (its failures are the failing rows).
const taskFile = (dir: string, n: number) =>
  writeJsonl(
    path.join(dir, "tasks.jsonl"),
    Array.from({ length: n }, (_, i) => ({ id: `task-${i}`, inputs: { question: `question <${i}>` }, reference: `answer ${i}` }))
  )

describe.concurrent("agent-trials report", () => {
  it("reports a run's file: the figures equal the run's summary, with and without --summary and --tasks", async () => {
    const dir = tempDir()
    const tasks = taskFile(dir, 60)
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const ran = await run([
      "--tasks", tasks, "--agent", SIM, "--epochs", "2", "--score", "exact", "--score", "levenshtein",
      "--out", out, "--summary", summaryFile, "--no-progress"
    ])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8")) as Summary.Summary
    const trials = readTrials(out)

    const bare = path.join(dir, "bare.html")
    const r1 = await report([out, "--html", bare])
    assert.strictEqual(r1.code, 0, describeResult(r1))
    assert.include(r1.stdout, `report: ${bare} (120 trials, 120 rows in the table`)
    const full = path.join(dir, "full.html")
    const r2 = await report([out, "--html", full, "--summary", summaryFile, "--tasks", tasks, "--max-rows", "7"])
    assert.strictEqual(r2.code, 0, describeResult(r2))
    assert.include(r2.stdout, "(120 trials, 7 rows in the table")

    for (const file of [bare, full]) {
      const html = fs.readFileSync(file, "utf8")
      const t = summary.trials.total
      assert.strictEqual(stat(html, "Trials"), Html.formatNumber(t.total), file)
      assert.strictEqual(stat(html, "Completed"), Html.formatNumber(t.completed), file)
      // Failed trials (the agent call failed) and not passed (answered, a scorer said no) apart.
      assert.strictEqual(stat(html, "Failed trials"), Html.formatNumber(t.failed), file)
      assert.strictEqual(stat(html, "Passed"), Html.formatPercent(summary.scoring!.pass_rate), file)
      const sc = summary.scoring!
      const notPassed = trials.filter((x) => x.status === "completed" && Object.values(x.scores ?? {}).some((v) => !v.passed)).length
      assert.strictEqual(sc.trials - sc.passed - t.failed, notPassed)
      assert.strictEqual(stat(html, "Not passed"), Html.formatNumber(notPassed), file)
      for (const [name, s] of Object.entries(summary.scoring!.scorers)) {
        assert.include(html, `<td>${name}</td><td class="num">${Html.formatNumber(s.trials)}</td>`, file)
        assert.include(html, `<td class="num">${Html.formatNumber(s.pass_rate!, 4)}</td>`, file)
      }
      for (const [type, n] of Object.entries(summary.error_types)) assert.include(html, `<title>${type}: ${n}</title>`, file)
      assert.include(html, `p50 ${summary.latency_ms.p50!.toPrecision(3)} ms`, file)
    }
    const bareHtml = fs.readFileSync(bare, "utf8")
    assert.include(bareHtml, "No run summary given")
    assert.isUndefined(stat(bareHtml, "Peak active calls"))
    // No --tasks: the tasks the run definition beside the file names give the rows' input and reference.
    assert.isTrue(rowsOf(bareHtml).every((r) => {
      const i = r.task_id.slice("task-".length)
      return r.input === `question <${i}>` && r.reference === `answer ${i}`
    }))

    const fullHtml = fs.readFileSync(full, "utf8")
    assert.strictEqual(stat(fullHtml, "Peak active calls"), String(summary.peak_active_calls))
    assert.strictEqual(stat(fullHtml, "Parallelism"), String(summary.parallelism))
    assert.include(fullHtml, summary.run_id)
    // Failures first: every failed trial of the file before any other, up to 7.
    const rows = rowsOf(fullHtml)
    const failing = trials.filter((t) => t.status !== "completed" || Object.values(t.scores ?? {}).some((s) => !s.passed))
    assert.deepStrictEqual(rows.map((r) => r.id), failing.slice(0, 7).map((t) => t.id))
    for (const row of rows) {
      const i = row.task_id.slice("task-".length)
      assert.strictEqual(row.input, `question <${i}>`)
      assert.strictEqual(row.reference, `answer ${i}`)
    }
  })

  it("run --report writes the page at the end of a synthetic run, with the tasks' inputs", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const html = path.join(dir, "report.html")
    const ran = await run(["--synthetic", "40", "--agent", SIM, "--out", out, "--report", html, "--no-progress"])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    assert.include(ran.stdout, `report: ${html}`)
    const page = fs.readFileSync(html, "utf8")
    assert.strictEqual(stat(page, "Trials"), "40")
    assert.match(page, /<h1>agent-trials report <span class="badge ok">finished<\/span><\/h1>/)
    const rows = rowsOf(page)
    assert.strictEqual(rows.length, 40)
    for (const row of rows) {
      const i = Number(row.task_id.slice("synthetic-".length))
      assert.strictEqual(row.input, `What is ${i} + ${i}?`)
      assert.strictEqual(row.reference, String(2 * i))
    }
  })

  it("run --report to a path that cannot be written: one line on stderr naming it, the results untouched, exit 1", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const html = path.join(dir, "no-such-dir", "report.html")
    const ran = await run(["--synthetic", "10", "--agent", SIM, "--out", out, "--report", html, "--no-progress"])
    assert.strictEqual(ran.code, 1, describeResult(ran))
    const lines = ran.stderr.split("\n").filter((l) => l.includes("--report"))
    assert.strictEqual(lines.length, 1, ran.stderr)
    assert.strictEqual(lines[0], `agent-trials: cannot write --report ${html}: ENOENT: no such file or directory, open '${html}'`)
    assert.strictEqual(readTrials(out).length, 10)
    assert.isFalse(fs.existsSync(html))
  })

  it("bad input: exit 2 with one line naming the file, the line, the field or the flag", async () => {
    const dir = tempDir()
    const good = writeJsonl(path.join(dir, "good.jsonl"), [{
      id: "a:1", task_id: "a", status: "completed", output: { output_text: "x" },
      metadata: { started_at: "2026-01-01T00:00:00Z", finished_at: "2026-01-01T00:00:01Z", latency_ms: 1000 }
    }])
    const badLine = writeJsonl(path.join(dir, "bad.jsonl"), [JSON.parse(fs.readFileSync(good, "utf8")), "{not json"])
    const notTrial = writeJsonl(path.join(dir, "not-trial.jsonl"), [{ id: "a:1" }])
    const twice = path.join(dir, "twice.jsonl")
    fs.writeFileSync(twice, fs.readFileSync(good, "utf8").repeat(2))
    const badSummary = writeJsonl(path.join(dir, "summary.json"), [{ run_id: "x", outcome: "finished" }])
    const html = path.join(dir, "r.html")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [[path.join(dir, "missing.jsonl"), "--html", html], /results file not found: .*missing\.jsonl/],
      [[badLine, "--html", html], /bad\.jsonl:2: not valid JSON/],
      [[notTrial, "--html", html], /not-trial\.jsonl:1: not an AgentEvalTrial/],
      [[twice, "--html", html], /twice\.jsonl:2: duplicate trial id "a:1" \(first at line 1\)$/],
      [[good, "--html", html, "--max-rows", "0"], /--max-rows/],
      [[good, "--html", html, "--max-rows", "-5"], /--max-rows/],
      [[good, "--html", html, "--summary", badSummary], /summary\.json: not a run summary .*field trials\.total\.total is missing/],
      [[good, "--html", html, "--summary", path.join(dir, "nope.json")], /summary file not found: .*nope\.json/],
      [[good, "--html", html, "--tasks", badLine], /^agent-trials: .*bad\.jsonl:1: /]
    ]
    const results = await Promise.all(cases.map(([args]) => report(args)))
    results.forEach((r, i) => {
      const [args, pattern] = cases[i]!
      assert.strictEqual(r.code, 2, `${args.join(" ")}: ${describeResult(r)}`)
      const lines = r.stderr.trim().split("\n")
      assert.strictEqual(lines.length, 1, `${args.join(" ")}: ${r.stderr}`)
      assert.match(lines[0]!, pattern, args.join(" "))
    })
    assert.isFalse(fs.existsSync(html))
  })
})

describe.concurrent("agent-trials report: the tasks as run reads them", () => {
  const MAP = "id=qid,inputs.question=q,reference=a"

  it("a CSV run with --map: its tasks without --tasks; --tasks with --json-path and --map; ids matching no record exit 2, no page", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "tasks.csv")
    fs.writeFileSync(tasks, "qid,q,a\n" + Array.from({ length: 8 }, (_, i) => `k${i},question <${i}>,answer ${i}`).join("\n") + "\n")
    const out = path.join(dir, "out.jsonl")
    const ran = await run(["--tasks", tasks, "--map", MAP, "--agent", SIM, "--score", "exact", "--out", out, "--no-progress"])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const filled = (file: string) =>
      rowsOf(fs.readFileSync(file, "utf8")).map((r) => [r.task_id, r.input, r.reference]).sort()
    const expected = Array.from({ length: 8 }, (_, i) => [`k${i}`, `question <${i}>`, `answer ${i}`])

    const recorded = path.join(dir, "recorded.html")
    const r1 = await report([out, "--html", recorded])
    assert.strictEqual(r1.code, 0, describeResult(r1))
    assert.deepStrictEqual(filled(recorded), expected)

    const json = path.join(dir, "tasks.json")
    fs.writeFileSync(json, JSON.stringify({ set: { rows: expected.map(([qid, q, a]) => ({ qid, q, a })) } }))
    const flagged = path.join(dir, "flagged.html")
    const r2 = await report([out, "--html", flagged, "--tasks", json, "--json-path", "set.rows", "--map", MAP])
    assert.strictEqual(r2.code, 0, describeResult(r2))
    assert.deepStrictEqual(filled(flagged), expected)

    // Another name for the same CSV, without --map: ids row-1 ... match no record.
    const copy = path.join(dir, "copy.csv")
    fs.copyFileSync(tasks, copy)
    const none = path.join(dir, "none.html")
    const r3 = await report([out, "--html", none, "--tasks", copy])
    assert.strictEqual(r3.code, 2, describeResult(r3))
    const lines = r3.stderr.trim().split("\n")
    assert.strictEqual(lines.length, 1, r3.stderr)
    assert.include(lines[0], `--tasks ${copy}: none of its task ids ("row-1", "row-2", "row-3", ...) is the task_id of a trial in ${out}`)
    assert.isFalse(fs.existsSync(none))
  })
})

// `report --summary` takes only the summary of the run that wrote the file, as the file is now.
describe("agent-trials report --summary: the summary must be of this results file", () => {
  const summaryOf = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Summary.Summary
  const runIdBeside = (results: string) => (JSON.parse(fs.readFileSync(`${results}.run.json`, "utf8")) as { run_id: string }).run_id
  const refusal = (r: { readonly stderr: string }) => r.stderr.trim().split("\n")

  it("a summary of another run is refused, exit 2 naming both run ids and counts, no page written", async () => {
    const dir = tempDir()
    const tasks = taskFile(dir, 20)
    const [out1, out2] = [path.join(dir, "out1.jsonl"), path.join(dir, "out2.jsonl")]
    const [s1, s2] = [path.join(dir, "s1.json"), path.join(dir, "s2.json")]
    const ran = await Promise.all([[out1, s1], [out2, s2]].map(([out, summary]) =>
      run(["--tasks", tasks, "--agent", SIM, "--epochs", "2", "--out", out!, "--summary", summary!, "--no-progress"])
    ))
    for (const r of ran) assert.strictEqual(r.code, 0, describeResult(r))
    const [r1, r2] = [summaryOf(s1).run_id, summaryOf(s2).run_id]
    assert.notStrictEqual(r1, r2)
    assert.strictEqual(runIdBeside(out1), r1)

    // The same tasks, the same counts: only the run ids tell the two apart.
    const html = path.join(dir, "r.html")
    const refused = await report([out1, "--html", html, "--summary", s2])
    assert.strictEqual(refused.code, 2, describeResult(refused))
    assert.deepStrictEqual(refusal(refused), [
      `agent-trials: --summary ${s2} is of run ${r2} (40 trials), but ${out1} holds run ${r1} (40 trials): give the summary that run wrote`
    ])
    assert.isFalse(fs.existsSync(html))

    const accepted = await report([out1, "--html", html, "--summary", s1])
    assert.strictEqual(accepted.code, 0, describeResult(accepted))
    assert.include(fs.readFileSync(html, "utf8"), r1)
  })

  it("a summary written before a --resume is refused by its trial count; the resumed run's own is accepted, and run --report after a resume works", async () => {
    const dir = tempDir()
    const tasks = taskFile(dir, 30)
    const out = path.join(dir, "out.jsonl")
    const [before, after] = [path.join(dir, "before.json"), path.join(dir, "after.json")]
    const first = await run(["--tasks", tasks, "--agent", SIM, "--score", "exact", "--out", out, "--summary", before, "--no-progress"])
    assert.strictEqual(first.code, 0, describeResult(first))
    // 20 more tasks: the resume runs them and keeps the 30 recorded.
    fs.appendFileSync(tasks, Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({ id: `more-${i}`, inputs: { question: "q" }, reference: "a" }) + "\n").join(""))
    const page = path.join(dir, "run-report.html")
    const resumed = await run([
      "--tasks", tasks, "--agent", SIM, "--score", "exact", "--out", out, "--summary", after, "--report", page,
      "--resume", "--no-progress"
    ])
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    assert.strictEqual(stat(fs.readFileSync(page, "utf8"), "Trials"), "50")
    const runId = summaryOf(before).run_id
    // A resume continues its run: the same id in both summaries and beside the file.
    assert.strictEqual(summaryOf(after).run_id, runId)
    assert.strictEqual(runIdBeside(out), runId)
    assert.deepStrictEqual([summaryOf(after).trials.already_recorded.total, summaryOf(after).trials.total.total], [30, 50])

    const html = path.join(dir, "r.html")
    const stale = await report([out, "--html", html, "--summary", before])
    assert.strictEqual(stale.code, 2, describeResult(stale))
    assert.deepStrictEqual(refusal(stale), [
      `agent-trials: --summary ${before} is of run ${runId} (30 trials), but ${out} holds run ${runId} (50 trials): ` +
      "the file changed after that summary was written (a --resume adds trials, --retry-failed reruns failed ones): " +
      "give the summary its last run wrote"
    ])
    assert.isFalse(fs.existsSync(html))

    const accepted = await report([out, "--html", html, "--summary", after, "--tasks", tasks])
    assert.strictEqual(accepted.code, 0, describeResult(accepted))
    assert.strictEqual(stat(fs.readFileSync(html, "utf8"), "Trials"), "50")
  })

  it("a file without its run.json is checked by its trials alone; equal totals with other counts by status are refused", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "s.json")
    const ran = await run(["--synthetic", "30", "--agent", SIM, "--out", out, "--summary", summaryFile, "--no-progress"])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const summary = summaryOf(summaryFile)
    const { completed, failed } = summary.trials.total
    assert.isAbove(failed, 0)
    const copy = path.join(dir, "copy.jsonl")
    fs.copyFileSync(out, copy)
    fs.writeFileSync(path.join(dir, "fewer.jsonl"), fs.readFileSync(out, "utf8").split("\n").slice(1).join("\n"))
    // The same total, one failure more: a summary of the file before a --retry-failed, say.
    const shifted = path.join(dir, "shifted.json")
    fs.writeFileSync(shifted, JSON.stringify({
      ...summary,
      trials: { ...summary.trials, total: { ...summary.trials.total, completed: completed - 1, failed: failed + 1 } }
    }))

    const html = path.join(dir, "r.html")
    const [fewer, byStatus, accepted] = await Promise.all([
      report([path.join(dir, "fewer.jsonl"), "--html", html, "--summary", summaryFile]),
      report([out, "--html", html, "--summary", shifted]),
      report([copy, "--html", path.join(dir, "copy.html"), "--summary", summaryFile])
    ])
    assert.strictEqual(fewer.code, 2, describeResult(fewer))
    const fewerFile = path.join(dir, "fewer.jsonl")
    assert.deepStrictEqual(refusal(fewer), [
      `agent-trials: --summary ${summaryFile} is of run ${summary.run_id} (30 trials), but ${fewerFile} holds 29 trials ` +
      `and names no run (no run_id in ${fewerFile}.run.json): give the summary of the run that wrote it`
    ])
    assert.strictEqual(byStatus.code, 2, describeResult(byStatus))
    assert.deepStrictEqual(refusal(byStatus), [
      `agent-trials: --summary ${shifted} is of run ${summary.run_id} ` +
      `(30 trials: ${completed - 1} completed, ${failed + 1} failed, 0 partial), ` +
      `but ${out} holds run ${summary.run_id} (30 trials: ${completed} completed, ${failed} failed, 0 partial): ` +
      "the file changed after that summary was written (a --resume adds trials, --retry-failed reruns failed ones): " +
      "give the summary its last run wrote"
    ])
    assert.isFalse(fs.existsSync(html))
    assert.strictEqual(accepted.code, 0, describeResult(accepted))
    assert.isTrue(fs.existsSync(path.join(dir, "copy.html")))
  })

  it("the summary of a run with a bad task line skipped (--on-invalid skip, --epochs 3) is accepted: one InvalidTask trial in both counts", async () => {
    const dir = tempDir()
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [
      ...Array.from({ length: 10 }, (_, i) => ({ id: `task-${i}`, inputs: { question: "q" }, reference: "a" })),
      "{not json"
    ])
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "s.json")
    const ran = await run([
      "--tasks", tasks, "--agent", SIM, "--epochs", "3", "--on-invalid", "skip", "--out", out, "--summary", summaryFile, "--no-progress"
    ])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const invalid = readTrials(out).filter((t) => t.error?.type === "InvalidTask")
    assert.strictEqual(invalid.length, 1)
    assert.strictEqual(summaryOf(summaryFile).trials.total.total, 31)

    const html = path.join(dir, "r.html")
    const accepted = await report([out, "--html", html, "--summary", summaryFile])
    assert.strictEqual(accepted.code, 0, describeResult(accepted))
    assert.strictEqual(stat(fs.readFileSync(html, "utf8"), "Trials"), "31")
  })
})

describe("agent-trials report: the clustered figures and the groups of the run's summary", () => {
  const HOSTILE = "<img src=x onerror=alert(1)>"
  const fmt = (x: number | null) => (x === null ? "—" : Html.formatNumber(x, 4))
  const ci = (i: readonly [number, number] | null) => (i === null ? "—" : `[${fmt(i[0])}, ${fmt(i[1])}]`)
  // A table row's cells: the first text, the others numbers.
  const td = (cells: ReadonlyArray<string | number>) => cells.map((c, i) => (i === 0 ? `<td>${c}</td>` : `<td class="num">${c}</td>`)).join("")

  it("a run with --epochs 3 --group-by --pass-k: the page shows the summary's CI, design effects, pass@k at its k and the group rows, escaped", async () => {
    const dir = tempDir()
    // The clustered agent answers right with the task's p: tasks of p 0 or 1 pass or fail all their epochs.
    const subjects = ["math", "history", HOSTILE, "biology"]
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), Array.from({ length: 40 }, (_, i) => ({
      id: `task-${i}`,
      inputs: { question: `q${i}`, p: (i % 5) / 4 },
      reference: "yes",
      ...(i === 39 ? {} : { metadata: { subject: subjects[i % 4] } })
    })))
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const runPage = path.join(dir, "run.html")
    const ran = await run([
      "--tasks", tasks, "--agent", "module:test/fixtures/agent-clustered.ts#answer", "--epochs", "3",
      "--group-by", "metadata.subject", "--score", "exact", "--pass-k", "2,3",
      "--out", out, "--summary", summaryFile, "--report", runPage, "--no-progress"
    ])
    assert.strictEqual(ran.code, 0, describeResult(ran))
    const sc = (JSON.parse(fs.readFileSync(summaryFile, "utf8")) as Summary.Summary).scoring!
    const exact = sc.scorers["exact"]!
    assert.strictEqual(sc.stderr_cluster, "task")
    assert.isAbove(exact.design_effect!, 1)
    const groups = sc.groups["metadata.subject"]!
    // Keyed by the value's JSON text; the task without a subject under (missing).
    const keys = [...subjects.map((s) => JSON.stringify(s)), "(missing)"]
    assert.deepStrictEqual(Object.keys(groups), keys)

    const [withSummary, bare] = [path.join(dir, "with-summary.html"), path.join(dir, "bare.html")]
    const reported = await Promise.all([
      report([out, "--html", withSummary, "--summary", summaryFile]),
      report([out, "--html", bare])
    ])
    for (const r of reported) assert.strictEqual(r.code, 0, describeResult(r))

    for (const file of [runPage, withSummary, bare]) {
      const html = fs.readFileSync(file, "utf8")
      assert.include(html, `Standard errors: clustered by task (its epochs) over 40 clusters.</p>`, file)
      assert.include(html, `<tr>${td(["exact", 120, 120, 0, `${fmt(exact.mean)} ± ${fmt(exact.standard_error)}`, ci(exact.ci95),
        40, fmt(exact.design_effect), fmt(exact.pass_rate), ci(exact.pass_rate_ci95), fmt(exact.pass_rate_design_effect)])}</tr>`, file)
      // The group table: every value, largest first (the task without a subject last), the hostile one as text.
      const shown = (value: string) => Html.text(value)
      assert.strictEqual(shown(JSON.stringify(HOSTILE)), "&quot;&lt;img src=x onerror=alert(1)&gt;&quot;")
      const rows = keys.map((value) => {
        const g = groups[value]!["exact"]!
        return `<tr>${td([shown(value), g.trials, `${fmt(g.mean)} ${ci(g.ci95)}`, `${fmt(g.pass_rate)} ${ci(g.pass_rate_ci95)}`])}</tr>`
      })
      assert.include(html, `<tbody>${rows.join("")}</tbody>`, file)
      assert.include(html, "<h2>By metadata.subject (5 values)</h2>", file)
      assert.notInclude(html, "<img", file)
      // pass@k and pass^k at the summary's k (2 and 3); without the summary, the default k (1 and 3), pass@1 the pass rate.
      const table = /<div id="pass-at-k">(.*?)<\/div>/.exec(html)![1]!
      const row = (k: number) => {
        const at = (key: string) => `<td class="num">${fmt(sc.pass_at_k.estimates[key]!)}</td><td class="num">${ci(sc.pass_at_k.ci95[key]!)}</td>`
        return `<tr><td class="num">${k}</td>${at(`pass@${k}`)}${at(`pass^${k}`)}</tr>`
      }
      if (file === bare) {
        assert.include(table, `<tr><td class="num">1</td><td class="num">${fmt(exact.pass_rate)}</td>`, file)
        assert.include(table, row(3), file)
      } else {
        for (const k of [2, 3]) assert.include(table, row(k), `${file}: k=${k}`)
      }
      assert.strictEqual(table.match(/<tr>/g)?.length, 3, file)
    }
    assert.deepStrictEqual(sc.pass_at_k.ks, [2, 3])
  })
})

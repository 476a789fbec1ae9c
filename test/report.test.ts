/**
 * The report's pieces: the timeline against a brute-force count, the table's
 * bounded rows (failures first) against a reference selection, the
 * aggregates against the run summary's own on the same records, epochs and
 * scorers read off the first trials, the shared SVG primitives, the
 * clustered statistics, pass@k and pass^k and per-group breakdowns on the
 * page, and escaping of user text in the page.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Aggregate from "../src/report/Aggregate.ts"
import * as Html from "../src/report/Html.ts"
import * as Page from "../src/report/page/Page.ts"
import * as Report from "../src/programs/Report.ts"
import * as PageGroups from "../src/report/page/Groups.ts"
import * as Svg from "../src/report/svg/Svg.ts"
import { Timeline } from "../src/report/Timeline.ts"
import * as Summary from "../src/summary/Summary.ts"
import type * as Clustered from "../src/statistics/Clustered.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Kinds from "../src/programs/Kinds.ts"

const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const T0 = Date.parse("2026-01-01T00:00:00.000Z")

interface Spec {
  readonly task: string
  readonly epoch: number
  readonly status?: "completed" | "failed" | "partial"
  readonly startMs?: number
  readonly latencyMs?: number
  readonly output?: string
  readonly errorType?: string
  readonly scores?: AgentEvalTrial["scores"]
  /** More metadata, as a run writes it (stderr_cluster, groups). */
  readonly metadata?: Record<string, unknown>
}

const trial = (s: Spec): AgentEvalTrial => {
  const start = T0 + (s.startMs ?? 0)
  const latency = s.latencyMs ?? 10
  const status = s.status ?? "completed"
  return {
    id: `${s.task}:${s.epoch}`,
    task_id: s.task,
    status,
    ...(status === "failed" ? {} : { output: { output_text: s.output ?? `answer of ${s.task}` } }),
    ...(status === "failed"
      ? { error: { type: s.errorType ?? "AgentError", message: `${s.task} failed`, occurred_at: new Date(start + latency).toISOString() } }
      : {}),
    metadata: {
      started_at: new Date(start).toISOString(),
      finished_at: new Date(start + latency).toISOString(),
      latency_ms: latency,
      ...s.metadata
    },
    ...(s.scores === undefined || status === "failed" ? {} : { scores: s.scores })
  }
}

// Random trials of `tasks` x `epochs`, in an order close to a run's (epochs
// of a task near each other), with failures, scorer errors and two scorers.
const randomRun = (seed: number, tasks: number, epochs: number): Array<AgentEvalTrial> => {
  const r = mulberry32(seed)
  const out: Array<AgentEvalTrial> = []
  for (let t = 0; t < tasks; t++) {
    for (let e = 1; e <= epochs; e++) {
      const u = r()
      const value = r()
      out.push(trial({
        task: `task-${t}`,
        epoch: e,
        status: u < 0.1 ? "failed" : u < 0.12 ? "partial" : "completed",
        errorType: r() < 0.5 ? "Timeout" : "AgentError",
        startMs: t * 7 + e * 3 + Math.floor(r() * 50),
        latencyMs: 0.5 + r() * 200,
        scores: {
          exact: { value: value < 0.7 ? 1 : 0, passed: value < 0.7 },
          similar: r() < 0.05
            ? { value: 0, passed: false, error: { type: "ScorerError", message: "boom", occurred_at: "x" } }
            : { value, passed: value > 0.3 }
        }
      }))
    }
  }
  return out
}

describe("Timeline", () => {
  // The overlap of [s, e] with each bucket, and finishes per bucket, counted
  // directly over the timeline's final buckets.
  const bruteForce = (timeline: Timeline, intervals: ReadonlyArray<readonly [number, number, boolean]>) => {
    const finished = new Array<number>(timeline.size).fill(0)
    const failed = new Array<number>(timeline.size).fill(0)
    const busy = new Array<number>(timeline.size).fill(0)
    for (const [s, e, f] of intervals) {
      for (let b = 0; b < timeline.size; b++) {
        const lo = timeline.origin + b * timeline.width
        const hi = lo + timeline.width
        if (e >= lo && e < hi) {
          finished[b]++
          if (f) failed[b]++
        }
        busy[b] += Math.max(0, Math.min(e, hi) - Math.max(s, lo))
      }
    }
    return { finished, failed, busy }
  }

  it("matches a brute-force count per bucket on random intervals in any order, the range growing both ways", () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = mulberry32(seed)
      const size = 2 * (1 + Math.floor(r() * 12))
      const timeline = new Timeline(size)
      const n = 1 + Math.floor(r() * 80)
      const span = 10 ** (1 + r() * 5)
      const intervals: Array<readonly [number, number, boolean]> = []
      for (let i = 0; i < n; i++) {
        // Later records may start well before earlier ones: the range grows to the left too.
        const s = T0 + (r() - 0.5) * span
        const e = s + r() * span * 0.3
        intervals.push([s, e, r() < 0.2])
        timeline.add(s, e, intervals[i]![2])
      }
      const expected = bruteForce(timeline, intervals)
      const where = `seed ${seed}, size ${size}, n ${n}`
      for (const [s, e] of intervals) {
        assert.isAtLeast(s, timeline.origin, where)
        assert.isBelow(e, timeline.origin + size * timeline.width, where)
      }
      assert.deepStrictEqual([...timeline.finished], expected.finished, `${where}: finished`)
      assert.deepStrictEqual([...timeline.failed], expected.failed, `${where}: failed`)
      for (let b = 0; b < size; b++) {
        assert.approximately(timeline.busy[b], expected.busy[b], 1e-6 * Math.max(1, expected.busy[b]), `${where}: busy[${b}]`)
      }
      const total = intervals.reduce((sum, [s, e]) => sum + (e - s), 0)
      assert.approximately([...timeline.busy].reduce((a, b) => a + b, 0), total, 1e-6 * Math.max(1, total), where)
      const buckets = timeline.buckets()
      assert.strictEqual(buckets.reduce((a, b) => a + b.finished, 0), n, where)
    }
  })

  it("keeps a fixed number of buckets however long the range (the width doubles)", () => {
    const timeline = new Timeline(10)
    for (let i = 0; i < 1000; i++) timeline.add(T0 + i * 1000, T0 + i * 1000 + 500)
    assert.strictEqual(timeline.finished.length, 10)
    assert.isAtLeast(timeline.width * 10, 999_500)
    assert.strictEqual(timeline.buckets().reduce((a, b) => a + b.finished, 0), 1000)
    // Each bucket's mean in flight is 0.5: half of every second has a call.
    for (const b of timeline.buckets().slice(0, -1)) assert.approximately(b.busyMs / b.width, 0.5, 0.01)
  })

  it("skips intervals whose times are not numbers; refuses an odd bucket count", () => {
    const timeline = new Timeline(4)
    timeline.add(Number.NaN, T0)
    assert.strictEqual(timeline.skipped, 1)
    assert.deepStrictEqual(timeline.buckets(), [])
    assert.throws(() => new Timeline(3), /even number of buckets/)
  })
})

describe("Aggregate rows", () => {
  it("keeps at most maxRows rows, failures first, each group in file order (against a reference selection)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const r = mulberry32(seed)
      const n = Math.floor(r() * 60)
      const maxRows = 1 + Math.floor(r() * 20)
      const failRate = r()
      const trials = Array.from({ length: n }, (_, i) =>
        trial({
          task: `t${i}`,
          epoch: 1,
          status: r() < failRate / 2 ? "failed" : "completed",
          scores: { exact: { value: 1, passed: r() >= failRate / 2 } }
        }))
      const agg = new Aggregate.Aggregate({ maxRows })
      let held = 0
      for (const t of trials) {
        agg.add(t)
        held = Math.max(held, (agg as unknown as { failures: Array<unknown>; others: Array<unknown> }).failures.length +
          (agg as unknown as { others: Array<unknown> }).others.length)
      }
      const result = agg.result()
      const failing = (t: AgentEvalTrial) => t.status !== "completed" || !t.scores!["exact"]!.passed
      const failures = trials.filter(failing).map((t) => t.id)
      const passes = trials.filter((t) => !failing(t)).map((t) => t.id)
      const expected = [...failures.slice(0, maxRows), ...passes.slice(0, Math.max(0, maxRows - failures.length))]
      const where = `seed ${seed}, n ${n}, maxRows ${maxRows}`
      assert.deepStrictEqual(result.rows.map((row) => row.id), expected, where)
      assert.isAtMost(held, maxRows, `${where}: never more than maxRows rows held`)
      assert.strictEqual(result.rowsLeftOut, n - expected.length, where)
      assert.strictEqual(result.failingTrials, failures.length, where)
      for (const row of result.rows) assert.strictEqual(row.failing, failures.includes(row.id), where)
    }
  })

  it("cuts long texts of a row to the text limit", () => {
    const agg = new Aggregate.Aggregate({ maxRows: 1, textLimit: 10 })
    agg.add(trial({ task: "t", epoch: 1, output: "x".repeat(5000) }))
    const row = agg.result().rows[0]!
    assert.strictEqual(row.output, `${"x".repeat(10)}… (4,990 more characters)`)
  })

  it("refuses maxRows below 1", () => {
    assert.throws(() => new Aggregate.Aggregate({ maxRows: 0 }), /maxRows must be an integer >= 1, got 0/)
    assert.throws(() => new Aggregate.Aggregate({ maxRows: -3 }), /got -3/)
  })
})

describe("Aggregate figures", () => {
  const fromSummary = (trials: ReadonlyArray<AgentEvalTrial>, epochs: number, scorers: ReadonlyArray<string>, pass?: string) => {
    const acc = new Summary.Accumulator(epochs, { scorers, pass })
    for (const t of trials) acc.add(t)
    return Summary.make({ runId: "r", resultsFile: "f", outcome: "finished", acc, probe: new MutableProbe(), wallMs: 1000, parallelism: 4 })
  }
  const figures = (s: Summary.Summary) => ({
    trials: s.trials.total,
    error_types: s.error_types,
    latency_ms: s.latency_ms,
    epochs: s.epochs,
    pass_at_k: s.pass_at_k,
    scoring: s.scoring === undefined ? undefined : { ...s.scoring, parallelism: 0, judge_parallelism: null }
  })

  for (const epochs of [1, 3]) {
    it(`equal the run summary's on the same records (${epochs} epochs), given or inferred`, () => {
      const trials = randomRun(epochs * 11, 300, epochs)
      const expected = figures(fromSummary(trials, epochs, ["exact", "similar"]))
      for (const options of [{ epochs, scoring: { scorers: ["exact", "similar"] } }, {}, { window: 7 }]) {
        const agg = new Aggregate.Aggregate({ maxRows: 10, ...options })
        for (const t of trials) agg.add(t)
        const result = agg.result()
        const file = Page.fileSummary("f", result)
        assert.deepStrictEqual(figures(file), expected, JSON.stringify(options))
        assert.deepStrictEqual(result.notes, [])
        assert.strictEqual(result.trials, trials.length)
      }
    })
  }

  it("uses the summary's pass rule", () => {
    const trials = randomRun(5, 100, 2)
    const expected = figures(fromSummary(trials, 2, ["exact", "similar"], "similar"))
    const agg = new Aggregate.Aggregate({ maxRows: 5, epochs: 2, scoring: { scorers: ["exact", "similar"], pass: "similar" } })
    for (const t of trials) agg.add(t)
    assert.deepStrictEqual(figures(Page.fileSummary("f", agg.result())), expected)
  })

  it("names what the first trials did not show: a higher epoch, another scorer", () => {
    const agg = new Aggregate.Aggregate({ maxRows: 5, window: 4 })
    for (let i = 0; i < 4; i++) agg.add(trial({ task: `t${i}`, epoch: 1, scores: { exact: { value: 1, passed: true } } }))
    agg.add(trial({ task: "late", epoch: 2, scores: { judge: { value: 1, passed: true } } }))
    const result = agg.result()
    assert.strictEqual(result.acc.epochs, 1)
    assert.isTrue(result.inferred)
    assert.strictEqual(result.notes.length, 2)
    assert.include(result.notes[0], "1 trials have an epoch above 1")
    assert.include(result.notes[1], "scores by judge appear after the first 4 trials")
  })

  it("reads the epoch off a trial id", () => {
    assert.strictEqual(Aggregate.epochOf("task:3"), 3)
    assert.strictEqual(Aggregate.epochOf("a:b:12"), 12)
    assert.strictEqual(Aggregate.epochOf("task:trial"), 1)
  })
})

describe("Svg", () => {
  it("linear ticks are round and cover the data", () => {
    for (const [lo, hi] of [[0, 1], [0, 7.3], [3, 1234], [-5, 5], [0.001, 0.0042]] as const) {
      const ticks = Svg.linearTicks(lo, hi)
      assert.isAtMost(ticks[0]!, lo)
      assert.isAtLeast(ticks.at(-1)!, hi)
      assert.isAtLeast(ticks.length, 2)
      const step = ticks[1]! - ticks[0]!
      const mantissa = step / 10 ** Math.floor(Math.log10(step))
      assert.isTrue([1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-6), `${lo}..${hi}: step ${step}`)
    }
  })

  it("log ticks are 1, 2, 5 per decade; compact numbers are short", () => {
    assert.deepStrictEqual(Svg.logTicks(3, 300), [5, 10, 20, 50, 100, 200])
    assert.deepStrictEqual([1500, 2e6, 0.25, 12, 999].map(Svg.compact), ["1.5k", "2M", "0.25", "12", "999"])
  })

  it("charts escape their text and draw their marks", () => {
    const line = Svg.lineChart({ title: "<b>", series: [{ name: "a&b", points: [{ x: 0, y: 1 }, { x: 1, y: 2 }] }, { name: "c", points: [{ x: 0, y: 0 }] }] })
    assert.include(line, "&lt;b&gt;")
    assert.include(line, "a&amp;b")
    assert.include(line, "<polyline")
    const bars = Svg.barChart({ orientation: "horizontal", bars: [{ label: `<img src=x onerror="1">`, value: 3 }] })
    assert.notInclude(bars, "<img")
    assert.include(bars, "&lt;img src=x onerror=&quot;1&quot;&gt;")
    assert.include(Svg.lineChart({ series: [] }), "no data")
  })
})

describe("Page", () => {
  const nasty = `<script>alert("x")</script></td><!-- \u2028 \u2029 & 'quotes'`

  const pageOf = (trials: ReadonlyArray<AgentEvalTrial>) => {
    const agg = new Aggregate.Aggregate({ maxRows: 50 })
    for (const t of trials) agg.add(t)
    return Page.render({ resultsFile: "<file>.jsonl", result: agg.result(), withTasks: false })
  }

  it("escapes user text everywhere: the rows' JSON block, charts, headings", () => {
    const html = pageOf([
      trial({ task: nasty, epoch: 1, output: nasty, scores: { [nasty]: { value: 0, passed: false } } }),
      trial({ task: "t2", epoch: 1, status: "failed", errorType: `</script><script>bad()</script>` })
    ])
    // The only script elements are the page's own: the JSON block and the table script.
    assert.strictEqual(html.match(/<script/g)?.length, 2)
    assert.notInclude(html, `<script>alert`)
    assert.notInclude(html, "</td><!--")
    assert.include(html, "&lt;/script&gt;&lt;script&gt;bad()")
    assert.include(html, "&lt;file&gt;.jsonl")
    const json = /<script type="application\/json" id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!
    // U+2028 and U+2029 end a line in older JavaScript parsers: escaped in the block (harmless in HTML text).
    assert.notInclude(json, "\u2028")
    assert.notInclude(json, "\u2029")
    const data = JSON.parse(json) as { rows: ReadonlyArray<Aggregate.Row> }
    assert.strictEqual(data.rows.find((r) => r.task_id === nasty)!.output, nasty)
    assert.strictEqual(data.rows.find((r) => r.task_id === "t2")!.error!.type, `</script><script>bad()</script>`)
  })

  it("shows bidi and control characters as their code points, never raw: ids, outputs, errors, scorer names, file names", () => {
    const RLO = "\u202e"
    const agg = new Aggregate.Aggregate({ maxRows: 50 })
    agg.add(trial({ task: `invoice${RLO}gnp.exe`, epoch: 1, output: `ok\u2066\u0085\u0007\r\n`, scores: { [`exact${RLO}`]: { value: 1, passed: true } } }))
    agg.add(trial({ task: "t2", epoch: 1, status: "failed", errorType: `Bad${RLO}Type\u200f` }))
    const html = Page.render({ resultsFile: `results${RLO}lmth.jsonl`, result: agg.result(), withTasks: false })
    // No raw control of the set anywhere in the file (a CR before a newline is part of the newline).
    assert.notMatch(html, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/)
    // Shown as a styled mark in text, a plain one in the title and the charts.
    assert.include(html, `<div class="sub">results<span class="ctl">&lt;U+202E&gt;</span>lmth.jsonl`)
    assert.include(html, `<title>agent-trials report: results&lt;U+202E&gt;lmth.jsonl</title>`)
    assert.include(html, `<label>exact<span class="ctl">&lt;U+202E&gt;</span> <select`)
    assert.include(html, `>Bad&lt;U+202E&gt;Type&lt;U+200F&gt;</text>`)
    // The select's key is the scorer's name itself, written as a character reference.
    assert.include(html, `data-scorer="exact&#x202e;"`)
    // The rows keep their texts (the table's script marks them): escaped in JSON, the same once parsed.
    const json = /<script type="application\/json" id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!
    assert.include(json, "invoice\\u202egnp.exe:1")
    const rows = (JSON.parse(json) as { rows: ReadonlyArray<Aggregate.Row> }).rows
    assert.deepStrictEqual(rows.map((r) => r.id).sort(), [`invoice${RLO}gnp.exe:1`, "t2:1"])
    assert.strictEqual(rows.find((r) => r.id === "t2:1")!.error!.type, `Bad${RLO}Type\u200f`)
  })

  it("names failed trials (the agent call failed) and not passed (a scorer said no) apart: cards, filters, table note", () => {
    const html = pageOf([
      trial({ task: "a", epoch: 1, scores: { exact: { value: 1, passed: true } } }),
      trial({ task: "b", epoch: 1, scores: { exact: { value: 0, passed: false } } }),
      trial({ task: "c", epoch: 1, scores: { exact: { value: 0, passed: false } } }),
      trial({ task: "d", epoch: 1, status: "failed" })
    ])
    const card = (label: string) =>
      new RegExp(`<div class="label">${label}</div><div class="value">([^<]*)</div>(?:<div class="note">([^<]*)</div>)?`).exec(html)?.slice(1)
    assert.deepStrictEqual(card("Failed trials"), ["1", "the agent call failed"])
    assert.deepStrictEqual(card("Not passed"), ["2", "answered; a scorer said no"])
    assert.deepStrictEqual(card("Passed"), ["25.0%", "1 of 4, 95% CI 4.6%–69.9%"])
    assert.isUndefined(card("Failed"))
    assert.include(html, `<option value="passed">passed</option><option value="failed">not passed</option>`)
    assert.include(html, `<input type="checkbox" id="only-failures"> failed or not passed only</label>`)
    assert.include(html, "4 of 4 trials (first the 3 failed or not passed).")
    assert.include(html, "<h2>Failed trials by error type</h2>")
  })

  it("prints latencies to 3 significant digits, on the tile and under the histogram", () => {
    const html = pageOf([12.3456, 19.536, 20.4321, 1234.5678].map((latencyMs, i) => trial({ task: `t${i}`, epoch: 1, latencyMs })))
    // p50 is 19.536's bucket (19.5 within ±2.5%), the others the largest latency, 1234.5678 ms.
    assert.include(html, `<p class="note">p50 19.5 ms · p95 1.23 s · p99 1.23 s · max 1.23 s (percentiles within ±2.5%)</p>`)
    assert.include(html, `<div class="label">Latency p50</div><div class="value">19.5 ms</div><div class="note">p95 1.23 s · p99 1.23 s</div>`)
  })

  it("is self-contained: no external URL, a policy forbidding requests", () => {
    const html = pageOf(randomRun(3, 20, 2))
    assert.include(html, `Content-Security-Policy" content="default-src 'none'`)
    assert.notMatch(html, /\b(src|href)=["']?(https?:)?\/\//)
    assert.notMatch(html, /@import|url\(/)
  })

  it("scriptJson keeps a value intact and unable to close its block", () => {
    const value = { a: nasty, b: [1, "</SCRIPT>"] }
    const text = Html.scriptJson(value)
    assert.notMatch(text, /<\//)
    assert.deepStrictEqual(JSON.parse(text), value)
  })
})

describe("Page statistics", () => {
  const pass = (passed: boolean) => ({ exact: { value: passed ? 1 : 0, passed } })
  const render = (trials: ReadonlyArray<AgentEvalTrial>, summary?: Summary.Summary) => {
    const agg = new Aggregate.Aggregate({ maxRows: 10, ...(summary === undefined ? {} : { epochs: summary.epochs, scoring: { scorers: ["exact"] } }) })
    for (const t of trials) agg.add(t)
    const result = agg.result()
    return { html: Page.render({ resultsFile: "r.jsonl", result, summary, withTasks: false }), file: Page.fileSummary("r.jsonl", result, summary) }
  }
  // The cells of the scorer table's row of `name`, as text.
  const rowOf = (html: string, name: string): Array<string> | undefined => {
    const row = new RegExp(`<tr><td>${name}</td>(.*?)</tr>`).exec(html)?.[1]
    return row === undefined ? undefined : [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]!)
  }

  it("the scorer table shows the clustered figures: CR1 SE, t interval on G - 1, clusters, design effects (a case worked by hand)", () => {
    // Two tasks of two epochs, one right both times, one wrong both times: mean 0.5,
    // CR1 SE sqrt(2/1 * (1^2 + 1^2)) / 4 = 0.5, t(0.975, 1) = 12.7062, iid SE 0.2887, design effect 3.
    const trials = ["a", "a", "b", "b"].map((task, i) => trial({ task, epoch: 1 + (i % 2), scores: pass(task === "a") }))
    const { html } = render(trials)
    assert.include(html, `<p class="note clustering" id="stderr-cluster">Standard errors: clustered by task (its epochs) over 2 clusters.</p>`)
    for (const label of ["Clusters", "Design effect", "Pass design effect"]) assert.include(html, `<th class="num">${label}</th>`)
    assert.deepStrictEqual(rowOf(html, "exact"), [
      "4", "4", "0", "0.5 ± 0.5", "[-5.8531, 6.8531]", "2", "3", "0.5", "[0.0692, 0.9308]", "3"
    ])
    // The pass rate's Wilson interval is that of p = 0.5 on n_eff = 4 / 3 trials (z = 1.96):
    // 0.5 ± 1.96 · sqrt(0.1875 + 0.5402) / (1 + 2.8812) = 0.5 ± 0.4308.
    assert.deepStrictEqual(rowOf(html, "passed \\(every scorer\\)"), ["4", "—", "—", "—", "—", "2", "—", "0.5", "[0.0692, 0.9308]", "3"])
  })

  it("says how errors are clustered: by a recorded PATH over its values, or not at all (no cluster columns)", () => {
    const byPassage = Array.from({ length: 24 }, (_, i) =>
      trial({
        task: `t${i}`,
        epoch: 1,
        scores: pass(i % 3 === 0),
        metadata: { epochs: 1, stderr_cluster: { by: "metadata.passage_id", value: `p${i % 12}` } }
      }))
    const clustered = render(byPassage)
    assert.include(clustered.html, "Standard errors: clustered by metadata.passage_id over 12 clusters.</p>")
    const s = clustered.file.scoring!.scorers["exact"]!
    assert.strictEqual(s.clusters, 12)
    assert.deepStrictEqual(rowOf(clustered.html, "exact")!.slice(5, 7), ["12", Html.formatNumber(s.design_effect!, 4)])

    const alone = render(byPassage.map((t) => ({ ...t, metadata: { ...t.metadata, stderr_cluster: null } })))
    assert.include(alone.html, "Standard errors: not clustered (each trial independent).</p>")
    assert.notInclude(alone.html, `<th class="num">Clusters</th>`)
    const iid = alone.file.scoring!.scorers["exact"]!
    assert.isNull(iid.design_effect)
    assert.deepStrictEqual(rowOf(alone.html, "exact"), [
      "24", "24", "0", `${Html.formatNumber(iid.mean!, 4)} ± ${Html.formatNumber(iid.standard_error!, 4)}`,
      `[${Html.formatNumber(iid.ci95![0], 4)}, ${Html.formatNumber(iid.ci95![1], 4)}]`,
      Html.formatNumber(iid.pass_rate!, 4),
      `[${Html.formatNumber(iid.pass_rate_ci95![0], 4)}, ${Html.formatNumber(iid.pass_rate_ci95![1], 4)}]`
    ])
  })

  // Five tasks of 4 epochs passing 4, 3, 1, 0 and 2 times (PassAtK's example): pass@2 0.6667, pass^2 0.3333;
  // pass@3 (1 + 1 + 0.75 + 0 + 1) / 5 = 0.75, pass^3 (1 + 0.25) / 5 = 0.25.
  const fiveTasks = [4, 3, 1, 0, 2].flatMap((c, t) =>
    [1, 2, 3, 4].map((epoch) => trial({ task: `t${t}`, epoch, scores: pass(epoch <= c) })))
  const atKs = (html: string) =>
    [.../<div id="pass-at-k">(.*?)<\/div>/.exec(html)![1]!.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) =>
      [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!))

  it("pass@k: a table at the summary's k (--pass-k) with pass@k, pass^k and their t intervals, and a pass^k series", () => {
    const acc = new Summary.Accumulator(4, { scorers: ["exact"] })
    for (const t of fiveTasks) acc.add(t)
    const summary = Summary.make({
      runId: "r", resultsFile: "r.jsonl", outcome: "finished", acc, probe: new MutableProbe(), wallMs: 1000, parallelism: 2, passK: [2, 3]
    })
    const p = summary.scoring!.pass_at_k
    const { html } = render(fiveTasks, summary)
    const rows = atKs(html)
    assert.deepStrictEqual(rows.map((r) => r.slice(0, 2).concat(r[3]!)), [["2", "0.6667", "0.3333"], ["3", "0.75", "0.25"]])
    for (const [i, k] of [2, 3].entries()) {
      const interval = (key: string) => `[${Html.formatNumber(p.ci95[key]![0], 4)}, ${Html.formatNumber(p.ci95[key]![1], 4)}]`
      assert.deepStrictEqual(rows[i], [String(k), Html.formatNumber(p.estimates[`pass@${k}`]!, 4), interval(`pass@${k}`), Html.formatNumber(p.estimates[`pass^${k}`]!, 4), interval(`pass^${k}`)])
    }
    // Without a summary: the default k, 1, min(5, K) and K.
    assert.deepStrictEqual(atKs(render(fiveTasks).html).map((r) => r[0]), ["1", "4"])
    // The chart: pass@k and pass^k of the passed trials and of the completed ones.
    for (const name of ["pass@k, passed", "pass^k, passed", "pass@k, completed", "pass^k, completed"]) assert.include(html, `<text x="14" y="9">${name}</text>`)
    const chart = /<h2>pass@k and pass\^k by k<\/h2>(<svg.*?<\/svg>)/.exec(html)![1]!
    assert.strictEqual(chart.match(/<polyline/g)?.length, 4)
  })

  const subject = (value: string | null) => ({ groups: { "metadata.subject": value } })
  const HOSTILE = `<img src=x onerror=alert(1)>`

  it("groups: a table and a chart per PATH, user values escaped, largest groups first", () => {
    const values = ["math", "math", "math", HOSTILE, HOSTILE, `bio\u202egy`, null]
    const trials = values.flatMap((value, t) =>
      [1, 2].map((epoch) => trial({ task: `t${t}`, epoch, scores: pass(t % 2 === 0 || epoch === 1), metadata: subject(value) })))
    const { html, file } = render(trials)
    const groups = file.scoring!.groups["metadata.subject"]!
    assert.deepStrictEqual(Object.keys(groups).sort(), ["(missing)", HOSTILE, "bio\u202egy", "math"].sort())
    assert.include(html, `<section class="card" id="group-by-metadata.subject"><h2>By metadata.subject (4 values)</h2>`)
    const cells = (s: Clustered.ScorerStats) => {
      const ci = (i: readonly [number, number] | null) => (i === null ? "—" : `[${Html.formatNumber(i[0], 4)}, ${Html.formatNumber(i[1], 4)}]`)
      return `<td class="num">${Html.formatNumber(s.mean!, 4)} ${ci(s.ci95)}</td><td class="num">${Html.formatNumber(s.pass_rate!, 4)} ${ci(s.pass_rate_ci95)}</td>`
    }
    const rows = [
      ["math", 6, groups["math"]!],
      ["&lt;img src=x onerror=alert(1)&gt;", 4, groups[HOSTILE]!],
      [`bio<span class="ctl">&lt;U+202E&gt;</span>gy`, 2, groups["bio\u202egy"]!],
      ["(missing)", 2, groups["(missing)"]!]
    ] as const
    const table = /<h2>By metadata\.subject.*?<table>(.*?)<\/table>/.exec(html)![1]!
    assert.strictEqual(table, `<thead><tr><th>Value</th><th class="num">Trials</th><th class="num">exact mean [95% CI]</th>` +
      `<th class="num">exact pass rate [95% CI]</th></tr></thead><tbody>` +
      rows.map(([v, n, g]) => `<tr><td>${v}</td><td class="num">${n}</td>${cells(g["exact"]!)}</tr>`).join("") + `</tbody>`)
    assert.strictEqual(groups["math"]!["exact"]!.clusters, 3)
    // The chart: a bar with a whisker per value, labels escaped.
    const chart = /<svg[^>]*aria-label="Pass rate by metadata.subject[^"]*".*?<\/svg>/.exec(html)![0]
    assert.strictEqual(chart.match(/<rect/g)?.length, 4)
    assert.include(chart, `>&lt;img src=x onerror=alert(1)&gt;<title>`)
    assert.include(chart, ">bio&lt;U+202E&gt;gy<title>")
    assert.notInclude(html, "<img")
    assert.notMatch(html, /[\u202a-\u202e]/)
  })

  it("groups: at most GROUPS_SHOWN values in the table, the rest counted, so a PATH of 20,000 values makes a small page", () => {
    // Value v0 has 3 tasks, v1 2, every other value 1.
    const n = 20_000
    const trials = Array.from({ length: n + 3 }, (_, i) => {
      const value = i < 3 ? "v0" : i < 5 ? "v1" : `v${i - 3}`
      return trial({ task: `t${i}`, epoch: 1, scores: pass(i % 2 === 0), metadata: subject(value) })
    })
    const { html, file } = render(trials)
    const values = Object.keys(file.scoring!.groups["metadata.subject"]!).length
    assert.strictEqual(values, n)
    const section = /<section class="card" id="group-by-metadata.subject">.*?<\/section>/.exec(html)![0]
    const table = /<table>(.*?)<\/table>/.exec(section)![1]!
    assert.strictEqual(table.match(/<tr>/g)?.length, 1 + PageGroups.GROUPS_SHOWN)
    assert.match(table, /^<thead>.*?<\/thead><tbody><tr><td>v0<\/td><td class="num">3<\/td>.*?<tr><td>v1<\/td><td class="num">2<\/td>/)
    assert.include(section, `${Html.formatNumber(n - PageGroups.GROUPS_SHOWN)} more values (smaller groups): see the --summary JSON (scoring.groups).`)
    assert.include(section, `The chart shows the ${PageGroups.CHART_ROWS} largest groups.`)
    assert.strictEqual(/<svg.*?<\/svg>/.exec(section)![0].match(/<circle/g)?.length, PageGroups.CHART_ROWS)
    assert.isBelow(section.length, 60_000)
  })
})

describe("Report.write", () => {
  it.effect("fills input and reference of the shown rows only from the task stream", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-report-"))
      const results = path.join(dir, "r.jsonl")
      const tasks = path.join(dir, "tasks.jsonl")
      const html = path.join(dir, "r.html")
      fs.writeFileSync(results, [0, 1, 2, 3].map((i) => JSON.stringify(trial({ task: `t${i}`, epoch: 1, status: i === 2 ? "failed" : "completed" }))).join("\n") + "\n")
      fs.writeFileSync(tasks, [0, 1, 2, 3, 4].map((i) => JSON.stringify({ id: `t${i}`, inputs: { q: `question ${i}` }, reference: { n: i } })).join("\n") + "\n")
      const written = yield* Report.report({ results, html, maxRows: 2, tasks })
      assert.deepStrictEqual({ trials: written.trials, rows: written.rows }, { trials: 4, rows: 2 })
      const page = fs.readFileSync(html, "utf8")
      const rows = (JSON.parse(/id="rows-data">([\s\S]*?)<\/script>/.exec(page)![1]!) as { rows: Array<Aggregate.Row> }).rows
      assert.deepStrictEqual(rows.map((r) => [r.id, r.input, r.reference]), [
        ["t2:1", "question 2", `{"n":2}`],
        ["t0:1", "question 0", `{"n":0}`]
      ])
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
})

describe("Report.readSummary", () => {
  it.effect("refuses a summary whose pass@k k or clustering the page cannot use, naming the field", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-report-"))
      const base = {
        run_id: "r", outcome: "finished", trials: { total: { total: 0, completed: 0, failed: 0, partial: 0 } }, wall_time_s: 0,
        throughput_per_s: 0, parallelism: 1, peak_active_calls: 0, peak_outstanding: 0, peak_live_fibers: 0, retries: 0, epochs: 3
      }
      const scoring = (extra: object) => ({ ...base, scoring: { scorers: {}, pass_rule: "every scorer", ...extra } })
      const cases: ReadonlyArray<readonly [object, string | null]> = [
        [scoring({ pass_at_k: { ks: [1, 3] }, stderr_cluster: "metadata.passage_id" }), null],
        [{ ...base, pass_at_k: { ks: [1, 2, 3] } }, null],
        [scoring({ pass_at_k: { ks: [0, 2] } }), "field scoring.pass_at_k.ks must be a list of integers from 1 to the epochs (3), got [0,2]"],
        [scoring({ pass_at_k: { ks: [4] } }), "field scoring.pass_at_k.ks must be a list of integers from 1 to the epochs (3), got [4]"],
        [{ ...base, pass_at_k: { ks: "1" } }, `field pass_at_k.ks must be a list of integers from 1 to the epochs (3), got "1"`],
        [scoring({ stderr_cluster: 5 }), `field scoring.stderr_cluster must be "task", a path or null, got 5`]
      ]
      for (const [i, [json, message]] of cases.entries()) {
        const file = path.join(dir, `s${i}.json`)
        fs.writeFileSync(file, JSON.stringify(json))
        const result = yield* Effect.result(Report.readSummary(file))
        if (message === null) assert.strictEqual(result._tag, "Success", JSON.stringify(json))
        else {
          assert.strictEqual(result._tag, "Failure", JSON.stringify(json))
          if (result._tag === "Failure") assert.strictEqual(result.failure.message, `${file}: ${message}`)
        }
      }
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.provide(NodeServices.layer)))
})

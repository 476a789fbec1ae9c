/**
 * The report in a real browser: Debian's chromium (never a downloaded one),
 * driven by playwright-core, opens the page from disk with every request
 * other than the file itself blocked and counted. No console error, no page
 * error, no request leaving the page; the charts are there; the search box,
 * the failures toggle and a scorer filter narrow the table to the rows they
 * should; the breakdown by a group renders; user text shows as text (a
 * `<script>` and an `<img onerror>` in an output and a group value neither
 * run nor load); a full-page screenshot is a PNG of the
 * viewport's width. Bidi and control characters show as `<U+202E>` marks in
 * the table, and compare's id lists wrap between ids, never inside one.
 * With usage, the table's tokens and cost cells read as the rows say.
 *
 * Without /usr/bin/chromium the test is skipped with how to install it,
 * except under CI=true, where a missing browser fails.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import * as Compare from "../src/programs/compare/Compare.ts"
import * as Report from "../src/programs/Report.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Kinds from "../src/programs/Kinds.ts"

const CHROMIUM = "/usr/bin/chromium"
const available = fs.existsSync(CHROMIUM)
const ci = process.env["CI"] === "true"
const INSTALL = `no ${CHROMIUM}: the report's browser test needs Debian's chromium (apt-get install -y chromium)`
if (!available && !ci) console.warn(`skipping test/report-browser.test.ts: ${INSTALL}`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-browser-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const NASTY = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"></td>`
const T0 = Date.parse("2026-01-01T00:00:00Z")

const SUBJECTS = ["math", "history", "art"]

// 300 trials over ~30 s: every 7th failed (two types), every 5th completed one
// wrong (exact 0, levenshtein 0.5), task 42's output and group value hostile
// (grouped by metadata.subject, as `run --group-by` records it).
const trials = (): Array<AgentEvalTrial> =>
  Array.from({ length: 300 }, (_, i) => {
    const start = T0 + i * 100
    const latency = 20 + (i * 37) % 400
    const failed = i % 7 === 3
    const wrong = !failed && i % 5 === 0
    const times = {
      started_at: new Date(start).toISOString(),
      finished_at: new Date(start + latency).toISOString(),
      latency_ms: latency,
      groups: { "metadata.subject": i === 42 ? NASTY : SUBJECTS[i % 3]! }
    }
    return failed
      ? {
        id: `task-${i}:1`,
        task_id: `task-${i}`,
        status: "failed" as const,
        error: { type: i % 2 === 0 ? "Timeout" : "AgentError", message: `call ${i} failed`, occurred_at: times.finished_at },
        metadata: times
      }
      : {
        id: `task-${i}:1`,
        task_id: `task-${i}`,
        status: "completed" as const,
        output: { output_text: i === 42 ? NASTY : wrong ? `${2 * i + 1}` : `${2 * i}` },
        metadata: times,
        scores: {
          exact: { value: wrong ? 0 : 1, passed: !wrong },
          levenshtein: { value: wrong ? 0.5 : 1, passed: !wrong }
        }
      }
  })

describe("report in a browser", () => {
  it.runIf(ci && !available)("CI has a browser for the report test", () => {
    assert.fail(INSTALL)
  })

  it.runIf(available)("opens offline without errors or requests; charts, search, filters and a screenshot work", async () => {
    const all = trials()
    const results = path.join(dir, "results.jsonl")
    const tasks = path.join(dir, "tasks.jsonl")
    const html = path.join(dir, "report.html")
    fs.writeFileSync(results, all.map((t) => JSON.stringify(t)).join("\n") + "\n")
    fs.writeFileSync(tasks, all.map((t, i) => JSON.stringify({ id: t.task_id, inputs: { q: `What is ${i} + ${i}?` }, reference: String(2 * i) })).join("\n") + "\n")
    await Effect.runPromise(Report.report({ results, html, maxRows: 250, tasks }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    const failing = all.filter((t) => t.status !== "completed" || !t.scores!["exact"]!.passed)
    const exactFailed = all.filter((t) => t.scores !== undefined && !t.scores["exact"]!.passed)

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    })
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      const url = `file://${html}`
      const leaving: Array<string> = []
      await context.route("**/*", (route) => {
        if (route.request().url() === url) return route.continue()
        leaving.push(route.request().url())
        return route.abort()
      })
      const page = await context.newPage()
      const errors: Array<string> = []
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console: ${m.text()}`)
      })
      page.on("pageerror", (e) => errors.push(`page: ${e.message}`))
      page.on("requestfailed", (r) => {
        if (r.url() !== url) leaving.push(r.url())
      })
      await page.goto(url)
      await page.waitForSelector("#rows tbody tr")

      // Charts: throughput, in flight, latency, failures, scores.
      const charts = await page.$$eval("svg.chart", (svgs) =>
        svgs.map((s) => ({
          label: s.getAttribute("aria-label"),
          polylines: s.querySelectorAll("polyline").length,
          rects: s.querySelectorAll("rect").length,
          circles: s.querySelectorAll("circle").length
        })))
      assert.isAtLeast(charts.length, 5)
      const lines = charts.filter((c) => c.polylines > 0)
      assert.isAtLeast(lines.length, 2, JSON.stringify(charts))
      assert.isTrue(charts.some((c) => c.rects >= 10), "the latency histogram has bars")
      assert.isTrue(charts.some((c) => c.circles >= 3), "the scores have their points")
      const throughputPoints = await page.$eval("svg.chart polyline", (p) => p.getAttribute("points")!.split(" ").length)
      assert.isAtLeast(throughputPoints, 10)

      // The breakdown by subject: a row per value, largest first (task 42 is not in math), the hostile one
      // shown as text; a bar and a whisker per value and scorer.
      const groups = await page.$eval(`section[id="group-by-metadata.subject"]`, (s) => ({
        heading: s.querySelector("h2")!.textContent,
        values: [...s.querySelectorAll("tbody tr td:first-child")].map((td) => td.textContent),
        bars: s.querySelectorAll("svg.chart rect").length,
        whiskers: s.querySelectorAll("svg.chart circle").length
      }))
      assert.deepStrictEqual(groups, {
        heading: "By metadata.subject (4 values)",
        values: ["history", "art", "math", NASTY],
        bars: 8,
        whiskers: 8
      })

      // Records without usage: no usage columns.
      assert.deepStrictEqual(await page.$$eval("#rows tbody tr:first-child td", (tds) => tds.length), 8)

      const visible = () => page.$$eval("#rows tbody tr", (trs) => trs.length)
      const count = () => page.textContent("#count")
      assert.strictEqual(await visible(), 200)
      assert.include(await count(), "Showing 200 of 250 matching rows")
      // Failures first.
      const firstIds = await page.$$eval("#rows tbody tr td:first-child", (tds) => tds.slice(0, 3).map((td) => td.textContent))
      assert.deepStrictEqual(firstIds, failing.slice(0, 3).map((t) => t.id))

      // Search by any text: an input from the task file, then the hostile output, shown as text.
      await page.fill("#search", "what is 123 + 123?")
      assert.strictEqual(await visible(), 1)
      assert.strictEqual(await page.textContent("#rows tbody tr td:first-child"), "task-123:1")
      await page.fill("#search", "<script>window.__pwned")
      assert.strictEqual(await visible(), 1)
      assert.strictEqual(await page.textContent("#rows tbody tr td:nth-child(5)"), NASTY)
      assert.isUndefined(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned))

      // The failures toggle, then a scorer's filter.
      await page.fill("#search", "")
      await page.check("#only-failures")
      assert.strictEqual(await visible(), failing.length)
      assert.isTrue(await page.$$eval("#rows tbody tr", (trs) => trs.every((tr) => tr.classList.contains("failing"))))
      await page.uncheck("#only-failures")
      // A failed trial has no exact score: it counts as not passed.
      await page.selectOption(`select[data-scorer="exact"]`, "failed")
      assert.strictEqual(await visible(), failing.length)
      assert.isAtLeast(exactFailed.length, 1)
      await page.selectOption(`select[data-scorer="exact"]`, "passed")
      assert.strictEqual(await visible(), 250 - failing.length)
      assert.include(await count(), `of ${250 - failing.length} matching`)

      const png = path.join(dir, "report.png")
      await page.selectOption(`select[data-scorer="exact"]`, "all")
      await page.screenshot({ path: png, fullPage: true })
      const bytes = fs.readFileSync(png)
      assert.deepStrictEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG signature")
      assert.strictEqual(bytes.readUInt32BE(16), 1280, "PNG width")
      assert.isAtLeast(bytes.readUInt32BE(20), 2000, "PNG height: the whole page")
      assert.isAtLeast(bytes.length, 50_000)

      assert.deepStrictEqual(errors, [])
      assert.deepStrictEqual(leaving, [], "requests leaving the page")
    } finally {
      await browser.close()
    }
  }, 60_000)

  it.runIf(available)("compare's id lists wrap between ids on a narrow page, never inside one", async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `task-with-hyphens-${i}-of-a-long-list`)
    const times = { started_at: new Date(T0).toISOString(), finished_at: new Date(T0 + 5).toISOString(), latency_ms: 5 }
    const file = (name: string, passed: boolean) => {
      const f = path.join(dir, name)
      fs.writeFileSync(f, ids.map((t) => JSON.stringify({
        id: `${t}:1`, task_id: t, status: "completed", output: { output_text: "x" }, metadata: times,
        scores: { exact: { value: passed ? 1 : 0, passed } }
      })).join("\n") + "\n")
      return f
    }
    const c = await Effect.runPromise(Compare.compare(file("ids-base.jsonl", true), file("ids-new.jsonl", false), {}).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    const html = path.join(dir, "compare.html")
    fs.writeFileSync(html, Compare.toHtml(c))
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage({ viewport: { width: 420, height: 800 } })
      await page.goto(`file://${html}`)
      const boxes = await page.$$eval(".ids .id", (spans) =>
        spans.map((s) => ({ text: s.textContent, rows: s.getClientRects().length, top: s.getBoundingClientRect().top })))
      assert.deepStrictEqual(boxes.map((b) => b.text), ids)
      for (const b of boxes) assert.strictEqual(b.rows, 1, `${b.text} is broken across ${b.rows} lines`)
      assert.isAtLeast(new Set(boxes.map((b) => b.top)).size, 5, "the list wraps onto several lines")
    } finally {
      await browser.close()
    }
  }, 60_000)

  it.runIf(available)("the table shows bidi and control characters as marks: an U+202E cannot turn gnp.exe into exe.png", async () => {
    const RLO = "\u202e"
    const times = { started_at: new Date(T0).toISOString(), finished_at: new Date(T0 + 5).toISOString(), latency_ms: 5 }
    const rows: Array<AgentEvalTrial> = [
      {
        id: `invoice${RLO}gnp.exe:1`,
        task_id: `invoice${RLO}gnp.exe`,
        status: "completed",
        output: { output_text: `see\u2067 this\u0007` },
        metadata: times,
        scores: { [`exact${RLO}`]: { value: 0, passed: false, explanation: `why${RLO}not` } }
      },
      {
        id: "plain:1",
        task_id: "plain",
        status: "failed",
        error: { type: "AgentError", message: `boom${RLO}!`, occurred_at: times.finished_at },
        metadata: times
      }
    ]
    const results = path.join(dir, "bidi.jsonl")
    const html = path.join(dir, "bidi.html")
    fs.writeFileSync(results, rows.map((t) => JSON.stringify(t)).join("\n") + "\n")
    await Effect.runPromise(Report.report({ results, html, maxRows: 10 }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    assert.notInclude(fs.readFileSync(html, "utf8"), RLO, "no raw U+202E in the file")

    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(`page: ${e.message}`))
      await page.goto(`file://${html}`)
      await page.waitForSelector("#rows tbody tr")
      const shown = await page.$$eval("#rows tbody tr", (trs) =>
        trs.map((tr) => ({
          id: tr.querySelector("td")!.textContent,
          output: tr.querySelectorAll("td")[4]!.textContent,
          error: tr.querySelectorAll("td")[6]!.textContent,
          score: tr.querySelector(".score")?.getAttribute("title") ?? null,
          marks: [...tr.querySelectorAll("span.ctl")].map((m) => m.textContent)
        })))
      const bidi = shown.find((r) => r.id!.startsWith("invoice"))!
      assert.strictEqual(bidi.id, "invoice<U+202E>gnp.exe:1")
      assert.strictEqual(bidi.output, "see<U+2067> this<U+0007>")
      assert.strictEqual(bidi.score, "why<U+202E>not")
      // id, output (two), the score badge's scorer name
      assert.deepStrictEqual(bidi.marks, ["<U+202E>", "<U+2067>", "<U+0007>", "<U+202E>"])
      assert.strictEqual(shown.find((r) => r.id === "plain:1")!.error, `AgentError: boom<U+202E>!`)
      const text = await page.innerText("body")
      assert.notMatch(text, /[\u200e\u200f\u202a-\u202e\u2066-\u2069\u0007]/, "no raw control is displayed")
      // What is shown is what the search finds; the scorer's filter keys on its real name.
      await page.fill("#search", "<u+202e>gnp")
      assert.strictEqual(await page.$$eval("#rows tbody tr", (trs) => trs.length), 1)
      await page.fill("#search", "")
      await page.selectOption(`select[data-scorer="exact${RLO}"]`, "passed")
      assert.strictEqual(await page.$$eval("#rows tbody tr", (trs) => trs.length), 0)
      await page.selectOption(`select[data-scorer="exact${RLO}"]`, "all")
      assert.strictEqual(await page.$$eval("#rows tbody tr", (trs) => trs.length), 2)
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
    }
  }, 60_000)

  it.runIf(available)("the usage columns show each trial's tokens and cost, a dash where a record has none", async () => {
    const times = { started_at: new Date(T0).toISOString(), finished_at: new Date(T0 + 5).toISOString(), latency_ms: 5 }
    const rows: Array<AgentEvalTrial> = [
      {
        id: "priced:1", task_id: "priced", status: "completed", metadata: times,
        output: { output_text: "a", usage: { input_tokens: 1000, output_tokens: 234, total_tokens: 1234, cached_input_tokens: 900, cost_usd: 0.0012 } },
        scores: { judge: { value: 1, passed: true, usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12, cost_usd: 0.00003 } } }
      },
      { id: "none:1", task_id: "none", status: "completed", metadata: times, output: { output_text: "b" }, scores: { judge: { value: 1, passed: true } } },
      {
        id: "unpriced:1", task_id: "unpriced", status: "failed", metadata: times,
        error: { type: "AgentError", message: "503", occurred_at: times.finished_at, usage: { input_tokens: 40, output_tokens: 0, total_tokens: 40 } }
      }
    ]
    const results = path.join(dir, "usage.jsonl")
    const html = path.join(dir, "usage.html")
    fs.writeFileSync(results, rows.map((t) => JSON.stringify(t)).join("\n") + "\n")
    await Effect.runPromise(Report.report({ results, html, maxRows: 10 }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(`page: ${e.message}`))
      await page.goto(`file://${html}`)
      await page.waitForSelector("#rows tbody tr")
      const head = await page.$$eval("#rows thead th", (ths) => ths.slice(-3).map((th) => th.textContent))
      assert.deepStrictEqual(head, ["ms", "Tokens", "Cost"])
      const cells = await page.$$eval("#rows tbody tr", (trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)).map((tds) => [tds[0], ...tds.slice(-2)]))
      // Failures first; 1,234 + the judge's 12 tokens, $0.0012 + $0.00003.
      assert.deepStrictEqual(cells, [["unpriced:1", "40", "—"], ["priced:1", "1,246", "$0.00123"], ["none:1", "—", "—"]])
      assert.strictEqual(await page.textContent(`section#usage .stat:first-child .value`), "1,286")
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
    }
  }, 60_000)
  it.runIf(available)("a row's path opens into its transcript, in order, markup shown as text; the row stays closed", async () => {
    const times = { started_at: new Date(T0).toISOString(), finished_at: new Date(T0 + 5).toISOString(), latency_ms: 5 }
    const at = times.started_at
    const rows: Array<AgentEvalTrial> = [
      {
        id: "acts:1", task_id: "acts", status: "completed", metadata: times,
        output: {
          output_text: "Lyon",
          trajectory: [
            { type: "model", content: "", started_at: at, duration_ms: 3, usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } },
            { type: "tool_call", name: "search", arguments: { q: "<b>x</b>" }, started_at: at, duration_ms: 2 },
            { type: "tool_result", name: "search", content: "rate limited", is_error: true, started_at: at, duration_ms: 0 },
            { type: "model", content: "Lyon", started_at: at, duration_ms: 1 }
          ]
        }
      },
      { id: "plain:1", task_id: "plain", status: "completed", metadata: times, output: { output_text: "b" } }
    ]
    const results = path.join(dir, "acts.jsonl")
    const html = path.join(dir, "acts.html")
    fs.writeFileSync(results, rows.map((t) => JSON.stringify(t)).join("\n") + "\n")
    await Effect.runPromise(Report.report({ results, html, maxRows: 10 }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(`page: ${e.message}`))
      await page.goto(`file://${html}`)
      await page.waitForSelector("#rows tbody tr")
      assert.deepStrictEqual(await page.$$eval("#rows thead th", (ths) => ths.slice(-2).map((th) => th.textContent)), ["Steps", "Path"])
      const cells = await page.$$eval("#rows tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(-2).map((td) => td.textContent)))
      assert.deepStrictEqual(cells[1], ["—", "—"])
      assert.isFalse(await page.isVisible("#rows ol.transcript"))
      await page.click("#rows details.path summary")
      assert.isTrue(await page.isVisible("#rows ol.transcript"))
      const steps = await page.$$eval("#rows ol.transcript li", (lis) => lis.map((li) => [li.className, li.querySelector(".step")!.textContent, li.querySelector(".body")?.textContent ?? null]))
      assert.deepStrictEqual(steps, [
        ["", "model turn", null],
        ["", "tool call search", `{"q":"<b>x</b>"}`],
        ["tool-error", "tool result search (error)", "rate limited"],
        ["", "model turn", "Lyon"]
      ])
      assert.strictEqual(await page.textContent("#rows ol.transcript li .muted"), " 3 ms · 12 tokens")
      assert.strictEqual(await page.textContent("#rows details.path summary"), "1 tool call (1 error)")
      assert.strictEqual(await page.$$eval("#rows tbody tr.open", (trs) => trs.length), 0, "opening the path does not open the row")
      assert.strictEqual(await page.$$eval("#rows b", (bs) => bs.length), 0, "no markup from a record")
      await page.fill("#search", "rate limited")
      assert.strictEqual(await page.$$eval("#rows tbody tr", (trs) => trs.length), 1)
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
    }
  }, 60_000)

  it.runIf(available)("clicking a trial's row opens its transcript, which wraps within the page at 1100 px wide", async () => {
    const times = { started_at: new Date(T0).toISOString(), finished_at: new Date(T0 + 5).toISOString(), latency_ms: 5 }
    const at = times.started_at
    // Long texts: a line of words, an unbroken token, long tool arguments; long inputs and outputs in the other cells.
    const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(" ")
    const token = "x".repeat(900)
    const rows: Array<AgentEvalTrial> = [
      {
        id: "acts:1", task_id: "acts", status: "completed", metadata: times,
        output: {
          output_text: `${words} ${token}`,
          usage: { input_tokens: 123456, output_tokens: 7890, total_tokens: 131346, cost_usd: 0.123456 },
          trajectory: [
            { type: "model", content: words, started_at: at, duration_ms: 3 },
            { type: "tool_call", name: "search", arguments: { q: token, path: "/a/very/long/path/".repeat(30) }, started_at: at, duration_ms: 2 },
            { type: "tool_result", name: "search", content: token, started_at: at, duration_ms: 0 },
            { type: "model", content: `${words}\n${token}`, started_at: at, duration_ms: 1 }
          ]
        },
        scores: {
          exact: { value: 0, passed: false, explanation: words },
          "a-scorer-with-a-rather-long-name": { value: 0.123456, passed: false, error: { type: "ScorerError", message: `${words} ${token}`, occurred_at: at } },
          levenshtein: { value: 0.5, passed: false }
        }
      },
      {
        id: "plain:1", task_id: "plain", status: "completed", metadata: times, output: { output_text: "b" },
        scores: { exact: { value: 1, passed: true }, "a-scorer-with-a-rather-long-name": { value: 1, passed: true }, levenshtein: { value: 1, passed: true } }
      }
    ]
    const tasks = path.join(dir, "wrap-tasks.jsonl")
    fs.writeFileSync(tasks, [
      JSON.stringify({ id: "acts", inputs: { question: `${words} ${token}` }, reference: `${token} ${words}` }),
      JSON.stringify({ id: "plain", inputs: { question: "q" }, reference: "b" })
    ].join("\n") + "\n")
    const results = path.join(dir, "wrap.jsonl")
    const html = path.join(dir, "wrap.html")
    fs.writeFileSync(results, rows.map((t) => JSON.stringify(t)).join("\n") + "\n")
    await Effect.runPromise(Report.report({ results, html, maxRows: 10, tasks }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    const page0 = fs.readFileSync(html, "utf8")
    assert.match(page0, /Click a row of the trials(?:'|&#39;|&#x27;) table to read its transcript\./)
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(`page: ${e.message}`))
      await page.goto(`file://${html}`)
      await page.waitForSelector("#rows tbody tr")
      assert.isFalse(await page.isVisible("#rows ol.transcript"))
      // A click on the row (its id cell), as the page says: the transcript opens.
      await page.click("#rows tbody tr:first-child td:first-child")
      assert.isTrue(await page.isVisible("#rows tbody tr:first-child + tr.transcript-row ol.transcript"))
      assert.strictEqual(await page.$$eval("#rows tbody tr.open", (trs) => trs.length), 1)
      // Within the page: the transcript's every line inside the viewport's width, nothing scrolled sideways.
      const box = await page.$eval("#rows tbody tr.transcript-row ol.transcript", (ol) => {
        const r = ol.getBoundingClientRect()
        const bodies = [...ol.querySelectorAll(".body")].map((b) => ({ right: b.getBoundingClientRect().right, scroll: b.scrollWidth, client: b.clientWidth }))
        const doc = ol.ownerDocument
        const wrap = doc.querySelector("#trials .table-wrap")!.getBoundingClientRect()
        return {
          left: r.left,
          right: r.right,
          viewport: doc.documentElement.clientWidth,
          pageScroll: doc.documentElement.scrollWidth,
          wrapLeft: wrap.left,
          wrapRight: wrap.right,
          bodies
        }
      })
      // The table is wider than the page (its other cells' long texts): the transcript is not.
      assert.isAtLeast(box.left, box.wrapLeft, JSON.stringify(box))
      assert.isAtMost(box.right, box.wrapRight, JSON.stringify(box))
      assert.isAtMost(box.right, box.viewport, JSON.stringify(box))
      assert.isAtMost(box.pageScroll, box.viewport, JSON.stringify(box))
      assert.strictEqual(box.bodies.length, 4)
      for (const b of box.bodies) {
        assert.isAtMost(b.right, box.viewport, JSON.stringify(box))
        assert.isAtMost(b.scroll, b.client, JSON.stringify(box))
      }
      // A second click closes the row and its transcript.
      await page.click("#rows tbody tr:first-child td:first-child")
      assert.isFalse(await page.isVisible("#rows ol.transcript"))
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
    }
  }, 60_000)
})


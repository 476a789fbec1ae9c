/**
 * `agent-trials view` in a real browser: Debian's chromium driven by
 * playwright-core, against the real command over results files made by the
 * CLI. The index lists the runs, its filter narrows them and two ticked
 * runs open their comparison (a flipped task's answers side by side); a
 * run's page gains trials while a run writes its file; a trial's transcript
 * shows its tool calls; a large file is paged on the server. No page error
 * and no console error (a request the page's policy refused would be one).
 *
 * Without /usr/bin/chromium the test is skipped with how to install it,
 * except under CI=true, where a missing browser fails.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { describeResult, killAll, lineCount, removeTempDirs, run, type Running, start, tempDir, waitFor, writeJsonl } from "./cli-helpers.ts"

// The page's globals, in the functions Chromium runs (the tests' own lib has no DOM).
declare const document: {
  getElementById(id: string): { readonly textContent: string | null }
  querySelectorAll(selectors: string): { readonly length: number }
}
declare const window: { readonly __pwned?: number }

const CHROMIUM = "/usr/bin/chromium"
const available = fs.existsSync(CHROMIUM)
const ci = process.env["CI"] === "true"
if (!available && !ci) console.warn(`skipping test/view-browser.test.ts: no ${CHROMIUM} (apt-get install -y chromium)`)

const root = tempDir()
const dir = path.join(root, "runs")
let server: Running
let url = ""
let browser: Browser

afterAll(async () => {
  await browser?.close()
  killAll()
  removeTempDirs()
})

const BIG = 5000
const NASTY = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"></td>`
const bigRecord = (i: number) => ({
  id: `big-${i}:1`,
  task_id: `big-${i}`,
  status: "completed",
  output: { output_text: i === 7 ? NASTY : `answer ${i}` },
  metadata: {
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:00:01.000Z",
    latency_ms: 1000,
    groups: { "metadata.subject": i === 7 ? NASTY : "math" }
  },
  scores: { exact: { value: 1, passed: true } }
})

beforeAll(async () => {
  if (!available && !ci) return
  fs.mkdirSync(dir, { recursive: true })
  const tasks = writeJsonl(path.join(root, "tasks.jsonl"), [{ id: "s1", inputs: { a: 2, b: 3 } }, { id: "s2", inputs: { a: 10, b: -4 } }])
  // base before worse: the index lists newest first, and the comparison takes the older run as its base.
  const base = await run(["--synthetic", "40", "--agent", "sim:latency=1ms,jitter=0ms,fail=0.02", "--out", path.join(dir, "base.jsonl"), "--no-progress"])
  const made = await Promise.all([
    run(["--synthetic", "40", "--agent", "sim:latency=1ms,jitter=0ms,fail=0.6", "--out", path.join(dir, "worse.jsonl"), "--no-progress"]),
    run([
      "--agent", "effect-ai:test/fixtures/model-layer.ts#layer", "--tools", "module:test/fixtures/tools-plain.ts",
      "--tasks", tasks, "--out", path.join(dir, "tools.jsonl"), "--no-progress"
    ])
  ])
  for (const r of [base, ...made]) assert.strictEqual(r.code, 0, describeResult(r))
  fs.writeFileSync(path.join(dir, "big.jsonl"), Array.from({ length: BIG }, (_, i) => JSON.stringify(bigRecord(i)) + "\n").join(""))
  server = start([dir], { command: "view" })
  await waitFor("the view's URL", () => /http:\/\/127\.0\.0\.1:\d+\//.test(server.stdout()), { timeoutMs: 60_000 })
  url = /http:\/\/127\.0\.0\.1:\d+\//.exec(server.stdout())![0]
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
  })
}, 180_000)

// A page that records its errors: none may happen.
const open = async (address: string): Promise<{ page: Page; errors: Array<string> }> => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  page.setDefaultTimeout(30_000)
  const errors: Array<string> = []
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`))
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`)
  })
  await page.goto(new URL(address, url).href)
  return { page, errors }
}

describe.skipIf(!available && !ci)("agent-trials view in Chromium", () => {
  it("the index lists the runs the CLI made; its filter narrows them; two ticked runs open the comparison, a flipped task side by side", async () => {
    const { errors, page } = await open("/")
    const keys = await page.$$eval("#runs tbody tr", (rows) => rows.map((r) => r.getAttribute("data-key")))
    assert.deepStrictEqual([...keys].sort(), ["base", "big", "tools", "worse"])
    await page.fill("#filter", "worse")
    assert.deepStrictEqual(await page.$$eval("#runs tbody tr:not([hidden])", (rows) => rows.map((r) => r.getAttribute("data-key"))), ["worse"])
    await page.fill("#filter", "")
    assert.isTrue(await page.isDisabled("#compare"))
    await page.check(`input.pick[value="base"]`)
    await page.check(`input.pick[value="worse"]`)
    await Promise.all([page.waitForURL(/\/compare\?/), page.click("#compare")])
    assert.include(await page.textContent("body"), "p Holm")
    const flips = await page.$$(".flip")
    assert.isAbove(flips.length, 0)
    const sides = await flips[0]!.$$eval(".side > div", (divs) => divs.map((d) => [d.querySelector("h3")!.textContent, d.querySelector("pre.answer")?.textContent ?? null]))
    assert.deepStrictEqual(sides.map((s) => s[0]), ["base", "worse"])
    for (const [, answer] of sides) assert.isNotNull(answer)
    assert.deepStrictEqual(errors, [])
    await page.close()
  }, 60_000)

  it("a trial's page shows its transcript: the model's tool calls with their arguments and the results", async () => {
    const { errors, page } = await open(`/runs/tools/trials/${encodeURIComponent("s1:1")}`)
    const steps = await page.$$eval("#transcript .step", (els) => els.map((e) => e.querySelector(".head")!.textContent!))
    assert.isTrue(steps.some((s) => s.includes("tool call") && s.includes("add")), steps.join(" | "))
    assert.isTrue(steps.some((s) => s.includes("tool result")), steps.join(" | "))
    assert.include(await page.textContent("#transcript"), `"a": 2`)
    assert.include(await page.textContent("#record"), "the sum is 5")
    assert.deepStrictEqual(errors, [])
    await page.close()
    const hostile = await open(`/runs/big/trials/${encodeURIComponent("big-7:1")}`)
    assert.include(await hostile.page.textContent("#record"), "<script>window.__pwned = 1</script>")
    assert.include(await hostile.page.textContent("section.card pre"), NASTY)
    assert.isUndefined(await hostile.page.evaluate(() => window.__pwned))
    assert.deepStrictEqual(hostile.errors, [])
    await hostile.page.close()
  }, 60_000)

  it("a large file is paged on the server: 50 rows at a time, next and previous", async () => {
    const { errors, page } = await open("/runs/big")
    await page.waitForFunction(() => document.getElementById("count")!.textContent!.includes("of 5000"))
    assert.strictEqual(await page.$$eval("#trials tbody tr", (r) => r.length), 50)
    await page.click("#next")
    await page.waitForFunction(() => document.getElementById("count")!.textContent!.startsWith("51–100"))
    assert.strictEqual(await page.textContent("#trials tbody tr:first-child td:first-child"), "big-50:1")
    await page.click("#prev")
    await page.waitForFunction(() => document.getElementById("count")!.textContent!.startsWith("1–50"))
    // A hostile output and group value show as text, in the table and the group filter, and run nothing.
    assert.strictEqual(await page.textContent("#trials tbody tr:nth-child(8) td:last-child"), NASTY)
    assert.include(await page.textContent("#group"), NASTY)
    assert.isUndefined(await page.evaluate(() => window.__pwned))
    await page.fill("#q", "answer 4999")
    await page.waitForFunction(() => document.getElementById("count")!.textContent!.includes("of 1 trials"))
    assert.strictEqual(await page.textContent("#trials tbody tr:first-child td:first-child"), "big-4999:1")
    assert.deepStrictEqual(errors, [])
    await page.close()
  }, 60_000)

  it("a running run's page gains trials while the run writes its file", async () => {
    const out = path.join(dir, "live.jsonl")
    const writer = start(["--synthetic", "30", "--agent", "sim:latency=400ms,jitter=0ms", "--parallelism", "1", "--out", out, "--no-progress"])
    await waitFor("the run's first trial", () => lineCount(out) >= 1, { timeoutMs: 60_000 })
    const { errors, page } = await open("/runs/live")
    await page.waitForFunction(() => /of \d+ trials/.test(document.getElementById("count")!.textContent!))
    const first = await page.$$eval("#trials tbody tr", (r) => r.length)
    assert.isBelow(first, 30)
    // Without a reload: the events bring the new trials, the table is fetched again.
    await page.waitForFunction((n) => document.querySelectorAll("#trials tbody tr").length > n, first, { timeout: 60_000 })
    assert.include(await page.textContent("#live"), "new trials")
    const result = await writer.result
    assert.strictEqual(result.code, 0, describeResult(result))
    await page.waitForFunction(() => document.getElementById("count")!.textContent!.includes("of 30 trials"), undefined, { timeout: 30_000 })
    // The progress says the file's trials beside those the report's figures counted when the page opened.
    await page.waitForFunction(() => document.getElementById("progress")!.textContent!.startsWith("30 trials in the file"))
    assert.include(await page.textContent("#progress"), "reload to update them")
    assert.deepStrictEqual(errors, [])
    await page.close()
  }, 120_000)
})

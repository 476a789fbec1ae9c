/**
 * The static report's table pages in the browser (Debian's chromium, driven
 * by playwright-core, the page opened from disk with every other request
 * blocked): 1,000 rows, at most 200 in the document at once; Next and
 * Previous replace them with the next or previous 200 matching rows, in
 * order, and the count says which; a search starts again at the first page.
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
import * as Kinds from "../src/programs/Kinds.ts"
import * as Report from "../src/programs/Report.ts"

const CHROMIUM = "/usr/bin/chromium"
const available = fs.existsSync(CHROMIUM)
const ci = process.env["CI"] === "true"
if (!available && !ci) console.warn(`skipping test/report-paging.test.ts: no ${CHROMIUM} (apt-get install -y chromium)`)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-paging-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const N = 1000

describe.skipIf(!available && !ci)("the report's table pages in the browser", () => {
  it("200 rows at a time: Next, Previous, and a search from the first page", async () => {
    const results = path.join(dir, "results.jsonl")
    const html = path.join(dir, "report.html")
    fs.writeFileSync(
      results,
      Array.from({ length: N }, (_, i) =>
        JSON.stringify({
          id: `t-${String(i).padStart(4, "0")}:1`,
          task_id: `t-${String(i).padStart(4, "0")}`,
          status: "completed",
          output: { output_text: `answer ${i}` },
          metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 },
          scores: { exact: { value: 1, passed: true } }
        }) + "\n").join("")
    )
    await Effect.runPromise(Report.report({ results, html, maxRows: N }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] })
    try {
      const context = await browser.newContext()
      const url = `file://${html}`
      await context.route("**/*", (route) => (route.request().url() === url ? route.continue() : route.abort()))
      const page = await context.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(e.message))
      await page.goto(url)
      const ids = () => page.$$eval("#rows tbody tr td:first-child", (tds) => tds.map((td) => td.textContent))
      const count = () => page.textContent("#count")
      const expected = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `t-${String(from + i).padStart(4, "0")}:1`)
      assert.deepStrictEqual(await ids(), expected(0, 200))
      assert.include(await count(), "Showing 200 of 1,000 matching rows")
      assert.isFalse(await page.isVisible("#prev"))
      await page.click("#more")
      assert.deepStrictEqual(await ids(), expected(200, 400))
      assert.include(await count(), "Showing rows 201–400 of 1,000 matching rows")
      for (let i = 0; i < 3; i++) await page.click("#more")
      assert.deepStrictEqual(await ids(), expected(800, 1000))
      assert.isFalse(await page.isVisible("#more"))
      await page.click("#prev")
      assert.deepStrictEqual(await ids(), expected(600, 800))
      await page.fill("#search", "answer 99")
      // answer 99, 990..999: 11 rows, from the first page.
      assert.strictEqual((await ids()).length, 11)
      assert.include(await count(), "Showing 11 of 11 matching rows")
      assert.deepStrictEqual(errors, [])
    } finally {
      await browser.close()
    }
  }, 60_000)
})

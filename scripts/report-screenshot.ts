/**
 * Makes the README's picture of a report: a synthetic run of 700 tasks x 3
 * epochs through a small agent module that is usually right, sometimes off by
 * one or wordy, now and then throws or is slow enough to time out; scored
 * with `exact` and `levenshtein`; `run --summary --report`; then the page
 * opened from disk in Debian's chromium (network blocked) and saved as
 * scripts/report-screenshot.png.
 *
 *   npx tsx scripts/report-screenshot.ts [OUT.png]
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); no browser is
 * downloaded.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"

const root = path.resolve(import.meta.dirname, "..")
const png = path.resolve(process.argv[2] ?? path.join(root, "scripts", "report-screenshot.png"))
const CHROMIUM = "/usr/bin/chromium"
if (!fs.existsSync(CHROMIUM)) {
  console.error(`no ${CHROMIUM}: install it with apt-get install -y chromium`)
  process.exit(2)
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-report-"))
const agent = path.join(dir, "agent.mjs")
// Deterministic per trial id: the same picture on every run.
fs.writeFileSync(
  agent,
  `
const hash = (s) => { let h = 2166136261; for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619); return (h >>> 0) / 4294967296 }
export default async (task, context) => {
  const u = hash(context.trial.id)
  const v = hash(context.trial.id + "#")
  const ms = Math.round(12 * Math.exp(1.1 * Math.sqrt(-2 * Math.log(1 - u)) * Math.cos(2 * Math.PI * v)))
  await new Promise((resolve) => setTimeout(resolve, ms))
  const answer = String(task.reference)
  const w = hash(context.trial.id + "!")
  if (w < 0.03) throw new TypeError("cannot read properties of undefined (reading 'choices')")
  if (w < 0.05) throw new RangeError("context window exceeded: 8193 tokens > 8192")
  if (w < 0.13) return String(Number(answer) + 1)
  if (w < 0.17) return "The answer is " + answer + "."
  if (w < 0.18) return "<script>alert('not escaped')</script> " + answer
  return answer
}
`
)
const out = path.join(dir, "results.jsonl")
const summary = path.join(dir, "summary.json")
const html = path.join(dir, "report.html")
const tsx = path.join(root, "node_modules", "tsx", "dist", "cli.mjs")
const run = spawnSync(process.execPath, [
  tsx, "scripts/trials.ts", "run",
  "--synthetic", "700", "--epochs", "3", "--parallelism", "16",
  "--agent", `module:${agent}`, "--timeout", "150ms", "--retries", "0",
  "--score", "exact", "--score", "levenshtein",
  "--out", out, "--summary", summary, "--report", html, "--no-progress"
], { cwd: root, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "--max-semi-space-size=4" } })
process.stdout.write(run.stdout)
process.stderr.write(run.stderr)
if (run.status !== 0 || !fs.existsSync(html)) {
  console.error(`the run failed (exit ${run.status})`)
  process.exit(1)
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"]
})
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 2150 } })
  const url = `file://${html}`
  await context.route("**/*", (route) => (route.request().url() === url ? route.continue() : route.abort()))
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForSelector("#rows tbody tr")
  await page.screenshot({ path: png })
  console.log(`screenshot: ${png}`)
} finally {
  await browser.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

/**
 * What `--adaptive` costs under rate limits: a local OpenAI-compatible
 * server on 127.0.0.1 answers each request after 20 ms (keep-alive), and 10%
 * of them (a seeded draw) with 429 + `Retry-After: 1`, whatever the load.
 * `npm run trials -- run` against it with `openai:` at fixed parallelism 8,
 * 16, 32 and 64, then with `--adaptive --parallelism 64`, in rounds (A B A B);
 * each run's wall (the CLI's, startup included) and the adaptive limit's
 * range from `--summary`. Target: the adaptive run's median wall within 1.3x
 * of the best fixed parallelism's median.
 *
 *   node scripts/bench/adaptive.ts [--trials 3000] [--rounds 2] [--fixed 8,16,32,64] [--via npm|script]
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { type CliRecord, launcherOf, runCli } from "./cli.ts"

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "3000" },
    rounds: { type: "string", default: "2" },
    fixed: { type: "string", default: "8,16,32,64" },
    via: { type: "string" }
  }
})
const via = launcherOf(values.via)
const trials = Number(values.trials)
const rounds = Number(values.rounds)
for (const [flag, n] of [["--trials", trials], ["--rounds", rounds]] as const) {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`Expected ${flag} to be an integer from 1 and up, got ${n}`)
}

const RATIO_LIMIT = 1.3
const LATENCY_MS = 20
const THROTTLED_SHARE = 0.1
const FIXED = values.fixed.split(",").map((text) => {
  const p = Number(text)
  if (!Number.isSafeInteger(p) || p < 1) throw new Error(`Expected --fixed to hold integers from 1 and up, got ${text}`)
  return p
})

// A seeded draw, so every run sees the same share (not the same requests: their order varies).
let seed = 12345
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648

const answer = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 }
})
const refusal = JSON.stringify({ error: { message: "Rate limit reached", type: "requests" } })

let served = 0
let throttled = 0
const server = http.createServer((req, res) => {
  req.resume()
  req.on("end", () =>
    setTimeout(() => {
      served++
      if (random() < THROTTLED_SHARE) {
        throttled++
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" })
        res.end(refusal)
        return
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(answer)
    }, LATENCY_MS))
})
server.keepAliveTimeout = 60_000
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const base = `openai:http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
process.env["OPENAI_API_KEY"] = "sk-bench-not-a-secret"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-bench-adaptive-"))
const cli = { sampleMs: 200, timeoutMs: 30 * 60_000 }
type Case = { readonly label: string; readonly flags: ReadonlyArray<string> }
const cases: ReadonlyArray<Case> = [
  ...FIXED.map((p) => ({ label: `fixed ${p}`, flags: ["--parallelism", String(p)] })),
  { label: "adaptive, up to 64", flags: ["--parallelism", "64", "--adaptive"] }
]
const walls = new Map<string, Array<number>>()
const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

console.log(
  `adaptive: ${trials} trials per run, a ${LATENCY_MS} ms server refusing ${THROTTLED_SHARE * 100}% with 429 + Retry-After: 1, ` +
    `${rounds} rounds`
)
try {
  for (let round = 1; round <= rounds; round++) {
    for (const c of cases) {
      const summary = path.join(dir, "summary.json")
      const command = [
        "run", "--synthetic", String(trials), "--agent", base, "--model", "m", "--score", "none", "--no-progress",
        "--summary", summary, ...c.flags
      ]
      const before = { served, throttled }
      const r: CliRecord = await runCli(via, trials, cli, undefined, command)
      const limit = fs.existsSync(summary)
        ? (JSON.parse(fs.readFileSync(summary, "utf8")) as { concurrency_limit?: { min: number; max: number } }).concurrency_limit
        : undefined
      if (r.status === "ok" && r.wallMs !== undefined) walls.set(c.label, [...(walls.get(c.label) ?? []), r.wallMs])
      console.log(
        `adaptive: round ${round} ${c.label.padEnd(18)} ${r.status} ${((r.wallMs ?? 0) / 1000).toFixed(1)} s, ` +
          `${served - before.served} requests (${throttled - before.throttled} refused)` +
          (limit === undefined ? "" : `, limit ${limit.min}..${limit.max}`) +
          (r.detail === undefined ? "" : ` (${r.detail})`)
      )
    }
  }
  const fixed = FIXED.map((p) => [p, median(walls.get(`fixed ${p}`) ?? [Infinity])] as const)
  const [bestP, bestMs] = fixed.reduce((a, b) => (b[1] < a[1] ? b : a))
  const adaptiveMs = median(walls.get("adaptive, up to 64") ?? [Infinity])
  const ratio = adaptiveMs / bestMs
  console.log(`adaptive: median walls ${fixed.map(([p, ms]) => `${p}: ${(ms / 1000).toFixed(1)} s`).join(", ")}; ` +
    `adaptive ${(adaptiveMs / 1000).toFixed(1)} s`)
  console.log(
    `(k) --adaptive within ${RATIO_LIMIT}x of the best fixed parallelism under 10% 429s: ` +
      `${ratio <= RATIO_LIMIT ? "PASS" : "FAIL"}  ${(adaptiveMs / 1000).toFixed(1)} s vs ${(bestMs / 1000).toFixed(1)} s ` +
      `at ${bestP} = ${ratio.toFixed(2)}x`
  )
} finally {
  server.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

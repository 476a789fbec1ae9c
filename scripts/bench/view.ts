/**
 * What `agent-trials view` costs on a large run: a results file of N trials
 * (default 1e6; records shaped as `run` writes them: a scored output, every
 * 7th failed, a group value), then the real command as its own Node process
 * over the file's folder, and:
 * - index build: the first `GET /api/runs` (it builds the file's index in one pass),
 * - first page: `GET /api/runs/KEY/trials?offset=0&limit=50` after it,
 * - a deep page: `?offset=N-50&limit=50`, and a filtered one (`status=failed`),
 * - the run page: `GET /runs/KEY` (the report's sections over every trial),
 * - the server's peak RSS (VmHWM of its process), run with the node flags of the bin's `#!` line.
 * The targets: the first page within 2 s of the index being built,
 * the server's RSS under 300 MB.
 *
 *   npx tsx scripts/bench/view.ts [--trials 1000000] [--file FILE] [--keep]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"

const { values } = parseArgs({
  options: { trials: { type: "string", default: "1000000" }, file: { type: "string" }, keep: { type: "boolean", default: false } }
})
const N = Number(values.trials)
if (!(Number.isSafeInteger(N) && N >= 100)) throw new Error(`--trials must be an integer >= 100, got ${values.trials}`)

const repo = path.resolve(import.meta.dirname, "..", "..")
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-bench-view-"))
const file = path.join(dir, "big.jsonl")

const write = async () => {
  if (values.file !== undefined) {
    fs.copyFileSync(values.file, file)
    return
  }
  const out = fs.createWriteStream(file)
  const t0 = Date.parse("2026-01-01T00:00:00Z")
  const SUBJECTS = ["math", "history", "art", "physics"]
  for (let i = 0; i < N; i++) {
    const started = new Date(t0 + i * 10).toISOString()
    const finished = new Date(t0 + i * 10 + 50).toISOString()
    const meta = { started_at: started, finished_at: finished, latency_ms: 50, epoch: 1, attempts: 1, epochs: 1, stderr_cluster: null, groups: { "metadata.subject": SUBJECTS[i % 4] } }
    const record = i % 7 === 3
      ? { id: `task-${i}:1`, task_id: `task-${i}`, status: "failed", error: { type: "SimulatedFailure", message: "simulated failure", occurred_at: finished }, metadata: meta }
      : { id: `task-${i}:1`, task_id: `task-${i}`, status: "completed", output: { output_text: `answer ${i}` }, metadata: meta, scores: { exact: { value: i % 5 === 0 ? 0 : 1, passed: i % 5 !== 0 } } }
    if (!out.write(JSON.stringify(record) + "\n")) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(r))
}

const main = async () => {
  const tw = performance.now()
  await write()
  const bytes = fs.statSync(file).size
  console.error(`wrote ${N} trials, ${(bytes / 1e6).toFixed(0)} MB, in ${((performance.now() - tw) / 1000).toFixed(1)} s`)
  const node = path.join(repo, "node_modules", ".bin", "node")
  const child = spawn(node, ["--max-semi-space-size=4", "--heap-growing-percent=80", "--import", "tsx", "scripts/trials.ts", "view", dir, "--port", "0"], {
    cwd: repo,
    env: { ...process.env, AGENT_TRIALS_CONFIG: "/dev/null", PATH: `${path.join(repo, "node_modules", ".bin")}:${process.env["PATH"]}` },
    stdio: ["ignore", "pipe", "inherit"]
  })
  let stdout = ""
  child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
  const deadline = Date.now() + 60_000
  while (!/http:\/\/[^ ]+\//.test(stdout)) {
    if (Date.now() > deadline) throw new Error(`the view did not print its URL within 60 s: ${stdout}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  const url = /http:\/\/[^ ]+\//.exec(stdout)![0]
  const timed = async (address: string) => {
    const t = performance.now()
    const res = await fetch(new URL(address, url))
    const body = await res.text()
    if (!res.ok) throw new Error(`${address}: ${res.status} ${body.slice(0, 200)}`)
    return { ms: performance.now() - t, body }
  }
  const rss = () => {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8")
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024
  }
  try {
    const index = await timed("/api/runs")
    const runs = JSON.parse(index.body) as Array<{ key: string; trials: number }>
    if (runs[0]?.trials !== N) throw new Error(`the index holds ${runs[0]?.trials} trials, not ${N}`)
    const first = await timed("/api/runs/big/trials?offset=0&limit=50")
    const deep = await timed(`/api/runs/big/trials?offset=${N - 50}&limit=50`)
    const failed = await timed("/api/runs/big/trials?offset=0&limit=50&status=failed")
    const page = await timed("/runs/big")
    const figures = {
      trials: N,
      file_mb: Math.round(bytes / 1e6),
      index_build_ms: Math.round(index.ms),
      first_page_ms: Math.round(first.ms),
      deep_page_ms: Math.round(deep.ms),
      failed_page_ms: Math.round(failed.ms),
      run_page_ms: Math.round(page.ms),
      run_page_kb: Math.round(page.body.length / 1024),
      peak_rss_mb: Math.round(rss()),
      load1: os.loadavg()[0]
    }
    console.log(JSON.stringify(figures))
    const misses = [
      ...(figures.first_page_ms > 2000 ? [`first page ${figures.first_page_ms} ms > 2000`] : []),
      ...(figures.peak_rss_mb >= 300 ? [`peak RSS ${figures.peak_rss_mb} MB >= 300`] : [])
    ]
    console.error(misses.length === 0 ? "targets: met" : `targets missed: ${misses.join("; ")}`)
  } finally {
    child.kill("SIGINT")
    if (!values.keep) fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()

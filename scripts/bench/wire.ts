/**
 * The wire (`npm run bench -- --wire N`, in the default plans): a local
 * OpenAI-compatible server in this process (every answer after 20 ms, keep-alive),
 * and against it, in the same run and alternating within each round:
 *
 * - `plain`: the floor, a plain Node client (wire-client.ts: P async loops
 *   over a keep-alive `http.Agent`, no framework);
 * - `openai`: `npm run trials -- run --agent openai:URL --model m`;
 * - `http`: `npm run trials -- run --agent http://URL/agent`;
 *
 * all with N synthetic tasks at parallelism 8, 64 and 256, `--score exact`.
 * Each child runs under /usr/bin/time, whose user+sys count the whole tree
 * (npm, its shell, node); the tree's CPU read from /proc when the server sees
 * the first request is its startup, so CPU per trial is (total - startup) / N.
 * The run's wall is from the first request to the last answer, seen by the
 * server; its share of the ideal is N x 20 ms / P over it. Peak RSS is the
 * largest process's (time's %M). Then startup: the time and CPU from spawn to
 * the first request of `npm start`, `npm run trials -- run` and the built bin.
 *
 * Targets at P=64: CPU per trial of `openai` and `http` at most 1.5x the plain
 * client's (median of per-round ratios), their share of the ideal at least 85%.
 */
import { spawn } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Bin, treeOf } from "./cli.ts"
import { median } from "./summary.ts"

export const WIRE_LATENCY_MS = 20
export const WIRE_CPU_RATIO_LIMIT = 1.5
export const WIRE_SHARE_LIMIT = 0.85
export const WIRE_TARGET_P = 64
export const wireClients = ["plain", "openai", "http"] as const
export type WireClient = (typeof wireClients)[number]
export const startupWays = ["npm start", "npm run trials", "bin"] as const
export type StartupWay = (typeof startupWays)[number]

export interface WireRecord {
  readonly client: WireClient
  readonly trials: number
  readonly parallelism: number
  readonly round: number
  readonly status: "ok" | "failed"
  readonly detail?: string
  readonly load1: number
  /** Spawn to exit. */
  readonly wallMs: number
  /** First request to last answer, as the server saw them. */
  readonly runMs: number
  readonly requests: number
  /** user+sys of the whole tree, and what it had spent at the first request. */
  readonly cpuMs: number
  readonly startupCpuMs: number
  readonly peakRssMb: number
}

export interface StartupRecord {
  readonly way: StartupWay
  readonly round: number
  readonly status: "ok" | "failed"
  readonly detail?: string
  readonly load1: number
  /** Spawn to the first request. */
  readonly firstMs: number
  /** The tree's user+sys at the first request. */
  readonly cpuMs: number
}

export interface WireBench {
  readonly trials: number
  readonly rounds: number
  readonly parallelisms: ReadonlyArray<number>
  readonly runs: ReadonlyArray<WireRecord>
  readonly startup: ReadonlyArray<StartupRecord>
  readonly binNote?: string
}

const root = fileURLToPath(new URL("../../", import.meta.url))
const TICKS = 100 // USER_HZ: /proc/PID/stat counts CPU in 1/100 s

const answer = JSON.stringify({
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "42" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 24, completion_tokens: 2, total_tokens: 26 }
})
const agentAnswer = JSON.stringify({ output_text: "42" })

interface Server {
  readonly url: string
  /** Counts from now on; `onFirst` runs when the first request arrives. */
  readonly watch: (onFirst: () => void) => { requests: () => number; firstAt: () => number; lastAt: () => number }
  readonly close: () => Promise<void>
}

const startServer = async (): Promise<Server> => {
  let requests = 0
  let firstAt = 0
  let lastAt = 0
  let onFirst: (() => void) | undefined
  const server = http.createServer((req, res) => {
    if (requests++ === 0) {
      firstAt = performance.now()
      onFirst?.()
    }
    req.resume()
    req.on("end", () => {
      setTimeout(() => {
        const body = req.url === "/agent" ? agentAnswer : answer
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
        res.end(body)
        lastAt = performance.now()
      }, WIRE_LATENCY_MS)
    })
  })
  server.keepAliveTimeout = 60_000
  server.maxRequestsPerSocket = 0
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    watch: (f) => {
      requests = 0
      firstAt = 0
      lastAt = 0
      onFirst = f
      return { requests: () => requests, firstAt: () => firstAt, lastAt: () => lastAt }
    },
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

const treeCpuMs = (pid: number): number => {
  let ticks = 0
  for (const p of treeOf(pid)) {
    try {
      // The command may hold spaces and parentheses: fields count from after the last ")".
      const stat = readFileSync(`/proc/${p}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])
    } catch {
      // Exited between listing and reading.
    }
  }
  return (ticks * 1000) / TICKS
}

interface Timed {
  readonly code: number | null
  readonly wallMs: number
  readonly cpuMs: number
  readonly peakRssMb: number
  readonly startupCpuMs: number
  readonly firstMs: number
  readonly stderr: string
}

/** Runs `file args` under /usr/bin/time against the server; `startupCpuMs` is the tree's CPU at the first request. */
const timed = (server: Server, file: string, args: ReadonlyArray<string>, timeoutMs: number) =>
  new Promise<Timed & { readonly seen: ReturnType<Server["watch"]> }>((resolve, reject) => {
    const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`, OPENAI_API_KEY: "sk-bench-wire-0000000000" }
    const t0 = performance.now()
    let startupCpuMs = 0
    let firstMs = 0
    const child = spawn("/usr/bin/time", ["-f", "WIRE-TIME %U %S %M", file, ...args], {
      cwd: root,
      env,
      stdio: ["ignore", "ignore", "pipe"],
      detached: true
    })
    const seen = server.watch(() => {
      firstMs = performance.now() - t0
      startupCpuMs = child.pid === undefined ? 0 : treeCpuMs(child.pid)
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096)
    })
    const killer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    }, timeoutMs)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(killer)
      const wallMs = performance.now() - t0
      const line = /WIRE-TIME (\S+) (\S+) (\d+)/.exec(stderr)
      resolve({
        code: line === null ? null : code,
        wallMs,
        cpuMs: line === null ? 0 : (Number(line[1]) + Number(line[2])) * 1000,
        peakRssMb: line === null ? 0 : Number(line[3]) / 1024,
        startupCpuMs,
        firstMs,
        stderr: stderr.replace(/WIRE-TIME .*\n?/, ""),
        seen
      })
    })
  })

const commandOf = (client: WireClient | StartupWay, url: string, trials: number, parallelism: number, bin: Bin | undefined) => {
  if (client === "plain") return { file: process.execPath, args: [join(root, "scripts/bench/wire-client.ts"), `${url}/v1/chat/completions`, String(trials), String(parallelism)] }
  const out = join(os.tmpdir(), `agent-trials-bench-wire-${process.pid}.jsonl`)
  rmSync(out, { force: true })
  const agent = client === "http" ? ["--agent", `${url}/agent`] : ["--agent", `openai:${url}/v1`, "--model", "m"]
  const flags = ["--synthetic", String(trials), ...agent, "--parallelism", String(parallelism), "--score", "exact", "--no-progress", "--out", out]
  if (client === "npm start") return { file: "npm", args: ["start", "--", ...flags] }
  if (client === "bin") return { file: process.execPath, args: ["--max-semi-space-size=4", "--heap-growing-percent=80", bin!.path, "run", ...flags] }
  return { file: "npm", args: ["run", "trials", "--", "run", ...flags] }
}

/** Runs the wire part; `log` gets a line per child, `progress` the bench so far. */
export const runWireBench = async (
  options: { readonly trials: number; readonly rounds: number; readonly parallelisms: ReadonlyArray<number>; readonly timeoutMs: number; readonly bin: Bin | Error },
  log: (line: string) => void,
  progress: (bench: WireBench) => void
): Promise<WireBench> => {
  const server = await startServer()
  const runs: Array<WireRecord> = []
  const startup: Array<StartupRecord> = []
  const bin = options.bin instanceof Error ? undefined : options.bin
  const bench = (): WireBench => ({
    trials: options.trials,
    rounds: options.rounds,
    parallelisms: options.parallelisms,
    runs,
    startup,
    ...(bin !== undefined ? { binNote: bin.note } : { binNote: `no bin: ${(options.bin as Error).message}` })
  })
  try {
    for (const parallelism of options.parallelisms) {
      for (let round = 1; round <= options.rounds; round++) {
        // Alternate: each round starts with the next client.
        const order = wireClients.map((_, i) => wireClients[(i + round - 1) % wireClients.length]!)
        for (const client of order) {
          const { file, args } = commandOf(client, server.url, options.trials, parallelism, bin)
          const load1 = os.loadavg()[0]!
          const t = await timed(server, file, args, options.timeoutMs)
          const requests = t.seen.requests()
          const failed = t.code !== 0 ? `exit ${t.code}: ${t.stderr.trim().split("\n").slice(-3).join(" | ")}` : requests !== options.trials ? `${requests} requests for ${options.trials} trials` : undefined
          const record: WireRecord = {
            client,
            trials: options.trials,
            parallelism,
            round,
            status: failed === undefined ? "ok" : "failed",
            ...(failed !== undefined && { detail: failed }),
            load1,
            wallMs: t.wallMs,
            runMs: t.seen.lastAt() - t.seen.firstAt(),
            requests,
            cpuMs: t.cpuMs,
            startupCpuMs: t.startupCpuMs,
            peakRssMb: t.peakRssMb
          }
          runs.push(record)
          log(`wire ${client} N=${options.trials} P=${parallelism} round ${round}: ${failed ?? "ok"}, ${fmtRun(record)}`)
          progress(bench())
        }
      }
    }
    const ways = startupWays.filter((w) => w !== "bin" || bin !== undefined)
    for (let round = 1; round <= options.rounds; round++) {
      for (const way of ways.map((_, i) => ways[(i + round - 1) % ways.length]!)) {
        const { file, args } = commandOf(way, server.url, 200, 8, bin)
        const load1 = os.loadavg()[0]!
        const t = await timed(server, file, args, options.timeoutMs)
        const failed = t.code !== 0 ? `exit ${t.code}: ${t.stderr.trim().split("\n").slice(-3).join(" | ")}` : undefined
        startup.push({ way, round, status: failed === undefined ? "ok" : "failed", ...(failed !== undefined && { detail: failed }), load1, firstMs: t.firstMs, cpuMs: t.startupCpuMs })
        log(`wire startup ${way} round ${round}: ${failed ?? "ok"}, first request after ${t.firstMs.toFixed(0)} ms, ${t.startupCpuMs.toFixed(0)} CPU-ms (load ${load1.toFixed(1)})`)
        progress(bench())
      }
    }
  } finally {
    await server.close()
  }
  return bench()
}

const cpuUs = (r: WireRecord) => ((r.cpuMs - r.startupCpuMs) * 1000) / r.trials
const share = (r: WireRecord) => (r.trials * WIRE_LATENCY_MS) / r.parallelism / r.runMs
const fmtRun = (r: WireRecord) =>
  `run ${(r.runMs / 1000).toFixed(2)} s (${(100 * share(r)).toFixed(0)}% of ideal), wall ${(r.wallMs / 1000).toFixed(2)} s, ` +
  `${cpuUs(r).toFixed(0)} us CPU/trial (+${(r.startupCpuMs / 1000).toFixed(2)} CPU-s to start), peak ${r.peakRssMb.toFixed(0)} MB, load ${r.load1.toFixed(1)}`

const okRuns = (bench: WireBench, client: WireClient, parallelism: number) =>
  bench.runs.filter((r) => r.client === client && r.parallelism === parallelism && r.status === "ok")

/** CPU per trial of `client` over the plain client's, per round, then the median. */
const cpuRatio = (bench: WireBench, client: WireClient, parallelism: number): number | undefined => {
  const ratios = okRuns(bench, client, parallelism).flatMap((r) => {
    const plain = okRuns(bench, "plain", parallelism).find((p) => p.round === r.round)
    return plain === undefined ? [] : [cpuUs(r) / cpuUs(plain)]
  })
  return ratios.length === 0 ? undefined : median(ratios)
}

/** The targets at P=64, each PASS or FAIL (absent when not measured). */
export const wireTargets = (bench: WireBench) =>
  (["openai", "http"] as const).flatMap((client) => {
    const runs = okRuns(bench, client, WIRE_TARGET_P)
    if (runs.length === 0) return []
    const ratio = cpuRatio(bench, client, WIRE_TARGET_P)
    const shareOf = median(runs.map(share))
    return [
      { target: `${client}: CPU per trial <= ${WIRE_CPU_RATIO_LIMIT}x the plain client's at P=${WIRE_TARGET_P}`, value: ratio, pass: ratio !== undefined && ratio <= WIRE_CPU_RATIO_LIMIT },
      { target: `${client}: share of the ideal wall >= ${100 * WIRE_SHARE_LIMIT}% at P=${WIRE_TARGET_P}`, value: shareOf, pass: shareOf >= WIRE_SHARE_LIMIT }
    ]
  })

/** The table (medians over rounds), startup, and the targets. */
export const renderWire = (bench: WireBench): string => {
  const lines = [
    `The wire: N=${bench.trials} synthetic trials, a local server answering after ${WIRE_LATENCY_MS} ms, ${bench.rounds} round(s), medians`,
    "| P | client | run wall s | share of ideal | CPU us/trial | vs plain | startup CPU-s | peak RSS MB | load1 |",
    "|---|---|---|---|---|---|---|---|---|"
  ]
  for (const parallelism of bench.parallelisms) {
    for (const client of wireClients) {
      const runs = okRuns(bench, client, parallelism)
      if (runs.length === 0) {
        lines.push(`| ${parallelism} | ${client} | failed | | | | | | |`)
        continue
      }
      const ratio = client === "plain" ? undefined : cpuRatio(bench, client, parallelism)
      lines.push(
        `| ${parallelism} | ${client} | ${(median(runs.map((r) => r.runMs)) / 1000).toFixed(2)} | ${(100 * median(runs.map(share))).toFixed(1)}% | ` +
          `${median(runs.map(cpuUs)).toFixed(0)} | ${ratio === undefined ? "" : `${ratio.toFixed(2)}x`} | ` +
          `${(median(runs.map((r) => r.startupCpuMs)) / 1000).toFixed(2)} | ${median(runs.map((r) => r.peakRssMb)).toFixed(0)} | ` +
          `${median(runs.map((r) => r.load1)).toFixed(1)} |`
      )
    }
  }
  lines.push("", "Startup (spawn to the first request, 200 trials at P=8): | way | wall s | CPU-s | load1 |")
  for (const way of startupWays) {
    const runs = bench.startup.filter((r) => r.way === way && r.status === "ok")
    if (runs.length === 0) continue
    lines.push(`| ${way} | ${(median(runs.map((r) => r.firstMs)) / 1000).toFixed(2)} | ${(median(runs.map((r) => r.cpuMs)) / 1000).toFixed(2)} | ${median(runs.map((r) => r.load1)).toFixed(1)} |`)
  }
  if (bench.binNote !== undefined) lines.push(`bin: ${bench.binNote}`)
  for (const t of wireTargets(bench)) {
    lines.push(`${t.pass ? "PASS" : "FAIL"} ${t.target}: ${t.value === undefined ? "not measured" : t.value < 5 ? t.value.toFixed(2) : t.value.toFixed(0)}`)
  }
  return lines.join("\n")
}

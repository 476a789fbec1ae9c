/**
 * What the response cache (`run --cache`) costs:
 *
 * - lookup: the cache filled with `--entries` answers (default 1e6, keys as
 *   `CacheKey.of` makes them, 600-byte bodies), then `ResponseCache.call` on
 *   hits (the key's sha256 over the request's canonical JSON, the SQLite
 *   lookup, the JSON parse) and on misses (key, lookup, store), CPU time
 *   per call, beside the same call with no cache provided. Target: a lookup adds
 *   under 50 us per trial at 1e6 entries.
 * - memory: `npm run trials -- run` against an `http://` agent on 127.0.0.1
 *   at parallelism 64, the JSONL path without the cache at N, then with
 *   `--cache` at N/10 and N (every call a miss: stored), then again at N
 *   (every call a hit); each run's own peak RSS (its node's VmHWM, as
 *   target (e) reads it). Target: with the cache on, N within 1.2x of N/10.
 *
 *   node scripts/bench/cache.ts [--entries 1e6] [--calls 1e5] [--trials 1e5] [--skip-memory] [--via npm|script]
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { parseArgs } from "node:util"
import { Effect } from "effect"
import * as CacheKey from "../../src/cache/Key.ts"
import * as ResponseCache from "../../src/cache/ResponseCache.ts"
import * as SqliteCache from "../../src/cache/Sqlite.ts"
import { cliOwnMb, type CliRecord, launcherOf, runCli } from "./cli.ts"

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "1e6" },
    calls: { type: "string", default: "1e5" },
    trials: { type: "string", default: "1e5" },
    "skip-memory": { type: "boolean", default: false },
    via: { type: "string" }
  }
})
const via = launcherOf(values.via)
const entries = Number(values.entries)
const calls = Number(values.calls)
const trials = Number(values.trials)

const LOOKUP_LIMIT_US = 50
const MEMORY_RATIO_LIMIT = 1.2
const url = "http://127.0.0.1:8080/v1/chat/completions"
const requestOf = (i: number) => ({
  kind: "openai",
  url,
  model: "m",
  epoch: 1 + (i % 3),
  body: { model: "m", messages: [{ role: "user", content: `What is ${i} + ${i}? Answer with the number only, and nothing else.` }] }
})
const answerOf = (i: number) =>
  JSON.stringify({
    id: `chatcmpl-${i}`,
    object: "chat.completion",
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: String(2 * i) }, finish_reason: "stop" }],
    usage: { prompt_tokens: 24, completion_tokens: 2, total_tokens: 26 },
    pad: "x".repeat(300)
  })

const fill = (dir: string): number => {
  const t0 = performance.now()
  const db = new DatabaseSync(path.join(dir, SqliteCache.FILE_NAME))
  const put = db.prepare("INSERT OR REPLACE INTO responses (key, created_at, body) VALUES (?, ?, ?)")
  const now = Date.now()
  for (let start = 0; start < entries; start += 50_000) {
    db.exec("BEGIN")
    for (let i = start; i < Math.min(entries, start + 50_000); i++) put.run(CacheKey.of(requestOf(i)), now, answerOf(i))
    db.exec("COMMIT")
  }
  db.close()
  return performance.now() - t0
}

// `n` calls through `ResponseCache.call` (with `cache`, or none), one after another; CPU us per call.
const timeCalls = (cache: ResponseCache.Shape | undefined, indexOf: (k: number) => number, n: number): number => {
  const loop = Effect.gen(function*() {
    for (let k = 0; k < n; k++) {
      const i = indexOf(k)
      yield* ResponseCache.call(
        { ...requestOf(i), trial: { id: `t${i}:1`, epoch: 1 + (i % 3) } },
        Effect.sync(() => JSON.parse(answerOf(i)) as unknown),
        Effect.succeed
      )
      cache?.tallies.take(`t${i}:1`)
    }
  })
  // CPU time (user + system), as the other targets read it: wall time on a shared machine is the neighbours'.
  const t0 = process.cpuUsage()
  Effect.runSync(cache === undefined ? loop : Effect.provideService(loop, ResponseCache.ResponseCache, cache))
  const used = process.cpuUsage(t0)
  return (used.user + used.system) / n
}

const lookupBench = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-bench-cache-"))
  try {
    await Effect.runPromise(Effect.scoped(SqliteCache.make({ dir })))
    const fillMs = fill(dir)
    const size = fs.statSync(path.join(dir, SqliteCache.FILE_NAME)).size
    console.log(`lookup: ${entries.toExponential(0)} entries stored in ${(fillMs / 1000).toFixed(1)} s, ${(size / 1e6).toFixed(0)} MB`)
    // Random keys over the whole table (hits), and keys beyond it (misses, then stored).
    let seed = 12345
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const hits = Array.from({ length: calls }, () => Math.floor(random() * entries))
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const cache = yield* SqliteCache.make({ dir, countTrials: true })
      timeCalls(cache, (k) => hits[k]!, Math.min(calls, 10_000)) // warm-up
      const none = timeCalls(undefined, (k) => hits[k]!, calls)
      const hit = timeCalls(cache, (k) => hits[k]!, calls)
      const miss = timeCalls(cache, (k) => entries + k, Math.min(calls, 20_000))
      console.log(`lookup: per call, no cache ${none.toFixed(1)} us; hit ${hit.toFixed(1)} us (adds ${(hit - none).toFixed(1)}); ` +
        `miss + store ${miss.toFixed(1)} us (adds ${(miss - none).toFixed(1)})`)
      console.log(`(i) a cache lookup adds under ${LOOKUP_LIMIT_US} us per trial at ${entries.toExponential(0)} entries: ` +
        `${hit - none < LOOKUP_LIMIT_US ? "PASS" : "FAIL"}  hit adds ${(hit - none).toFixed(1)} us`)
    })))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const memoryBench = async () => {
  let served = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      served++
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ output_text: "ok", metadata: { n: served } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const agent = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-bench-cache-cli-"))
  const cli = { sampleMs: 50, timeoutMs: 30 * 60_000 }
  const command = (n: number, cache: string | undefined) => [
    "run", "--synthetic", String(n), "--agent", agent, "--score", "none", "--parallelism", "64", "--no-progress",
    ...(cache === undefined ? [] : ["--cache", "--cache-dir", cache])
  ]
  const small = Math.max(1, Math.round(trials / 10))
  const say = (label: string, r: CliRecord, sent: number) =>
    console.log(`memory: ${label.padEnd(22)} ${r.status} own peak ${cliOwnMb(r)?.toFixed(0) ?? "-"} MB, ` +
      `${((r.wallMs ?? 0) / 1000).toFixed(1)} s, ${sent} requests${r.detail === undefined ? "" : ` (${r.detail})`}`)
  try {
    const runs: Array<readonly [string, CliRecord]> = []
    const measure = async (label: string, n: number, cache: string | undefined) => {
      const before = served
      const r = await runCli(via, n, cli, undefined, command(n, cache))
      say(label, r, served - before)
      runs.push([label, r])
      return r
    }
    await measure(`jsonl, no cache, ${trials.toExponential(0)}`, trials, undefined)
    const smallMiss = await measure(`cache miss, ${small.toExponential(0)}`, small, path.join(dir, "small"))
    const bigMiss = await measure(`cache miss, ${trials.toExponential(0)}`, trials, path.join(dir, "big"))
    const bigHit = await measure(`cache hit, ${trials.toExponential(0)}`, trials, path.join(dir, "big"))
    const base = cliOwnMb(smallMiss)
    for (const [label, r] of [["misses", bigMiss], ["hits", bigHit]] as const) {
      const own = cliOwnMb(r)
      const ratio = own === undefined || base === undefined ? undefined : own / base
      console.log(`(j) memory flat with the cache on (${label} at N within ${MEMORY_RATIO_LIMIT}x of misses at N/10): ` +
        `${ratio !== undefined && ratio <= MEMORY_RATIO_LIMIT && r.status === "ok" ? "PASS" : "FAIL"}  ` +
        `${own?.toFixed(0) ?? "-"} MB vs ${base?.toFixed(0) ?? "-"} MB = ${ratio?.toFixed(2) ?? "-"}x`)
    }
  } finally {
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

await lookupBench()
if (!values["skip-memory"]) await memoryBench()

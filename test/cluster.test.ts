/**
 * `run --cluster` and `worker` as real processes on a real PostgreSQL (a
 * throwaway server from the machine's binaries, or AGENT_TRIALS_PG_URL): two
 * workers and a client; a worker killed with SIGKILL mid-run; the client
 * killed and resumed; the cluster-wide bound on outstanding trials. Each
 * test gets a database of its own. The agent (test/fixtures/cluster-agent.ts)
 * logs every call, so the tests count executions, not only records.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { parseUrl } from "../src/cluster/Postgres.ts"
import * as Postgres from "../src/cluster/Postgres.ts"
import { entityId } from "../src/cluster/TrialEntity.ts"
import { runKey } from "../src/cluster/Client.ts"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  lineCount,
  parseSummary,
  readTrials,
  removeTempDirs,
  repoRoot,
  type Running,
  start,
  syntheticIds,
  tempDir,
  waitFor
} from "./cli-helpers.ts"
import * as Pg from "./pg.ts"

const missing = Pg.unavailable()
if (missing !== undefined && process.env["CI"] === "true") {
  throw new Error(`the cluster tests need PostgreSQL under CI: ${missing}`)
}
if (missing !== undefined) console.warn(`skipping the cluster tests: ${missing}`)

let server: Pg.Postgres | undefined
let databases = 0

beforeAll(async () => {
  if (missing === undefined) server = await Pg.start()
}, 60_000)

const created: Array<string> = []

afterAll(async () => {
  killAll()
  // A server of our own goes with its databases; on AGENT_TRIALS_PG_URL's, the tests drop theirs.
  if (server !== undefined && process.env["AGENT_TRIALS_PG_URL"] !== undefined && created.length > 0) {
    const admin = connect(server.url)
    for (const name of created) {
      await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
        .catch(() => {})
    }
    await admin.dispose()
  }
  server?.stop()
  removeTempDirs()
}, 60_000)

type Sql = ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>

const connect = (url: string): Sql => {
  const cluster = parseUrl(url)
  if (cluster instanceof Error) throw cluster
  return ManagedRuntime.make(Postgres.layerSql(cluster) as Layer.Layer<SqlClient.SqlClient, unknown>)
}

// A fresh database on the test server, so each test's runners and shard
// locks are its own.
const freshDatabase = async (): Promise<string> => {
  const name = `agent_trials_${process.pid}_${++databases}`
  created.push(name)
  const admin = connect(server!.url)
  try {
    await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)))
  } finally {
    await admin.dispose()
  }
  const url = new URL(server!.url)
  url.pathname = `/${name}`
  return url.toString()
}

const agent = `module:${path.join(repoRoot, "test/fixtures/cluster-agent.ts")}`
const usedPorts = new Set<number>()

interface Worker {
  readonly process: Running
  readonly port: number
}

const startWorker = async (url: string, log: string, parallelism: number, calls?: string): Promise<Worker> => {
  let port = await Pg.freePort()
  while (usedPorts.has(port)) port = await Pg.freePort()
  usedPorts.add(port)
  const worker = start(
    ["--cluster", url, "--agent", agent, "--parallelism", String(parallelism), "--host", "127.0.0.1", "--port", String(port)],
    { command: "worker", env: { CLUSTER_EXEC_LOG: log, CLUSTER_AGENT_MS: "20", ...(calls === undefined ? undefined : { CLUSTER_CALLS_LOG: calls }) } }
  )
  await waitFor("the worker to start", () => worker.stderr().includes("agent-trials worker:") || worker.exited(), {
    timeoutMs: 30_000
  })
  assert.isFalse(worker.exited(), `the worker exited:\n${worker.stderr()}`)
  return { process: worker, port }
}

const stopWorkers = async (workers: ReadonlyArray<Worker>) => {
  for (const w of workers) w.process.killGroup("SIGTERM")
  await Promise.all(workers.map((w) => w.process.result))
}

interface Execution {
  readonly at: number
  readonly pid: string
  readonly id: string
}

const executions = (log: string): Array<Execution> =>
  fs.existsSync(log)
    ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((line) => {
      const [at, pid, id] = line.split(" ")
      return { at: Number(at), pid: pid!, id: id! }
    })
    : []

const duplicates = (runs: ReadonlyArray<Execution>): number => {
  const seen = new Set<string>()
  let n = 0
  for (const e of runs) {
    if (seen.has(e.id)) n++
    else seen.add(e.id)
  }
  return n
}

const runArgs = (url: string, out: string, n: number, parallelism: number, extra: ReadonlyArray<string> = []) => [
  "--cluster",
  url,
  "--synthetic",
  String(n),
  "--parallelism",
  String(parallelism),
  "--out",
  out,
  "--summary",
  `${out}.summary.json`,
  "--no-progress",
  ...extra
]

const messagesLeft = async (url: string, out: string): Promise<number> => {
  const sql = connect(url)
  try {
    return await sql.runPromise(Postgres.countMessages(runKey(out, repoRoot)))
  } finally {
    await sql.dispose()
  }
}

describe.skipIf(missing !== undefined)("run --cluster", () => {
  // SIGKILL: the killed worker's shard locks expire; SIGTERM: it shuts down,
  // interrupting its trials without storing the interruption as their reply.
  for (const [sig, n, killAt] of [["SIGKILL", 2000, 400], ["SIGTERM", 800, 200]] as const) {
  it(`2 workers and a client, one worker stopped with ${sig} mid-run: every trial recorded exactly once`, async () => {
    const url = await freshDatabase()
    const dir = tempDir()
    const log = path.join(dir, "exec.log")
    const out = path.join(dir, "results.jsonl")
    const workers = await Promise.all([startWorker(url, log, 16), startWorker(url, log, 16)])
    const client = start(runArgs(url, out, n, 32))
    await waitFor(`${killAt} trials recorded`, () => lineCount(out) >= killAt || client.exited(), { timeoutMs: 60_000 })
    assert.isFalse(client.exited(), "the run ended before the kill")
    const victim = workers[1]!
    const victimPid = String(victim.process.child.pid)
    const killedAt = Date.now()
    victim.process.killGroup(sig)
    const result = await client.result
    assert.strictEqual(result.code, 0, describeResult(result))
    assertExactlyOnce(readTrials(out), syntheticIds(n))
    const summary = parseSummary(result.stdout)
    assert.strictEqual(summary.total, n)

    // Takeover: from the kill to the first call a survivor made for an
    // entity the killed worker had been running.
    const runs = executions(log)
    const pids = new Set(runs.map((e) => e.pid))
    assert.deepStrictEqual([...pids].sort(), workers.map((w) => String(w.process.child.pid)).sort())
    const key = runKey(out, repoRoot)
    const bucketOf = (id: string) => entityId(key, id)
    const victimBuckets = new Set(runs.filter((e) => e.pid === victimPid).map((e) => bucketOf(e.id)))
    const takeover = runs.find((e) => e.pid !== victimPid && e.at >= killedAt && victimBuckets.has(bucketOf(e.id)))
    assert.isDefined(takeover, "no survivor ran the killed worker's trials")
    const takeoverMs = takeover!.at - killedAt
    const dup = duplicates(runs)
    const resent = result.stderr.split("\n").filter((l) => l.includes("sent again")).length
    console.log(
      `cluster failover: takeover ${takeoverMs} ms after ${sig}; ${dup} trials run twice; ${runs.length} calls for ${n} trials; ` +
        `${resent} interrupted replies sent again`
    )
    // Generous: the tuned lease expires after 6 s.
    assert.isBelow(takeoverMs, 30_000)
    // Housekeeping: the finished run's messages are gone.
    assert.strictEqual(await messagesLeft(url, out), 0)
    await stopWorkers(workers.slice(0, 1))
  }, 120_000)
  }

  for (const sig of ["SIGKILL", "SIGINT"] as const) {
  it(`the client stopped with ${sig} and run again with --resume: every trial recorded once, none run twice`, async () => {
    const url = await freshDatabase()
    const dir = tempDir()
    const log = path.join(dir, "exec.log")
    const out = path.join(dir, "results.jsonl")
    const n = 800
    const workers = await Promise.all([startWorker(url, log, 16), startWorker(url, log, 16)])
    const first = start(runArgs(url, out, n, 16))
    await waitFor("200 trials recorded", () => lineCount(out) >= 200 || first.exited(), { timeoutMs: 60_000 })
    assert.isFalse(first.exited(), "the run ended before the kill")
    first.killGroup(sig)
    await first.result
    const recordedBefore = readTrials(out).length
    const second = await start(runArgs(url, out, n, 16, ["--resume"])).result
    assert.strictEqual(second.code, 0, describeResult(second))
    assertExactlyOnce(readTrials(out), syntheticIds(n))
    const summary = parseSummary(second.stdout)
    assert.strictEqual(summary.alreadyRecorded, recordedBefore)
    assert.strictEqual(summary.total, n - recordedBefore)
    // Trials in flight when the client died were answered from storage when
    // the resumed client sent them again (same run key, same trial id).
    const runs = executions(log)
    console.log(`cluster client resume (${sig}): ${recordedBefore} recorded before; ${duplicates(runs)} trials run twice`)
    assert.strictEqual(duplicates(runs), 0)
    assert.strictEqual(runs.length, n)
    // A stopped client does not interrupt the trials it sent (that would store an interruption as their reply).
    assert.deepStrictEqual(readTrials(out).filter((t) => t.error?.type === "Interrupted").map((t) => t.id), [])
    assert.strictEqual(await messagesLeft(url, out), 0)
    await stopWorkers(workers)
  }, 120_000)
  }

  it("keeps at most --parallelism trials outstanding across the cluster", async () => {
    const url = await freshDatabase()
    const dir = tempDir()
    const log = path.join(dir, "exec.log")
    const out = path.join(dir, "results.jsonl")
    const n = 300
    const parallelism = 6
    // The workers could take 32 at once: the client's bound is the one that holds.
    const calls = path.join(dir, "calls.log")
    const workers = await Promise.all([startWorker(url, log, 16, calls), startWorker(url, log, 16, calls)])
    const client = start(runArgs(url, out, n, parallelism))
    const sql = connect(url)
    const key = runKey(out, repoRoot)
    let peakUnprocessed = 0
    let samples = 0
    try {
      while (!client.exited()) {
        const rows = await sql.runPromise(Effect.flatMap(
          SqlClient.SqlClient,
          (s) =>
            s<{ readonly n: string }>`SELECT count(*) AS n FROM cluster_messages
              WHERE entity_id LIKE ${`${key}/%`} AND processed = FALSE`
        )).catch(() => [{ n: "0" }])
        peakUnprocessed = Math.max(peakUnprocessed, Number(rows[0]!.n))
        samples++
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      await sql.dispose()
    }
    const result = await client.result
    assert.strictEqual(result.code, 0, describeResult(result))
    assertExactlyOnce(readTrials(out), syntheticIds(n))
    const summary = JSON.parse(fs.readFileSync(`${out}.summary.json`, "utf8"))
    assert.strictEqual(summary.peak_outstanding, parallelism)
    assert.isAtMost(summary.peak_active_calls, parallelism)
    assert.isAbove(samples, 5)
    assert.isAtMost(peakUnprocessed, parallelism, `unprocessed messages in the database: ${peakUnprocessed}`)
    // Calls in flight across both workers, counted from the agent's own
    // starts and ends in the order both workers appended them.
    const events = fs.readFileSync(calls, "utf8").split("\n").filter((l) => l !== "")
    let inFlight = 0
    let peakCalls = 0
    for (const event of events) {
      inFlight += event.startsWith("+ ") ? 1 : -1
      peakCalls = Math.max(peakCalls, inFlight)
    }
    assert.strictEqual(inFlight, 0, "every call that started ended")
    assert.strictEqual(events.length, 2 * executions(log).length)
    assert.isAtMost(peakCalls, parallelism)
    await stopWorkers(workers)
  }, 120_000)

  it("cluster prune --out deletes what a killed run left; cluster prune deletes processed messages only", async () => {
    const url = await freshDatabase()
    const dir = tempDir()
    const log = path.join(dir, "exec.log")
    const out = path.join(dir, "results.jsonl")
    const workers = await Promise.all([startWorker(url, log, 8)])
    const client = start(runArgs(url, out, 2000, 8))
    await waitFor("50 trials recorded", () => lineCount(out) >= 50 || client.exited(), { timeoutMs: 60_000 })
    client.killGroup("SIGKILL")
    await client.result
    await stopWorkers(workers)
    const left = await messagesLeft(url, out)
    assert.isAbove(left, 0)
    // Without --out: only the processed ones (the killed run's unanswered ones stay).
    const processedOnly = await start(["prune", "--cluster", url], { command: "cluster" }).result
    assert.strictEqual(processedOnly.code, 0, describeResult(processedOnly))
    const pruned = Number(/pruned (\d+) processed trial messages/.exec(processedOnly.stdout)?.[1])
    assert.isAbove(pruned, 0)
    assert.strictEqual(await messagesLeft(url, out), left - pruned)
    const all = await start(["prune", "--cluster", url, "--out", out], { command: "cluster" }).result
    assert.strictEqual(all.code, 0, describeResult(all))
    assert.match(all.stdout, new RegExp(`pruned ${left - pruned} trial messages of the run writing`))
    assert.strictEqual(await messagesLeft(url, out), 0)
  }, 60_000)
})

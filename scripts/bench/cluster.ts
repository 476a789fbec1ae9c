/**
 * `npx tsx scripts/bench/cluster.ts [--trials N] [--workers 1,2,4] [--worker-parallelism P] [--latency MS]`
 *
 * Throughput of `run --cluster` with 1, 2 and 4 worker processes on this
 * machine (the sim agent, 100 ms per call, no failures; each worker runs
 * at most P calls, the client keeps P x workers outstanding), then the
 * failover time: two workers, one killed with SIGKILL at a third of the run,
 * the time until a survivor runs a trial of an entity the killed one held,
 * and how many trials ran twice (the cluster test agent logs every call);
 * the same with SIGTERM (a worker that shuts down releases its shards).
 *
 * Throughput is steady-state: trials recorded between 20% and 90% of the
 * run, over the time between those two points (read from the results
 * file's `finished_at`), so process start-up and the tail do not count.
 * PostgreSQL is a throwaway server (test/pg.ts), or AGENT_TRIALS_PG_URL.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { Effect, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { layerSql, parseUrl } from "../../src/cluster/Postgres.ts"
import { runKey } from "../../src/cluster/Client.ts"
import { entityId } from "../../src/cluster/TrialEntity.ts"
import * as Pg from "../../test/pg.ts"

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "3000" },
    workers: { type: "string", default: "1,2,4" },
    "worker-parallelism": { type: "string", default: "32" },
    latency: { type: "string", default: "100" },
    "failover-trials": { type: "string", default: "3000" }
  }
})
const trials = Number(values.trials)
const workerCounts = values.workers.split(",").map(Number)
const workerParallelism = Number(values["worker-parallelism"])
const latency = Number(values.latency)

const repoRoot = path.resolve(import.meta.dirname, "../..")
const bin = path.join(repoRoot, "node_modules", ".bin")
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-bench-cluster-"))

interface Child {
  readonly child: ChildProcess
  readonly done: Promise<number | null>
  stderr: string
  stdout: string
}

const children = new Set<Child>()

const spawnTrials = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Child => {
  const child = spawn(path.join(bin, "tsx"), ["scripts/trials.ts", ...args], {
    cwd: repoRoot,
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env["PATH"]}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
  })
  const entry: Child = {
    child,
    stderr: "",
    stdout: "",
    done: new Promise((resolve) => child.on("close", (code) => {
      children.delete(entry)
      resolve(code)
    }))
  }
  child.stdout!.setEncoding("utf8").on("data", (s: string) => entry.stdout += s)
  child.stderr!.setEncoding("utf8").on("data", (s: string) => entry.stderr += s)
  children.add(entry)
  return entry
}

const signal = (c: Child, sig: NodeJS.Signals) => {
  try {
    process.kill(-c.child.pid!, sig)
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const waitFor = async (what: string, predicate: () => boolean, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

const lines = (file: string) => fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []

let databases = 0
const freshDatabase = async (server: string): Promise<string> => {
  const cluster = parseUrl(server)
  if (cluster instanceof Error) throw cluster
  const admin = ManagedRuntime.make(layerSql(cluster))
  const name = `agent_trials_bench_${process.pid}_${++databases}`
  try {
    await admin.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}`)))
  } finally {
    await admin.dispose()
  }
  const url = new URL(server)
  url.pathname = `/${name}`
  return url.toString()
}

const startWorkers = async (url: string, n: number, agent: string, env: Record<string, string> = {}) => {
  const workers: Array<Child> = []
  for (let i = 0; i < n; i++) {
    const port = await Pg.freePort()
    workers.push(spawnTrials([
      "worker",
      "--cluster",
      url,
      "--agent",
      agent,
      "--parallelism",
      String(workerParallelism),
      "--host",
      "127.0.0.1",
      "--port",
      String(port)
    ], env))
  }
  for (const w of workers) await waitFor("a worker to start", () => w.stderr.includes("agent-trials worker:"))
  return workers
}

const stop = async (workers: ReadonlyArray<Child>) => {
  for (const w of workers) signal(w, "SIGTERM")
  await Promise.all(workers.map((w) => w.done))
}

// Trials per second between the 20% and the 90% points of the run, by finish time.
const steadyRate = (file: string): number => {
  const times = lines(file).map((l) => Date.parse(JSON.parse(l).metadata.finished_at)).sort((a, b) => a - b)
  const a = Math.floor(times.length * 0.2)
  const b = Math.floor(times.length * 0.9)
  return (b - a) / ((times[b]! - times[a]!) / 1000)
}

const throughput = async (server: string, workersN: number) => {
  const url = await freshDatabase(server)
  const workers = await startWorkers(url, workersN, `sim:latency=${latency}ms,jitter=0ms,fail=0`)
  const out = path.join(tmp, `throughput-${workersN}.jsonl`)
  const started = Date.now()
  const client = spawnTrials([
    "run",
    "--cluster",
    url,
    "--synthetic",
    String(trials),
    "--parallelism",
    String(workerParallelism * workersN),
    "--out",
    out,
    "--no-progress"
  ])
  const code = await client.done
  const wall = (Date.now() - started) / 1000
  await stop(workers)
  if (code !== 0) throw new Error(`run --cluster exited ${code}: ${client.stderr}`)
  const n = lines(out).length
  return { workers: workersN, trials: n, wallS: wall, steadyPerS: steadyRate(out), wholeRunPerS: n / wall }
}

const failover = async (server: string, sig: NodeJS.Signals) => {
  const url = await freshDatabase(server)
  const log = path.join(tmp, `exec-${sig}.log`)
  const agent = `module:${path.join(repoRoot, "test/fixtures/cluster-agent.ts")}`
  const workers = await startWorkers(url, 2, agent, { CLUSTER_EXEC_LOG: log, CLUSTER_AGENT_MS: String(latency) })
  const out = path.join(tmp, `failover-${sig}.jsonl`)
  const n = Number(values["failover-trials"])
  const client = spawnTrials([
    "run",
    "--cluster",
    url,
    "--synthetic",
    String(n),
    "--parallelism",
    String(workerParallelism * 2),
    "--out",
    out,
    "--no-progress"
  ])
  await waitFor("a third of the trials", () => lines(out).length >= n / 3, 120_000)
  const victim = workers[1]!
  const killedAt = Date.now()
  signal(victim, sig)
  const code = await client.done
  await stop(workers.slice(0, 1))
  if (code !== 0) throw new Error(`run --cluster exited ${code}: ${client.stderr}`)
  const recorded = lines(out).map((l) => JSON.parse(l).id as string)
  const runs = lines(log).map((l) => {
    const [at, pid, id] = l.split(" ")
    return { at: Number(at), pid: pid!, id: id! }
  })
  const key = runKey(out, repoRoot)
  const victimPid = String(victim.child.pid)
  const victimEntities = new Set(runs.filter((r) => r.pid === victimPid).map((r) => entityId(key, r.id)))
  const takeover = runs.find((r) => r.pid !== victimPid && r.at >= killedAt && victimEntities.has(entityId(key, r.id)))
  const seen = new Set<string>()
  let twice = 0
  for (const r of runs) {
    if (seen.has(r.id)) twice++
    else seen.add(r.id)
  }
  return {
    signal: sig,
    trials: n,
    recorded: recorded.length,
    distinctRecorded: new Set(recorded).size,
    takeoverMs: takeover === undefined ? undefined : takeover.at - killedAt,
    ranTwice: twice
  }
}

const main = async () => {
  const pg = await Pg.start()
  try {
    console.log(
      `cluster bench: ${os.cpus().length} cores, sim agent ${latency} ms, ${trials} trials per run, ` +
        `worker parallelism ${workerParallelism}, client parallelism ${workerParallelism} x workers`
    )
    const rows = []
    for (const w of workerCounts) {
      const row = await throughput(pg.url, w)
      rows.push(row)
      console.log(
        `  ${w} worker${w === 1 ? " " : "s"}: ${row.steadyPerS.toFixed(1)} trials/s steady ` +
          `(${row.wholeRunPerS.toFixed(1)} over the whole run, ${row.wallS.toFixed(1)} s, ${row.trials} trials)`
      )
    }
    const failovers = []
    for (const sig of ["SIGKILL", "SIGTERM"] as const) {
      const f = await failover(pg.url, sig)
      failovers.push(f)
      console.log(
        `  failover (2 workers, one stopped with ${sig} at a third): takeover ${f.takeoverMs} ms; ` +
          `${f.ranTwice} trials ran twice; ${f.recorded} records, ${f.distinctRecorded} distinct, of ${f.trials}`
      )
    }
    console.log(JSON.stringify({ throughput: rows, failover: failovers }))
  } finally {
    for (const c of children) signal(c, "SIGKILL")
    pg.stop()
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

await main()

/**
 * What a `run --cluster` client tells its user about the cluster, as real
 * processes on a throwaway PostgreSQL that wants a password (scram-sha-256
 * for TCP logins): a wrong password is an authentication failure, not an
 * unreachable database; a client with no worker says it is waiting for one,
 * and runs once one has registered; its `--resume` is checked like a local
 * run's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  readTrials,
  removeTempDirs,
  run,
  start,
  syntheticIds,
  tempDir,
  waitFor
} from "./cli-helpers.ts"
import * as Pg from "./pg.ts"

const missing = Pg.binDir() === undefined
  ? "PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (these tests start a server of their own)"
  : undefined
if (missing !== undefined && process.env["CI"] === "true") throw new Error(`the cluster tests need PostgreSQL under CI: ${missing}`)
if (missing !== undefined) console.warn(`skipping the cluster client tests: ${missing}`)

const password = "right-Pw-4217"
let server: Pg.Postgres | undefined

beforeAll(async () => {
  if (missing === undefined) server = await Pg.start({ password })
}, 60_000)

afterAll(() => {
  killAll()
  server?.stop()
  removeTempDirs()
}, 60_000)

const oneLine = (stderr: string) => {
  const lines = stderr.trim().split("\n")
  assert.strictEqual(lines.length, 1, `expected one line on stderr:\n${stderr}`)
  return lines[0]!
}

describe.skipIf(missing !== undefined)("run --cluster: what the client says", () => {
  it("a wrong password: exit 2, an authentication failure naming the user and host:port, not 'cannot reach'", async () => {
    const url = new URL(server!.url)
    const address = `127.0.0.1:${url.port}`
    url.password = "wrong-Pw-9931"
    const wrong = url.toString()
    const cases: Array<[ReadonlyArray<string>, string | undefined]> = [
      [["--cluster", wrong, "--synthetic", "3", "--out", path.join(tempDir(), "r.jsonl")], undefined],
      [["--cluster", wrong, "--host", "127.0.0.1", "--port", String(await Pg.freePort())], "worker"],
      [["prune", "--cluster", wrong], "cluster"]
    ]
    for (const [args, command] of cases) {
      const result = await run(args, command === undefined ? {} : { command })
      assert.strictEqual(result.code, 2, describeResult(result))
      const line = oneLine(result.stderr)
      assert.include(line, `authentication failed for user "postgres" at ${address}`)
      assert.notInclude(line, "cannot reach")
      assert.notInclude(result.stderr + result.stdout, "wrong-Pw-9931")
    }
  }, 120_000)

  it("with no worker the client says it is waiting for one (the URL redacted); once one registers, the run completes", async () => {
    const dir = tempDir()
    const out = path.join(dir, "r.jsonl")
    const client = start(["--cluster", server!.url, "--synthetic", "20", "--parallelism", "4", "--out", out, "--no-progress"])
    await waitFor("the client to say it waits", () => client.stderr().includes("waiting for a worker") || client.exited(), {
      timeoutMs: 60_000
    })
    assert.isFalse(client.exited(), `the client exited:\n${client.stderr()}`)
    const port = new URL(server!.url).port
    assert.include(
      client.stderr(),
      `agent-trials: waiting for a worker (none has registered with postgres://<redacted>@127.0.0.1:${port}/postgres)`
    )
    assert.notInclude(client.stderr() + client.stdout(), password)

    const worker = start(
      ["--cluster", server!.url, "--agent", "sim:latency=1ms", "--host", "127.0.0.1", "--port", String(await Pg.freePort())],
      { command: "worker" }
    )
    try {
      const result = await client.result
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.match(result.stderr, /agent-trials: a worker has registered with postgres:\/\/<redacted>@127\.0\.0\.1:\d+\/postgres: running/)
      assertExactlyOnce(readTrials(out), syntheticIds(20))
      assert.notInclude(result.stderr + result.stdout, password)
    } finally {
      worker.killGroup("SIGTERM")
      await worker.result
    }

    // A cluster run's resume is checked as a local one's, before anything is sent.
    const shown = `postgres://<redacted>@127.0.0.1:${port}/postgres`
    const base = ["--synthetic", "20", "--out", out, "--no-progress", "--resume"]
    for (const [args, says] of [
      [["--cluster", server!.url, ...base, "--epochs", "2"], "--epochs 1, this run has --epochs 2"],
      [[...base], `--cluster ${shown}, this run has --agent sim:fail=0.02,seed=1`]
    ] as const) {
      const result = await run(args)
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(oneLine(result.stderr), `agent-trials: --resume: ${out} was written with ${says}`)
    }
  }, 180_000)
})

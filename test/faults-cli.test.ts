/**
 * `agent-trials run` end to end against the fault-injecting server: the real
 * command in a child process (`tsx scripts/trials.ts run`), its exit code and
 * the results file it leaves: one whole JSON line per trial, the statuses and
 * attempts the retry schedule implies, the failure budget, and Ctrl-C while
 * trials wait to retry.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  lineCount,
  readTrials,
  removeTempDirs,
  run,
  start,
  tempDir,
  waitFor,
  writeJsonl
} from "./cli-helpers.ts"
import { checkTrial, expectations, faultServer, routeOf } from "./fault-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// A fresh process pays for JIT and new connections on its first calls: on a
// busy 2-core machine that was measured at up to ~0.9 s, so a 300 ms timeout
// would time out (and retry) calls that are not faulty. 2 s keeps every
// attempt count exact; the hang and slow-body faults still time out.
const TIMEOUT = "2s"
const BACKOFF_MS = 10
const POLICY = ["--timeout", TIMEOUT, "--retries", "2", "--backoff", `${BACKOFF_MS}ms`, "--no-progress"]

// A tasks file of these ids (each task names its fault) and where results go.
const setup = (ids: ReadonlyArray<string>) => {
  const dir = tempDir()
  const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), ids.map((id) => ({ id, inputs: { fault: routeOf(id) } })))
  return { tasks, out: path.join(dir, "out.jsonl") }
}

const trialIds = (ids: ReadonlyArray<string>) => ids.map((id) => `${id}:1`)

describe.concurrent("agent-trials run against a fault-injecting server", () => {
  it.live("every fault class: exit 0, one whole line per task, statuses and attempts as the schedule implies", () =>
    Effect.gen(function*() {
      const server = yield* faultServer
      // The CLI caps Retry-After at 60 s, so the faults that exceed a cap stay
      // out; a 429 with Retry-After: 1 is waited out for 2 s in all, then RateLimited.
      const expected = expectations(60_000, 2000)
      const routes = Object.keys(expected).filter((r) => r !== "429cap" && r !== "503date" && r !== "flaky")
      const ids = [...routes.map((r) => `${r}-1`), "flaky-2"]
      const { out, tasks } = setup(ids)
      const result = yield* Effect.promise(() =>
        run(["--tasks", tasks, "--agent", server.url, "--out", out, "--parallelism", "16", "--rate-limit-wait-max", "2s", ...POLICY])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const trials = readTrials(out)
      assertExactlyOnce(trials, trialIds(ids))
      for (const trial of trials) {
        checkTrial(trial, expected[routeOf(trial.task_id)]!, server.counts.get(trial.task_id), {
          baseMs: BACKOFF_MS,
          maxMs: 30_000
        })
      }
      assert.match(result.stdout, /^run \S+: finished$/m)
    }))

  it.live("--max-failures 2: the third failure is recorded, then exit 1 naming the limit; only whole lines", () =>
    Effect.gen(function*() {
      const server = yield* faultServer
      const ids = ["ok-1", "400-1", "ok-2", "badjson-1", "ok-3", "400-2", "ok-4", "400-3", "ok-5"]
      const { out, tasks } = setup(ids)
      const result = yield* Effect.promise(() =>
        run(["--tasks", tasks, "--agent", server.url, "--out", out, "--parallelism", "1", "--max-failures", "2", ...POLICY])
      )
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.include(result.stderr, "agent-trials: stopped: 3 of 6 finished trials failed, more than the limit of 2 failed trials")
      assert.match(result.stdout, /^run \S+: too_many_failures$/m)
      const trials = readTrials(out)
      assert.deepStrictEqual(trials.map((t) => t.task_id), ids.slice(0, 6))
      assert.deepStrictEqual(trials.map((t) => t.status), ["completed", "failed", "completed", "failed", "completed", "failed"])
      // The next task may have been admitted while the sixth trial was being
      // emitted (admission is concurrent with the consumer), never more.
      assert.deepStrictEqual([...server.counts.keys()].slice(0, 6), ids.slice(0, 6))
      assert.isAtMost(server.counts.size, 7)
    }))

  it.live("SIGINT while trials wait to retry (503, Retry-After: 30): exit 130 at once, whole lines, nothing recorded as interrupted", () =>
    Effect.gen(function*() {
      const server = yield* faultServer
      const waiting = ["503wait-1", "503wait-2", "503wait-3", "503wait-4"]
      const ids = ["ok-1", ...waiting, "ok-2"]
      const { out, tasks } = setup(ids)
      const child = start(["--tasks", tasks, "--agent", server.url, "--out", out, "--parallelism", "8", ...POLICY])
      const result = yield* Effect.promise(async () => {
        // Every 503 answered and both ok trials flushed to the file: the 503
        // trials now sit in a 30 s backoff.
        await waitFor("the first answers", () => waiting.every((id) => server.counts.get(id) === 1) && lineCount(out) === 2)
        await new Promise((resolve) => setTimeout(resolve, 300))
        child.killGroup("SIGINT")
        // A generous guard, not a timing measurement: a run that sat out its
        // backoff before stopping would take 30 s.
        await waitFor("the run to stop during its backoff wait", child.exited, { timeoutMs: 20_000 })
        return child.result
      })
      assert.strictEqual(result.code, 130, describeResult(result))
      const trials = readTrials(out)
      assertExactlyOnce(trials, trialIds(["ok-1", "ok-2"]))
      assert.isTrue(trials.every((t) => t.status === "completed"))
      assert.deepStrictEqual(trials.filter((t) => t.error?.type === "Interrupted"), [])
      for (const id of waiting) assert.strictEqual(server.counts.get(id), 1, `${id} was not retried before the interrupt`)
      assert.match(result.stdout, /^run \S+: interrupted$/m)
    }))
})

/**
 * The response cache across agents and processes (issue 40, part 3), through
 * the real command against local servers on 127.0.0.1 that count requests:
 * an `http(s)://` agent's calls; a module agent using `ResponseCache.call`; a tool loop's turns (a trial whose first
 * turn was stored and whose second failed is `partial` the next time); two
 * runs sharing one cache at once; a run SIGKILLed mid-way and `--resume`d
 * with the cache on.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  lineCount,
  readTrials,
  removeTempDirs,
  run,
  start,
  syntheticIds,
  tempDir,
  waitFor
} from "./cli-helpers.ts"
import { json, serve } from "./http-server.ts"
import { answer, callTools, firstUser, modelServer } from "./tool-model-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const entriesIn = (cacheDir: string): number => {
  const db = new DatabaseSync(path.join(cacheDir, "responses.sqlite"))
  try {
    assert.strictEqual((db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check, "ok")
    return (db.prepare("SELECT count(*) AS n FROM responses").get() as { n: number }).n
  } finally {
    db.close()
  }
}

// An agent endpoint answering each task with a fresh number, after `delayMs`.
const agentServer = (delayMs = 0) => {
  let served = 0
  return serve((_request, res) => {
    const n = ++served
    setTimeout(() => json(res, 200, { output_text: `answer ${n}` }), delayMs)
  })
}

describe.concurrent("agent-trials run --cache: agents and processes", () => {
  it.live("an http(s):// agent's calls are served the second time, with the same answers", () =>
    Effect.gen(function*() {
      const s = yield* agentServer()
      const dir = tempDir()
      const args = (out: string) => [
        "--synthetic", "5", "--agent", `${s.base}/agent`, "--score", "none", "--cache", "--cache-dir", path.join(dir, "cache"),
        "--out", path.join(dir, out), "--no-progress"
      ]
      const first = yield* Effect.promise(() => run(args("a.jsonl")))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(s.received.length, 5)
      const second = yield* Effect.promise(() => run(args("b.jsonl")))
      assert.strictEqual(second.code, 0, describeResult(second))
      assert.strictEqual(s.received.length, 5)
      const answers = (file: string) =>
        Object.fromEntries(readTrials(path.join(dir, file)).map((t) => [t.id, [t.output?.output_text, t.metadata["cache"]]]))
      const a = answers("a.jsonl")
      const b = answers("b.jsonl")
      for (const id of Object.keys(a)) {
        assert.deepStrictEqual(a[id], [a[id]![0], "miss"])
        assert.deepStrictEqual(b[id], [a[id]![0], "hit"])
      }
    }))

  it.live("a module agent may use the run's cache as a service (ResponseCache.call): its second run sends nothing", () =>
    Effect.gen(function*() {
      const s = yield* agentServer()
      const dir = tempDir()
      const args = (out: string) => [
        "--synthetic", "4", "--agent", "module:test/fixtures/agent-cached.ts", "--score", "none", "--cache",
        "--cache-dir", path.join(dir, "cache"), "--out", path.join(dir, out), "--no-progress"
      ]
      const env = { AGENT_URL: `${s.base}/agent` }
      const first = yield* Effect.promise(() => run(args("a.jsonl"), { env }))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(s.received.length, 4)
      const second = yield* Effect.promise(() => run(args("b.jsonl"), { env }))
      assert.strictEqual(second.code, 0, describeResult(second))
      assert.strictEqual(s.received.length, 4, "the second run sent nothing")
      const b = readTrials(path.join(dir, "b.jsonl"))
      assert.isTrue(b.every((t) => t.metadata["cache"] === "hit"))
      // Without --cache the module's calls are all sent.
      const third = yield* Effect.promise(() => run(args("c.jsonl").filter((a) => a !== "--cache"), { env }))
      assert.strictEqual(third.code, 0, describeResult(third))
      assert.strictEqual(s.received.length, 8)
    }))

  it.live("a tool loop's turns are cached one by one: a trial whose second turn failed is partial next time", () =>
    Effect.gen(function*() {
      let failSecondTurn = true
      const s = yield* modelServer((turn, body) => {
        const i = Number(/^What is (\d+) \+/.exec(firstUser(body))?.[1])
        if (turn === 1) return callTools([{ id: "c1", name: "add", args: { a: i, b: i } }])
        if (i === 0 && failSecondTurn) return { status: 400, body: { error: { message: "bad turn" } } }
        return answer(String(2 * i))
      })
      const dir = tempDir()
      const args = (out: string) => [
        "--synthetic", "3", "--agent", `openai:${s.base}/v1`, "--model", "m", "--tools", "module:test/fixtures/tools-plain.ts",
        "--score", "none", "--retries", "0", "--cache", "--cache-dir", path.join(dir, "cache"), "--out", path.join(dir, out),
        "--no-progress"
      ]
      const first = yield* Effect.promise(() => run(args("a.jsonl")))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(s.received.length, 6, "3 trials x 2 turns")
      assert.deepStrictEqual(readTrials(path.join(dir, "a.jsonl")).map((t) => [t.task_id, t.status]).sort(), [
        ["synthetic-0", "failed"],
        ["synthetic-1", "completed"],
        ["synthetic-2", "completed"]
      ])
      failSecondTurn = false
      const second = yield* Effect.promise(() => run(args("b.jsonl")))
      assert.strictEqual(second.code, 0, describeResult(second))
      assert.strictEqual(s.received.length, 7, "only the turn that failed was asked again")
      const b = readTrials(path.join(dir, "b.jsonl"))
      assert.deepStrictEqual(Object.fromEntries(b.map((t) => [t.task_id, [t.status, t.metadata["cache"]]])), {
        "synthetic-0": ["completed", "partial"],
        "synthetic-1": ["completed", "hit"],
        "synthetic-2": ["completed", "hit"]
      })
      // Each turn of a served trial keeps its step in the trajectory.
      assert.isTrue(b.every((t) => (t.output?.trajectory?.filter((step) => step.type === "model").length ?? 0) === 2))
    }))

  it.live("two runs at once share one cache: both finish, every answer is stored once, a third run sends nothing", () =>
    Effect.gen(function*() {
      const s = yield* agentServer(2)
      const dir = tempDir()
      const cacheDir = path.join(dir, "cache")
      const args = (out: string) => [
        "--synthetic", "300", "--agent", `${s.base}/agent`, "--score", "none", "--parallelism", "16", "--cache",
        "--cache-dir", cacheDir, "--out", path.join(dir, out), "--no-progress"
      ]
      const [a, b] = yield* Effect.promise(() => Promise.all([run(args("a.jsonl")), run(args("b.jsonl"))]))
      assert.strictEqual(a.code, 0, describeResult(a))
      assert.strictEqual(b.code, 0, describeResult(b))
      const sent = s.received.length
      // Each trial was asked at most once by each run.
      assert.isAtLeast(sent, 300)
      assert.isAtMost(sent, 600)
      assert.strictEqual(entriesIn(cacheDir), 300)
      const third = yield* Effect.promise(() => run(args("c.jsonl")))
      assert.strictEqual(third.code, 0, describeResult(third))
      assert.strictEqual(s.received.length, sent, "the third run sent nothing")
      assert.isTrue(readTrials(path.join(dir, "c.jsonl")).every((t) => t.metadata["cache"] === "hit"))
    }))

  it.live("SIGKILL mid-run, then --resume with the cache on: the file holds each trial once, the cache is whole", () =>
    Effect.gen(function*() {
      const s = yield* agentServer(10)
      const dir = tempDir()
      const cacheDir = path.join(dir, "cache")
      const out = path.join(dir, "out.jsonl")
      const total = 1500
      const args = [
        "--synthetic", String(total), "--agent", `${s.base}/agent`, "--score", "none", "--parallelism", "8", "--cache",
        "--cache-dir", cacheDir, "--out", out, "--no-progress"
      ]
      const child = start(args)
      yield* Effect.promise(() => waitFor("100 trials recorded", () => child.exited() || lineCount(out) >= 100, { everyMs: 10 }))
      child.killGroup("SIGKILL")
      const killed = yield* Effect.promise(() => child.result)
      assert.strictEqual(killed.signal, "SIGKILL", describeResult(killed))
      const recorded = lineCount(out)
      assert.isBelow(recorded, total, "killed mid-way")
      const stored = entriesIn(cacheDir)
      // What was stored is at least what was recorded (a trial is stored before its record is written).
      assert.isAtLeast(stored, recorded - 1)
      const sentBefore = s.received.length

      const resumed = yield* Effect.promise(() => run([...args, "--resume"]))
      assert.strictEqual(resumed.code, 0, describeResult(resumed))
      const trials = readTrials(out)
      assertExactlyOnce(trials, syntheticIds(total))
      // The resume asked only for what the cache did not hold.
      assert.isAtMost(s.received.length - sentBefore, total - recorded)
      assert.strictEqual(entriesIn(cacheDir), total)
    }))
})

/**
 * The response cache end to end (issue 40, part 3): the real command against
 * a local OpenAI-compatible server on 127.0.0.1 that counts its requests.
 * A second run with `--cache` sends none; K epochs send K x N the first time
 * and are served the next; error answers are never stored; the cache is off
 * unless asked; `--cache=refresh` asks again; a tool loop's turns and a
 * judge's calls are cached too; each record says what the cache gave it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { json, serve } from "./http-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// Synthetic task i asks "What is i + i?". Model `m` answers 2i; model
// `rand` answers a fresh number per request (so repeats are told apart);
// model `flaky` answers i = 1 with an error body, i = 2 with a 500, i = 3
// with a 429 (no Retry-After: retried), the rest right; `j` is the judge.
const server = (() => {
  let served = 0
  return serve((request, res) => {
    const body = JSON.parse(request.body) as { model: string; messages: Array<{ content: string }> }
    const content = body.messages[0]!.content
    served++
    if (body.model === "j") {
      return json(res, 200, {
        choices: [{ message: { role: "assistant", content: "Right.\nGRADE: C" } }],
        usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 }
      })
    }
    const i = Number(/^What is (\d+) \+/.exec(content)?.[1])
    if (body.model === "flaky") {
      if (i === 1) return json(res, 200, { error: { message: "the model is overloaded", type: "server_error" } })
      if (i === 2) return json(res, 500, { error: { message: "boom" } })
      if (i === 3) return json(res, 429, { error: { message: "slow down" } })
    }
    json(res, 200, {
      model: body.model,
      choices: [{ message: { role: "assistant", content: body.model === "rand" ? `n${served}` : String(2 * i) } }],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }
    })
  })
})()

const agentRequests = (received: ReadonlyArray<{ readonly body: string }>, model: string) =>
  received.filter((r) => (JSON.parse(r.body) as { model: string }).model === model).length

const runCached = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.promise(() => run([...args, "--no-progress"], { env }))

describe.concurrent("agent-trials run --cache", () => {
  it.live("the second run sends no request; epochs are K samples the first time and the same K the next", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const cacheDir = path.join(dir, "cache")
      const args = (out: string) => [
        "--synthetic", "4", "--epochs", "3", "--agent", `openai:${s.base}/v1`, "--model", "rand",
        "--score", "none", "--cache", "--cache-dir", cacheDir, "--out", path.join(dir, out)
      ]
      const before = agentRequests(s.received, "rand")
      const first = yield* runCached(args("first.jsonl"))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(agentRequests(s.received, "rand") - before, 12, "4 tasks x 3 epochs, each asked")
      const firstTrials = readTrials(path.join(dir, "first.jsonl"))
      assert.deepStrictEqual(new Set(firstTrials.map((t) => t.metadata["cache"])), new Set(["miss"]))
      // The epochs of one task are independent samples: 12 different answers.
      assert.strictEqual(new Set(firstTrials.map((t) => t.output?.output_text)).size, 12)
      assert.isTrue(fs.existsSync(path.join(cacheDir, "responses.sqlite")))

      const second = yield* runCached(args("second.jsonl"))
      assert.strictEqual(second.code, 0, describeResult(second))
      assert.strictEqual(agentRequests(s.received, "rand") - before, 12, "the second run sent nothing")
      const secondTrials = readTrials(path.join(dir, "second.jsonl"))
      assert.deepStrictEqual(new Set(secondTrials.map((t) => t.metadata["cache"])), new Set(["hit"]))
      const answers = (trials: typeof firstTrials) =>
        Object.fromEntries(trials.map((t) => [t.id, t.output?.output_text]))
      assert.deepStrictEqual(answers(secondTrials), answers(firstTrials), "the same K samples, epoch by epoch")

      // --cache=refresh asks every call again and overwrites.
      const third = yield* runCached([...args("third.jsonl").filter((a) => a !== "--cache"), "--cache=refresh"])
      assert.strictEqual(third.code, 0, describeResult(third))
      assert.strictEqual(agentRequests(s.received, "rand") - before, 24)
      const thirdTrials = readTrials(path.join(dir, "third.jsonl"))
      assert.deepStrictEqual(new Set(thirdTrials.map((t) => t.metadata["cache"])), new Set(["miss"]))
      const fourth = yield* runCached(args("fourth.jsonl"))
      assert.strictEqual(fourth.code, 0, describeResult(fourth))
      assert.strictEqual(agentRequests(s.received, "rand") - before, 24)
      assert.deepStrictEqual(answers(readTrials(path.join(dir, "fourth.jsonl"))), answers(thirdTrials), "refresh overwrote")
    }))

  it.live("off unless asked: no --cache sends every request and records no metadata.cache", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const cacheDir = path.join(dir, "cache")
      const args = (out: string) => [
        "--synthetic", "3", "--agent", `openai:${s.base}/v1`, "--model", "rand", "--score", "none",
        "--cache-dir", cacheDir, "--out", path.join(dir, out)
      ]
      const before = agentRequests(s.received, "rand")
      for (const out of ["a.jsonl", "b.jsonl"]) {
        const result = yield* runCached(args(out))
        assert.strictEqual(result.code, 0, describeResult(result))
        assert.isTrue(readTrials(path.join(dir, out)).every((t) => !("cache" in t.metadata)))
      }
      assert.strictEqual(agentRequests(s.received, "rand") - before, 6)
      assert.isFalse(fs.existsSync(path.join(cacheDir, "responses.sqlite")))
      // AGENT_TRIALS_CACHE turns it on like the flag; =false turns it off.
      const on = yield* runCached(args("c.jsonl"), { AGENT_TRIALS_CACHE: "7d" })
      assert.strictEqual(on.code, 0, describeResult(on))
      const again = yield* runCached(args("d.jsonl"), { AGENT_TRIALS_CACHE: "true" })
      assert.strictEqual(again.code, 0, describeResult(again))
      assert.strictEqual(agentRequests(s.received, "rand") - before, 9)
      assert.deepStrictEqual(new Set(readTrials(path.join(dir, "d.jsonl")).map((t) => t.metadata["cache"])), new Set(["hit"]))
      const off = yield* runCached([...args("e.jsonl"), "--cache=false"], { AGENT_TRIALS_CACHE: "true" })
      assert.strictEqual(off.code, 0, describeResult(off))
      assert.strictEqual(agentRequests(s.received, "rand") - before, 12)
    }))

  it.live("error answers are never stored: an error body, a 500 and a 429 are asked again", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const cacheDir = path.join(dir, "cache")
      const args = (out: string) => [
        "--synthetic", "5", "--agent", `openai:${s.base}/v1`, "--model", "flaky", "--score", "none",
        "--retries", "0", "--cache", "--cache-dir", cacheDir, "--out", path.join(dir, out)
      ]
      const before = agentRequests(s.received, "flaky")
      const first = yield* runCached(args("a.jsonl"))
      assert.strictEqual(first.code, 0, describeResult(first))
      const trials = readTrials(path.join(dir, "a.jsonl"))
      assert.deepStrictEqual(trials.filter((t) => t.status === "failed").map((t) => t.task_id).sort(), ["synthetic-1", "synthetic-2", "synthetic-3"])
      const sent = agentRequests(s.received, "flaky") - before
      const second = yield* runCached(args("b.jsonl"))
      assert.strictEqual(second.code, 0, describeResult(second))
      // Only the three failures are asked again.
      assert.strictEqual(agentRequests(s.received, "flaky") - before - sent, 3)
      const byTask = Object.fromEntries(readTrials(path.join(dir, "b.jsonl")).map((t) => [t.task_id, t.metadata["cache"]]))
      assert.deepStrictEqual(byTask, {
        "synthetic-0": "hit",
        "synthetic-1": "miss",
        "synthetic-2": "miss",
        "synthetic-3": "miss",
        "synthetic-4": "hit"
      })
    }))

  it.live("a judge's calls are cached: the trial is a hit when agent and judge were both served", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const cacheDir = path.join(dir, "cache")
      const args = (out: string, model: string) => [
        "--synthetic", "3", "--agent", `openai:${s.base}/v1`, "--model", model, "--score", `judge:${s.base}/v1`,
        "--judge-model", "j", "--cache", "--cache-dir", cacheDir, "--out", path.join(dir, out)
      ]
      const before = agentRequests(s.received, "j")
      const first = yield* runCached(args("a.jsonl", "m"))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(agentRequests(s.received, "j") - before, 3)
      const second = yield* runCached(args("b.jsonl", "m"))
      assert.strictEqual(second.code, 0, describeResult(second))
      assert.strictEqual(agentRequests(s.received, "j") - before, 3, "the judge was not asked again")
      assert.deepStrictEqual(new Set(readTrials(path.join(dir, "b.jsonl")).map((t) => t.metadata["cache"])), new Set(["hit"]))
    }))

  it.live("an agent whose calls are not cached (sim:) records no metadata.cache with the cache on", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "sim.jsonl")
      const result = yield* runCached([
        "--synthetic", "3", "--agent", "sim:latency=0ms", "--cache", "--cache-dir", path.join(dir, "cache"), "--out", out
      ])
      assert.strictEqual(result.code, 0, describeResult(result))
      const trials = readTrials(out)
      assert.strictEqual(trials.length, 3)
      assert.isTrue(trials.every((t) => !("cache" in t.metadata)))
    }))

  it.live("a cache that cannot be opened stops the run at its start naming the file (exit 2); --cluster refuses --cache", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "a-file")
      fs.writeFileSync(file, "")
      const s = yield* server
      const result = yield* runCached([
        "--synthetic", "2", "--agent", `openai:${s.base}/v1`, "--model", "m", "--cache", "--cache-dir", path.join(file, "cache"),
        "--out", path.join(dir, "out.jsonl")
      ])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, `the response cache ${path.join(file, "cache", "responses.sqlite")}: `)
      const cluster = yield* runCached(["--synthetic", "1", "--cluster", "postgres://127.0.0.1:1/db", "--cache"])
      assert.strictEqual(cluster.code, 2, describeResult(cluster))
      assert.include(cluster.stderr, "--cache cannot be used with --cluster: the workers call their own agent")
    }))

  it.live("a refused value names the flag", () =>
    Effect.gen(function*() {
      const result = yield* runCached(["--synthetic", "1", "--cache=5"])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, "Expected --cache to be true, false, refresh or a lifetime with a unit, like 7d, 12h or 30m, got \"5\" (did you mean 5d?)")
    }))
})

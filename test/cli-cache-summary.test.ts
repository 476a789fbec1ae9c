/**
 * How cached trials are counted (issue 40, part 3): the real command against
 * a local OpenAI-compatible server on 127.0.0.1. A hit is not latency, not
 * throughput, not spend: the summary counts hits apart (`response_cache`),
 * reports their usage as `usage.cached` (tokens, and with `--pricing` the
 * cost they would have had), budgets never count it, and `--rate` gives a
 * hit no slot.
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

// Each answer uses 100 + 20 tokens (model m: $1 and $2 per million).
const server = serve((request, res) => {
  const body = JSON.parse(request.body) as { model: string; messages: Array<{ content: string }> }
  const i = Number(/^What is (\d+) \+/.exec(body.messages[0]!.content)?.[1])
  json(res, 200, {
    choices: [{ message: { role: "assistant", content: String(2 * i) } }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }
  })
})

const requests = (received: ReadonlyArray<unknown>) => received.length

describe("agent-trials run --cache: what a hit counts for", () => {
  it.live("hits are apart in the summary: no latency, no throughput, usage.cached instead of spend; budgets and --rate ignore them", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const prices = path.join(dir, "prices.yaml")
      fs.writeFileSync(prices, "models:\n  m: { input: 1, output: 2 }\n")
      const args = (name: string, extra: ReadonlyArray<string> = []) => [
        "--synthetic", "4", "--agent", `openai:${s.base}/v1`, "--model", "m", "--score", "exact",
        "--cache", "--cache-dir", path.join(dir, "cache"), "--pricing", prices,
        "--out", path.join(dir, `${name}.jsonl`), "--summary", path.join(dir, `${name}.json`), "--no-progress", ...extra
      ]
      const before = requests(s.received)
      const first = yield* Effect.promise(() => run(args("first")))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(requests(s.received) - before, 4)
      const firstSummary = JSON.parse(fs.readFileSync(path.join(dir, "first.json"), "utf8"))
      assert.deepStrictEqual(firstSummary.response_cache, { hit: 0, miss: 4, partial: 0 })
      assert.isNotNull(firstSummary.latency_ms.p50)
      assert.strictEqual(firstSummary.usage.total_tokens, 480)
      assert.isUndefined(firstSummary.usage.cached)

      // A budget of 130 tokens, and one call an hour: all 4 trials are hits,
      // so neither stops nor slows the run.
      const second = yield* Effect.promise(() => run(args("second", ["--max-tokens", "130", "--rate", "1/h"])))
      assert.strictEqual(second.code, 0, describeResult(second))
      assert.strictEqual(requests(s.received) - before, 4, "the second run sent nothing")
      assert.strictEqual(readTrials(path.join(dir, "second.jsonl")).length, 4)
      const summary = JSON.parse(fs.readFileSync(path.join(dir, "second.json"), "utf8"))
      assert.deepStrictEqual(summary.response_cache, { hit: 4, miss: 0, partial: 0 })
      assert.deepStrictEqual(summary.latency_ms, { p50: null, p95: null, p99: null, max: null })
      assert.strictEqual(summary.throughput_per_s, 0)
      assert.strictEqual(summary.usage.total_tokens, 0)
      assert.strictEqual(summary.usage.cost_usd, 0)
      assert.deepStrictEqual(summary.usage.cached, {
        trials: 4,
        input_tokens: 400,
        output_tokens: 80,
        total_tokens: 480,
        cached_input_tokens: 0,
        reasoning_tokens: 0,
        cost_usd: 0.00056
      })
      assert.include(second.stdout + second.stderr, "response cache: 4 hits (not in latency or throughput), 0 misses, 0 partial")
      assert.include(second.stdout + second.stderr, "served from the response cache (not spent now, in no figure above): 4 trials, 480 tokens")

      // The same budget without the cache stops the run: the hits were what let it through.
      const uncached = yield* Effect.promise(() =>
        run(args("third", ["--max-tokens", "130"]).filter((a) => a !== "--cache"))
      )
      assert.strictEqual(uncached.code, 1, describeResult(uncached))
    }))
})

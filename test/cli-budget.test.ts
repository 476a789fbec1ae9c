/**
 * Budgets at high parallelism: `agent-trials run` in a child process
 * against a local OpenAI-compatible server that reports the same usage for
 * every call and counts the calls it receives. Admission reserves the mean
 * per trial for the calls in flight, so what the server was sent stays
 * within one trial of the budget, and the summary says how many calls were
 * in flight when the run stopped.
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

const PARALLELISM = 64
// Every call: 80 + 20 tokens; at $1 and $2 per million, $0.00012.
const TOKENS = 100
const COST = 80e-6 + 40e-6

// Answers after a few milliseconds, so calls overlap: at 64 in flight,
// many are on their way whenever a trial is recorded.
const server = serve((_request, res) => {
  setTimeout(() =>
    json(res, 200, {
      model: "m-2025",
      choices: [{ message: { role: "assistant", content: "42" } }],
      usage: { prompt_tokens: 80, completion_tokens: 20, total_tokens: TOKENS }
    }), 15)
})

const runBudget = (budget: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const s = yield* server
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const pricing = path.join(dir, "prices.yaml")
    fs.writeFileSync(pricing, "models:\n  m: { input: 1, output: 2 }\n")
    const result = yield* Effect.promise(() =>
      run([
        "--synthetic", "2000", "--agent", `openai:${s.base}/v1`, "--model", "m", "--pricing", pricing,
        "--parallelism", String(PARALLELISM), "--out", out, "--summary", summaryFile, "--no-progress", ...budget
      ])
    )
    assert.strictEqual(result.code, 1, describeResult(result))
    return {
      result,
      received: s.received.length,
      recorded: readTrials(out),
      summary: JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    }
  })

describe.concurrent("agent-trials run: budgets with calls in flight", () => {
  it.live("--max-tokens at parallelism 64: requests received <= recorded + 64, tokens sent <= budget + one trial's", () =>
    Effect.gen(function*() {
      const budget = 30_000
      const { received, recorded, result, summary } = yield* runBudget(["--max-tokens", String(budget)])
      const what = `${received} requests received, ${recorded.length} trials recorded`
      assert.isTrue(recorded.every((t) => t.status === "completed"), what)
      assert.isAtMost(received, recorded.length + PARALLELISM, what)
      assert.isAtMost(received * TOKENS, budget + TOKENS, what)
      // It did run close to the budget, not stop early.
      assert.isAtLeast(received * TOKENS, budget - PARALLELISM * TOKENS, what)
      assert.strictEqual(summary.outcome, "max_tokens_reached")
      const inFlight = summary.usage.budget.in_flight_at_stop
      // Admission stopped while calls were in flight, their spend reserved.
      assert.isTrue(Number.isInteger(inFlight) && inFlight >= 1 && inFlight <= PARALLELISM, String(inFlight))
      assert.match(result.stdout, new RegExp(`budget: --max-tokens 30000 \\(spent [\\d,]+\\); ${inFlight} calls in flight when it stopped`))
      assert.match(result.stderr, /stopped: the trials recorded spent \d+ tokens/)
    }), { timeout: 120_000 })

  it.live("--max-cost at parallelism 64: the cost sent stays within one trial's of the budget", () =>
    Effect.gen(function*() {
      const budget = 0.036 // 300 trials' worth
      const { received, recorded, summary } = yield* runBudget(["--max-cost", String(budget)])
      const what = `${received} requests received, ${recorded.length} trials recorded`
      assert.isAtMost(received, recorded.length + PARALLELISM, what)
      assert.isAtMost(received * COST, budget + COST + 1e-12, what)
      assert.isAtLeast(received * COST, budget - PARALLELISM * COST, what)
      assert.strictEqual(summary.outcome, "max_cost_reached")
      assert.isAtMost(summary.usage.cost_usd, budget + COST + 1e-12)
    }), { timeout: 120_000 })

  it.live("a budget of 5 trials at parallelism 64: the first trial runs alone (no mean yet), then at most one trial over", () =>
    Effect.gen(function*() {
      const budget = 5 * TOKENS
      const { received, recorded, summary } = yield* runBudget(["--max-tokens", String(budget)])
      const what = `${received} requests received, ${recorded.length} trials recorded`
      assert.isAtMost(received * TOKENS, budget + TOKENS, what)
      // Everything sent was recorded, and the run went near the budget (admission judges a unit as the runner takes it).
      assert.strictEqual(received, recorded.length, what)
      assert.isAtLeast(received * TOKENS, budget - 2 * TOKENS, what)
      assert.strictEqual(summary.outcome, "max_tokens_reached")
    }), { timeout: 120_000 })
})

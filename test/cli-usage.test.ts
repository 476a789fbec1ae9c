/**
 * What a run cost, end to end: the real command against a local
 * OpenAI-compatible server on 127.0.0.1 that reports known usage (with
 * cached and reasoning tokens, without them, and none at all), a judge that
 * reports its own, a pricing file, the budgets that stop a run and a resume
 * that stops at the same total, the estimate, and bad pricing files.
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

// Synthetic task i asks "What is i + i?". The agent (model m) reports, by
// i mod 3: 0 all the details, 1 the plain counts, 2 no usage at all. The
// judge (model j) always reports 50 + 10 tokens.
const server = serve((request, res) => {
  const body = JSON.parse(request.body) as { model: string; messages: Array<{ content: string }> }
  const content = body.messages[0]!.content
  if (body.model === "j") {
    return json(res, 200, {
      model: "j-2025",
      choices: [{ message: { role: "assistant", content: "It matches.\nGRADE: C" } }],
      usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 }
    })
  }
  const i = Number(/^What is (\d+) \+/.exec(content)?.[1])
  const usage = i % 3 === 0
    ? {
      prompt_tokens: 1000,
      completion_tokens: 200,
      total_tokens: 1200,
      prompt_tokens_details: { cached_tokens: 400 },
      completion_tokens_details: { reasoning_tokens: 50 }
    }
    : i % 3 === 1
    ? { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }
    : undefined
  json(res, 200, {
    model: `${body.model}-2025`,
    choices: [{ message: { role: "assistant", content: String(2 * i) } }],
    ...(usage === undefined ? undefined : { usage })
  })
})

const pricingFile = (dir: string): string => {
  const file = path.join(dir, "prices.yaml")
  fs.writeFileSync(file, "models:\n  m: { input: 0.15, output: 0.6, cached_input: 0.075 }\n  j: { input: 1, output: 2 }\n")
  return file
}

// Cost per million tokens: i%3 = 0: 600 * 0.15 + 400 * 0.075 + 200 * 0.6 = 240;
// i%3 = 1: 100 * 0.15 + 20 * 0.6 = 27; judge: 50 * 1 + 10 * 2 = 70.
const AGENT_COST = [240e-6, 27e-6, 0]
const JUDGE_COST = 70e-6

const agentRequests = (received: ReadonlyArray<{ readonly body: string }>) =>
  received.filter((r) => (JSON.parse(r.body) as { model: string }).model === "m").length

describe.concurrent("agent-trials run: usage and cost", () => {
  it.live("records, summary JSON and text carry the exact usage and cost of agent and judge", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const result = yield* Effect.promise(() =>
        run([
          "--synthetic", "6", "--agent", `openai:${s.base}/v1`, "--model", "m", "--score", `judge:${s.base}/v1`,
          "--judge-model", "j", "--pricing", pricingFile(dir), "--out", out, "--summary", summaryFile, "--no-progress"
        ])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const trials = readTrials(out)
      assert.lengthOf(trials, 6)
      for (const trial of trials) {
        const i = Number(trial.task_id.slice("synthetic-".length))
        const expected = i % 3 === 0
          ? { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, cached_input_tokens: 400, reasoning_tokens: 50, model: "m", cost_usd: 0.00024 }
          : i % 3 === 1
          ? { input_tokens: 100, output_tokens: 20, total_tokens: 120, model: "m", cost_usd: 0.000027 }
          : undefined
        assert.deepStrictEqual(trial.output?.usage, expected, trial.id)
        assert.deepStrictEqual(trial.scores?.["judge"]?.usage, {
          input_tokens: 50,
          output_tokens: 10,
          total_tokens: 60,
          model: "j",
          cost_usd: 0.00007
        })
      }
      const usage = JSON.parse(fs.readFileSync(summaryFile, "utf8")).usage
      // Tasks 0 and 3 full, 1 and 4 plain, 2 and 5 none; six judge calls.
      assert.deepStrictEqual(usage.agent, {
        input_tokens: 2200,
        output_tokens: 440,
        total_tokens: 2640,
        cached_input_tokens: 800,
        reasoning_tokens: 100,
        cost_usd: 0.000534
      })
      assert.deepStrictEqual(usage.judge, {
        input_tokens: 300,
        output_tokens: 60,
        total_tokens: 360,
        cached_input_tokens: 0,
        reasoning_tokens: 0,
        cost_usd: 0.00042
      })
      assert.strictEqual(usage.trials, 6)
      assert.strictEqual(usage.total_tokens, 3000)
      assert.strictEqual(usage.cost_usd, 0.000954)
      assert.strictEqual(usage.per_trial.tokens.mean, 500)
      assert.strictEqual(usage.per_trial.cost_usd.mean, 0.000159)
      // Per trial: 1260 (x2), 180 (x2), 60 (x2) tokens; the percentiles lie within the 5% buckets.
      assert.approximately(usage.per_trial.tokens.p50, 180, 180 * 0.05)
      assert.approximately(usage.per_trial.tokens.p95, 1260, 1260 * 0.05)
      assert.strictEqual(usage.passed_trials, 6)
      assert.strictEqual(usage.cost_per_passed_trial_usd, 0.000159)
      assert.deepStrictEqual(usage.unpriced_models, [])
      assert.match(result.stdout, /^ {2}usage over 6 trials: 3,000 tokens, \$0\.000954$/m)
      assert.match(result.stdout, /^ {4}agent: 2,640 tokens \(input 2,200 \(800 cached\), output 440 \(100 reasoning\)\), \$0\.000534$/m)
      assert.match(result.stdout, /^ {4}judge: 360 tokens \(input 300, output 60\), \$0\.00042$/m)
      assert.match(result.stdout, /^ {4}cost per passed trial: \$0\.000159 \(6 passed\)$/m)
      assert.strictEqual(AGENT_COST[0]! * 2 + AGENT_COST[1]! * 2 + AGENT_COST[2]! * 2, 0.000534)
      assert.approximately(JUDGE_COST * 6, 0.00042, 1e-12)
    }))

  it.live("a model the pricing file lacks is named once on stderr and priced at 0", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const prices = path.join(dir, "prices.json")
      fs.writeFileSync(prices, JSON.stringify({ models: { other: { input: 1, output: 1 } } }))
      const result = yield* Effect.promise(() =>
        run(["--synthetic", "4", "--agent", `openai:${s.base}/v1`, "--model", "m", "--score", "none", "--pricing", prices, "--out", out, "--no-progress"])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const warnings = result.stderr.split("\n").filter((l) => l.includes("warning"))
      assert.deepStrictEqual(warnings, [`agent-trials: warning: model "m" is not in --pricing ${prices}: its tokens are priced at $0`])
      assert.strictEqual(readTrials(out).find((t) => t.task_id === "synthetic-0")?.output?.usage?.cost_usd, 0)
      assert.match(result.stdout, /not in the pricing file \(priced at \$0\): m$/m)
    }))

  it.live("retried attempts count: a module agent's failed attempt that spent tokens is in the trial's usage", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const result = yield* Effect.promise(() =>
        run([
          "--synthetic", "3", "--agent", "module:test/fixtures/agent-module.ts#flakyUsage", "--score", "none",
          "--backoff", "1ms", "--out", out, "--summary", summaryFile, "--no-progress"
        ])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      for (const trial of readTrials(out)) {
        assert.strictEqual(trial.metadata["attempts"], 2)
        assert.deepStrictEqual(trial.output?.usage, {
          input_tokens: 130,
          output_tokens: 20,
          total_tokens: 150,
          cached_input_tokens: 30,
          model: "mod"
        })
      }
      const usage = JSON.parse(fs.readFileSync(summaryFile, "utf8")).usage
      assert.strictEqual(usage.agent.total_tokens, 450)
      assert.strictEqual(usage.cost_usd, null)
    }))

  it.live("a module agent's usage is validated: a negative count fails its trial naming the field", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const result = yield* Effect.promise(() =>
        run(["--synthetic", "1", "--agent", "module:test/fixtures/agent-module.ts#badUsage", "--score", "none", "--out", out, "--no-progress"])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const [trial] = readTrials(out)
      assert.strictEqual(trial!.status, "failed")
      assert.strictEqual(trial!.error?.type, "InvalidAgentOutput")
      assert.include(trial!.error?.message, ": field usage.input_tokens: Expected a value greater than or equal to 0")
    }))

  it.live("--trial-max-tokens: a trial over it fails with TokenLimit and is not retried", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const before = agentRequests(s.received)
      const result = yield* Effect.promise(() =>
        run([
          "--synthetic", "3", "--agent", `openai:${s.base}/v1`, "--model", "m", "--score", "none",
          "--trial-max-tokens", "1000", "--out", out, "--no-progress"
        ])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const byTask = new Map(readTrials(out).map((t) => [t.task_id, t]))
      assert.strictEqual(byTask.get("synthetic-0")?.status, "failed")
      assert.strictEqual(byTask.get("synthetic-0")?.error?.type, "TokenLimit")
      assert.strictEqual(byTask.get("synthetic-0")?.output?.usage?.total_tokens, 1200)
      assert.strictEqual(byTask.get("synthetic-1")?.status, "completed")
      assert.strictEqual(byTask.get("synthetic-2")?.status, "completed")
      // One request a trial: TokenLimit is never retried.
      assert.strictEqual(agentRequests(s.received) - before, 3)
      assert.match(result.stdout, /failures by type: TokenLimit 1/)
    }))
})

describe.concurrent("agent-trials score: usage", () => {
  it.live("score --pricing: the judge's new scores carry their priced usage; the summary counts them with the agent's", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const runOut = path.join(dir, "run.jsonl")
      const scored = path.join(dir, "scored.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      // The judge needs the references: a task file, given to run and score.
      const tasks = path.join(dir, "tasks.jsonl")
      fs.writeFileSync(
        tasks,
        Array.from({ length: 4 }, (_, i) => JSON.stringify({ id: `synthetic-${i}`, inputs: { instruction: `What is ${i} + ${i}?` }, reference: String(2 * i) }))
          .join("\n") + "\n"
      )
      const first = yield* Effect.promise(() =>
        run(["--tasks", tasks, "--agent", `openai:${s.base}/v1`, "--model", "m", "--score", "none", "--out", runOut, "--no-progress"])
      )
      assert.strictEqual(first.code, 0, describeResult(first))
      const result = yield* Effect.promise(() =>
        run(
          [runOut, "--tasks", tasks, "--score", `judge:${s.base}/v1`, "--judge-model", "j", "--pricing", pricingFile(dir), "--out", scored, "--summary", summaryFile],
          { command: "score" }
        )
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const trials = readTrials(scored)
      assert.lengthOf(trials, 4)
      for (const trial of trials) assert.strictEqual(trial.scores?.["judge"]?.usage?.cost_usd, 0.00007)
      // The agent's usage was recorded unpriced; score prices it too.
      assert.strictEqual(trials.find((t) => t.task_id === "synthetic-0")?.output?.usage?.cost_usd, 0.00024)
      const usage = JSON.parse(fs.readFileSync(summaryFile, "utf8")).usage
      // Agent: tasks 0 and 3 (1200 tokens, $0.00024), 1 (120, $0.000027), 2 none; judge: 4 x 60 tokens, $0.00007.
      assert.strictEqual(usage.agent.total_tokens, 2520)
      assert.strictEqual(usage.agent.cost_usd, 0.000507)
      assert.strictEqual(usage.judge.total_tokens, 240)
      assert.strictEqual(usage.judge.cost_usd, 0.00028)
      assert.strictEqual(usage.cost_usd, 0.000787)
      assert.match(result.stdout, /^ {2}usage over 4 trials: 2,760 tokens, \$0\.000787$/m)
    }))
})

describe.concurrent("agent-trials run: budgets", () => {
  // Tasks 1, 4, 7, ... report 120 tokens and $0.000027; the others are
  // skipped by --ids so every trial costs the same.
  const idsFile = (dir: string, n: number) => {
    const file = path.join(dir, "ids.txt")
    fs.writeFileSync(file, Array.from({ length: n }, (_, k) => `t${3 * k + 1}`).join("\n") + "\n")
    return file
  }
  const tasksFile = (dir: string, n: number) => {
    const file = path.join(dir, "tasks.jsonl")
    fs.writeFileSync(
      file,
      Array.from({ length: 3 * n }, (_, i) => JSON.stringify({ id: `t${i}`, inputs: { instruction: `What is ${i} + ${i}?` } })).join("\n") + "\n"
    )
    return file
  }

  it.live("--max-tokens stops at the trial that reaches it (exit 1, outcome named); a resume counts what was spent", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const args = [
        "--tasks", tasksFile(dir, 10), "--ids", idsFile(dir, 10), "--agent", `openai:${s.base}/v1`, "--model", "m",
        "--parallelism", "1", "--out", out, "--summary", summaryFile, "--no-progress"
      ]
      // 120 tokens a trial: the 3rd reaches 250 (360).
      const first = yield* Effect.promise(() => run([...args, "--max-tokens", "250"]))
      assert.strictEqual(first.code, 1, describeResult(first))
      assert.include(first.stderr, "stopped: the trials recorded spent 360 tokens, reaching --max-tokens 250")
      assert.lengthOf(readTrials(out), 3)
      const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
      assert.strictEqual(summary.outcome, "max_tokens_reached")
      assert.deepStrictEqual(summary.usage.budget, { max_cost_usd: null, max_tokens: 250, in_flight_at_stop: 0 })
      // The same budget again: already reached, nothing runs.
      const before = agentRequests(s.received)
      const again = yield* Effect.promise(() => run([...args, "--resume", "--max-tokens", "250"]))
      assert.strictEqual(again.code, 1, describeResult(again))
      assert.include(again.stderr, "stopped: the trials recorded spent 360 tokens, reaching --max-tokens 250")
      assert.strictEqual(agentRequests(s.received), before)
      assert.lengthOf(readTrials(out), 3)
      // A larger one: 360 spent, the 5th trial reaches 600.
      const more = yield* Effect.promise(() => run([...args, "--resume", "--max-tokens", "600"]))
      assert.strictEqual(more.code, 1, describeResult(more))
      assert.include(more.stderr, "stopped: the trials recorded spent 600 tokens, reaching --max-tokens 600")
      assert.lengthOf(readTrials(out), 5)
      assert.strictEqual(JSON.parse(fs.readFileSync(summaryFile, "utf8")).usage.total_tokens, 600)
    }))

  it.live("--max-cost stops at the trial that reaches it, and needs --pricing", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const args = [
        "--tasks", tasksFile(dir, 10), "--ids", idsFile(dir, 10), "--agent", `openai:${s.base}/v1`, "--model", "m",
        "--parallelism", "1", "--out", out, "--summary", summaryFile, "--no-progress"
      ]
      const unpriced = yield* Effect.promise(() => run([...args, "--max-cost", "1"]))
      assert.strictEqual(unpriced.code, 2, describeResult(unpriced))
      assert.include(unpriced.stderr, "--max-cost needs --pricing FILE")
      assert.isFalse(fs.existsSync(out))
      // $0.000027 a trial: the 4th reaches $0.0001 ($0.000108).
      const result = yield* Effect.promise(() => run([...args, "--pricing", pricingFile(dir), "--max-cost", "0.0001"]))
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.include(result.stderr, "stopped: the trials recorded spent $0.000108, reaching --max-cost 0.0001")
      assert.lengthOf(readTrials(out), 4)
      const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
      assert.strictEqual(summary.outcome, "max_cost_reached")
      assert.strictEqual(summary.usage.cost_usd, 0.000108)
    }))

  it.live("--estimate runs the first N trials, projects the whole run, exits 0; --resume does not pay for them twice", () =>
    Effect.gen(function*() {
      const s = yield* server
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const args = [
        "--tasks", tasksFile(dir, 40), "--ids", idsFile(dir, 40), "--agent", `openai:${s.base}/v1`, "--model", "m",
        "--pricing", pricingFile(dir), "--out", out, "--summary", summaryFile, "--no-progress"
      ]
      const before = agentRequests(s.received)
      const estimate = yield* Effect.promise(() => run([...args, "--estimate", "--estimate-trials", "5"]))
      assert.strictEqual(estimate.code, 0, describeResult(estimate))
      assert.strictEqual(agentRequests(s.received) - before, 5)
      assert.lengthOf(readTrials(out), 5)
      const e = JSON.parse(fs.readFileSync(summaryFile, "utf8")).estimate
      // Every trial spends 120 tokens and $0.000027: the interval is the point.
      assert.deepStrictEqual(e, {
        trials_run: 5,
        trials_total: 40,
        tokens: { per_trial: 120, per_trial_ci95: [120, 120], total: 4800, total_ci95: [4800, 4800] },
        cost_usd: { per_trial: 0.000027, per_trial_ci95: [0.000027, 0.000027], total: 0.00108, total_ci95: [0.00108, 0.00108] }
      })
      assert.match(estimate.stdout, /^ {2}estimate from 5 trials: per trial 120 \(95% CI 120 to 120\) tokens, \$0\.000027/m)
      assert.match(estimate.stdout, /^ {2}projected for all 40 trials: 4,800 \(95% CI 4,800 to 4,800\) tokens, \$0\.00108 .*; --resume runs the other 35$/m)
      const rest = yield* Effect.promise(() => run([...args, "--resume"]))
      assert.strictEqual(rest.code, 0, describeResult(rest))
      assert.strictEqual(agentRequests(s.received) - before, 40)
      assert.lengthOf(readTrials(out), 40)
      assert.strictEqual(JSON.parse(fs.readFileSync(summaryFile, "utf8")).usage.cost_usd, 0.00108)
    }))
})

describe.concurrent("agent-trials run: bad --pricing", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["unknown.yaml", "models:\n  m: { input: 1, output: 2, currency: 1 }\n", "unknown field models.m.currency"],
    ["negative.yaml", "models:\n  m: { input: 1, output: -2 }\n", "field models.m.output: a price must be >= 0"],
    ["broken.yaml", "models:\n  m: [1, 2\n", "not YAML at line"]
  ]
  for (const [name, text, problem] of cases) {
    it(`${name}: exit 2 naming the file and the field, nothing run`, async () => {
      const dir = tempDir()
      const file = path.join(dir, name)
      fs.writeFileSync(file, text)
      const out = path.join(dir, "out.jsonl")
      const result = await run(["--synthetic", "3", "--pricing", file, "--out", out, "--no-progress"])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, `agent-trials: --pricing ${file}: ${problem}`)
      assert.isFalse(fs.existsSync(out))
    })
  }
})

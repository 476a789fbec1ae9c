/**
 * Token usage and its cost, in process: the sum over a trial's attempts
 * (under TestClock), the per-trial token limit, the pricing formula and the
 * pricing file's refusals, the budget stage counted trial by trial, and the
 * summary's usage figures.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Exit, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Agent from "../src/domain/Agent.ts"
import { chatUsage } from "../src/domain/internal/post.ts"
import type { AgentEvalTrial, AgentOutput, Usage } from "../src/domain/Trial.ts"
import * as Usages from "../src/domain/Usage.ts"
import * as Budget from "../src/programs/run/Budget.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Pricing from "../src/summary/Pricing.ts"
import * as Summary from "../src/summary/Summary.ts"
import { tasksStream } from "./fixtures.ts"

class Overloaded extends Data.TaggedError("Overloaded")<{
  readonly message: string
  readonly retryable: boolean
  readonly usage?: Usage
}> {}

const use = (input: number, output: number, extra: Partial<Usage> = {}): Usage => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  ...extra
})

const retry = { retries: 2, base: "10 millis", max: "1 second" } as const

const runAll = <E>(n: number, agent: Agent.Agent<E>, options: Parameters<typeof runTrials>[2]) =>
  Stream.runCollect(runTrials(tasksStream(n), agent, options)).pipe(
    Effect.forkChild,
    Effect.flatMap((fiber) => Effect.andThen(TestClock.adjust("10 seconds"), Fiber.join(fiber))),
    Effect.map((trials) => [...trials].sort((a, b) => a.task_id.localeCompare(b.task_id)))
  )

describe("a trial's usage", () => {
  it.effect("sums the attempts: a retried failure that spent tokens counts, with the attempt that answered", () =>
    Effect.gen(function*() {
      const calls = new Map<string, number>()
      const agent: Agent.Agent<Overloaded> = (task) => {
        const n = (calls.get(task.id) ?? 0) + 1
        calls.set(task.id, n)
        // t0 fails twice (each spending 10 + 1 tokens), then answers; t1 answers at once.
        return task.id === "t0" && n < 3
          ? Effect.fail(new Overloaded({ message: "busy", retryable: true, usage: use(10, 1, { cached_input_tokens: 4 }) }))
          : Effect.succeed<AgentOutput>({ output_text: "ok", usage: use(100, 20, { reasoning_tokens: 5, model: "m" }) })
      }
      const [t0, t1] = yield* runAll(2, agent, { parallelism: 2, retry })
      assert.strictEqual(t0!.metadata["attempts"], 3)
      assert.deepStrictEqual(t0!.output?.usage, {
        input_tokens: 120,
        output_tokens: 22,
        total_tokens: 142,
        cached_input_tokens: 8,
        reasoning_tokens: 5,
        model: "m"
      })
      assert.deepStrictEqual(t1!.output?.usage, use(100, 20, { reasoning_tokens: 5, model: "m" }))
    }))

  it.effect("a trial whose attempts all fail keeps what they spent on its error", () =>
    Effect.gen(function*() {
      const agent: Agent.Agent<Overloaded> = () =>
        Effect.fail(new Overloaded({ message: "busy", retryable: true, usage: use(10, 1) }))
      const [t0] = yield* runAll(1, agent, { parallelism: 1, retry })
      assert.strictEqual(t0!.status, "failed")
      assert.strictEqual(t0!.metadata["attempts"], 3)
      assert.deepStrictEqual(t0!.error?.usage, use(30, 3))
      assert.deepStrictEqual(Usages.ofTrial(t0!), use(30, 3))
    }))

  it.effect("--trial-max-tokens: over the limit fails with TokenLimit, its output kept, never retried; at the limit passes", () =>
    Effect.gen(function*() {
      const calls = new Map<string, number>()
      const agent: Agent.Agent = (task) => {
        calls.set(task.id, (calls.get(task.id) ?? 0) + 1)
        const tokens = task.inputs["i"] === 0 ? 1001 : 1000
        return Effect.succeed({ output_text: "long", usage: use(tokens - 1, 1) })
      }
      const [over, at] = yield* runAll(2, agent, { parallelism: 2, retry, trialMaxTokens: 1000 })
      assert.strictEqual(over!.status, "failed")
      assert.strictEqual(over!.error?.type, "TokenLimit")
      assert.strictEqual(over!.error?.message, "the trial used 1001 tokens, more than the limit of 1000 tokens per trial")
      assert.strictEqual(over!.output?.output_text, "long")
      assert.deepStrictEqual(over!.output?.usage, use(1000, 1))
      assert.strictEqual(calls.get("t0"), 1)
      assert.strictEqual(at!.status, "completed")
    }))

  it.effect("retried failures that spend past the limit end the trial as TokenLimit, without more attempts", () =>
    Effect.gen(function*() {
      let calls = 0
      const agent: Agent.Agent<Overloaded> = () => {
        calls++
        return Effect.fail(new Overloaded({ message: "busy", retryable: true, usage: use(600, 0) }))
      }
      const [t0] = yield* runAll(1, agent, { parallelism: 1, retry, trialMaxTokens: 1000 })
      assert.strictEqual(calls, 2)
      assert.strictEqual(t0!.error?.type, "TokenLimit")
      assert.deepStrictEqual(t0!.error?.usage, use(1200, 0))
    }))

  it.effect("trialMaxTokens is checked at the boundary: an integer >= 1, before any call", () =>
    Effect.gen(function*() {
      let calls = 0
      const agent: Agent.Agent = () => Effect.sync(() => (calls++, { output_text: "x" }))
      const exit = yield* Effect.exit(Stream.runDrain(runTrials(tasksStream(3), agent, { parallelism: 2, trialMaxTokens: 0 })))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: { message: string } }).error : undefined
      assert.strictEqual(error?.message, "Expected trialMaxTokens to be an integer from 1 and up, got 0")
      assert.strictEqual(calls, 0)
    }))

  it("reads a chat completion's usage, the details included, and none from a body without one", () => {
    assert.deepStrictEqual(
      chatUsage({
        usage: {
          prompt_tokens: 1200,
          completion_tokens: 300,
          total_tokens: 1500,
          prompt_tokens_details: { cached_tokens: 1024 },
          completion_tokens_details: { reasoning_tokens: 128 }
        }
      }, "gpt-4o-mini"),
      { input_tokens: 1200, output_tokens: 300, total_tokens: 1500, cached_input_tokens: 1024, reasoning_tokens: 128, model: "gpt-4o-mini" }
    )
    assert.isUndefined(chatUsage({ choices: [] }, "m"))
    assert.isUndefined(chatUsage({ usage: { prompt_tokens: -1, completion_tokens: 2 } }, "m"))
  })
})

describe("Pricing", () => {
  const price = { input: 0.15, output: 0.6, cached_input: 0.075 }

  it("cost: uncached input, cached input and output, per million tokens; no cached price charges cached as input", () => {
    const usage = use(1000, 200, { cached_input_tokens: 400, reasoning_tokens: 50 })
    // (1000 - 400) * 0.15 + 400 * 0.075 + 200 * 0.6 = 90 + 30 + 120 = 240 per million
    assert.strictEqual(Pricing.cost(price, usage), 0.00024)
    // 1000 * 0.15 + 200 * 0.6 = 270 per million
    assert.strictEqual(Pricing.cost({ input: 0.15, output: 0.6 }, usage), 0.00027)
  })

  it("cost: tokens written to a prompt cache at cache_write_input, else as input; Usage.add sums them", () => {
    // Anthropic's shape: 100 uncached, 300 read from the cache, 600 written to it.
    const usage = use(1000, 200, { cached_input_tokens: 300, cache_write_input_tokens: 600 })
    // 100 * 3 + 300 * 0.3 + 600 * 3.75 + 200 * 15 = 300 + 90 + 2250 + 3000 = 5640 per million
    assert.strictEqual(Pricing.cost({ input: 3, output: 15, cached_input: 0.3, cache_write_input: 3.75 }, usage), 0.00564)
    // Without the price: 700 * 3 + 300 * 0.3 + 200 * 15 = 2100 + 90 + 3000 = 5190 per million
    assert.strictEqual(Pricing.cost({ input: 3, output: 15, cached_input: 0.3 }, usage), 0.00519)
    assert.deepStrictEqual(
      Usages.add(usage, use(10, 1, { cache_write_input_tokens: 5 })),
      use(1010, 201, { cached_input_tokens: 300, cache_write_input_tokens: 605 })
    )
  })

  it("an unlisted model costs 0 and is named once", () => {
    const heard: Array<string> = []
    const pricing = Pricing.make("p.yaml", { models: { m: price } }, (model) => heard.push(model))
    assert.strictEqual(pricing.price(use(1000, 0, { model: "m" })).cost_usd, 0.00015)
    assert.strictEqual(pricing.price(use(1000, 0, { model: "other" })).cost_usd, 0)
    assert.strictEqual(pricing.price(use(1000, 0, { model: "other" })).cost_usd, 0)
    assert.strictEqual(pricing.price(use(1000, 0)).cost_usd, 0)
    assert.deepStrictEqual(heard, ["other", "(unnamed)"])
    assert.deepStrictEqual(pricing.unpriced(), ["other", "(unnamed)"])
  })

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pricing-"))
  const load = (name: string, text: string) =>
    Effect.gen(function*() {
      const file = path.join(dir, name)
      fs.writeFileSync(file, text)
      const exit = yield* Effect.exit(Pricing.load(file))
      return { file, exit }
    }).pipe(Effect.provide(NodeServices.layer))

  it.effect("loads YAML and JSON files", () =>
    Effect.gen(function*() {
      const yaml = yield* load("p.yaml", "models:\n  gpt-4o-mini: { input: 0.15, output: 0.6, cached_input: 0.075 }\n  big:\n    input: 2.5\n    output: 10\n")
      assert.deepStrictEqual(yaml.exit, Exit.succeed({ models: { "gpt-4o-mini": price, big: { input: 2.5, output: 10 } } }))
      const json = yield* load("p.json", JSON.stringify({ models: { m: price } }))
      assert.deepStrictEqual(json.exit, Exit.succeed({ models: { m: price } }))
    }))

  const refusals: ReadonlyArray<readonly [string, string, string]> = [
    ["unknown.yaml", "models:\n  m: { input: 1, output: 2, cahced_input: 1 }\n", "unknown field models.m.cahced_input (expected input, output, cached_input)"],
    ["top.yaml", "prices:\n  m: { input: 1, output: 2 }\n", "unknown field prices (expected models)"],
    ["negative.yaml", "models:\n  m: { input: -0.5, output: 2 }\n", "field models.m.input: a price must be >= 0 (USD per million tokens)"],
    ["missing.yaml", "models:\n  m: { input: 1 }\n", "field models.m.output is missing"],
    ["text.json", "{\"models\": {\"m\": {\"input\": \"cheap\", \"output\": 1}}}", "field models.m.input: expected number"],
    ["broken.yaml", "models: [\n  : x\n", "not YAML at line 3, column 1: "],
    ["broken.json", "{\"models\": ", "not JSON: "]
  ]
  for (const [name, text, problem] of refusals) {
    it.effect(`refuses ${name}, naming the file and the field`, () =>
      Effect.gen(function*() {
        const { exit, file } = yield* load(name, text)
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        const message = (error as { error?: Pricing.InvalidPricing } | undefined)?.error?.message ?? ""
        assert.isTrue(message.startsWith(`--pricing ${file}: ${problem}`), message)
      }))
  }
})

const trial = (i: number, usage: Usage | undefined, judge?: Usage): AgentEvalTrial => ({
  id: `t${i}:trial`,
  task_id: `t${i}`,
  status: "completed",
  output: { output_text: "a", ...(usage === undefined ? undefined : { usage }) },
  metadata: { started_at: "", finished_at: "", latency_ms: 1 },
  ...(judge === undefined ? undefined : { scores: { judge: { value: 1, passed: true, usage: judge } } })
})

describe("budgets", () => {
  it.effect("--max-tokens: the trial that reaches it is emitted, then the stream fails; counted, not timed", () =>
    Effect.gen(function*() {
      const emitted: Array<string> = []
      const spent = new Budget.Spent()
      const trials = Array.from({ length: 10 }, (_, i) => trial(i, use(30, 10), use(5, 5)))
      const exit = yield* Budget.stopOnBudget(Stream.fromIterable(trials), { maxTokens: 200 }, spent).pipe(
        Stream.runForEach((t) => Effect.sync(() => emitted.push(t.id))),
        Effect.exit
      )
      // 50 tokens a trial (40 agent + 10 judge): the 4th reaches 200.
      assert.deepStrictEqual(emitted, ["t0:trial", "t1:trial", "t2:trial", "t3:trial"])
      assert.strictEqual(spent.tokens, 200)
      const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: Budget.BudgetExceeded }).error : undefined
      assert.strictEqual(error?.budget, "max_tokens")
      assert.strictEqual(error?.spent, 200)
      assert.strictEqual(
        error?.message,
        "stopped: the trials recorded spent 200 tokens, reaching --max-tokens 200 (--resume continues, counting what was spent)"
      )
    }))

  it.effect("--max-cost counts what was spent before (a resume): already reached, nothing more runs", () =>
    Effect.gen(function*() {
      const spent = new Budget.Spent()
      spent.add(trial(0, use(1, 1, { cost_usd: 0.75 })))
      spent.add(trial(1, use(1, 1, { cost_usd: 0.25 })))
      let pulled = 0
      const source = Stream.fromIterable([trial(2, use(1, 1, { cost_usd: 0.1 }))]).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
      const exit = yield* Effect.exit(Stream.runDrain(Budget.stopOnBudget(source, { maxCost: 1 }, spent)))
      assert.strictEqual(pulled, 0)
      const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: Budget.BudgetExceeded }).error : undefined
      assert.strictEqual(error?.budget, "max_cost")
      assert.strictEqual(error?.spent, 1)
    }))
})

describe("the summary's usage", () => {
  it("totals by side and kind, per-trial mean and percentiles, and the cost of a passed trial", () => {
    const acc = new Summary.Accumulator(1, { scorers: ["judge"] })
    const priced = (u: Usage, cost: number): Usage => ({ ...u, cost_usd: cost })
    for (let i = 0; i < 4; i++) acc.add(trial(i, priced(use(100, 20, { cached_input_tokens: 40 }), 0.001), priced(use(10, 2), 0.0001)))
    acc.add(trial(4, undefined))
    const summary = Summary.make({
      runId: "r",
      resultsFile: "f",
      outcome: "finished",
      acc,
      probe: new MutableProbe().snapshot(),
      wallMs: 1000,
      parallelism: 1,
      usage: { priced: true, unpriced: [] }
    })
    const u = summary.usage!
    assert.strictEqual(u.trials, 4)
    assert.deepStrictEqual(u.agent, {
      input_tokens: 400,
      output_tokens: 80,
      total_tokens: 480,
      cached_input_tokens: 160,
      reasoning_tokens: 0,
      cost_usd: 0.004
    })
    assert.strictEqual(u.judge.total_tokens, 48)
    assert.strictEqual(u.total_tokens, 528)
    assert.strictEqual(u.cost_usd, 0.0044)
    assert.deepStrictEqual(u.per_trial.tokens, { mean: 132, p50: 132, p95: 132 })
    assert.deepStrictEqual(u.per_trial.cost_usd, { mean: 0.0011, p50: 0.0011, p95: 0.0011 })
    // Every scored trial passed its judge: 4 passed; the 5th has no score.
    assert.strictEqual(u.passed_trials, 4)
    assert.strictEqual(u.cost_per_passed_trial_usd, 0.0011)
    assert.deepStrictEqual(u.this_run, { trials: 4, total_tokens: 528, cost_usd: 0.0044 })
  })

  it("no usage and no pricing: no usage part at all", () => {
    const acc = new Summary.Accumulator(1)
    acc.add(trial(0, undefined))
    assert.isUndefined(Summary.usageSummary(acc.usage, { passed: 1 }))
  })

  it("the estimate projects the mean per trial to the whole run, with a t interval", () => {
    const sample = new Summary.Moments()
    for (const [tokens, cost] of [[100, 0.01], [200, 0.02], [300, 0.03]] as const) sample.add(tokens, cost)
    const e = Summary.estimateSummary(sample, 1000, true)
    assert.strictEqual(e.trials_run, 3)
    assert.strictEqual(e.tokens.per_trial, 200)
    assert.strictEqual(e.tokens.total, 200_000)
    // sd 100, se 100/sqrt(3), t(0.975, 2) = 4.302652729911275
    const half = 4.302652729911275 * 100 / Math.sqrt(3)
    assert.deepStrictEqual(e.tokens.per_trial_ci95, [0, Math.round((200 + half) * 100) / 100])
    assert.deepStrictEqual(e.tokens.total_ci95, [0, Math.round((200 + half) * 1000 * 100) / 100])
    assert.strictEqual(e.cost_usd?.total, 20)
  })
})

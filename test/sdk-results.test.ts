/**
 * Agent SDKs' results read natively (issue 43, section 1), with the real
 * `ai` and `@openai/agents` packages on their own test doubles: the AI SDK's
 * `MockLanguageModelV4` (`ai/test`), and the Agents SDK's chat completions
 * model pointed at a scripted OpenAI-compatible server on 127.0.0.1. A
 * two-tool, three-step agent of each: its answer, trajectory (the AI SDK's
 * own timings; the Agents SDK's steps timed around the call), usage and
 * model read exactly, by `Adapters` and through a `module:` agent run by
 * the runner, scored by path scorers and priced.
 */
import { NodeServices } from "@effect/platform-node"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { execFileSync } from "node:child_process"
import * as path from "node:path"
import { vi } from "vitest"
import * as ModuleAgent from "../src/agents/Module.ts"
import type { AgentEvalTrial, TrajectoryStep } from "../src/domain/Trial.ts"
import { Adapters } from "../src/index.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as Pricing from "../src/summary/Pricing.ts"
import aiSdkAgent, { agent as aiSdkLoopAgent } from "./fixtures/agent-ai-sdk.ts"
import agentsSdkAgent from "./fixtures/agent-openai-agents.ts"
import { repoRoot } from "./cli-helpers.ts"
import { answer, callTools, modelServer, usage } from "./tool-model-server.ts"

afterEach(() => {
  vi.restoreAllMocks()
})

const live = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici))) as Effect.Effect<A, E>

const signal = new AbortController().signal
const at = (ms: number) => new Date(ms).toISOString()

// The AI SDK times steps and tool calls with `performance.now()`: a clock
// that moves 1 ms per reading makes its timings exact.
const tickingClock = () => {
  let t = 1000
  vi.spyOn(performance, "now").mockImplementation(() => (t += 1))
}

const aiUsage = (input: number, cached: number, output: number, reasoning: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  cached_input_tokens: cached,
  reasoning_tokens: reasoning,
  model: "mock-1-2026"
})

// What the scripted server answers: add, then lookup, then the answer; each
// response names its model, as OpenAI's do.
const agentsScript = (turn: number) => {
  const reply = turn === 1
    ? callTools([{ id: "c1", name: "add", args: { a: 2, b: 3 } }], null, usage(100, 20, {
      prompt_tokens_details: { cached_tokens: 40 },
      completion_tokens_details: { reasoning_tokens: 8 }
    }))
    : turn === 2
    ? callTools([{ id: "c2", name: "lookup", args: { word: "nothing" } }], "Now the word.", usage(150, 30, {
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 10 }
    }))
    : answer("The sum is 5.", usage(200, 10, { prompt_tokens_details: { cached_tokens: 150 } }))
  return { ...reply, body: { ...(reply.body as object), model: "gpt-test-2026" } }
}

const agentsUsage = (input: number, cached: number, output: number, reasoning: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  cached_input_tokens: cached,
  reasoning_tokens: reasoning,
  model: "gpt-test-2026"
})

// Steps without their times, for a run whose call times are the real clock's.
const untimed = (steps: ReadonlyArray<TrajectoryStep> | undefined) =>
  (steps ?? []).map(({ started_at: _s, duration_ms: _d, ...rest }) => rest)

const scoreAll = (trial: AgentEvalTrial, specs: ReadonlyArray<string>) =>
  Effect.forEach(specs, (spec) =>
    Effect.flatMap(Scorers.fromSpec(spec, { cwd: process.cwd() }), (scorer) =>
      Effect.map(
        scorer.score({ id: trial.task_id, inputs: {} }, trial),
        (score) => [spec, score.passed, score.explanation ?? null] as const
      )))

const pricing = Pricing.make("prices.yaml", {
  models: { "mock-1-2026": { input: 2, output: 8, cached_input: 0.5 }, "gpt-test-2026": { input: 1, output: 4 } }
})

describe("Adapters.fromAiSdk", () => {
  it.effect("a generateText result: answer, each step and tool call with the SDK's timings, usage and model", () =>
    Effect.gen(function*() {
      tickingClock()
      const result = yield* Effect.promise(() => aiSdkAgent({ inputs: { a: 2, b: 3, word: "nothing" } }, { signal }))
      vi.restoreAllMocks()
      const output = Adapters.fromAiSdk(result, { started_ms: 0, ended_ms: 50 })
      assert.deepStrictEqual(output, {
        output_text: "The sum is 5.",
        trajectory: [
          { type: "model", content: "", started_at: at(0), duration_ms: 1, timing: "sdk", usage: aiUsage(100, 40, 20, 8) },
          { type: "tool_call", name: "add", id: "call-1", arguments: { a: 2, b: 3 }, started_at: at(1), duration_ms: 1, timing: "sdk" },
          { type: "tool_result", name: "add", id: "call-1", content: 5, started_at: at(2), duration_ms: 0, timing: "sdk" },
          { type: "model", content: "Now the word.", started_at: at(4), duration_ms: 1, timing: "sdk", usage: aiUsage(150, 100, 30, 10) },
          { type: "tool_call", name: "lookup", id: "call-2", arguments: { word: "nothing" }, started_at: at(5), duration_ms: 1, timing: "sdk" },
          {
            type: "tool_result",
            name: "lookup",
            id: "call-2",
            content: "no entry for nothing",
            is_error: true,
            started_at: at(6),
            duration_ms: 0,
            timing: "sdk"
          },
          { type: "model", content: "The sum is 5.", started_at: at(8), duration_ms: 1, timing: "sdk", usage: aiUsage(200, 150, 10, 0) }
        ],
        usage: aiUsage(450, 290, 60, 18)
      })
    }))

  it.effect("a ToolLoopAgent's generate result reads the same", () =>
    Effect.gen(function*() {
      const viaLoop = yield* Effect.promise(() => aiSdkLoopAgent({ inputs: { a: 2, b: 3, word: "nothing" } }, { signal }))
      const viaText = yield* Effect.promise(() => aiSdkAgent({ inputs: { a: 2, b: 3, word: "nothing" } }, { signal }))
      const call = { started_ms: 0, ended_ms: 50 }
      assert.deepStrictEqual(untimed(Adapters.fromAiSdk(viaLoop, call).trajectory), untimed(Adapters.fromAiSdk(viaText, call).trajectory))
      assert.deepStrictEqual(Adapters.fromAiSdk(viaLoop, call).usage, aiUsage(450, 290, 60, 18))
    }))
})

describe("Adapters.fromOpenAiAgents", () => {
  it.effect("a RunResult: answer, each response and tool call timed around the call, usage and model", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer(agentsScript)
      const result = yield* Effect.promise(() => agentsSdkAgent({ inputs: { base: server.base, a: 2, b: 3 } }, { signal }))
      const around = { started_at: at(1000), duration_ms: 40, timing: "call" as const }
      assert.deepStrictEqual(Adapters.fromOpenAiAgents(result, { started_ms: 1000, ended_ms: 1040 }), {
        output_text: "The sum is 5.",
        trajectory: [
          { type: "model", content: "", ...around, usage: agentsUsage(100, 40, 20, 8) },
          { type: "tool_call", name: "add", id: "c1", arguments: { a: 2, b: 3 }, ...around },
          { type: "tool_result", name: "add", id: "c1", content: 5, ...around },
          { type: "model", content: "Now the word.", ...around, usage: agentsUsage(150, 100, 30, 10) },
          { type: "tool_call", name: "lookup", id: "c2", arguments: { word: "nothing" }, ...around },
          // The SDK hands a tool's throw to the model as this text, with no mark of an error.
          { type: "tool_result", name: "lookup", id: "c2", content: "An error occurred while running the tool. Please try again.", ...around },
          { type: "model", content: "The sum is 5.", ...around, usage: agentsUsage(200, 150, 10, 0) }
        ],
        usage: agentsUsage(450, 290, 60, 18)
      })
      assert.strictEqual(server.received.length, 3)
    })))
})

const pathScores = [
  "tool-called:add,max=1",
  "tool-called:lookup",
  "tool-sequence:add>lookup,exact",
  "tool-args:add,a=2",
  "steps:max=3"
]

describe("a module: agent returning an SDK result, run by the runner", () => {
  it.effect("the AI SDK's: recorded as read, path scorers pass, priced", () =>
    live(Effect.gen(function*() {
      const agent = yield* ModuleAgent.load("test/fixtures/agent-ai-sdk.ts", undefined, process.cwd())
      const [trial] = yield* Stream.runCollect(runTrials(Stream.make({ id: "t1", inputs: { a: 2, b: 3, word: "nothing" } }), agent, { parallelism: 1 }))
      assert.strictEqual(trial!.status, "completed")
      const output = trial!.output!
      assert.strictEqual(output.output_text, "The sum is 5.")
      assert.deepStrictEqual(untimed(output.trajectory), untimed(Adapters.fromAiSdk(
        yield* Effect.promise(() => aiSdkAgent({ inputs: { a: 2, b: 3, word: "nothing" } }, { signal })),
        { started_ms: 0, ended_ms: 0 }
      ).trajectory))
      assert.deepStrictEqual(output.trajectory!.map((s) => s.timing), Array(7).fill("sdk"))
      const starts = output.trajectory!.map((s) => Date.parse(s.started_at))
      assert.deepStrictEqual(starts, [...starts].sort((a, b) => a - b))
      assert.deepStrictEqual(output.usage, aiUsage(450, 290, 60, 18))
      const scores = yield* scoreAll(trial!, pathScores)
      assert.deepStrictEqual(scores.map(([, passed]) => passed), pathScores.map(() => true), JSON.stringify(scores))
      // (160 uncached * 2 + 290 cached * 0.5 + 60 output * 8) per million tokens.
      assert.strictEqual(Pricing.priceTrial(pricing, trial!).output!.usage!.cost_usd, 0.000945)
    })))

  it.effect("the OpenAI Agents SDK's: recorded as read, timed around the call, path scorers pass, priced", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer(agentsScript)
      const agent = yield* ModuleAgent.load("test/fixtures/agent-openai-agents.ts", undefined, process.cwd())
      const [trial] = yield* Stream.runCollect(runTrials(Stream.make({ id: "t1", inputs: { base: server.base, a: 2, b: 3 } }), agent, { parallelism: 1 }))
      assert.strictEqual(trial!.status, "completed")
      const output = trial!.output!
      assert.strictEqual(output.output_text, "The sum is 5.")
      assert.deepStrictEqual(output.trajectory!.map((s) => [s.type, s.name ?? null, s.timing]), [
        ["model", null, "call"],
        ["tool_call", "add", "call"],
        ["tool_result", "add", "call"],
        ["model", null, "call"],
        ["tool_call", "lookup", "call"],
        ["tool_result", "lookup", "call"],
        ["model", null, "call"]
      ])
      // Every step timed around the one call: the same start and length.
      assert.strictEqual(new Set(output.trajectory!.map((s) => `${s.started_at} ${s.duration_ms}`)).size, 1)
      assert.deepStrictEqual(output.usage, agentsUsage(450, 290, 60, 18))
      const scores = yield* scoreAll(trial!, pathScores)
      assert.deepStrictEqual(scores.map(([, passed]) => passed), pathScores.map(() => true), JSON.stringify(scores))
      // (450 input * 1 + 60 output * 4) per million tokens: no cached price, cached input charged as input.
      assert.strictEqual(Pricing.priceTrial(pricing, trial!).output!.usage!.cost_usd, 0.00069)
    })))

  it.effect("an Agents SDK run left without a final output is a failed trial, not a completed one", () =>
    live(Effect.gen(function*() {
      const server = yield* modelServer(agentsScript)
      const agent = yield* ModuleAgent.load("test/fixtures/agent-openai-agents.ts", "unanswered", process.cwd())
      const [trial] = yield* Stream.runCollect(runTrials(Stream.make({ id: "t1", inputs: { base: server.base, a: 2, b: 3 } }), agent, { parallelism: 1 }))
      assert.strictEqual(trial!.status, "failed")
      assert.strictEqual(trial!.error!.message, "the OpenAI Agents SDK run ended without a final output (1 tool calls awaiting approval)")
    })))
})

describe("the SDKs stay optional", () => {
  // What loading `file` resolves, in a fresh Node 24 process.
  const resolved = (file: string): ReadonlyArray<string> =>
    JSON.parse(execFileSync(path.join(repoRoot, "node_modules", ".bin", "node"), [
      "--import", "tsx", path.join(repoRoot, "test/fixtures/resolved-specifiers.mjs"), path.join(repoRoot, file)
    ], { cwd: repoRoot, encoding: "utf8", timeout: 60_000 }))
  const sdk = (specifiers: ReadonlyArray<string>) =>
    specifiers.filter((s) => s === "ai" || s.startsWith("ai/") || s.startsWith("@openai/agents"))

  it("loading agent-trials resolves neither `ai` nor `@openai/agents`; an agent of the SDK does", () => {
    assert.deepStrictEqual(sdk(resolved("src/index.ts")), [])
    assert.deepStrictEqual(sdk(resolved("test/fixtures/agent-ai-sdk.ts")), ["ai", "ai/test"])
  })
})

/**
 * Agent SDKs' results read natively, through the real command (issue 43,
 * section 1): a `module:` agent returning an AI SDK `generateText` result
 * (on the SDK's `MockLanguageModelV4`), or an OpenAI Agents SDK `RunResult`
 * (its model on a scripted OpenAI-compatible server on 127.0.0.1), is
 * recorded with its answer, trajectory, usage and model; path scorers pass
 * on the trajectory; `--pricing` prices the usage by the model the SDK
 * reported, in the record and the summary.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { TrajectoryStep } from "../src/domain/Trial.ts"
import { describeResult, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { answer, callTools, modelServer, usage } from "./tool-model-server.ts"

afterAll(() => removeTempDirs())

const scores = [
  "--score", "tool-called:add,max=1",
  "--score", "tool-called:lookup",
  "--score", "tool-sequence:add>lookup,exact",
  "--score", "tool-args:add,a=2",
  "--score", "steps:max=3"
]

const untimed = (steps: ReadonlyArray<TrajectoryStep> | undefined) =>
  (steps ?? []).map(({ started_at: _s, duration_ms: _d, ...rest }) => rest)

const tokens = (input: number, cached: number, output: number, reasoning: number, model: string) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  cached_input_tokens: cached,
  reasoning_tokens: reasoning,
  model
})

// One task through `agent`, scored and priced; the record and the summary.
const runOne = (agent: string, inputs: Record<string, unknown>) =>
  Effect.promise(async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summary = path.join(dir, "summary.json")
    const prices = path.join(dir, "prices.yaml")
    fs.writeFileSync(prices, "models:\n  mock-1-2026: { input: 2, output: 8, cached_input: 0.5 }\n  gpt-test-2026: { input: 1, output: 4 }\n")
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "t1", inputs }])
    const result = await run([
      "--agent", agent, "--tasks", tasks, "--out", out, "--summary", summary, "--pricing", prices, "--no-progress", ...scores
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const [trial] = readTrials(out)
    return { trial: trial!, summary: JSON.parse(fs.readFileSync(summary, "utf8")), stdout: result.stdout }
  })

const verdicts = (trial: { readonly scores?: Record<string, { readonly passed?: boolean | undefined }> | undefined }) =>
  Object.fromEntries(Object.entries(trial.scores ?? {}).map(([name, s]) => [name, s.passed]))

const allPassed = {
  "tool-called-add": true,
  "tool-called-lookup": true,
  "tool-sequence": true,
  "tool-args-add": true,
  steps: true
}

describe("agent-trials run: a module: agent returning an SDK's result", () => {
  it.live("an AI SDK generateText result: trajectory with the SDK's timings, usage and model recorded, path scorers pass, priced", () =>
    Effect.gen(function*() {
      const { trial, summary } = yield* runOne("module:test/fixtures/agent-ai-sdk.ts", { a: 2, b: 3, word: "nothing" })
      assert.strictEqual(trial.status, "completed")
      assert.strictEqual(trial.output!.output_text, "The sum is 5.")
      assert.deepStrictEqual(untimed(trial.output!.trajectory), [
        { type: "model", content: "", timing: "sdk", usage: tokens(100, 40, 20, 8, "mock-1-2026") },
        { type: "tool_call", name: "add", id: "call-1", arguments: { a: 2, b: 3 }, timing: "sdk" },
        { type: "tool_result", name: "add", id: "call-1", content: 5, timing: "sdk" },
        { type: "model", content: "Now the word.", timing: "sdk", usage: tokens(150, 100, 30, 10, "mock-1-2026") },
        { type: "tool_call", name: "lookup", id: "call-2", arguments: { word: "nothing" }, timing: "sdk" },
        { type: "tool_result", name: "lookup", id: "call-2", content: "no entry for nothing", is_error: true, timing: "sdk" },
        { type: "model", content: "The sum is 5.", timing: "sdk", usage: tokens(200, 150, 10, 0, "mock-1-2026") }
      ])
      // (160 uncached * 2 + 290 cached * 0.5 + 60 output * 8) per million tokens.
      assert.deepStrictEqual(trial.output!.usage, { ...tokens(450, 290, 60, 18, "mock-1-2026"), cost_usd: 0.000945 })
      assert.deepStrictEqual(verdicts(trial), allPassed)
      assert.strictEqual(summary.usage.cost_usd, 0.000945)
    }))

  it.live("the same as a ToolLoopAgent's generate result", () =>
    Effect.gen(function*() {
      const { trial } = yield* runOne("module:test/fixtures/agent-ai-sdk.ts#agent", { a: 2, b: 3, word: "nothing" })
      assert.strictEqual(trial.output!.output_text, "The sum is 5.")
      assert.strictEqual(trial.output!.trajectory!.length, 7)
      assert.deepStrictEqual(trial.output!.usage, { ...tokens(450, 290, 60, 18, "mock-1-2026"), cost_usd: 0.000945 })
      assert.deepStrictEqual(verdicts(trial), allPassed)
    }))

  it.live("an OpenAI Agents SDK RunResult: trajectory timed around the call, usage and model recorded, path scorers pass, priced", () =>
    Effect.gen(function*() {
      const server = yield* modelServer((turn) => {
        const reply = turn === 1
          ? callTools([{ id: "c1", name: "add", args: { a: 2, b: 3 } }], null, usage(100, 20, { prompt_tokens_details: { cached_tokens: 40 } }))
          : turn === 2
          ? callTools([{ id: "c2", name: "lookup", args: { word: "dog" } }], "Now the word.", usage(150, 30))
          : answer("The sum is 5.", usage(200, 10))
        return { ...reply, body: { ...(reply.body as object), model: "gpt-test-2026" } }
      })
      const { trial, summary } = yield* runOne("module:test/fixtures/agent-openai-agents.ts", { base: server.base, a: 2, b: 3 })
      assert.strictEqual(trial.status, "completed")
      assert.strictEqual(trial.output!.output_text, "The sum is 5.")
      const model = (input: number, cached: number, output: number) => ({
        ...tokens(input, cached, output, 0, "gpt-test-2026")
      })
      assert.deepStrictEqual(untimed(trial.output!.trajectory), [
        { type: "model", content: "", timing: "call", usage: model(100, 40, 20) },
        { type: "tool_call", name: "add", id: "c1", arguments: { a: 2, b: 3 }, timing: "call" },
        { type: "tool_result", name: "add", id: "c1", content: 5, timing: "call" },
        { type: "model", content: "Now the word.", timing: "call", usage: model(150, 0, 30) },
        { type: "tool_call", name: "lookup", id: "c2", arguments: { word: "dog" }, timing: "call" },
        { type: "tool_result", name: "lookup", id: "c2", content: "dog: a word", timing: "call" },
        { type: "model", content: "The sum is 5.", timing: "call", usage: model(200, 0, 10) }
      ])
      // (450 input * 1 + 60 output * 4) per million tokens.
      assert.deepStrictEqual(trial.output!.usage, { ...model(450, 40, 60), cost_usd: 0.00069 })
      assert.deepStrictEqual(verdicts(trial), allPassed)
      assert.strictEqual(summary.usage.cost_usd, 0.00069)
      assert.strictEqual(server.received.length, 3)
    }).pipe(Effect.scoped))
})

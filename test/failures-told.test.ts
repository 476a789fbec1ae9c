/**
 * What a run tells the user of its failures, on the terminal and not only in
 * the file (issue 37, items 3 and 12): a module agent whose output fails the
 * schema only in its trajectory is a failed trial naming the field, its
 * `output_text` kept in the record's error; under "failures by type" the
 * first message of each type (one line, scrubbed, clipped) with its count; a
 * run in which every trial failed says so in one line before the summary.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Agent from "../src/domain/Agent.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { scrubber } from "../src/internal/redact.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Summary from "../src/summary/Summary.ts"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { tasksStream } from "./fixtures.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// A step as an agent that acts reports it, but without `started_at`.
const stepWithoutStart = { type: "model", duration_ms: 3 }

const failed = (id: string, type: string, message: string): AgentEvalTrial => ({
  id: `${id}:1`,
  task_id: id,
  status: "failed",
  error: { type, message, occurred_at: "2026-01-01T00:00:00.000Z" },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
})

const completed = (id: string): AgentEvalTrial => ({
  id: `${id}:1`,
  task_id: id,
  status: "completed",
  output: { output_text: "ok" },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
})

const textOf = (trials: ReadonlyArray<AgentEvalTrial>) => {
  const acc = new Summary.Accumulator(1)
  for (const trial of trials) acc.add(trial)
  const summary = Summary.make({
    runId: "r",
    resultsFile: "out.jsonl",
    outcome: "finished",
    acc,
    probe: new MutableProbe().snapshot(),
    wallMs: 10,
    parallelism: 4
  })
  return { summary, text: Summary.format(summary) }
}

describe("a module agent whose output fails the schema only in its trajectory", () => {
  it.effect("is a failed trial naming the field, its output_text kept in the record's error", () =>
    Effect.gen(function*() {
      const agent = Agent.fromPromise(async (task) =>
        ({ output_text: `the answer to ${task.id}`, trajectory: [stepWithoutStart] }) as never
      )
      const trials = yield* Stream.runCollect(runTrials(tasksStream(2), agent, { parallelism: 2 }))
      assert.strictEqual(trials.length, 2)
      for (const trial of trials) {
        assert.strictEqual(trial.status, "failed")
        assert.isUndefined(trial.output)
        assert.strictEqual(trial.error?.type, "InvalidAgentOutput")
        assert.include(trial.error!.message, "field trajectory.0.started_at: Missing key")
        assert.strictEqual(trial.error!.output_text, `the answer to ${trial.task_id}`)
      }
    }))

  it.effect("an output without a string output_text keeps none", () =>
    Effect.gen(function*() {
      const agent = Agent.fromPromise(async () => ({ output_text: 42 }) as never)
      const [trial] = yield* Stream.runCollect(runTrials(tasksStream(1), agent, { parallelism: 1 }))
      assert.strictEqual(trial!.error?.type, "InvalidAgentOutput")
      assert.isFalse("output_text" in trial!.error!)
    }))
})

describe("the summary's failures by type", () => {
  it("the first message of each type under the counts, most frequent first, with its count", () => {
    const { summary, text } = textOf([
      failed("a", "Timeout", "the agent call did not finish within 5s"),
      failed("b", "InvalidAgentOutput", "field trajectory.0.started_at: Missing key"),
      failed("c", "Timeout", "a later timeout, not shown"),
      completed("d")
    ])
    const lines = text.split("\n")
    const at = lines.indexOf("  failures by type: Timeout 2, InvalidAgentOutput 1")
    assert.isAbove(at, 0, text)
    assert.deepStrictEqual(lines.slice(at + 1, at + 3), [
      "    Timeout (2), first: the agent call did not finish within 5s",
      "    InvalidAgentOutput (1), first: field trajectory.0.started_at: Missing key"
    ])
    assert.notInclude(text, "a later timeout")
    assert.deepStrictEqual(summary.error_messages, {
      Timeout: "the agent call did not finish within 5s",
      InvalidAgentOutput: "field trajectory.0.started_at: Missing key"
    })
    // One trial completed: not a run in which every trial failed.
    assert.notInclude(text, "every trial")
  })

  it("a message is one line, scrubbed of every secret the process knows, and clipped to 200 characters", () => {
    const secret = "sk-summary-7f3e9a1c5d2b8e4f"
    scrubber([secret])
    const long = "x".repeat(500)
    const { summary, text } = textOf([
      failed("a", "AgentError", `key ${secret} refused\nsecond line\u202e reversed`),
      failed("b", "HttpStatusError", `POST http://127.0.0.1:1/v1?api_key=abc failed: ${long}`)
    ])
    assert.notInclude(text, secret)
    assert.notInclude(JSON.stringify(summary), secret)
    assert.include(text, "    AgentError (1), first: key <redacted> refused second line<U+202E> reversed")
    const http = text.split("\n").find((line) => line.startsWith("    HttpStatusError (1), first: "))!
    assert.include(http, "api_key=<redacted>")
    const message = summary.error_messages!["HttpStatusError"]!
    assert.strictEqual(message.length, 203)
    assert.isTrue(message.endsWith("x..."), message)
  })

  it("at most 10 types get a line; the rest are counted", () => {
    const trials = Array.from({ length: 12 }, (_, i) => failed(`t${i}`, `Type${i}`, `message ${i}`))
    const { text } = textOf(trials)
    assert.strictEqual(text.split("\n").filter((line) => / {4}Type\d+ \(1\), first: message \d+$/.test(line)).length, 10)
    assert.include(text, "    2 more types in --summary")
  })

  it("a run in which every trial failed says so in one line before the summary", () => {
    const { text } = textOf([failed("a", "AgentError", "no"), failed("b", "AgentError", "no")])
    const lines = text.split("\n")
    assert.strictEqual(lines[0], "every trial of this run failed (2 of 2): see failures by type below")
    assert.match(lines[1]!, /^run r: finished$/)
    // A run with no trials is not one in which every trial failed.
    assert.notInclude(textOf([]).text, "every trial")
  })
})

describe.concurrent("agent-trials run: failures told on the terminal", () => {
  it("a module agent with a bad trajectory: exit 0, every trial failed said first, the field named under failures by type, output_text in the record", async () => {
    const dir = tempDir()
    const agent = path.join(dir, "agent.mjs")
    fs.writeFileSync(
      agent,
      `export default async (task) => ({ output_text: "answer " + task.id, trajectory: [${JSON.stringify(stepWithoutStart)}] })\n`
    )
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "a", inputs: {} }, { id: "b", inputs: {} }])
    const out = path.join(dir, "out.jsonl")
    const result = await run(["--tasks", tasks, "--agent", `module:${agent}`, "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 0, describeResult(result))
    const lines = result.stdout.split("\n")
    const all = lines.indexOf("every trial of this run failed (2 of 2): see failures by type below")
    assert.isAtLeast(all, 0, describeResult(result))
    assert.match(lines[all + 1]!, /^run \S+: finished$/, describeResult(result))
    const first = lines.find((line) => line.startsWith("    InvalidAgentOutput (2), first: "))
    assert.isDefined(first, describeResult(result))
    assert.include(first!, "field trajectory.0.started_at: Missing key")
    const trials = readTrials(out)
    assert.deepStrictEqual(
      trials.map((t) => [t.task_id, t.status, t.error?.type, t.error?.output_text]).sort(),
      [["a", "failed", "InvalidAgentOutput", "answer a"], ["b", "failed", "InvalidAgentOutput", "answer b"]]
    )
  })
})

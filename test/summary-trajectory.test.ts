/**
 * The summary's `trajectory` part: trials with a trajectory (a failed
 * trial's kept one too), steps and tool calls per trial (mean, p50, p95,
 * max from a constant-space count histogram, exact for small counts), tool
 * errors and each tool's calls and errors; absent without trajectories, so
 * other runs' summaries are as they were.
 */
import { assert, describe, it } from "@effect/vitest"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Summary from "../src/summary/Summary.ts"
import * as SummaryText from "../src/summary/Text.ts"
import type { AgentEvalTrial, TrajectoryStep } from "../src/domain/Trial.ts"

const AT = "2026-01-01T00:00:00.000Z"
const model: TrajectoryStep = { type: "model", started_at: AT, duration_ms: 1 }
const call = (name: string): TrajectoryStep => ({ type: "tool_call", name, started_at: AT, duration_ms: 1 })
const result = (name: string, isError = false): TrajectoryStep => ({
  type: "tool_result",
  name,
  ...(isError ? { is_error: true } : undefined),
  started_at: AT,
  duration_ms: 0
})

const completed = (id: string, trajectory?: ReadonlyArray<TrajectoryStep>): AgentEvalTrial => ({
  id,
  task_id: id,
  status: "completed",
  output: { output_text: "x", ...(trajectory === undefined ? undefined : { trajectory }) },
  metadata: { started_at: AT, finished_at: AT, latency_ms: 1 }
})

const failed = (id: string, trajectory: ReadonlyArray<TrajectoryStep>): AgentEvalTrial => ({
  id,
  task_id: id,
  status: "failed",
  error: { type: "MaxTurns", message: "the loop reached --max-turns 4", occurred_at: AT, trajectory },
  metadata: { started_at: AT, finished_at: AT, latency_ms: 1 }
})

const summaryOf = (trials: ReadonlyArray<AgentEvalTrial>) => {
  const acc = new Summary.Accumulator(1)
  for (const t of trials) acc.add(t)
  return Summary.make({ runId: "r", resultsFile: "out.jsonl", outcome: "finished", acc, probe: new MutableProbe().snapshot(), wallMs: 1000, parallelism: 8 })
}

describe("the summary's trajectory part", () => {
  it("steps and tool calls per trial, tool errors by tool, a failed trial's kept trajectory counted", () => {
    const s = summaryOf([
      completed("a", [model, call("search"), result("search"), model]),
      completed("b", [model, call("search"), call("lookup"), result("search", true), result("lookup"), model, call("search"), result("search"), model]),
      completed("c"),
      failed("d", [model, model, model, model])
    ])
    assert.deepStrictEqual(s.trajectory, {
      trials: 3,
      // 2, 3, 4 steps; 1, 3, 0 calls.
      steps: { mean: 3, p50: 3, p95: 4, max: 4 },
      tool_calls: { mean: 1.33, p50: 1, p95: 3, max: 3, total: 4, errors: 1 },
      by_tool: [{ name: "search", calls: 3, errors: 1 }, { name: "lookup", calls: 1, errors: 0 }]
    })
    const text = SummaryText.format(s)
    assert.include(
      text,
      "\n  trajectories: 3 trials; steps per trial mean 3, p50 3, p95 4, max 4; tool calls per trial mean 1.33, p50 1, p95 3, max 3\n" +
        "  tool calls: 4 (1 tool error); by tool: search 3 (1 error), lookup 1\n"
    )
  })

  it("p95 from the count histogram is exact: 100 trials of 1..100 tool calls", () => {
    const trials = Array.from({ length: 100 }, (_, i) => completed(`t${i}`, [model, ...Array.from({ length: i + 1 }, () => call("x")), model]))
    const t = summaryOf(trials).trajectory!
    assert.deepStrictEqual(t.tool_calls, { mean: 50.5, p50: 50, p95: 95, max: 100, total: 5050, errors: 0 })
    assert.deepStrictEqual(t.steps, { mean: 2, p50: 2, p95: 2, max: 2 })
  })

  it("counts beyond the dense range keep their maximum; tool names beyond the cap count together", () => {
    const h = new Summary.CountHistogram()
    for (const n of [1, 2, 5000, 7000]) h.record(n)
    assert.strictEqual(h.quantile(0.5), 2)
    assert.strictEqual(h.quantile(1), 7000)
    assert.strictEqual(h.max, 7000)
    const tally = new Summary.TrajectoryTally()
    tally.add(completed("many", [model, ...Array.from({ length: 1002 }, (_, i) => call(`tool${i}`))]))
    assert.strictEqual(tally.byTool.size, 1001)
    assert.deepStrictEqual(tally.byTool.get("(other tools)"), { calls: 2, errors: 0 })
  })

  it("no trajectory, no part: the summary and its text are as they were", () => {
    const s = summaryOf([completed("a"), completed("b")])
    assert.notProperty(s, "trajectory")
    assert.notInclude(SummaryText.format(s), "trajectories")
  })

  it("more than ten tools: the text names the ten most called, the JSON has them all", () => {
    const steps = [model, ...Array.from({ length: 12 }, (_, i) => Array.from({ length: 12 - i }, () => call(`t${i}`))).flat()]
    const t = summaryOf([completed("a", steps)]).trajectory!
    assert.strictEqual(t.by_tool.length, 12)
    assert.deepStrictEqual(t.by_tool.slice(0, 2), [{ name: "t0", calls: 12, errors: 0 }, { name: "t1", calls: 11, errors: 0 }])
    assert.include(Summary.trajectoryLines(t)[1], "t8 4, t9 3, and 2 more")
  })
})

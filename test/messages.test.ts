/**
 * Messages a user reads (issue 37, item 20): the epochs line prints no
 * second pass@1 over completed trials beside the scored one; an HTTP body
 * that cannot be encoded says what and where; a line longer than V8's string
 * limit is `FILE:LINE: line longer than 512 MB`.
 */
import { assert, describe, it } from "@effect/vitest"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Summary from "../src/scoring/Summary.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"

const at = "2026-01-01T00:00:00.000Z"

// A completed trial whose answer the `exact` scorer failed.
const wrong = (task: string, epoch: number): AgentEvalTrial => ({
  id: `${task}:${epoch}`,
  task_id: task,
  status: "completed",
  output: { output_text: "wrong" },
  metadata: { started_at: at, finished_at: at, latency_ms: 1, epoch },
  scores: { exact: { value: 0, passed: false } }
})

const summaryOf = (scorers: ReadonlyArray<string>, trials: ReadonlyArray<AgentEvalTrial>) => {
  const acc = new Summary.Accumulator(3, scorers.length === 0 ? undefined : { scorers })
  for (const trial of trials) acc.add(trial)
  return Summary.format(Summary.make({
    runId: "r",
    resultsFile: "out.jsonl",
    outcome: "finished",
    acc,
    probe: new MutableProbe().snapshot(),
    wallMs: 10,
    parallelism: 4,
    ...(scorers.length === 0 ? {} : { scoring: { probe: new MutableProbe().snapshot(), parallelism: 4 } })
  }))
}

describe("the epochs line", () => {
  const trials = ["a", "b"].flatMap((task) => [1, 2, 3].map((epoch) => wrong(task, epoch)))

  it("with scorers: one pass@1, the scored one, labelled; no pass@1 1 [1, 1] over completed trials", () => {
    const text = summaryOf(["exact"], trials)
    const pass1 = text.split("\n").filter((line) => line.includes("pass@1"))
    assert.deepStrictEqual(pass1.length, 1, text)
    assert.match(pass1[0]!, /^ {2}pass@k counting passed trials: pass@1 0 /)
    assert.include(
      text,
      "  3 epochs, counting completed trials: 2 tasks with every trial recorded (0 incomplete); pass@k below counts passed trials"
    )
  })

  it("without scorers: the estimates over completed trials, as the only pass@1", () => {
    const text = summaryOf([], trials)
    const pass1 = text.split("\n").filter((line) => line.includes("pass@1"))
    assert.strictEqual(pass1.length, 1, text)
    assert.match(pass1[0]!, /^ {2}3 epochs, counting completed trials: 2 tasks .*; pass@1 1 /)
  })
})

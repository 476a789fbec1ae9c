/**
 * The summary as a Schema: a real summary (scores, groups, pass@k over
 * epochs, usage priced under a budget, trajectories, the dataset, the
 * estimate, gates) encodes to exactly the JSON written before the Schema
 * (same keys, same order) and decodes back to itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import type { AgentEvalTrial, Usage } from "../src/domain/Trial.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Gates from "../src/summary/Gates.ts"
import * as Summary from "../src/summary/Summary.ts"

const usage = (tokens: number, cost: number): Usage => ({
  model: "m",
  input_tokens: tokens - 10,
  output_tokens: 10,
  total_tokens: tokens,
  cached_input_tokens: 5,
  reasoning_tokens: 2,
  cost_usd: cost
})

const trial = (task: number, epoch: number): AgentEvalTrial => {
  const failed = task === 3 && epoch === 1
  const base = {
    id: `t${task}:${epoch}`,
    task_id: `t${task}`,
    metadata: {
      started_at: "2026-01-01T00:00:00.000Z",
      finished_at: "2026-01-01T00:00:01.000Z",
      latency_ms: 100 * task + epoch,
      groups: { "metadata.subject": task % 2 === 0 ? "math" : null }
    }
  }
  if (failed) {
    return {
      ...base,
      status: "failed",
      error: { type: "AgentTimeout", message: "too slow", occurred_at: "2026-01-01T00:00:01.000Z", usage: usage(50, 0.001) }
    }
  }
  return {
    ...base,
    status: "completed",
    output: {
      output_text: `answer ${task}`,
      usage: usage(100 * task, 0.01 * task),
      trajectory: [
        { type: "model", started_at: "2026-01-01T00:00:00.000Z", duration_ms: 5 },
        { type: "tool_call", name: "search", arguments: { q: "x" }, started_at: "2026-01-01T00:00:00.005Z", duration_ms: 1 },
        { type: "tool_result", name: "search", content: "y", is_error: task === 2, started_at: "2026-01-01T00:00:00.006Z", duration_ms: 0 }
      ]
    },
    scores: {
      exact: { value: (task + epoch) % 2, passed: (task + epoch) % 2 === 1 },
      judge: { value: task / 4, passed: task > 1, usage: usage(20, 0.0005) }
    }
  }
}

// What `run --summary` writes for a run of 4 tasks x 2 epochs with every part present.
const realSummary = (): Gates.GatedSummary => {
  const acc = new Summary.Accumulator(2, { scorers: ["exact", "judge"] })
  for (let task = 1; task <= 4; task++) for (let epoch = 1; epoch <= 2; epoch++) acc.add(trial(task, epoch))
  const probe = new MutableProbe()
  const made = Summary.make({
    runId: "run-1",
    resultsFile: "out.jsonl",
    outcome: "finished",
    acc,
    probe: probe.snapshot(),
    wallMs: 1234,
    parallelism: 4,
    scoring: { probe: probe.snapshot(), parallelism: 2, judgeParallelism: 1 },
    usage: { priced: true, unpriced: ["other"], budget: { maxCost: 5, inFlightAtStop: 2 } }
  })
  const summary = {
    ...made,
    dataset: {
      source: "tasks.csv",
      format: "csv",
      map: null,
      json_path: null,
      rows: { ids: { file: "ids.txt", count: 4, sha256: "ab" }, sample: 4, seed: 0 },
      revision: "abc"
    },
    estimate: Summary.estimateSummary(acc.usage.sample, 16, true)
  }
  return Gates.withGates(summary, [{ name: "exact", on: "lower", threshold: 0.5 }])
}

describe("Summary as a Schema", () => {
  it("a real summary encodes to the JSON written before (same keys, same order) and decodes back to itself", () => {
    const summary = realSummary()
    // Every optional part is there, so every field of the Schema is checked.
    for (const key of ["scoring", "usage", "trajectory", "pass_at_k", "dataset", "estimate", "gates"]) assert.property(summary, key)
    assert.isDefined(summary.usage?.budget?.in_flight_at_stop)
    assert.isNotEmpty(Object.keys(summary.scoring!.groups))
    const encoded = Schema.encodeSync(Gates.GatedSummary)(summary, { onExcessProperty: "error" })
    assert.strictEqual(JSON.stringify(encoded, null, 2), JSON.stringify(summary, null, 2))
    const decoded = Schema.decodeUnknownSync(Gates.GatedSummary)(JSON.parse(JSON.stringify(encoded)), { onExcessProperty: "error" })
    assert.deepStrictEqual(decoded, summary)
  })

  it("score's summary round-trips the same way", () => {
    const acc = new Summary.Accumulator(2, { scorers: ["exact", "judge"] })
    for (let task = 1; task <= 4; task++) for (let epoch = 1; epoch <= 2; epoch++) acc.add(trial(task, epoch))
    const summary = Gates.withGates(
      Summary.makeScore({
        runId: "score-r",
        inputFile: "in.jsonl",
        resultsFile: "out.jsonl",
        outcome: "finished",
        acc,
        scorerCalls: 14,
        wallMs: 500,
        scoring: { probe: new MutableProbe().snapshot(), parallelism: 2 },
        usage: { priced: true, unpriced: [] }
      }),
      [{ name: "judge", on: "mean", threshold: 0.9 }]
    )
    const encoded = Schema.encodeSync(Gates.GatedScoreSummary)(summary, { onExcessProperty: "error" })
    assert.strictEqual(JSON.stringify(encoded), JSON.stringify(summary))
    assert.deepStrictEqual(Schema.decodeUnknownSync(Gates.GatedScoreSummary)(JSON.parse(JSON.stringify(encoded))), summary)
  })
})

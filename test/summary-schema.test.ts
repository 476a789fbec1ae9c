/**
 * The summary as a Schema: a real summary (scores, groups, pass@k over
 * epochs, usage priced under a budget, trajectories, the dataset, the
 * estimate, gates) encodes to exactly the JSON written before the Schema
 * (same keys, same order) and decodes back to itself; a summary file that is
 * not one is refused naming the field at fault, from the Schema's issue path.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Result, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { AgentEvalTrial, Usage } from "../src/domain/Trial.ts"
import * as Report from "../src/programs/Report.ts"
import * as SummaryOutput from "../src/programs/SummaryOutput.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Gates from "../src/summary/Gates.ts"
import * as Summary from "../src/summary/Summary.ts"
import * as Written from "../src/summary/Written.ts"
import * as Kinds from "../src/programs/Kinds.ts"

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
    assert.deepStrictEqual(Written.scoreSummary(summary), Result.succeed(JSON.stringify(summary, null, 2) + "\n"))
  })

  it("a full summary is what report --summary reads, and decodes as it", () => {
    const summary = realSummary()
    const read = Summary.decodeReported(JSON.parse(JSON.stringify(summary)))
    assert.isTrue(Result.isSuccess(read))
    if (Result.isSuccess(read)) {
      assert.deepStrictEqual(read.success.trials.total, summary.trials.total)
      assert.deepStrictEqual(read.success.scoring?.pass_at_k?.ks, summary.scoring?.pass_at_k.ks)
      assert.deepStrictEqual(read.success.usage?.unpriced_models, ["other"])
    }
  })
})

describe("Written: the text of --summary FILE", () => {
  it("is the summary's JSON, and a field the Schema does not know, or one that does not fit it, is named, not dropped", () => {
    const summary = realSummary()
    assert.deepStrictEqual(Written.runSummary(summary), Result.succeed(JSON.stringify(summary, null, 2) + "\n"))
    assert.deepStrictEqual(
      Written.runSummary({ ...summary, cache: { hits: 3 } } as Gates.GatedSummary),
      Result.fail("the summary's field cache is not in its Schema")
    )
    const spoiled = { ...summary, trials: { ...summary.trials, total: { ...summary.trials.total, failed: "2" } } }
    const refused = Written.runSummary(spoiled as unknown as Gates.GatedSummary)
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) assert.match(refused.failure, /^the summary's field trials\.total\.failed does not fit its Schema: Expected number/)
  })

  it.effect("run's --summary output: a summary that does not fit is an error naming the file and the field, and nothing is written", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-summary-schema-"))
      const file = path.join(dir, "s.json")
      const summary = realSummary()
      const context = { out: "out.jsonl", summary, tasks: undefined, say: () => Effect.void }
      yield* SummaryOutput.format.write(file, { ...context, gated: summary })
      assert.strictEqual(fs.readFileSync(file, "utf8"), JSON.stringify(summary, null, 2) + "\n")
      const other = path.join(dir, "other.json")
      const failed = yield* Effect.flip(SummaryOutput.format.write(other, { ...context, gated: { ...summary, cache: 1 } as Gates.GatedSummary }))
      assert.strictEqual(failed.message, `cannot write --summary ${other}: the summary's field cache is not in its Schema`)
      assert.isFalse(fs.existsSync(other))
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
})

describe("Summary.decodeReported: a bad summary names the field at fault from the Schema's issue path", () => {
  const good = () => JSON.parse(JSON.stringify(realSummary())) as Record<string, any>
  const cases: ReadonlyArray<readonly [string, (s: Record<string, any>) => void, string]> = [
    ["a nested count of the wrong type", (s) => void (s.trials.total.failed = "2"), "field trials.total.failed is not a number"],
    ["a nested object missing", (s) => void delete s.trials.total, "field trials.total.total is missing"],
    ["an outcome not among the outcomes", (s) => void (s.outcome = "done"), `field outcome is not one of "finished", "interrupted"`],
    ["an element of a list in a nested part", (s) => void (s.usage.unpriced_models = ["a", 7]), "field usage.unpriced_models.1 is not a string"],
    ["a scorer's statistics", (s) => void (s.scoring.scorers.exact.mean = "high"), "field scoring needs scorers and pass_rule"]
  ]
  for (const [name, spoil, problem] of cases) {
    it(name, () => {
      const s = good()
      spoil(s)
      const read = Summary.decodeReported(s)
      assert.isTrue(Result.isFailure(read))
      if (Result.isFailure(read)) assert.include(read.failure, problem)
    })
  }

  it.effect("report --summary: the message names the file and the field", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-summary-schema-"))
      const file = path.join(dir, "s.json")
      const s = good()
      s.usage.unpriced_models = [7]
      fs.writeFileSync(file, JSON.stringify(s))
      const result = yield* Effect.result(Report.readSummary(file))
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) {
        assert.strictEqual(
          result.failure.message,
          `${file}: not a run summary (run --summary FILE): field usage.unpriced_models.0 is not a string`
        )
      }
      fs.rmSync(dir, { recursive: true, force: true })
    }).pipe(Effect.provide(NodeServices.layer)))
})

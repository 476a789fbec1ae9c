/**
 * A run's counts (programs/run/Counts.ts): one object the stages write and
 * the progress line and the end of the run read; the writer's lines and
 * failure are read through it, and a snapshot is a copy that later counts do
 * not change.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { MutableCounts } from "../src/programs/run/internal/counts.ts"
import type { Counts } from "../src/programs/run/Counts.ts"
import { ResultsWriteError, type Writer } from "../src/results/Results.ts"

const writerOf = (written: () => number, failure: () => ResultsWriteError | undefined): Writer => ({
  append: () => Effect.void,
  flush: Effect.void,
  written,
  failure
})

describe("a run's counts", () => {
  it("start at nothing, with the total they are given, and no writer", () => {
    const counts: Counts = new MutableCounts(12)
    const snapshot = counts.snapshot()
    assert.deepStrictEqual({ ...snapshot, probe: undefined, scoreProbe: undefined }, {
      skipped: 0,
      invalidLines: 0,
      total: 12,
      written: 0,
      writeFailure: undefined,
      unwritten: [],
      gateFailure: undefined,
      unpricedPending: [],
      probe: undefined,
      scoreProbe: undefined
    })
    assert.strictEqual(snapshot.probe.completed, 0)
    assert.strictEqual(snapshot.scoreProbe.completed, 0)
    assert.strictEqual(new MutableCounts(undefined).total, undefined)
  })

  it("read the lines written and the write failure from the writer, live", () => {
    const counts = new MutableCounts(undefined)
    let lines = 0
    let failure: ResultsWriteError | undefined
    counts.writer = writerOf(() => lines, () => failure)
    lines = 3
    assert.strictEqual(counts.written, 3)
    assert.isUndefined(counts.writeFailure)
    failure = new ResultsWriteError({ path: "out.jsonl", message: "cannot write out.jsonl", lost: 2 })
    assert.strictEqual(counts.writeFailure, failure)
    assert.strictEqual(counts.snapshot().writeFailure, failure)
  })

  it("a snapshot is a copy: what the stages count afterwards does not change it", () => {
    const counts = new MutableCounts(4)
    counts.skipped = 2
    counts.invalidLines = 1
    counts.unwritten.push("cannot write report.html")
    counts.unpricedPending.push("gpt-x")
    counts.probe.unitStarted()
    counts.probe.unitEnded(false)
    const before = counts.snapshot()
    counts.skipped++
    counts.invalidLines++
    counts.total = 9
    counts.unwritten.push("cannot write summary.json")
    counts.unpricedPending.splice(0)
    counts.probe.unitStarted()
    counts.probe.unitEnded(true)
    assert.strictEqual(before.skipped, 2)
    assert.strictEqual(before.invalidLines, 1)
    assert.strictEqual(before.total, 4)
    assert.deepStrictEqual(before.unwritten, ["cannot write report.html"])
    assert.deepStrictEqual(before.unpricedPending, ["gpt-x"])
    assert.strictEqual(before.probe.completed, 1)
    assert.deepStrictEqual(
      [counts.snapshot().skipped, counts.snapshot().total, counts.snapshot().unwritten.length, counts.snapshot().probe.failed],
      [3, 9, 2, 1]
    )
  })
})

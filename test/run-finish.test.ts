/**
 * The end of a run (programs/run/Finish.ts): its exit decided in order (a
 * write failure first, whatever else went wrong; then an output that could
 * not be written, the others told on stderr; last a failed gate), and
 * `prepare` (programs/run/Prepare.ts) building the plan the end reads.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { TestConsole } from "effect/testing"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Finish from "../src/programs/run/Finish.ts"
import { MutableCounts } from "../src/programs/run/internal/counts.ts"
import * as Prepare from "../src/programs/run/Prepare.ts"
import { ResultsWriteError, type Writer } from "../src/results/Results.ts"
import { RunInputError } from "../src/runner/Remote.ts"
import { GatesFailed } from "../src/summary/Gates.ts"
import { configOf } from "./run-stages.ts"
import * as Kinds from "../src/programs/Kinds.ts"

const gateFailed = new GatesFailed({
  results: [{ gate: "exact=0.9", name: "exact", on: "mean", threshold: 0.9, value: 0.5, verdict: "fail", reason: "mean 0.5 < 0.9" }]
})
const failedWriter = (failure: ResultsWriteError): Writer => ({
  append: () => Effect.void,
  flush: Effect.void,
  written: () => 1,
  failure: () => failure
})
const errorOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined

describe("Finish.exitDecision", () => {
  it.effect("nothing noted: the run's own exit", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(Effect.succeed(1).pipe(Finish.exitDecision(counts)))))
      const own = new RunInputError({ message: "bad" })
      assert.strictEqual(errorOf(yield* Effect.exit(Effect.fail(own).pipe(Finish.exitDecision(counts)))), own)
    }))

  it.effect("a write failure decides the exit whatever else went wrong, as a RunWriteError naming what to do", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      counts.writer = failedWriter(new ResultsWriteError({ path: "out.jsonl", message: "cannot write out.jsonl: EIO", lost: 3 }))
      counts.unwritten.push("cannot write report.html")
      counts.gateFailure = gateFailed
      const error = errorOf(yield* Effect.exit(Effect.fail(new RunInputError({ message: "bad" })).pipe(Finish.exitDecision(counts))))
      assert.instanceOf(error, Finish.RunWriteError)
      assert.strictEqual(
        error?.message,
        "cannot write out.jsonl: EIO; the run stopped (the summary counts what the file holds; --resume runs the rest)"
      )
    }))

  it.effect("after a run that ended well: the last unwritten output is the error, the others told on stderr; before the gate", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      counts.unwritten.push("cannot write report.html", "cannot write summary.json")
      counts.gateFailure = gateFailed
      const error = errorOf(yield* Effect.exit(Effect.void.pipe(Finish.exitDecision(counts))))
      assert.instanceOf(error, Finish.RunWriteError)
      assert.strictEqual(error?.message, "cannot write summary.json")
      assert.deepStrictEqual(yield* TestConsole.errorLines, ["agent-trials: cannot write report.html"])
    }))

  it.effect("last: a failed gate on a run that finished and wrote everything", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      counts.gateFailure = gateFailed
      const error = errorOf(yield* Effect.exit(Effect.void.pipe(Finish.exitDecision(counts))))
      assert.instanceOf(error, Finish.RunGateFailed)
      assert.strictEqual(error?.message, gateFailed.message)
    }))
})

describe("Prepare.prepare", () => {
  it.effect("builds the plan of a fresh run: its results file, its scorers, the definition written, nothing recorded", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-prepare-"))
      const out = path.join(dir, "out.jsonl")
      const counts = new MutableCounts(undefined)
      const plan = yield* Prepare.prepare(configOf({ out, synthetic: 3, cwd: dir }), counts)
      assert.strictEqual(plan.out, out)
      assert.deepStrictEqual(plan.scorers.map((s) => s.name), ["exact"])
      assert.isTrue(plan.wroteDefinition)
      assert.isTrue(fs.existsSync(`${out}.run.json`))
      assert.strictEqual(plan.recorded.kept, 0)
      assert.isFalse(plan.budgeted)
      assert.isUndefined(plan.estimateTotal)
      assert.match(plan.runId, /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-z]{6}$/)
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici, Kinds.layer()))))

  it.effect("prepare(config) alone makes the run's counts, sized to its synthetic tasks, and hands them in the plan", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-prepare-"))
      const plan = yield* Prepare.prepare(configOf({ out: path.join(dir, "out.jsonl"), synthetic: 4, epochs: 2, cwd: dir }))
      assert.instanceOf(plan.counts, MutableCounts)
      assert.strictEqual(plan.counts.total, 8)
      assert.strictEqual(plan.counts.skipped, 0)
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici, Kinds.layer()))))

  it.effect("refuses a bad combination of flags before building anything", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Prepare.prepare(configOf({ resume: true }), new MutableCounts(undefined)))
      assert.instanceOf(error, RunInputError)
      assert.strictEqual(error.message, "--resume needs --out FILE: the results file to continue")
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici, Kinds.layer()))))
})

/**
 * The gate test of a matrix's one runner (issue 40, part 2): four cells,
 * each its own agent, every call held on one gate; while it is closed the
 * probe shows exactly `parallelism` calls and outstanding trials over the
 * whole matrix (never per cell), started task-major; each cell keeps its own
 * policy (one cell's timeout fails its trials alone). Then the same through
 * `Matrix.run`, its files on disk: the probe it is given holds `parallelism`
 * outstanding over three cells while every call is held.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Latch, Layer, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as AgentKinds from "../src/agents/AgentKinds.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import * as Matrix from "../src/programs/matrix/Matrix.ts"
import { configOf } from "./run-stages.ts"
import { TestClock } from "effect/testing"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { type CellUnit, helperFibers, runCells } from "../src/runner/Runner.ts"

const PARALLELISM = 6
const CELLS = 4
const TASKS = 64

type GateSpec = { readonly _tag: "Gate"; readonly name: string }

// An agent kind whose agents note their call, wait at one gate, then answer right; and the layer that knows it.
const gatedKind = Effect.gen(function*() {
  const gate = yield* Latch.make(false)
  const started: Array<string> = []
  const kind: AgentKinds.AgentKind<GateSpec> = {
    tag: "Gate",
    matches: (text) => text.startsWith("gate:"),
    usage: "gate:NAME",
    help: "gate:NAME",
    doc: "Waits at the test's gate",
    parse: (text) => ({ _tag: "Gate", name: text.slice(5) }),
    format: (spec) => `gate:${spec.name}`,
    recorded: (spec) => `gate:${spec.name}`,
    build: (spec) =>
      Effect.succeed((task) =>
        Effect.sync(() => void started.push(`${task.id}/${spec.name}`)).pipe(
          Effect.andThen(gate.await),
          Effect.as({ output_text: String(task.reference) })
        )
      )
  }
  const layer = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici, Kinds.layer({ agents: [kind] }))
  return { gate, started, layer }
})

// The cells' files are prepared on disk first: waits (bounded) until the runner has filled its slots.
const startedAll = (started: ReadonlyArray<string>, n: number) =>
  Effect.gen(function*() {
    for (let i = 0; started.length < n; i++) {
      if (i === 1000) return yield* Effect.die(`the matrix started ${started.length} calls of ${n} in 10 s`)
      yield* Effect.sleep("10 millis")
    }
    // Held: nothing finishes, so nothing more is admitted.
    yield* Effect.sleep("50 millis")
  })

const unitsOf = (tasks: number, cells: number): Stream.Stream<CellUnit> =>
  Stream.fromIterable({
    *[Symbol.iterator]() {
      for (let t = 0; t < tasks; t++) for (let cell = 0; cell < cells; cell++) yield { task: { id: `t${t}`, inputs: { t } }, epoch: 1, cell }
    }
  })

describe("matrix gate: 4 cells x 64 tasks, parallelism 6, every call held", () => {
  it.effect("6 active and 6 outstanding over the whole matrix, started task-major; each cell's own timeout", () =>
    Effect.gen(function*() {
      const gate = yield* Latch.make(false)
      const started: Array<string> = []
      const agentOf = (cell: number) => (task: { readonly id: string }) =>
        Effect.sync(() => void started.push(`${task.id}/${cell}`)).pipe(
          Effect.andThen(gate.await),
          Effect.andThen(Effect.sleep("1 second")),
          Effect.as({ output_text: `${cell}:${task.id}` })
        )
      const probe = new MutableProbe()
      const out: Array<{ readonly unit: CellUnit; readonly trial: AgentEvalTrial }> = []
      const fiber = yield* runCells(
        unitsOf(TASKS, CELLS),
        // Cell 2 times out after half a second: its trials alone fail.
        [0, 1, 2, 3].map((cell) => ({ agent: agentOf(cell), policy: cell === 2 ? { timeout: "500 millis" } : {} })),
        { parallelism: PARALLELISM, probe }
      ).pipe(Stream.runForEach((paired) => Effect.sync(() => void out.push(paired))), Effect.forkChild)
      yield* TestClock.adjust(0)
      const held = probe.snapshot()
      assert.strictEqual(held.active, PARALLELISM)
      assert.strictEqual(held.outstanding, PARALLELISM)
      assert.strictEqual(held.peakOutstanding, PARALLELISM)
      assert.strictEqual(held.started, PARALLELISM)
      // Besides the trials and the helper: the one held call of the cell with a
      // timeout runs in a race of two fibers (`helperFibers`' doc).
      assert.strictEqual(held.liveFibers, PARALLELISM + helperFibers(false) + 2)
      // Task-major: task 0's four cells, then task 1's first two.
      assert.deepStrictEqual(started, ["t0/0", "t0/1", "t0/2", "t0/3", "t1/0", "t1/1"])

      yield* gate.open
      yield* TestClock.adjust(`${TASKS * CELLS} seconds`)
      yield* Fiber.join(fiber)
      assert.strictEqual(out.length, TASKS * CELLS)
      // Every call started task-major, not only the first wave.
      assert.deepStrictEqual(started, Array.from({ length: TASKS * CELLS }, (_, i) => `t${Math.floor(i / CELLS)}/${i % CELLS}`))
      assert.strictEqual(probe.peakActive, PARALLELISM)
      assert.strictEqual(probe.peakOutstanding, PARALLELISM)
      assert.strictEqual(probe.liveFibers, 0)
      for (let cell = 0; cell < CELLS; cell++) {
        const trials = out.filter((p) => p.unit.cell === cell).map((p) => p.trial)
        assert.strictEqual(trials.length, TASKS)
        if (cell === 2) {
          assert.isTrue(trials.every((t) => t.status === "failed" && t.error?.type === "Timeout"))
        } else {
          assert.isTrue(trials.every((t) => t.status === "completed" && t.output?.output_text === `${cell}:${t.task_id}`))
        }
      }
    }))

  it.effect("a bad parallelism is refused before any call, as runTrials refuses it", () =>
    Effect.gen(function*() {
      const error = yield* runCells(unitsOf(2, 2), [{ agent: () => Effect.die("called"), policy: {} }], { parallelism: 0 }).pipe(
        Stream.runDrain,
        Effect.flip
      )
      assert.strictEqual(error._tag, "InvalidParallelism")
    }))

  it.live("Matrix.run, 3 cells x 40 tasks at parallelism 5: 5 outstanding over the matrix while every call is held", () =>
    Effect.gen(function*() {
      const { gate, layer, started } = yield* gatedKind
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "matrix-gate-"))
      const probe = new MutableProbe()
      const cells = ["a", "b", "c"].map((name) => ({
        name,
        config: configOf({ synthetic: 40, parallelism: 5, agent: { _tag: "Gate", name } })
      }))
      const fiber = yield* Matrix.run({ cells, outDir: dir, probe }).pipe(Effect.provide(layer), Effect.forkChild)
      yield* startedAll(started, 5)
      const held = probe.snapshot()
      assert.strictEqual(held.active, 5)
      assert.strictEqual(held.outstanding, 5)
      assert.strictEqual(held.peakOutstanding, 5)
      assert.deepStrictEqual(started, ["synthetic-0/a", "synthetic-0/b", "synthetic-0/c", "synthetic-1/a", "synthetic-1/b"])
      yield* gate.open
      const summary = yield* Fiber.join(fiber)
      assert.strictEqual(started.length, 120)
      assert.strictEqual(probe.peakOutstanding, 5)
      assert.strictEqual(probe.peakActive, 5)
      for (const name of ["a", "b", "c"]) {
        assert.strictEqual(fs.readFileSync(path.join(dir, `${name}.jsonl`), "utf8").trim().split("\n").length, 40)
        assert.strictEqual(summary.cells[name].scoring?.scorers["exact"].mean, 1)
        assert.strictEqual(summary.cells[name].peak_outstanding, 5)
      }
    }))

  it.live("Ctrl-C while every call is held: the summary is still written, each cell's interrupted trials its own", () =>
    Effect.gen(function*() {
      const { layer, started } = yield* gatedKind
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "matrix-gate-"))
      const cells = ["a", "b", "c"].map((name) => ({ name, config: configOf({ synthetic: 40, parallelism: 5, agent: { _tag: "Gate", name } }) }))
      const summaryFile = path.join(dir, "summary.json")
      const fiber = yield* Matrix.run({ cells, outDir: path.join(dir, "m"), summary: summaryFile }).pipe(Effect.provide(layer), Effect.forkChild)
      yield* startedAll(started, 5)
      yield* Fiber.interrupt(fiber)
      const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
      assert.strictEqual(summary.outcome, "interrupted")
      // Task-major: a, b, c of task 0 and a, b of task 1 were held.
      assert.deepStrictEqual(["a", "b", "c"].map((name) => summary.cells[name].trials.not_recorded), [
        { finished: 0, interrupted: 2 },
        { finished: 0, interrupted: 2 },
        { finished: 0, interrupted: 1 }
      ])
    }))
})

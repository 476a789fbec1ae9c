/**
 * A matrix run end to end (issue 40, part 2): 2 agents (two base URLs of
 * one real OpenAI-compatible server on 127.0.0.1) x 2 models, through
 * `Matrix.run`. The server counts the requests it holds at once: the peak
 * over every cell stays within the one `parallelism`. Calls arrive
 * task-major; one budget stops every cell with comparable partial cells;
 * each cell's file is an ordinary results file that `compare` reads; a
 * resume runs only what each cell lacks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Compare from "../src/programs/compare/Compare.ts"
import * as Matrix from "../src/programs/matrix/Matrix.ts"
import { cellsOf, lines, platform, server, tempDir } from "./matrix-server.ts"

describe("Matrix.run: 2 agents x 2 models against a real server", () => {
  it.live("one bound over every cell (server-side peak <= parallelism), a file per cell that compare reads", () =>
    Effect.gen(function*() {
      const s = yield* server(5)
      const dir = tempDir()
      const summaryFile = path.join(dir, "summary.json")
      const cells = cellsOf(s.base, { synthetic: 10, parallelism: 3 })
      const summary = yield* Matrix.run({ cells, outDir: path.join(dir, "m"), summary: summaryFile })
      assert.strictEqual(s.state.calls.length, 40)
      assert.isAtMost(s.state.peak, 3)
      assert.isAtLeast(s.state.peak, 1)
      const names = cells.map((c) => c.name)
      assert.deepStrictEqual(names, [
        `127.0.0.1-${s.port}-a-v1_m1`,
        `127.0.0.1-${s.port}-a-v1_m2`,
        `127.0.0.1-${s.port}-b-v1_m1`,
        `127.0.0.1-${s.port}-b-v1_m2`
      ].map((n) => `openai-${n}`))
      // matrix.json names every cell, its values and files.
      const matrixFile = JSON.parse(fs.readFileSync(path.join(dir, "m", "matrix.json"), "utf8"))
      assert.deepStrictEqual(matrixFile.cells.map((c: { name: string }) => c.name), names)
      assert.deepStrictEqual(matrixFile.cells[3].values, { agent: `openai:${s.base}/b/v1`, model: "m2" })
      for (const [i, name] of names.entries()) {
        const file = path.join(dir, "m", `${name}.jsonl`)
        assert.strictEqual(matrixFile.cells[i].results_file, file)
        const trials = lines(file)
        assert.strictEqual(trials.length, 10)
        assert.isTrue(trials.every((t) => t.status === "completed" && t.scores?.exact !== undefined))
        // Its own run definition: the cell's model.
        const definition = JSON.parse(fs.readFileSync(matrixFile.cells[i].definition_file, "utf8"))
        assert.include(JSON.stringify(definition), cells[i].config.model!)
        assert.strictEqual(summary.cells[name].trials.total.total, 10)
        assert.isAtMost(summary.cells[name].peak_outstanding, 3)
      }
      // The server's answers: every cell right but b x m2, wrong on the 5 odd tasks.
      assert.deepStrictEqual(names.map((n) => summary.cells[n].scoring?.scorers["exact"].mean), [1, 1, 1, 0.5])
      // Each cell against the first, Holm over the 3 x 1 (cell, scorer) pairs.
      assert.deepStrictEqual(summary.comparisons.map((c) => [c.cell, c.base, c.paired_tasks]), names.slice(1).map((n) => [n, names[0], 10]))
      const last = summary.comparisons[2].scorers[0]
      assert.strictEqual(last.delta, -0.5)
      assert.isAtMost(last.p_value!, last.p_holm!)
      // compare reads two cells' files alone, and agrees.
      const direct = yield* Compare.run({
        base: path.join(dir, "m", `${names[0]}.jsonl`),
        new: path.join(dir, "m", `${names[3]}.jsonl`),
        pass: undefined,
        json: undefined,
        html: undefined,
        failOnRegression: false
      })
      assert.strictEqual(direct.scorers[0].delta, last.delta)
      assert.strictEqual(direct.scorers[0].p_value, last.p_value)
      // The --summary JSON: cells by name, and the comparisons.
      const written = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
      assert.deepStrictEqual(Object.keys(written.cells), names)
      assert.strictEqual(written.comparisons.length, 3)
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("calls arrive task-major: each task's four cells next to each other", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      yield* Matrix.run({ cells: cellsOf(s.base, { synthetic: 3, parallelism: 1 }), outDir: dir })
      assert.deepStrictEqual(
        s.state.calls.map((c) => `${c.task}:${c.agent}/${c.model}`),
        [0, 1, 2].flatMap((t) => [`${t}:a/m1`, `${t}:a/m2`, `${t}:b/m1`, `${t}:b/m2`])
      )
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("one budget over every cell stops them all with comparable partial cells; a resume runs what each lacks", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      // 23 tokens a trial: the budget holds 9 trials of the 4 x 8.
      const cells = cellsOf(s.base, { synthetic: 8, parallelism: 1, maxTokens: 9 * 23 })
      const summaryFile = path.join(dir, "stopped.json")
      const exit = yield* Effect.exit(Matrix.run({ cells, outDir: dir, summary: summaryFile }))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.map((r) => (r as { error?: { _tag?: string } }).error?._tag) : []
      assert.include(error, "BudgetExceeded")
      const counts = cells.map((c) => fs.existsSync(path.join(dir, `${c.name}.jsonl`)) ? lines(path.join(dir, `${c.name}.jsonl`)).length : 0)
      const recorded = counts.reduce((a, b) => a + b, 0)
      assert.strictEqual(recorded, 9)
      assert.strictEqual(s.state.calls.length, 9)
      // Task-major: the cells differ by at most one trial, and the first cells are ahead.
      assert.deepStrictEqual(counts, [3, 2, 2, 2])
      // Each cell's summary counts its own trials; the budget is the one of every cell.
      const stopped = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
      for (const [i, cell] of cells.entries()) {
        const own = stopped.cells[cell.name]
        assert.strictEqual(own.outcome, "max_tokens_reached")
        assert.strictEqual(own.trials.this_run.total, counts[i])
        assert.deepStrictEqual(own.trials.not_recorded, { finished: 0, interrupted: 0 })
        assert.strictEqual(own.usage.budget.max_tokens, 9 * 23)
      }
      // The resume: the same matrix without the budget runs only the missing trials of each cell.
      const resumed = yield* Matrix.run({
        cells: cellsOf(s.base, { synthetic: 8, parallelism: 2, resume: true }),
        outDir: dir
      })
      assert.strictEqual(s.state.calls.length, 32)
      for (const cell of cells) {
        const trials = lines(path.join(dir, `${cell.name}.jsonl`))
        assert.strictEqual(trials.length, 8)
        assert.strictEqual(new Set(trials.map((t) => t.id)).size, 8)
        assert.strictEqual(resumed.cells[cell.name].trials.already_recorded.total, counts[cells.indexOf(cell)])
      }
      assert.strictEqual(resumed.outcome, "finished")
    }).pipe(Effect.scoped, Effect.provide(platform)))
})

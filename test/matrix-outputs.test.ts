/**
 * What a matrix run leaves (issue 40, part 2): the `--summary` JSON (cells
 * by name, comparisons) that its Schema decodes, the `--report` page (a row
 * per cell, a chart per scorer by cell, the comparison table); each cell's
 * file an ordinary results file (`run --resume --out` continues it alone,
 * `report` reads it); `--cell` runs some cells, `matrix.json` still naming
 * all; bad input refused before any call, naming the cell.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Report from "../src/programs/Report.ts"
import * as Cells from "../src/programs/matrix/Cells.ts"
import * as Matrix from "../src/programs/matrix/Matrix.ts"
import { MatrixSummary } from "../src/programs/matrix/Model.ts"
import * as Run from "../src/programs/run/Run.ts"
import { cellsOf, lines, platform, server, tempDir } from "./matrix-server.ts"
import { configOf } from "./run-stages.ts"

const failureOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? exit.cause.reasons.map((r) => (r as { readonly error?: unknown }).error).find((e) => e !== undefined) : undefined

describe("Matrix.run outputs", () => {
  it.live("--summary is a MatrixSummary; --report draws a row per cell, a chart per scorer and the comparisons", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const cells = cellsOf(s.base, { synthetic: 6, parallelism: 4 })
      const summaryFile = path.join(dir, "summary.json")
      const html = path.join(dir, "matrix.html")
      yield* Matrix.run({ cells, outDir: path.join(dir, "m"), summary: summaryFile, report: html })
      const decoded = Schema.decodeUnknownSync(MatrixSummary)(JSON.parse(fs.readFileSync(summaryFile, "utf8")))
      assert.deepStrictEqual(Object.keys(decoded.cells), cells.map((c) => c.name))
      assert.strictEqual(decoded.baseline, cells[0].name)
      assert.strictEqual(decoded.judged, 3)
      assert.deepStrictEqual(decoded.comparisons.map((c) => c.scorers.map((x) => x.scorer)), [["exact"], ["exact"], ["exact"]])
      const page = fs.readFileSync(html, "utf8")
      for (const cell of cells) assert.include(page, cell.name)
      assert.include(page, "exact by cell")
      assert.strictEqual(page.match(/<svg/g)?.length, 1)
      assert.include(page, `Compared with ${cells[0].name}`)
      assert.include(page, "http-equiv=\"Content-Security-Policy\"")
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("a cell's file is an ordinary results file: run --resume --out continues it alone, report reads it", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const cells = cellsOf(s.base, { synthetic: 5, parallelism: 1, maxTokens: 6 * 23 })
      yield* Effect.exit(Matrix.run({ cells, outDir: dir }))
      const file = path.join(dir, `${cells[3].name}.jsonl`)
      assert.strictEqual(lines(file).length, 1)
      const before = s.state.calls.length
      yield* Run.run({ ...cells[3].config, out: file, resume: true })
      assert.strictEqual(lines(file).length, 5)
      // Only that cell's missing trials ran, by its own agent and model.
      assert.deepStrictEqual(s.state.calls.slice(before).map((c) => `${c.agent}/${c.model}`), ["b/m2", "b/m2", "b/m2", "b/m2"])
      const html = path.join(dir, "cell.html")
      const written = yield* Report.report({ results: file, html, maxRows: 100 })
      assert.strictEqual(written.trials, 5)
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("--cell runs only the cells selected; matrix.json keeps naming every cell", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const all = cellsOf(s.base, { synthetic: 3, parallelism: 2 })
      yield* Matrix.run({ cells: all, outDir: dir })
      const chosen = Cells.select(all, [all[1].name])
      assert.isTrue(chosen._tag === "Success")
      const before = s.state.calls.length
      fs.rmSync(path.join(dir, `${all[1].name}.jsonl`))
      fs.rmSync(path.join(dir, `${all[1].name}.jsonl.run.json`))
      yield* Matrix.run({ cells: chosen._tag === "Success" ? chosen.success : [], outDir: dir })
      assert.deepStrictEqual(s.state.calls.slice(before).map((c) => `${c.agent}/${c.model}`), ["a/m2", "a/m2", "a/m2"])
      const named = JSON.parse(fs.readFileSync(path.join(dir, "matrix.json"), "utf8"))
      assert.deepStrictEqual(named.cells.map((c: { name: string }) => c.name), all.map((c) => c.name))
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("matrix.json shows a cell's values without a URL's credentials or query values", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const values = { agent: "openai:https://me:hunter2pw@h.example/v1?api_key=sk-sekrit12345", model: "m1" }
      yield* Matrix.run({ cells: [{ name: "one", values, config: configOf({ synthetic: 2 }) }], outDir: dir })
      const text = fs.readFileSync(path.join(dir, "matrix.json"), "utf8")
      assert.notInclude(text, "hunter2pw")
      assert.notInclude(text, "sk-sekrit12345")
      assert.deepStrictEqual(JSON.parse(text).cells[0].values, {
        agent: "openai:https://<redacted>@h.example/v1?api_key=<redacted>",
        model: "m1"
      })
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("bad input is refused before any call: a cell that varies the dataset, a cell's bad flag named with the cell", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const cells = cellsOf(s.base, { synthetic: 3 })
      const varied = yield* Effect.exit(Matrix.run({
        cells: cells.map((c, i) => i === 2 ? { ...c, config: { ...c.config, synthetic: 4 } } : c),
        outDir: path.join(dir, "a")
      }))
      const e1 = failureOf(varied) as Cells.MatrixCellError
      assert.strictEqual(e1._tag, "MatrixCellError")
      assert.deepStrictEqual([e1.index, e1.key], [2, "synthetic"])
      assert.isFalse(fs.existsSync(path.join(dir, "a")))
      const badScore = yield* Effect.exit(Matrix.run({
        cells: cells.map((c, i) => i === 1 ? { ...c, config: { ...c.config, score: ["no-such-scorer"] } } : c),
        outDir: path.join(dir, "b")
      }))
      const e2 = failureOf(badScore) as Run.RunInputError
      assert.strictEqual(e2._tag, "RunInputError")
      assert.match(e2.message, new RegExp(`^cell ${cells[1].name}: `))
      // The first cell, prepared before, leaves no run definition beside no results file.
      assert.deepStrictEqual(fs.readdirSync(path.join(dir, "b")), [])
      const clash = yield* Effect.exit(Matrix.run({ cells, outDir: path.join(dir, "c"), summary: path.join(dir, "c", `${cells[2].name}.jsonl`) }))
      const e3 = failureOf(clash) as Run.RunInputError
      assert.strictEqual(e3.flag, "--summary")
      assert.include(e3.message, `is the same file as --out-dir (cell ${cells[2].name})`)
      const resumeNoDir = yield* Effect.exit(Matrix.run({ cells: cells.map((c) => ({ ...c, config: { ...c.config, resume: true } })) }))
      assert.strictEqual((failureOf(resumeNoDir) as Run.RunInputError).flag, "--resume")
      assert.strictEqual(s.state.calls.length, 0)
    }).pipe(Effect.scoped, Effect.provide(platform)))

  it.live("each cell's --fail-under gates, named with the cell, fail the matrix; the progress line counts every cell", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const progress: Array<string> = []
      const cells = cellsOf(s.base, {
        synthetic: 4,
        parallelism: 2,
        progress: true,
        progressInterval: 600_000,
        failUnder: [{ name: "exact", threshold: 0.9, on: "mean" }]
      })
      const exit = yield* Effect.exit(Matrix.run({ cells, outDir: dir, summary: path.join(dir, "s.json"), progress: (t) => void progress.push(t) }))
      const error = failureOf(exit) as Run.RunGateFailed
      assert.strictEqual(error._tag, "RunGateFailed")
      assert.deepStrictEqual(error.results.filter((r) => r.verdict === "fail").map((r) => r.gate), [`${cells[3].name}: exact=0.9`])
      assert.include(error.message, `${cells[3].name}: exact=0.9`)
      const written = JSON.parse(fs.readFileSync(path.join(dir, "s.json"), "utf8"))
      assert.strictEqual(written.gates.length, 4)
      // The one last line of a log: every cell's trials.
      assert.match(progress.at(-1)!, /^progress: 16\/16 \(100%\)/)
    }).pipe(Effect.scoped, Effect.provide(platform)))
})

/**
 * A matrix through the CLI (issue 40, part 2): a config file's `matrix:` of
 * 2 agents (two base URLs of one real OpenAI-compatible server on 127.0.0.1)
 * x 2 models, run by `run`. The server counts what it holds at once: the
 * peak over every cell stays within `parallelism`; calls arrive task-major;
 * `--max-tokens` is one budget over the cells; each cell's file is read by
 * `compare`; `--cell` runs some cells; a flag for a key the matrix varies is
 * refused; `run --resume` continues every cell.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { server } from "./matrix-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const configFile = (dir: string, base: string, shared: string) => {
  const file = path.join(dir, "eval.yaml")
  fs.writeFileSync(
    file,
    `${shared}no-progress: true\nscore: [exact]\nout-dir: m\nmatrix:\n` +
      `  agent: ["openai:${base}/a/v1", "openai:${base}/b/v1"]\n  model: [m1, m2]\n`
  )
  return file
}

const cellNames = (port: number) =>
  ["a-v1_m1", "a-v1_m2", "b-v1_m1", "b-v1_m2"].map((n) => `openai-127.0.0.1-${port}-${n}`)

const env = { OPENAI_API_KEY: "sk-matrix-test" }

describe("run with a matrix: in the config file", () => {
  it.live("one bound over every cell, a results file per cell that compare reads, the summary's cells and comparisons", () =>
    Effect.gen(function*() {
      const s = yield* server(5)
      const dir = tempDir()
      const file = configFile(dir, s.base, "synthetic: 8\nparallelism: 3\nsummary: summary.json\n")
      const result = yield* Effect.promise(() => run(["--config", file], { env }))
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.strictEqual(s.state.calls.length, 32)
      assert.isAtMost(s.state.peak, 3)
      const names = cellNames(s.port)
      for (const name of names) {
        assert.strictEqual(readTrials(path.join(dir, "m", `${name}.jsonl`)).length, 8)
        assert.include(result.stdout, name)
      }
      const matrix = JSON.parse(fs.readFileSync(path.join(dir, "m", "matrix.json"), "utf8"))
      assert.deepStrictEqual(matrix.cells.map((c: { name: string }) => c.name), names)
      const summary = JSON.parse(fs.readFileSync(path.join(dir, "summary.json"), "utf8"))
      assert.deepStrictEqual(Object.keys(summary.cells), names)
      assert.strictEqual(summary.comparisons.length, 3)
      const compare = yield* Effect.promise(() =>
        run([path.join(dir, "m", `${names[0]}.jsonl`), path.join(dir, "m", `${names[3]}.jsonl`)], { command: "compare" })
      )
      assert.strictEqual(compare.code, 0, describeResult(compare))
      assert.include(compare.stdout, "exact")
    }).pipe(Effect.scoped), 120_000)

  it.live("task-major: each task's four cells next to each other; --max-tokens is one budget over the cells", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const file = configFile(dir, s.base, "synthetic: 3\nparallelism: 1\n")
      const ordered = yield* Effect.promise(() => run(["--config", file], { env }))
      assert.strictEqual(ordered.code, 0, describeResult(ordered))
      assert.deepStrictEqual(s.state.calls.map((c) => c.task), [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
      assert.deepStrictEqual(
        s.state.calls.slice(0, 4).map((c) => `${c.agent}/${c.model}`),
        ["a/m1", "a/m2", "b/m1", "b/m2"]
      )
      // 23 tokens a call: the budget of 150 stops every cell after 7 trials in all, the cells even.
      s.state.calls.length = 0
      const budgeted = path.join(dir, "budget.yaml")
      fs.writeFileSync(budgeted, fs.readFileSync(file, "utf8").replace("out-dir: m", "out-dir: b").replace("synthetic: 3", "synthetic: 10") + "max-tokens: 150\n")
      const stopped = yield* Effect.promise(() => run(["--config", budgeted], { env }))
      assert.strictEqual(stopped.code, 1, describeResult(stopped))
      const counts = cellNames(s.port).map((name) => readTrials(path.join(dir, "b", `${name}.jsonl`)).length)
      assert.strictEqual(counts.reduce((a, b) => a + b, 0), s.state.calls.length)
      assert.isAtMost(Math.max(...counts) - Math.min(...counts), 1, `cells left comparable: ${counts}`)
      assert.isBelow(s.state.calls.length, 40)
    }).pipe(Effect.scoped), 120_000)

  it.live("--cell runs some cells; a flag for a key the matrix varies is refused; --resume continues every cell", () =>
    Effect.gen(function*() {
      const s = yield* server(0)
      const dir = tempDir()
      const file = configFile(dir, s.base, "synthetic: 4\nparallelism: 2\n")
      const names = cellNames(s.port)
      const refused = yield* Effect.promise(() => run(["--config", file, "--model", "m1"], { env }))
      assert.strictEqual(refused.code, 2, describeResult(refused))
      assert.include(refused.stderr, "--model would set model for every cell")
      const unknown = yield* Effect.promise(() => run(["--config", file, "--cell", "nope"], { env }))
      assert.strictEqual(unknown.code, 2, describeResult(unknown))
      assert.include(unknown.stderr, `no cell is named "nope"`)
      assert.strictEqual(s.state.calls.length, 0)
      const one = yield* Effect.promise(() => run(["--config", file, "--cell", names[1]], { env }))
      assert.strictEqual(one.code, 0, describeResult(one))
      assert.strictEqual(s.state.calls.length, 4)
      assert.isTrue(s.state.calls.every((c) => c.agent === "a" && c.model === "m2"))
      const resumed = yield* Effect.promise(() => run(["--config", file, "--resume"], { env }))
      assert.strictEqual(resumed.code, 0, describeResult(resumed))
      // The three other cells' trials only: the recorded cell is not asked again.
      assert.strictEqual(s.state.calls.length, 16)
      for (const name of names) assert.strictEqual(readTrials(path.join(dir, "m", `${name}.jsonl`)).length, 4)
      const noMatrix = yield* Effect.promise(() => run(["--synthetic", "2", "--cell", names[0]]))
      assert.strictEqual(noMatrix.code, 2, describeResult(noMatrix))
      assert.include(noMatrix.stderr, "--cell is for a matrix")
    }).pipe(Effect.scoped), 180_000)
})

/**
 * The cells of a matrix (issue 40, part 2): a map's cartesian product in key
 * order, a list of cells with optional names, readable bounded slugs, unique
 * names, and the errors of a bad `matrix:` value or an unknown `--cell`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import * as Cells from "../src/programs/matrix/Cells.ts"
import * as Shared from "../src/programs/matrix/Shared.ts"
import { configOf } from "./run-stages.ts"

const ok = <A, E>(r: Result.Result<A, E>): A => {
  if (Result.isFailure(r)) assert.fail(`expected success, got ${String((r.failure as { message?: string }).message)}`)
  return (r as Result.Success<A, E>).success
}
const failed = <A>(r: Result.Result<A, Cells.MatrixCellError>): Cells.MatrixCellError => {
  if (Result.isSuccess(r)) return assert.fail("expected a MatrixCellError")
  return r.failure
}

describe("cellsOf", () => {
  it("a map is the cartesian product of its lists, in key order, the last key fastest", () => {
    const cells = ok(Cells.cellsOf({ agent: ["sim", "openai:http://h/v1"], model: ["gpt-4o", "o3-mini"] }, "f.yaml"))
    assert.deepStrictEqual(cells.map((c) => c.name), ["sim_gpt-4o", "sim_o3-mini", "openai-h-v1_gpt-4o", "openai-h-v1_o3-mini"])
    assert.deepStrictEqual(cells[2].values, { agent: "openai:http://h/v1", model: "gpt-4o" })
  })

  it("a list gives one cell per map, its `name` kept and not among its values", () => {
    const cells = ok(Cells.cellsOf([{ name: "base", agent: "sim" }, { agent: "openai:https://api.example.com/v1", "max-turns": 5 }], "f.yaml"))
    assert.deepStrictEqual(cells, [
      { name: "base", values: { agent: "sim" } },
      { name: "openai-api.example.com-v1_max-turns-5", values: { agent: "openai:https://api.example.com/v1", "max-turns": 5 } }
    ])
  })

  it("slugs are lowercase [a-z0-9._-], booleans and lists readable, long ones cut with a hash", () => {
    assert.strictEqual(Cells.slugOf({ model: "GPT 4o (Fast)!" }, 0), "gpt-4o-fast")
    assert.strictEqual(Cells.slugOf({ adaptive: true, "mcp-per-trial": false }, 0), "adaptive_no-mcp-per-trial")
    assert.strictEqual(Cells.slugOf({ tools: ["mcp:npx server-a", "module:t.ts"] }, 0), "mcp-npx-server-a-module-t.ts")
    assert.strictEqual(Cells.slugOf({}, 2), "cell-3")
    const long = Cells.slugOf({ model: "m".repeat(200) }, 0)
    const other = Cells.slugOf({ model: "m".repeat(199) + "n" }, 0)
    assert.isAtMost(long.length, Cells.MAX_NAME)
    assert.match(long, /^[a-z0-9._-]+$/)
    assert.notStrictEqual(long, other)
  })

  it("a URL's credentials and query values never reach a name", () => {
    const slug = Cells.slugOf({ agent: "openai:https://me:hunter2pw@h.example/v1?api_key=sk-sekrit12345" }, 0)
    assert.strictEqual(slug, "openai-h.example-v1-api-key")
    assert.notInclude(slug, "hunter2")
    assert.notInclude(slug, "sekrit")
  })

  it("two cells of one name are refused, naming both and their values", () => {
    const e = failed(Cells.cellsOf([{ model: "A" }, { model: "a" }], "agent-trials.yaml"))
    assert.strictEqual(e.index, 1)
    assert.strictEqual(e.key, "name")
    assert.include(e.message, "agent-trials.yaml: matrix cell 2 key \"name\": its name \"a\" is also cell 1's (model=A; this one: model=a)")
  })

  it("a name that is not a safe file name is refused", () => {
    const e = failed(Cells.cellsOf([{ name: "../x", model: "a" }], "f.yaml"))
    assert.deepStrictEqual([e.index, e.key], [0, "name"])
    assert.include(e.message, "\"../x\" is not a safe file name")
    assert.include(failed(Cells.cellsOf([{ name: 3 }], "f.yaml")).message, "a cell's name is text")
  })

  it("a bad shape is refused, naming the key or the cell", () => {
    assert.strictEqual(failed(Cells.cellsOf({ model: "a" }, "f.yaml")).message, "f.yaml: matrix key \"model\": is string \"a\": each key of a matrix map takes a list of the values it varies over")
    assert.strictEqual(failed(Cells.cellsOf({ model: [] }, "f.yaml")).key, "model")
    assert.strictEqual(failed(Cells.cellsOf([], "f.yaml")).message, "f.yaml: matrix: is an empty list: give at least one cell (a map of run keys)")
    assert.strictEqual(failed(Cells.cellsOf([{ model: "a" }, "b"], "f.yaml")).index, 1)
    assert.include(failed(Cells.cellsOf(3, "f.yaml")).message, "give a map of key -> list of values, or a list of cells")
    assert.include(failed(Cells.cellsOf({ name: ["a"] }, "f.yaml")).message, "give the matrix as a list of cells to name them")
  })
})

describe("select", () => {
  const cells = ok(Cells.cellsOf({ agent: ["sim"], model: ["gpt-4o", "o3-mini"] }, "f.yaml"))

  it("keeps the named cells in the matrix's order; none named keeps all", () => {
    assert.deepStrictEqual(ok(Cells.select(cells, ["sim_o3-mini", "sim_gpt-4o"])).map((c) => c.name), ["sim_gpt-4o", "sim_o3-mini"])
    assert.strictEqual(ok(Cells.select(cells, [])).length, 2)
  })

  it("an unknown name is refused, naming the closest cell", () => {
    const e = failed(Cells.select(cells, ["sim_o3-mni"]))
    assert.strictEqual(e.where, "--cell")
    assert.strictEqual(
      e.message,
      "--cell: matrix: no cell is named \"sim_o3-mni\"; the closest is \"sim_o3-mini\" (cells: sim_gpt-4o, sim_o3-mini)"
    )
  })
})

describe("Shared.check", () => {
  it("refuses a cell that varies the dataset or the runner, naming the key", () => {
    const e = failed(Shared.check([
      { name: "a", config: configOf({ synthetic: 4 }) },
      { name: "b", config: configOf({ synthetic: 5 }) }
    ]))
    assert.deepStrictEqual([e.index, e.key], [1, "synthetic"])
    assert.include(e.message, "b sets synthetic to 5 and a to 4: the cells of a matrix read one dataset")
    const p = failed(Shared.check([{ name: "a", config: configOf() }, { name: "b", config: configOf({ parallelism: 7 }) }]))
    assert.strictEqual(p.key, "parallelism")
    assert.include(p.message, "share one runner and one budget")
  })

  it("refuses --cluster, --estimate and a cell's own out", () => {
    assert.strictEqual(failed(Shared.check([{ name: "a", config: configOf({ estimate: true }) }])).key, "estimate")
    assert.strictEqual(failed(Shared.check([{ name: "a", config: configOf({ out: "x.jsonl" }) }])).key, "out")
    assert.strictEqual(failed(Shared.check([{ name: "a", config: configOf({ cluster: "http://c" }) }])).key, "cluster")
  })

  it("refuses --workspace (its workspaces are a single run's, for now)", () => {
    const e = failed(Shared.check([{ name: "a", config: configOf({ workspace: true }) }]))
    assert.strictEqual(e.key, "workspace")
    assert.include(e.message, "--workspace is not supported in a matrix run yet")
  })

  it("accepts cells that vary their agent, model and policy", () => {
    ok(Shared.check([
      { name: "a", config: configOf({ model: "x", retries: 1 }) },
      { name: "b", config: configOf({ model: "y", maxTurns: 3 }) }
    ]))
  })
})

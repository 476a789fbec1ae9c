/**
 * Issue 37 (items 11 and 15): the tabular readers give back exactly the rows
 * a file holds, on real files written here. A Parquet footer whose row count
 * disagrees with its row groups is refused; CSV line endings are read per
 * record; a 100,000-column header is checked in one pass and a message names
 * at most 20 columns; `__proto__`, `constructor` and `prototype` are data;
 * `--json-path` to an object or to a key given twice (whatever its values) is refused; and CSV and
 * JSON files are counted for the progress total and `--estimate`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import { parquetMetadata } from "hyparquet"
import { parquetWriteBuffer } from "hyparquet-writer"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as Dataset from "../src/datasets/Dataset.ts"
import * as DatasetFormats from "../src/datasets/DatasetFormats.ts"
import { repeated } from "../src/datasets/internal/repeated.ts"
import * as Mapping from "../src/datasets/Mapping.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { removeTempDirs, tempDir } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const fileWith = (name: string, content: string | Uint8Array) => {
  const file = path.join(tempDir(), name)
  fs.writeFileSync(file, content)
  return file
}

const read = (file: string, options: { readonly map?: string; readonly jsonPath?: string } = {}) =>
  DatasetFormats.read(file, {
    onInvalid: "fail",
    map: options.map === undefined ? undefined : Result.getOrThrow(Mapping.parse(options.map)),
    jsonPath: options.jsonPath
  }).pipe(Stream.runCollect, Effect.provide(NodeServices.layer))

const tasksOf = (items: ReadonlyArray<Dataset.Item>): Array<AgentEvalTask> =>
  items.map((item) => {
    assert.strictEqual(item._tag, "Task", JSON.stringify(item))
    return (item as Extract<Dataset.Item, { _tag: "Task" }>).task
  })

const messageOf = (file: string, options: { readonly map?: string; readonly jsonPath?: string } = {}) =>
  Effect.map(Effect.flip(read(file, options)), (e) => e.message)

const count = (file: string, jsonPath?: string) =>
  DatasetFormats.count(file, undefined, DatasetFormats.builtIn, { jsonPath }).pipe(Effect.provide(NodeServices.layer))

describe("Parquet: the footer's row count", () => {
  it.live("a footer that says 7 rows over row groups of 2 + 2 + 1 is refused, naming the file and both counts", () =>
    Effect.gen(function*() {
      const bytes = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: "id", data: ["a", "b", "c", "d", "e"], type: "STRING" }], rowGroupSize: 2 }))
      // FileMetaData.num_rows is field 3, an i64 (thrift compact: 0x16, then zigzag(5) = 0x0a); zigzag(7) = 0x0e.
      const footer = bytes.length - 8 - new DataView(bytes.buffer).getUint32(bytes.length - 8, true)
      let at = footer
      while (!(bytes[at] === 0x16 && bytes[at + 1] === 0x0a)) at++
      bytes[at + 1] = 0x0e
      const metadata = parquetMetadata(bytes.buffer)
      assert.strictEqual(metadata.num_rows, 7n)
      assert.deepStrictEqual(metadata.row_groups.map((g) => g.num_rows), [2n, 2n, 1n])
      const file = fileWith("lying.parquet", bytes)
      const message = yield* messageOf(file)
      assert.include(message, `${file}: the footer says 7 rows but its row groups hold 5 (2 + 2 + 1)`)
      // Nor counted as 7 for the progress total.
      assert.isUndefined(yield* count(file))
    }))
})

describe("CSV: line endings per record", () => {
  it.live("a CRLF header over LF rows, and an LF header over CRLF rows, read the cells of a consistent file", () =>
    Effect.gen(function*() {
      const rows = ["id,q,answer", "a,one,1", "b,\"two\nlines\",2", "c,three,3"]
      const consistent = tasksOf(yield* read(fileWith("lf.csv", rows.join("\n") + "\n")))
      assert.deepStrictEqual(consistent.map((t) => t.id), ["a", "b", "c"])
      assert.deepStrictEqual(consistent[2], { id: "c", inputs: { q: "three" }, reference: "3" })
      const crlfHeader = fileWith("crlf-header.csv", `${rows[0]}\r\n${rows.slice(1).join("\n")}\n`)
      const lfHeader = fileWith("lf-header.csv", `${rows[0]}\n${rows.slice(1).join("\r\n")}\r\n`)
      assert.deepStrictEqual(tasksOf(yield* read(crlfHeader)), consistent)
      assert.deepStrictEqual(tasksOf(yield* read(lfHeader)), consistent)
      assert.strictEqual(yield* count(crlfHeader), 3)
      assert.strictEqual(yield* count(lfHeader), 3)
    }))
})

describe("CSV: a header of 100,000 columns", () => {
  const names = Array.from({ length: 100_000 }, (_, i) => `c${i}`)

  it.live("30 names given twice: one error naming 20 of them and how many more; reading completes", () =>
    Effect.gen(function*() {
      const twice = [...names, ...names.slice(0, 30)]
      const file = fileWith("wide-twice.csv", `${twice.join(",")}\n${twice.map(() => "x").join(",")}\n`)
      const message = yield* messageOf(file)
      assert.include(message, `${file}: header: 30 columns are named twice: `)
      assert.strictEqual(message.match(/"c\d+"/g)?.length, 20)
      assert.include(message, "and 10 more")
    }))

  it("the duplicate finder reads each name once: at most 2n + 4 reads of a 100,000-name header (no indexOf per column)", () => {
    const twice = [...names, ...names.slice(0, 30), "c5"]
    // The iterator reads `length` and the index per name, and Symbol.iterator once.
    const bound = 2 * twice.length + 4
    let reads = 0
    const counted = new Proxy(twice, {
      get: (target, key, receiver) => {
        // Stopped at once past the bound, so a quadratic finder fails here rather than running for minutes.
        if (++reads > bound) throw new Error(`more than ${bound} reads of a ${twice.length}-name header: not linear`)
        return Reflect.get(target, key, receiver)
      }
    })
    assert.deepStrictEqual(repeated(counted), names.slice(0, 30))
    assert.isAtMost(reads, bound)
    assert.isAtLeast(reads, twice.length)
  })

  it.live("--map naming a column that is not there lists 20 of the 100,000 and how many more", () =>
    Effect.gen(function*() {
      const file = fileWith("wide.csv", `${names.join(",")}\n${names.map(() => "x").join(",")}\n`)
      const message = yield* messageOf(file, { map: "inputs.q=missing" })
      assert.include(message, `--map inputs.q=missing: no column "missing" (the columns: ${names.slice(0, 20).join(", ")} and 99980 more)`)
    }))
})

describe("__proto__, constructor and prototype are data", () => {
  it.live("as CSV columns and as --map paths: kept as the task's own keys; Object.prototype is never changed", () =>
    Effect.gen(function*() {
      const file = fileWith("proto.csv", "id,__proto__,constructor,prototype\na,x,y,z\n")
      const [task] = tasksOf(yield* read(file))
      assert.deepStrictEqual(Object.keys(task!.inputs), ["__proto__", "constructor", "prototype"])
      assert.strictEqual(JSON.stringify(task), `{"id":"a","inputs":{"__proto__":"x","constructor":"y","prototype":"z"}}`)
      assert.strictEqual(Object.getPrototypeOf(task!.inputs), Object.prototype)
      const [mapped] = tasksOf(
        yield* read(file, { map: "id=id,inputs.__proto__.polluted=__proto__,metadata.constructor.prototype.polluted=constructor" })
      )
      assert.strictEqual(JSON.stringify(mapped), `{"id":"a","inputs":{"__proto__":{"polluted":"x"}},"metadata":{"constructor":{"prototype":{"polluted":"y"}}}}`)
      assert.isFalse(Object.hasOwn(Object.prototype, "polluted"))
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      // A JSON record's own __proto__ key, mapped by the default rules.
      const json = fileWith("proto.json", `[{"id":"j","__proto__":{"polluted":1},"q":2}]`)
      assert.strictEqual(JSON.stringify(tasksOf(yield* read(json))), `[{"id":"j","inputs":{"__proto__":{"polluted":1},"q":2}}]`)
      assert.isFalse(Object.hasOwn(Object.prototype, "polluted"))
    }))
})

describe("JSON: what --json-path names", () => {
  it.live("an object, not an array: refused naming the path, before any record", () =>
    Effect.gen(function*() {
      const file = fileWith("object.json", `{"data": {"first": {"id": "a", "q": 1}, "second": {"id": "b", "q": 2}}}`)
      const message = yield* messageOf(file, { jsonPath: "data" })
      assert.include(message, `${file}: --json-path data is an object (keys "first", ...), not an array of records`)
      assert.isUndefined(yield* count(file, "data"))
    }))

  it.live("a key given twice on the path: refused naming the key and where, whatever its two values hold; not counted", () =>
    Effect.gen(function*() {
      const b = `[{"id": "b"}]`
      // Both arrays, one empty (either side), one not an array (either side): each is exit 2, never the records of one.
      const shapes = [
        `{"data": [{"id": "a"}, {"id": "x"}], "data": ${b}}`,
        `{"data": [], "data": ${b}}`,
        `{"data": [{"id": "a"}], "data": []}`,
        `{"data": 5, "data": ${b}}`,
        `{"data": ${b}, "data": {}}`
      ]
      for (const [i, shape] of shapes.entries()) {
        const file = fileWith(`twice-${i}.json`, shape)
        assert.include(yield* messageOf(file, { jsonPath: "data" }), `${file}: --json-path data: the key "data" is given twice at the top level (at byte `, shape)
        assert.isUndefined(yield* count(file, "data"), shape)
      }
      // At every level of the path: the outer key, or the inner one, given twice.
      const outer = fileWith("outer.json", `{"a": {"b": [{"id": "a"}]}, "x": {"a": 1}, "a": {"c": []}}`)
      assert.include(yield* messageOf(outer, { jsonPath: "a.b" }), `${outer}: --json-path a.b: the key "a" is given twice at the top level (at byte 43): keep one`)
      assert.isUndefined(yield* count(outer, "a.b"))
      const inner = fileWith("inner.json", `{"a": {"b": [], "c": {"b": 1}, "b": [{"id": "c"}]}}`)
      assert.include(yield* messageOf(inner, { jsonPath: "a.b" }), `${inner}: --json-path a.b: the key "b" is given twice in a (at byte `)
      assert.isUndefined(yield* count(inner, "a.b"))
      // The same key elsewhere (inside records, off the path) is data: read and counted.
      const fine = fileWith("fine.json", `{"x": {"data": 1, "data": 2}, "data": [{"id": "a", "data": 1}, {"id": "b", "data": [], "data": 2}]}`)
      assert.deepStrictEqual(tasksOf(yield* read(fine, { jsonPath: "data" })).map((t) => t.id), ["a", "b"])
      assert.strictEqual(yield* count(fine, "data"), 2)
    }))
})

describe("counts for the progress total and --estimate", () => {
  it.live("CSV and TSV: records after the header, quoted newlines and blank lines not counted; JSON: records at --json-path", () =>
    Effect.gen(function*() {
      const csv = fileWith("n.csv", "id,q\r\n" + Array.from({ length: 1234 }, (_, i) => `t${i},"line\r\n${i}"`).join("\r\n") + "\r\n\r\n")
      assert.strictEqual(yield* count(csv), 1234)
      assert.strictEqual(tasksOf(yield* read(csv)).length, 1234)
      const tsv = fileWith("n.tsv", "id\tq\n" + Array.from({ length: 77 }, (_, i) => `t${i}\tq`).join("\n"))
      assert.strictEqual(yield* count(tsv), 77)
      const json = fileWith("n.json", JSON.stringify({ meta: { n: 3 }, data: { rows: Array.from({ length: 512 }, (_, i) => ({ id: `j${i}`, q: [i, { x: i }] })) } }))
      assert.strictEqual(yield* count(json, "data.rows"), 512)
      const top = fileWith("top.json", JSON.stringify(Array.from({ length: 9 }, (_, i) => ({ id: `k${i}` }))))
      assert.strictEqual(yield* count(top), 9)
      assert.isUndefined(yield* count("-"))
    }))
})

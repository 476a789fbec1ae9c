/**
 * The tabular dataset formats on real files written here: CSV and TSV
 * (quoting, embedded newlines, a BOM, CRLF, unicode, empty cells, bad rows),
 * JSON (top-level arrays, `--json-path`, bad JSON), Parquet (nested columns,
 * 64-bit integers, nulls, several row groups, a file that is not Parquet),
 * `--map` and the default rules, and the choice of rows (`--limit`,
 * `--sample`, `--shuffle`, `--ids`). Every bad input is checked with its
 * message.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import * as TestConsole from "effect/testing/TestConsole"
import { parquetWriteBuffer } from "hyparquet-writer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Choose from "../src/datasets/Choose.ts"
import * as Dataset from "../src/datasets/Dataset.ts"
import * as DatasetFormats from "../src/datasets/DatasetFormats.ts"
import * as Mapping from "../src/datasets/Mapping.ts"
import * as Runner from "../src/runner/Runner.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { removeTempDirs, tempDir } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const fileWith = (name: string, content: string | Uint8Array) => {
  const file = path.join(tempDir(), name)
  fs.writeFileSync(file, content)
  return file
}

const mapOf = (text: string): Mapping.Mapping => Result.getOrThrow(Mapping.parse(text))

interface Read {
  readonly onInvalid?: Dataset.OnInvalid
  readonly map?: string
  readonly jsonPath?: string
  readonly format?: string
}

const read = (file: string, options: Read = {}) =>
  DatasetFormats.read(file, {
    onInvalid: options.onInvalid ?? "fail",
    map: options.map === undefined ? undefined : mapOf(options.map),
    jsonPath: options.jsonPath,
    format: options.format
  }).pipe(Stream.runCollect, Effect.provide(NodeServices.layer))

const tasksOf = (items: ReadonlyArray<Dataset.Item>): Array<AgentEvalTask> =>
  items.map((item) => {
    assert.strictEqual(item._tag, "Task", JSON.stringify(item))
    return (item as Extract<Dataset.Item, { _tag: "Task" }>).task
  })

const messageOf = (file: string, options: Read = {}) => Effect.map(Effect.flip(read(file, options)), (e) => e.message)

describe("CSV and TSV", () => {
  it.live("RFC 4180 quoting, embedded newlines, a BOM, CRLF, unicode and empty cells; the default rules", () =>
    Effect.gen(function*() {
      const file = fileWith(
        "q.csv",
        "\uFEFFid,question,answer,target,note\r\n" +
          "q1,\"What is \"\"2+2\"\"?\",4,four,\r\n" +
          "q2,\"two\r\nlines, and a comma\",\"\",x,ünïcødé ✓\r\n" +
          "\r\n" +
          "q3,plain,7,,\r\n"
      )
      assert.deepStrictEqual(tasksOf(yield* read(file)), [
        { id: "q1", inputs: { question: "What is \"2+2\"?", note: "" }, reference: "4", metadata: { target: "four" } },
        { id: "q2", inputs: { question: "two\r\nlines, and a comma", note: "ünïcødé ✓" }, reference: "", metadata: { target: "x" } },
        { id: "q3", inputs: { question: "plain", note: "" }, reference: "7", metadata: { target: "" } }
      ])
    }))

  it.live("without an id column a row's id is row-N; a TSV file reads the same by its name", () =>
    Effect.gen(function*() {
      const tsv = fileWith("t.tsv", "prompt\treference\nhello, world\tHi\n\"quoted\ttab\"\tx\n")
      assert.deepStrictEqual(tasksOf(yield* read(tsv)), [
        { id: "row-1", inputs: { prompt: "hello, world" }, reference: "Hi" },
        { id: "row-2", inputs: { prompt: "quoted\ttab" }, reference: "x" }
      ])
      // --format chooses over the name
      const named = fileWith("t.txt", "prompt,reference\na,b\n")
      assert.deepStrictEqual(tasksOf(yield* read(named, { format: "csv" })), [{ id: "row-1", inputs: { prompt: "a" }, reference: "b" }])
    }))

  it.live("--map: dotted targets, a dotted column name, metadata and intent", () =>
    Effect.gen(function*() {
      const file = fileWith(
        "m.csv",
        "question_id,question,answer,subject,meta.level,kind\n7,Why?,Because,physics,hard,ask\n"
      )
      const tasks = tasksOf(
        yield* read(file, {
          map: "id=question_id,inputs.instruction=question,reference=answer,metadata.subject=subject,metadata.level=meta.level,intent=kind"
        })
      )
      assert.deepStrictEqual(tasks, [{
        id: "7",
        inputs: { instruction: "Why?" },
        reference: "Because",
        metadata: { subject: "physics", level: "hard" },
        intent: "ask"
      }])
    }))

  it.live("bad input: every message names the file, the row and line, the column, what was expected and found", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, Read, string]> = [
        ["fields.csv", "id,q\na,1\nb,2,3\n", {}, "fields.csv: row 2 (line 3): expected 2 fields (the header's), got 3"],
        ["quote.csv", "id,q\na,\"open\nb,2\n", {}, "Quote Not Closed"],
        ["closing.csv", "id,q\na,1\"x\n", {}, "closing.csv: Invalid Opening Quote: a quote is found on field 1 at line 2"],
        ["blank.csv", "id,,q\na,1,2\n", {}, "blank.csv: header: column 2 has no name"],
        ["twice.csv", "id,q,q\na,1,2\n", {}, "twice.csv: header: column \"q\" is named twice"],
        ["dup.csv", "id,q\na,1\na,2\n", {}, "dup.csv: row 2 (line 3)"],
        ["emptyid.csv", "question_id,q\n\"\",1\n", { map: "id=question_id,inputs.q=q" }, "emptyid.csv: row 1 (line 2), column \"question_id\": an empty id"],
        ["nocol.csv", "id,question,answer\na,1,2\n", { map: "inputs.q=prompt" }, "nocol.csv: --map inputs.q=prompt: no column \"prompt\" (the columns: id, question, answer)"],
        ["empty.csv", "", {}, "empty.csv"],
        ["header.csv", "id,q\r\n", {}, "header.csv"]
      ]
      for (const [name, content, options, expected] of cases) {
        const file = fileWith(name, content)
        const message = yield* messageOf(file, options)
        assert.include(message, expected, name)
        assert.include(message, file, name)
      }
      const dup = yield* messageOf(fileWith("dup.csv", "id,q\na,1\na,2\n"))
      assert.include(dup, "\"a\"")
      const empty = yield* messageOf(fileWith("empty.csv", ""))
      assert.include(empty, "empty")
    }))

  it.live("a bad row stops the stream after the rows before it; --on-invalid skip records it and reads on", () =>
    Effect.gen(function*() {
      const file = fileWith("s.csv", "id,q\na,1\nb,2,extra\nc,3\n")
      const before: Array<string> = []
      const error = yield* DatasetFormats.read(file, { onInvalid: "fail" }).pipe(
        Stream.runForEach((item) => Effect.sync(() => before.push(item._tag === "Task" ? item.task.id : "invalid"))),
        Effect.flip,
        Effect.provide(NodeServices.layer)
      )
      assert.deepStrictEqual(before, ["a"])
      assert.include(error.message, "row 2 (line 3)")
      const items = yield* read(file, { onInvalid: "skip" })
      assert.deepStrictEqual(items.map((i) => i._tag), ["Task", "Invalid", "Task"])
      const invalid = items[1] as Extract<Dataset.Item, { _tag: "Invalid" }>
      assert.strictEqual(invalid.taskId, `${file}:row-2`)
      assert.include(invalid.message, "expected 2 fields (the header's), got 3")
    }))

  it.live("the mapping is checked at the first row, before any task is given", () =>
    Effect.gen(function*() {
      const file = fileWith("c.csv", "id,q\na,1\nb,2\n")
      const items: Array<Dataset.Item> = []
      const error = yield* DatasetFormats.read(file, { onInvalid: "skip", map: mapOf("inputs.x=nope") }).pipe(
        Stream.runForEach((item) => Effect.sync(() => items.push(item))),
        Effect.flip,
        Effect.provide(NodeServices.layer)
      )
      assert.deepStrictEqual(items, [])
      assert.include(error.message, "no column \"nope\" (the columns: id, q)")
    }))

  it.live("reads a file many read chunks long, a quoted value across chunk boundaries", () =>
    Effect.gen(function*() {
      const rows = Array.from({ length: 3000 }, (_, i) => `r${i},"${"é".repeat(i % 50)}\n${i}",${i * 2}`)
      const file = fileWith("big.csv", `id,text,reference\n${rows.join("\n")}\n`)
      const tasks = tasksOf(yield* read(file))
      assert.strictEqual(tasks.length, 3000)
      assert.deepStrictEqual(tasks[2999], { id: "r2999", inputs: { text: `${"é".repeat(2999 % 50)}\n2999` }, reference: "5998" })
    }))
})

describe("JSON", () => {
  it.live("a top-level array: records with inputs are tasks as they are, others go by the default rules", () =>
    Effect.gen(function*() {
      const file = fileWith(
        "a.json",
        JSON.stringify([
          { id: "t1", inputs: { q: "x" }, reference: { n: 1 } },
          { question: "y ✓", answer: 2, extra: [1, null, { z: true }] },
          { id: 3, prompt: null }
        ], null, 2)
      )
      assert.deepStrictEqual(tasksOf(yield* read(file)), [
        { id: "t1", inputs: { q: "x" }, reference: { n: 1 } },
        { id: "row-2", inputs: { question: "y ✓", extra: [1, null, { z: true }] }, reference: 2 },
        { id: "3", inputs: { prompt: null } }
      ])
    }))

  it.live("--json-path: the array under a key, dotted for deeper ones, other keys ignored", () =>
    Effect.gen(function*() {
      const file = fileWith(
        "o.json",
        JSON.stringify({ version: 2, data: [{ id: "a", q: 1 }], nested: { rows: [{ id: "b", q: 2 }, { id: "c", q: 3 }] } })
      )
      assert.deepStrictEqual(tasksOf(yield* read(file, { jsonPath: "data" })).map((t) => t.id), ["a"])
      assert.deepStrictEqual(tasksOf(yield* read(file, { jsonPath: "nested.rows", map: "id=id,inputs.question=q" })), [
        { id: "b", inputs: { question: 2 } },
        { id: "c", inputs: { question: 3 } }
      ])
    }))

  it.live("bad input: an object at the top level, bad JSON, a record that is not an object, a missing key", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, Read, string]> = [
        ["top.json", "{\"data\": []}", {}, "the top level is an object, not an array of records: name the key that holds the array with --json-path KEY"],
        ["scalar.json", "42", {}, "expected an array of records at the top level"],
        ["bad.json", "[{\"id\":\"a\",\"q\":1},{\"id\":\"b\",", {}, "not valid JSON after record 1"],
        ["broken.json", "[{\"id\":\"a\" \"q\":1}]", {}, "not valid JSON before the first record"],
        ["record.json", "[{\"id\":\"a\"}, 7]", {}, "record 2: expected an object, got number 7"],
        ["missing.json", "{\"data\": [{\"id\": \"a\"}]}", { jsonPath: "rows" }, "holds no records at --json-path rows"],
        ["array.json", "[{\"id\": \"a\"}]", { jsonPath: "data" }, "--json-path data needs an object at the top level"],
        ["none.json", "[]", {}, "holds no tasks (the dataset is empty)"],
        ["task.json", "[{\"id\":\"a\",\"inputs\":[1]}]", {}, "record 1"]
      ]
      for (const [name, content, options, expected] of cases) {
        const file = fileWith(name, content)
        const message = yield* messageOf(file, options)
        assert.include(message, expected, name)
        assert.include(message, file, name)
      }
    }))

  it.live("--on-invalid skip: a record that is not an object is recorded and the rest read", () =>
    Effect.gen(function*() {
      const file = fileWith("s.json", "[{\"id\":\"a\"}, \"text\", {\"id\":\"b\"}]")
      const items = yield* read(file, { onInvalid: "skip" })
      assert.deepStrictEqual(items.map((i) => i._tag), ["Task", "Invalid", "Task"])
      assert.include((items[1] as Extract<Dataset.Item, { _tag: "Invalid" }>).message, "record 2: expected an object, got string \"text\"")
    }))
})

const writeParquet = (name: string, options: Parameters<typeof parquetWriteBuffer>[0]) =>
  fileWith(name, new Uint8Array(parquetWriteBuffer(options)))

describe("Parquet", () => {
  it.live("nested lists and structs to JSON values, 64-bit integers, nulls, several row groups in order", () =>
    Effect.gen(function*() {
      const file = writeParquet("n.parquet", {
        columnData: [
          { name: "id", data: ["a", "b", "c"], type: "STRING" },
          { name: "question", data: ["q1", null, "q3 é"], type: "STRING" },
          { name: "n", data: [1n, 2n, 9007199254740993n], type: "INT64" },
          { name: "tags", data: [["x", "y"], [], null] },
          { name: "meta", data: [{ s: "m", k: 1 }, { s: "n", k: 2 }, null] },
          { name: "answer", data: ["A", "B", "C"], type: "STRING" }
        ],
        rowGroupSize: 2
      })
      assert.deepStrictEqual(tasksOf(yield* read(file)), [
        { id: "a", inputs: { question: "q1", n: 1, tags: ["x", "y"], meta: { s: "m", k: 1 } }, reference: "A" },
        { id: "b", inputs: { question: null, n: 2, tags: [], meta: { s: "n", k: 2 } }, reference: "B" },
        // beyond 2^53 an integer is kept exact, as text
        { id: "c", inputs: { question: "q3 é", n: "9007199254740993", tags: null, meta: null }, reference: "C" }
      ])
    }))

  it.live("--map against the schema; an unknown column names the schema's columns", () =>
    Effect.gen(function*() {
      const file = writeParquet("m.parquet", {
        columnData: [
          { name: "qid", data: [10, 11], type: "INT32" },
          { name: "prompt", data: ["p", "q"], type: "STRING" },
          { name: "meta", data: [{ subject: "s1" }, { subject: "s2" }] }
        ]
      })
      assert.deepStrictEqual(tasksOf(yield* read(file, { map: "id=qid,inputs.instruction=prompt,metadata.subject=meta.subject" })), [
        { id: "10", inputs: { instruction: "p" }, metadata: { subject: "s1" } },
        { id: "11", inputs: { instruction: "q" }, metadata: { subject: "s2" } }
      ])
      const message = yield* messageOf(file, { map: "inputs.x=question" })
      assert.include(message, `${file}: --map inputs.x=question: no column "question" (the columns: qid, prompt, meta)`)
    }))

  it.live("bad rows name the row group and the row; skip reads on", () =>
    Effect.gen(function*() {
      const file = writeParquet("b.parquet", {
        columnData: [{ name: "id", data: ["a", "b", "a", ""], type: "STRING" }, { name: "q", data: [1, 2, 3, 4], type: "INT32" }],
        rowGroupSize: 2
      })
      const message = yield* messageOf(file)
      assert.include(message, `${file}: row group 1, row 0`)
      assert.include(message, "\"a\"")
      const items = yield* read(file, { onInvalid: "skip" })
      assert.deepStrictEqual(items.map((i) => i._tag), ["Task", "Task", "Invalid", "Task"])
      // an empty id falls back to row-N by the default rules
      assert.strictEqual((items[3] as Extract<Dataset.Item, { _tag: "Task" }>).task.id, "row-4")
      const mapped = writeParquet("i.parquet", {
        columnData: [{ name: "key", data: [[1], [2]] }, { name: "q", data: [1, 2], type: "INT32" }]
      })
      assert.include(yield* messageOf(mapped, { map: "id=key,inputs.q=q" }), `${mapped}: row group 0, row 0, column "key": the id must be text or a number, got an array`)
    }))

  it.live("a file that is not Parquet, a missing file and stdin are errors naming the path", () =>
    Effect.gen(function*() {
      const text = fileWith("x.parquet", "id,q\na,1\n")
      assert.include(yield* messageOf(text), `${text}: not a readable Parquet file`)
      const missing = path.join(tempDir(), "none.parquet")
      assert.include(yield* messageOf(missing), missing)
      assert.include(yield* messageOf("-", { format: "parquet" }), "cannot be read from stdin")
    }))

  it.live("count: the rows in the file's footer", () =>
    Effect.gen(function*() {
      const file = writeParquet("c.parquet", { columnData: [{ name: "id", data: Array.from({ length: 2500 }, (_, i) => `t${i}`), type: "STRING" }], rowGroupSize: 1000 })
      const count = yield* DatasetFormats.count(file, undefined).pipe(Effect.provide(NodeServices.layer))
      assert.strictEqual(count, 2500)
      assert.strictEqual(tasksOf(yield* read(file)).length, 2500)
    }))
})

describe("--map", () => {
  it("parse: pairs with dotted paths; every problem named with its pair", () => {
    assert.deepStrictEqual(Result.getOrThrow(Mapping.parse("id=question_id, inputs.a.b=x.y")), [
      { target: ["id"], source: ["question_id"], text: "id=question_id" },
      { target: ["inputs", "a", "b"], source: ["x", "y"], text: "inputs.a.b=x.y" }
    ])
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["", "Expected TARGET=COLUMN pairs"],
      ["id", "\"id\" is not TARGET=COLUMN"],
      ["id=", "\"id=\": an empty path"],
      ["inputs..a=x", "an empty path"],
      ["answer=x", "the target must start with one of"],
      ["id.x=y", "id is text, it has no fields below it"],
      ["inputs.a=x,inputs.a=y", "inputs.a is mapped twice (inputs.a=x, inputs.a=y)"]
    ]
    for (const [text, expected] of cases) {
      const result = Mapping.parse(text)
      assert.isTrue(Result.isFailure(result), text)
      assert.include(Result.isFailure(result) ? result.failure : "", expected, text)
    }
  })
})

const items = (n: number): Stream.Stream<Dataset.Item> =>
  Stream.range(0, n - 1).pipe(Stream.map((i) => ({ _tag: "Task" as const, task: { id: `t${i}`, inputs: {} } })))

const idsOf = (selection: Choose.Selection, n = 100) =>
  Choose.choose(items(n), selection).pipe(
    Stream.map((item) => item._tag === "Task" ? item.task.id : item.taskId),
    Stream.runCollect,
    Effect.map((ids) => [...ids])
  )

describe("choosing rows", () => {
  it.effect("--limit: the first N", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* idsOf({ limit: 3 }), ["t0", "t1", "t2"])
      assert.deepStrictEqual(yield* idsOf({ limit: 500 }), (yield* idsOf({})))
    }))

  it.effect("--sample: N distinct rows in the dataset's order, the same for a seed, another for another seed", () =>
    Effect.gen(function*() {
      const a = yield* idsOf({ sample: 10, seed: 7 })
      assert.strictEqual(new Set(a).size, 10)
      const order = a.map((id) => Number(id.slice(1)))
      assert.deepStrictEqual(order, [...order].sort((x, y) => x - y))
      assert.deepStrictEqual(yield* idsOf({ sample: 10, seed: 7 }), a)
      assert.notDeepEqual(yield* idsOf({ sample: 10, seed: 8 }), a)
      assert.deepStrictEqual(yield* idsOf({ sample: 200, seed: 1 }), yield* idsOf({}))
    }))

  it.effect("--sample is uniform: over 2,000 seeds each of 20 rows is kept about N/20 of the time", () =>
    Effect.gen(function*() {
      const kept = new Array<number>(20).fill(0)
      const seeds = 2000
      for (let seed = 0; seed < seeds; seed++) {
        for (const id of yield* idsOf({ sample: 5, seed }, 20)) kept[Number(id.slice(1))]!++
      }
      // each row is kept with chance 1/4: 500 expected, sd about 19.4; 5 sd either side
      for (const count of kept) assert.isTrue(count > 400 && count < 600, `kept ${count} times of ${seeds}`)
      // chi-square over the 20 rows, 19 degrees of freedom: 43.8 is its 0.999 quantile
      const chi = kept.reduce((sum, count) => sum + (count - 500) ** 2 / 500, 0)
      assert.isBelow(chi, 43.8)
    }))

  it.effect("--shuffle: a permutation of every row, fixed by the seed; --limit takes the first N of it", () =>
    Effect.gen(function*() {
      const all = yield* idsOf({})
      const shuffled = yield* idsOf({ shuffle: true, seed: 3 })
      assert.notDeepEqual(shuffled, all)
      assert.deepStrictEqual([...shuffled].sort(), [...all].sort())
      assert.deepStrictEqual(yield* idsOf({ shuffle: true, seed: 3 }), shuffled)
      assert.notDeepEqual(yield* idsOf({ shuffle: true, seed: 4 }), shuffled)
      assert.deepStrictEqual(yield* idsOf({ shuffle: true, seed: 3, limit: 5 }), shuffled.slice(0, 5))
    }))

  it.effect("--ids: only the ids listed, in the dataset's order; the ones not found are named on stderr", () =>
    Effect.gen(function*() {
      const file = fileWith("ids.txt", "# chosen\r\nt5\n\n  t2  \nnope\nt5\n")
      const list = yield* Choose.readIds(file).pipe(Effect.provide(NodeServices.layer))
      assert.deepStrictEqual([...list.ids], ["t5", "t2", "nope"])
      assert.match(list.sha256, /^[0-9a-f]{64}$/)
      assert.deepStrictEqual(yield* idsOf({ ids: list }, 10), ["t2", "t5"])
      assert.deepStrictEqual(yield* TestConsole.errorLines, [
        `agent-trials: --ids ${file}: 1 of its 3 ids are not in the dataset (nope)`
      ])
      const empty = fileWith("none.txt", "# nothing\n\n")
      const error = yield* Effect.flip(Choose.readIds(empty).pipe(Effect.provide(NodeServices.layer)))
      assert.include(error.message, `--ids ${empty} lists no task ids`)
      const missing = path.join(tempDir(), "missing.txt")
      assert.include((yield* Effect.flip(Choose.readIds(missing).pipe(Effect.provide(NodeServices.layer)))).message, `--ids ${missing}: no such file`)
    }))

  it("problem: --sample with --limit, and --seed without --sample or --shuffle, are refused", () => {
    assert.include(Choose.problem({ sample: 5, limit: 2 }, false) ?? "", "--sample")
    assert.include(Choose.problem({ seed: 3 }, true) ?? "", "--seed")
    assert.isUndefined(Choose.problem({ sample: 5, seed: 3 }, true))
    assert.isUndefined(Choose.problem({ shuffle: true, limit: 3 }, false))
  })
})

describe("the library: Dataset constructors into runTrials, without the CLI", () => {
  it.live("a CSV file, a JSON file and a Parquet file chosen and run, at most `parallelism` agent calls at once", () =>
    Effect.gen(function*() {
      const csv = fileWith("l.csv", "id,question,answer\n" + Array.from({ length: 40 }, (_, i) => `c${i},q${i},${i}`).join("\n") + "\n")
      const json = fileWith("l.json", JSON.stringify({ data: Array.from({ length: 10 }, (_, i) => ({ id: `j${i}`, inputs: { q: i } })) }))
      const parquet = writeParquet("l.parquet", { columnData: [{ name: "id", data: ["p0", "p1"], type: "STRING" }] })
      let active = 0
      let peak = 0
      const agent = (task: AgentEvalTask) =>
        Effect.gen(function*() {
          active++
          peak = Math.max(peak, active)
          yield* Effect.sleep("1 millis")
          active--
          return { output_text: task.id }
        })
      const tasks = Stream.concat(
        Dataset.tasks(Choose.choose(Dataset.fromDelimited(csv, { onInvalid: "fail", delimiter: "," }), { sample: 5, seed: 1 })),
        Stream.concat(
          Dataset.tasks(Dataset.fromJson(json, { onInvalid: "fail", jsonPath: "data" })),
          Dataset.tasks(Dataset.fromParquet(parquet, { onInvalid: "fail" }))
        )
      )
      const trials = yield* Runner.runTrials(tasks, agent, { parallelism: 3 }).pipe(Stream.runCollect, Effect.provide(NodeServices.layer))
      const ids = [...trials].map((t) => t.task_id)
      assert.strictEqual(ids.length, 17)
      assert.strictEqual(ids.filter((id) => id.startsWith("c")).length, 5)
      assert.includeMembers(ids, ["j0", "j9", "p0", "p1"])
      assert.isTrue([...trials].every((t) => t.status === "completed" && t.output?.output_text === t.task_id))
      assert.isAtMost(peak, 3)
      assert.isAtLeast(peak, 2)
    }))
})

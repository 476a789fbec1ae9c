/**
 * Reading datasets: JSONL files line by line (CRLF, blank lines, chunk
 * boundaries inside multi-byte characters), the line numbers and fields in
 * errors, `--on-invalid skip` items, and the line splitter itself against a
 * reference on random input.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Dataset from "../src/datasets/Dataset.ts"
import { firstInvalid, splitLines } from "../src/internal/lines.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { removeTempDirs, tempDir } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const fileWith = (content: string | Uint8Array) => {
  const file = path.join(tempDir(), "tasks.jsonl")
  fs.writeFileSync(file, content)
  return file
}

const read = (file: string, onInvalid: Dataset.OnInvalid = "fail") =>
  Dataset.fromJsonl(file, { onInvalid }).pipe(Stream.runCollect, Effect.provide(NodeServices.layer))

const tasksOf = (items: ReadonlyArray<Dataset.Item>): Array<AgentEvalTask> =>
  items.map((item) => {
    assert.strictEqual(item._tag, "Task")
    return (item as Extract<Dataset.Item, { _tag: "Task" }>).task
  })

const errorOf = (file: string) => Effect.flip(read(file))

describe("Dataset.fromJsonl", () => {
  it.live("reads CRLF lines, skips blank lines, keeps every field", () =>
    Effect.gen(function*() {
      const a = { id: "a", inputs: { instruction: "hi", n: [1, { x: null }] }, intent: "greet", reference: { answer: 42 }, metadata: { split: "dev" } }
      const b = { id: "b é ✓", inputs: {} }
      const c = { id: "c", inputs: { q: "last line without a newline" } }
      const file = fileWith(`\r\n${JSON.stringify(a)}\r\n \t \r\n\r\n${JSON.stringify(b)}\n\n${JSON.stringify(c)}`)
      assert.deepStrictEqual(tasksOf(yield* read(file)), [a, b, c])
    }))

  it.live("errors name the file and the physical line (blank and CRLF lines counted) and the field", () =>
    Effect.gen(function*() {
      const good = JSON.stringify({ id: "a", inputs: {} })
      const cases = [
        [`\r\n${good}\r\n\r\n{bad json\r\n`, 4, "not valid JSON"],
        [`${good}\n\n{"id":"b","inputs":[1]}\n`, 3, "field inputs"],
        [`${good}\n{"id":"b","inputs":{},"metadata":"x"}\n`, 2, "field metadata"],
        [`{"inputs":{}}\n`, 1, "field id"],
        [`{"id":7,"inputs":{}}\n`, 1, "field id"],
        [`[1,2]\n`, 1, "not an AgentEvalTask"],
        [`${good}\n${good}\n`, 2, `duplicate task id "a"`]
      ] as const
      for (const [content, number, mention] of cases) {
        const file = fileWith(content)
        const error = yield* errorOf(file)
        assert.strictEqual(error._tag, "DatasetError")
        assert.strictEqual(error.line, number, content)
        assert.isTrue(error.message.startsWith(`${file}:${number}: `), error.message)
        assert.include(error.message, mention)
      }
    }))

  it.live("an empty file, blank lines only, a missing file and a folder are errors naming the path", () =>
    Effect.gen(function*() {
      const empty = fileWith("")
      const blank = fileWith("\n \r\n\t\n")
      const missing = path.join(tempDir(), "missing.jsonl")
      const folder = tempDir()
      for (const [file, mention] of [[empty, "empty"], [blank, "empty"], [missing, "not found"], [folder, "not a file"]] as const) {
        const error = yield* errorOf(file)
        assert.include(error.message, file)
        assert.include(error.message, mention)
      }
    }))

  it.live("a bad line stops the stream after the tasks before it", () =>
    Effect.gen(function*() {
      const file = fileWith(["a", "b"].map((id) => JSON.stringify({ id, inputs: {} })).join("\n") + "\n{oops\n" + JSON.stringify({ id: "c", inputs: {} }))
      const seen: Array<string> = []
      const error = yield* Dataset.fromJsonl(file, { onInvalid: "fail" }).pipe(
        Stream.runForEach((item) => Effect.sync(() => seen.push(item._tag === "Task" ? item.task.id : "?"))),
        Effect.flip,
        Effect.provide(NodeServices.layer)
      )
      assert.strictEqual(error.line, 3)
      assert.deepStrictEqual(seen, ["a", "b"])
    }))

  it.live("skip: bad lines become Invalid items with unique task ids and messages naming the line", () =>
    Effect.gen(function*() {
      const file = fileWith([
        JSON.stringify({ id: "a", inputs: {} }),
        `{"id":"a","inputs":"dup and bad"}`,
        `{nope`,
        `{"id":"b","inputs":[]}`,
        JSON.stringify({ id: "b", inputs: {} }),
        JSON.stringify({ id: "a", inputs: {} }),
        JSON.stringify({ id: "c", inputs: {} })
      ].join("\n"))
      const items = yield* read(file, "skip")
      assert.strictEqual(items.length, 7)
      const ids = items.map((item) => item._tag === "Task" ? item.task.id : item.taskId)
      assert.strictEqual(new Set(ids).size, ids.length, ids.join(", "))
      assert.deepStrictEqual(items.map((item) => item._tag), ["Task", "Invalid", "Invalid", "Invalid", "Invalid", "Invalid", "Task"])
      items.forEach((item, i) => {
        if (item._tag === "Invalid") assert.isTrue(item.message.startsWith(`${file}:${i + 1}: `), item.message)
      })
      assert.deepStrictEqual(ids, ["a", `${file}:2`, `${file}:3`, "b", `${file}:5`, `${file}:6`, "c"])
    }))

  it.live("a line that is not valid UTF-8 is an error naming the file, line and byte offset (not a U+FFFD id)", () =>
    Effect.gen(function*() {
      // Two ids that differ only in a bad byte: decoded with U+FFFD they
      // were one id, and the second line a confusing "duplicate task id".
      const good = JSON.stringify({ id: "a", inputs: {} }) + "\r\n"
      const head = Buffer.from(`${good}{"id":"x`)
      const tail = Buffer.from(`","inputs":{}}\n`)
      const cases = [
        [[0xff], 0],
        [[0xfe], 0],
        [[0xc3], 0], // a 2-byte character cut short
        [[0x61, 0xe2, 0x82], 1], // a 3-byte one cut short, after an "a"
        [[0xc0, 0xaf], 0], // an overlong "/"
        [[0xed, 0xa0, 0x80], 0], // a UTF-16 surrogate
        [[0xf4, 0x90, 0x80, 0x80], 0] // above U+10FFFF
      ] as const
      for (const [bad, at] of cases) {
        const file = fileWith(Buffer.concat([head, Buffer.from(bad), tail, head, Buffer.from([0xfd]), tail]))
        const error = yield* errorOf(file)
        assert.strictEqual(error.line, 2, error.message)
        assert.strictEqual(error.message, `${file}:2: not valid UTF-8 (byte offset ${head.length + at})`)
      }
    }))

  it.live("skip: a line that is not valid UTF-8 is an Invalid item named by its line", () =>
    Effect.gen(function*() {
      const line = (id: string) => Buffer.from(JSON.stringify({ id, inputs: {} }) + "\n")
      const bad = Buffer.concat([Buffer.from(`{"id":"b`), Buffer.from([0xff]), Buffer.from(`","inputs":{}}\n`)])
      const file = fileWith(Buffer.concat([line("a"), bad, line("b"), line("c")]))
      const items = yield* read(file, "skip")
      assert.deepStrictEqual(items.map((item) => item._tag === "Task" ? item.task.id : [item.taskId, item.message]), [
        "a",
        [`${file}:2`, `${file}:2: not valid UTF-8 (byte offset ${line("a").length + 8})`],
        "b",
        "c"
      ])
    }))

  it.live("a byte order mark at the start of the file is dropped, as before", () =>
    Effect.gen(function*() {
      const file = fileWith(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ id: "a", inputs: {} }) + "\n")]))
      assert.deepStrictEqual(tasksOf(yield* read(file)).map((t) => t.id), ["a"])
    }))

  it.live("reads a file bigger than a read chunk, with multi-byte characters across chunk boundaries", () =>
    Effect.gen(function*() {
      const tasks = Array.from({ length: 3000 }, (_, i) => ({
        id: `t${i}-${"é😀✓".repeat(i % 7)}`,
        inputs: { text: "ünïcödé 😀 ".repeat(i % 13), i }
      }))
      const file = fileWith(tasks.map((t) => JSON.stringify(t)).join("\r\n"))
      assert.isAbove(fs.statSync(file).size, 200_000)
      assert.deepStrictEqual(tasksOf(yield* read(file)), tasks)
    }))
})

describe("Dataset.synthetic and countLines", () => {
  it.live("synthetic(n): n tasks synthetic-0.. with an instruction and the reference answer", () =>
    Effect.gen(function*() {
      const tasks = tasksOf(yield* Stream.runCollect(Dataset.synthetic(5)))
      assert.deepStrictEqual(tasks.map((t) => [t.id, t.inputs["instruction"], t.reference]), [
        ["synthetic-0", "What is 0 + 0?", "0"],
        ["synthetic-1", "What is 1 + 1?", "2"],
        ["synthetic-2", "What is 2 + 2?", "4"],
        ["synthetic-3", "What is 3 + 3?", "6"],
        ["synthetic-4", "What is 4 + 4?", "8"]
      ])
      assert.deepStrictEqual(yield* Stream.runCollect(Dataset.synthetic(0)), [])
    }))

  it.live("countLines counts non-blank lines; undefined for stdin and a missing file", () =>
    Effect.gen(function*() {
      const count = (file: string) => Dataset.countLines(file).pipe(Effect.provide(NodeServices.layer))
      assert.strictEqual(yield* count(fileWith("a\n\n b \r\n  \nc")), 3)
      assert.strictEqual(yield* count("-"), undefined)
      assert.strictEqual(yield* count(path.join(tempDir(), "missing")), undefined)
    }))
})

// A small deterministic PRNG for the random cases.
const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe("splitLines", () => {
  it.effect.prop(
    "matches a reference split for random text in random chunks: text, numbers, byte ends, terminated",
    { seed: Schema.Int },
    ({ seed }) =>
      Effect.gen(function*() {
        const random = mulberry32(seed)
        const pieces = ["a", "bc", " ", "é", "😀", "✓", "\n", "\n", "\r\n", "{\"x\":1}"]
        let text = ""
        const length = Math.floor(random() * 60)
        for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)]
        const bytes = new TextEncoder().encode(text)
        const chunks: Array<Uint8Array> = []
        for (let start = 0; start < bytes.length;) {
          const size = 1 + Math.floor(random() * 7)
          chunks.push(bytes.subarray(start, start + size))
          start += size
        }
        const lines = yield* Stream.runCollect(splitLines(Stream.fromIterable(chunks)))

        const parts = text.split("\n")
        const last = parts.pop()!
        const expected: Array<{ text: string; number: number; end: number; terminated: boolean }> = []
        let end = 0
        for (const part of parts) {
          end += new TextEncoder().encode(part).length + 1
          expected.push({ text: part.replace(/\r$/, ""), number: expected.length + 1, end, terminated: true })
        }
        if (last !== "") {
          end += new TextEncoder().encode(last).length
          expected.push({ text: last.replace(/\r$/, ""), number: expected.length + 1, end, terminated: false })
        }
        assert.deepStrictEqual(lines.map((l) => ({ ...l })), expected, JSON.stringify(text))
      }),
    { arbitrary: { runs: 300 } }
  )
})

describe("splitLines on long lines", () => {
  it.effect("copies each byte of a line that spans many chunks at most twice, not once per chunk", () =>
    Effect.gen(function*() {
      // A 2 MB line in 2048 chunks of 1 KB, then a short line: re-copying the
      // partial line at each chunk would copy about 2 GB.
      const chunkSize = 1024
      const chunks: Array<Uint8Array> = []
      for (let i = 0; i < 2048; i++) chunks.push(new Uint8Array(chunkSize).fill(0x61 + (i % 26)))
      chunks.push(new TextEncoder().encode("\nlast"))
      const total = chunks.reduce((n, c) => n + c.length, 0)
      const count = { copied: 0 }
      const lines = yield* Stream.runCollect(splitLines(Stream.fromIterable(chunks), count))
      assert.deepStrictEqual(lines.map((l) => [l.number, l.text.length, l.end, l.terminated]), [
        [1, 2048 * chunkSize, 2048 * chunkSize + 1, true],
        [2, 4, total, false]
      ])
      assert.strictEqual(lines[0].text.slice(chunkSize - 1, chunkSize + 1), "ab")
      assert.isAtMost(count.copied, 2 * total, `copied ${count.copied} bytes for ${total}`)
    }))
})

describe("firstInvalid", () => {
  it.effect.prop(
    "agrees with a fatal TextDecoder on random bytes, and the bytes before it are valid UTF-8",
    { seed: Schema.Int },
    ({ seed }) =>
      Effect.sync(() => {
        const random = mulberry32(seed)
        // Mostly pieces of real characters, cut and spliced, and now and then any byte.
        const pool = [...new TextEncoder().encode("aé✓😀\u{10FFFF}\uFFFD"), 0x80, 0xbf, 0xc0, 0xc1, 0xed, 0xf4, 0xf5, 0xff]
        const bytes = Uint8Array.from({ length: Math.floor(random() * 24) }, () =>
          random() < 0.2 ? Math.floor(random() * 256) : pool[Math.floor(random() * pool.length)])
        const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
        const valid = (b: Uint8Array) => {
          try {
            fatal.decode(b)
            return true
          } catch {
            return false
          }
        }
        const at = firstInvalid(bytes)
        assert.strictEqual(at === -1, valid(bytes), Array.from(bytes).join(","))
        if (at !== -1) {
          assert.isTrue(valid(bytes.subarray(0, at)), `${at}: ${Array.from(bytes).join(",")}`)
          // Decoding from `at` on starts with a replacement character: the byte there is bad.
          assert.isTrue(new TextDecoder().decode(bytes.subarray(at)).startsWith("\uFFFD"), `${at}: ${Array.from(bytes).join(",")}`)
        }
      }),
    { arbitrary: { runs: 2000 } }
  )

  it.effect("splitLines gives the offset from the start of the stream, across chunk boundaries", () =>
    Effect.gen(function*() {
      const bytes = Buffer.concat([Buffer.from("ok\r\nsecond "), Buffer.from([0xe2, 0x82]), Buffer.from(" line\n\nlast")])
      for (const size of [1, 2, 3, 5, 64]) {
        const chunks: Array<Uint8Array> = []
        for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size))
        const lines = yield* Stream.runCollect(splitLines(Stream.fromIterable(chunks)))
        assert.deepStrictEqual(lines.map((l) => l.invalidUtf8), [undefined, 11, undefined, undefined], `chunks of ${size}`)
        assert.deepStrictEqual(lines.map((l) => l.number), [1, 2, 3, 4])
      }
    }))
})

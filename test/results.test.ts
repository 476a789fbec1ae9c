/**
 * The results file on a real file system: `prepare` (refuse to overwrite,
 * resume, torn-line repair, retry-failed rewrite) and the batching `writer`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Results from "../src/results/Results.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { removeTempDirs, tempDir } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const trial = (id: string, status: "completed" | "failed" = "completed", text = "ok"): AgentEvalTrial => ({
  id,
  task_id: id.slice(0, id.lastIndexOf(":")),
  status,
  ...(status === "completed"
    ? { output: { output_text: text } }
    : { error: { type: "AgentError", message: "no", occurred_at: "2026-01-01T00:00:01.000Z" } }),
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000, epoch: 1 }
})
const line = (t: AgentEvalTrial) => JSON.stringify(t) + "\n"

const fileWith = (content: string) => {
  const file = path.join(tempDir(), "out.jsonl")
  fs.writeFileSync(file, content)
  return file
}

const prepare = (file: string, options: { resume: boolean; retryFailed?: boolean }, prior?: Array<string>) =>
  Results.prepare(file, {
    resume: options.resume,
    retryFailed: options.retryFailed ?? false,
    onPrior: prior === undefined ? undefined : (t) => prior.push(t.id)
  }).pipe(Effect.provide(NodeServices.layer))

const prepareError = (file: string, options: { resume: boolean; retryFailed?: boolean }) =>
  Effect.flip(prepare(file, options))

describe("Results.prepare", () => {
  it.live("without resume: a missing file (its folder is created) or an empty file is fine", () =>
    Effect.gen(function*() {
      const missing = path.join(tempDir(), "new", "folder", "out.jsonl")
      const a = yield* prepare(missing, { resume: false })
      assert.strictEqual(a.kept, 0)
      assert.isTrue(fs.statSync(path.dirname(missing)).isDirectory())
      const b = yield* prepare(fileWith(""), { resume: false })
      assert.strictEqual(b.kept, 0)
    }))

  it.live("without resume: a non-empty file is an error naming it, and is left untouched", () =>
    Effect.gen(function*() {
      const content = line(trial("a:1"))
      const file = fileWith(content)
      const error = yield* prepareError(file, { resume: false })
      assert.strictEqual(error._tag, "ResultsError")
      assert.include(error.message, file)
      assert.include(error.message, "--resume")
      assert.strictEqual(fs.readFileSync(file, "utf8"), content)
    }))

  it.live("resume: records every trial, failed ones too, and hands each to onPrior", () =>
    Effect.gen(function*() {
      const file = fileWith(line(trial("a:1")) + "\n" + line(trial("b:1", "failed")) + line(trial("c:1")))
      const prior: Array<string> = []
      const recorded = yield* prepare(file, { resume: true }, prior)
      assert.deepStrictEqual([recorded.kept, recorded.droppedFailed, recorded.repairedBytes], [3, 0, 0])
      assert.deepStrictEqual(prior, ["a:1", "b:1", "c:1"])
      for (const id of ["a:1", "b:1", "c:1"]) assert.isTrue(recorded.ids.has(id), id)
      assert.isFalse(recorded.ids.has("d:1"))
    }))

  it.live("resume: a torn last line is cut off at the exact byte", () =>
    Effect.gen(function*() {
      const whole = line(trial("a:1")) + line(trial("b:1", "completed", "héllo ✓ 😀"))
      const torn = line(trial("c:1", "completed", "ünïcödé 😀 torn")).slice(0, 70)
      const file = fileWith(whole + torn)
      const recorded = yield* prepare(file, { resume: true })
      assert.deepStrictEqual([recorded.kept, recorded.repairedBytes], [2, Buffer.byteLength(torn)])
      assert.isFalse(recorded.ids.has("c:1"))
      assert.strictEqual(fs.readFileSync(file, "utf8"), whole)
    }))

  it.live("resume: a torn line of only a few bytes, and a file that is only a torn line", () =>
    Effect.gen(function*() {
      const whole = line(trial("a:1"))
      const file = fileWith(whole + "{")
      const recorded = yield* prepare(file, { resume: true })
      assert.deepStrictEqual([recorded.kept, recorded.repairedBytes], [1, 1])
      assert.strictEqual(fs.readFileSync(file, "utf8"), whole)

      const onlyTorn = fileWith(`{"id":"a:1","task_`)
      const none = yield* prepare(onlyTorn, { resume: true })
      assert.deepStrictEqual([none.kept, none.repairedBytes], [0, 18])
      assert.strictEqual(fs.readFileSync(onlyTorn, "utf8"), "")
    }))

  it.live("resume: a valid last line without its newline is kept, and the newline added", () =>
    Effect.gen(function*() {
      const content = line(trial("a:1")) + line(trial("b:1")).trimEnd()
      const file = fileWith(content)
      const recorded = yield* prepare(file, { resume: true })
      assert.deepStrictEqual([recorded.kept, recorded.repairedBytes], [2, 0])
      assert.isTrue(recorded.ids.has("b:1"))
      assert.strictEqual(fs.readFileSync(file, "utf8"), content + "\n")
    }))

  it.live("resume: a damaged line that is not the torn last one is an error naming the line; the file is untouched", () =>
    Effect.gen(function*() {
      const cases = [
        [line(trial("a:1")) + "garbage\n" + line(trial("c:1")), 2, "not valid JSON"],
        [line(trial("a:1")) + line(trial("b:1")) + "{\"id\":\"c:1\"}\n", 3, "does not match"],
        [line(trial("a:1")) + "{\"id\":\"b:1\"}\n" + "torn", 2, "does not match"]
      ] as const
      for (const [content, number, reason] of cases) {
        const file = fileWith(content)
        const error = yield* prepareError(file, { resume: true })
        assert.include(error.message, `${file}:${number}:`)
        assert.include(error.message, reason)
        assert.strictEqual(fs.readFileSync(file, "utf8"), content)
      }
    }))

  it.live("resume: a line that is not valid UTF-8 mid-file is an error naming the line and byte offset; the file is untouched", () =>
    Effect.gen(function*() {
      const first = Buffer.from(line(trial("a:1")))
      const bad = Buffer.from(line(trial("b:1", "completed", "X")).replace("X", "\u0000"))
      bad[bad.indexOf(0)] = 0xff
      const content = Buffer.concat([first, bad, Buffer.from(line(trial("c:1")))])
      const file = path.join(tempDir(), "out.jsonl")
      fs.writeFileSync(file, content)
      const error = yield* prepareError(file, { resume: true })
      assert.strictEqual(
        error.message,
        `${file}:2: not valid UTF-8 (byte offset ${first.length + bad.indexOf(0xff)}); the file was left as it is`
      )
      assert.isTrue(fs.readFileSync(file).equals(content))
    }))

  it.live("resume: a torn last line cut inside a multi-byte character is cut off", () =>
    Effect.gen(function*() {
      const whole = line(trial("a:1"))
      const next = Buffer.from(line(trial("b:1", "completed", "😀😀")))
      const torn = next.subarray(0, next.indexOf(0xf0) + 2)
      const file = path.join(tempDir(), "out.jsonl")
      fs.writeFileSync(file, Buffer.concat([Buffer.from(whole), torn]))
      const recorded = yield* prepare(file, { resume: true })
      assert.deepStrictEqual([recorded.kept, recorded.repairedBytes], [1, torn.length])
      assert.strictEqual(fs.readFileSync(file, "utf8"), whole)
    }))

  it.live("resume + retryFailed: the failed lines are removed (by rewrite) and not recorded", () =>
    Effect.gen(function*() {
      const kept = [trial("a:1"), trial("c:1"), trial("e:1")]
      const file = fileWith(
        line(kept[0]) + line(trial("b:1", "failed")) + line(kept[1]) + "\n" + line(trial("d:1", "failed")) + line(kept[2]) +
          `{"id":"f:1","sta`
      )
      const prior: Array<string> = []
      const recorded = yield* prepare(file, { resume: true, retryFailed: true }, prior)
      assert.deepStrictEqual([recorded.kept, recorded.droppedFailed], [3, 2])
      assert.isAbove(recorded.repairedBytes, 0)
      assert.deepStrictEqual(prior, ["a:1", "c:1", "e:1"])
      for (const id of ["a:1", "c:1", "e:1"]) assert.isTrue(recorded.ids.has(id), id)
      for (const id of ["b:1", "d:1", "f:1"]) assert.isFalse(recorded.ids.has(id), id)
      assert.strictEqual(fs.readFileSync(file, "utf8"), kept.map(line).join(""))
      assert.deepStrictEqual(fs.readdirSync(path.dirname(file)), ["out.jsonl"])
    }))

  it.live("resume + retryFailed with nothing failed leaves the file as it is", () =>
    Effect.gen(function*() {
      const content = line(trial("a:1")) + line(trial("b:1"))
      const file = fileWith(content)
      const recorded = yield* prepare(file, { resume: true, retryFailed: true })
      assert.deepStrictEqual([recorded.kept, recorded.droppedFailed], [2, 0])
      assert.strictEqual(fs.readFileSync(file, "utf8"), content)
    }))
})

describe("Results.writer", () => {
  // The writer creates its file at the first write: no file reads as no lines.
  const readLines = (file: string) =>
    fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []

  it.live("writes whole lines: a batch when batchSize are pending, the rest when its scope closes", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "out.jsonl")
      const trials = Array.from({ length: 8 }, (_, i) => trial(`t${i}:1`, i % 3 === 0 ? "failed" : "completed"))
      yield* Effect.scoped(Effect.gen(function*() {
        const writer = yield* Results.writer(file, { batchSize: 3, flushEvery: "1 hour" })
        yield* writer.append(trials[0])
        yield* writer.append(trials[1])
        assert.deepStrictEqual([writer.written(), fs.existsSync(file)], [0, false])
        yield* writer.append(trials[2])
        assert.deepStrictEqual([writer.written(), readLines(file).length], [3, 3])
        for (const t of trials.slice(3)) yield* writer.append(t)
        assert.deepStrictEqual([writer.written(), readLines(file).length], [6, 6])
      })).pipe(Effect.provide(NodeServices.layer))
      assert.deepStrictEqual(readLines(file).map((l) => JSON.parse(l)), trials)
      // And prepare reads back exactly what the writer wrote.
      const recorded = yield* prepare(file, { resume: true })
      assert.strictEqual(recorded.kept, 8)
      for (const t of trials) assert.isTrue(recorded.ids.has(t.id))
    }))

  it.live("appends to what is there, and flushes pending lines on its own timer", () =>
    Effect.gen(function*() {
      const file = fileWith(line(trial("old:1")))
      yield* Effect.scoped(Effect.gen(function*() {
        const writer = yield* Results.writer(file, { batchSize: 1000, flushEvery: "10 millis" })
        yield* writer.append(trial("new:1"))
        // No flush asked for: the background timer writes it (polled, generous bound).
        for (let i = 0; i < 500 && writer.written() === 0; i++) yield* Effect.sleep("10 millis")
        assert.strictEqual(writer.written(), 1)
        assert.deepStrictEqual(readLines(file).map((l) => JSON.parse(l).id), ["old:1", "new:1"])
      })).pipe(Effect.provide(NodeServices.layer))
    }))

  it.live("an interrupted run's pending lines are flushed when the scope closes", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "out.jsonl")
      const appended = yield* Deferred.make<void>()
      const fiber = yield* Effect.scoped(Effect.gen(function*() {
        const writer = yield* Results.writer(file, { batchSize: 1000, flushEvery: "1 hour" })
        for (let i = 0; i < 10; i++) yield* writer.append(trial(`t${i}:1`))
        yield* Deferred.succeed(appended, undefined)
        return yield* Effect.never
      })).pipe(Effect.provide(NodeServices.layer), Effect.forkChild)
      yield* Deferred.await(appended)
      assert.isFalse(fs.existsSync(file), "nothing written before the scope closes")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(readLines(file).map((l) => JSON.parse(l).id), Array.from({ length: 10 }, (_, i) => `t${i}:1`))
    }))
})

/**
 * The response cache's store and key (issue 40, part 3): `SqliteCache` on a
 * real file (entries served within their lifetime on the TestClock, refresh,
 * clear, stats), `CacheKey` (epochs apart, credentials out, key order
 * irrelevant), `ResponseCache.call` (stores only a decoded answer that is no
 * error body; counts hits and misses per trial), and real processes: two
 * writers at once, and a writer SIGKILLed mid-write leaving a whole file.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import * as CacheKey from "../src/cache/Key.ts"
import * as ResponseCache from "../src/cache/ResponseCache.ts"
import * as SqliteCache from "../src/cache/Sqlite.ts"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-cache-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

const DAY = 86_400_000

describe("SqliteCache", () => {
  it.effect("serves an entry within its lifetime, not after; refresh serves nothing and overwrites", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const cache = yield* SqliteCache.make({ dir, lifetimeMs: 7 * DAY })
      yield* cache.store("k", "{\"a\":1}")
      assert.deepStrictEqual(yield* cache.lookup("k"), Option.some("{\"a\":1}"))
      assert.deepStrictEqual(yield* cache.lookup("other"), Option.none())
      yield* TestClock.adjust(7 * DAY)
      assert.deepStrictEqual(yield* cache.lookup("k"), Option.some("{\"a\":1}"), "exactly at its lifetime: still served")
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* cache.lookup("k"), Option.none(), "past its lifetime")
      const refresh = yield* SqliteCache.make({ dir, lifetimeMs: 7 * DAY, refresh: true })
      yield* cache.store("k2", "{\"b\":1}")
      assert.deepStrictEqual(yield* refresh.lookup("k2"), Option.none())
      yield* refresh.store("k2", "{\"b\":2}")
      assert.deepStrictEqual(yield* cache.lookup("k2"), Option.some("{\"b\":2}"))
      assert.strictEqual(cache.file, path.join(dir, "responses.sqlite"))
      const db = new DatabaseSync(cache.file)
      assert.strictEqual((db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode, "wal")
      db.close()
    }).pipe(Effect.scoped))

  it.effect("stats counts entries, bytes and their times; clear --older-than removes the old ones only", () =>
    Effect.gen(function*() {
      const cache = yield* SqliteCache.make({ dir: tempDir() })
      const empty = yield* cache.stats
      assert.deepStrictEqual([empty.entries, empty.bytes, empty.oldest, empty.newest], [0, 0, undefined, undefined])
      yield* cache.store("old", "12345")
      yield* TestClock.adjust(2 * DAY)
      yield* cache.store("new", "é")
      const stats = yield* cache.stats
      assert.deepStrictEqual([stats.entries, stats.bytes], [2, 7])
      assert.strictEqual(stats.oldest, new Date(0).toISOString())
      assert.strictEqual(stats.newest, new Date(2 * DAY).toISOString())
      assert.isAbove(stats.file_bytes, 0)
      assert.strictEqual(yield* cache.clear(DAY), 1)
      assert.deepStrictEqual(yield* cache.lookup("old"), Option.none())
      assert.deepStrictEqual(yield* cache.lookup("new"), Option.some("é"))
      assert.strictEqual(yield* cache.clear(), 1)
      assert.strictEqual((yield* cache.stats).entries, 0)
    }).pipe(Effect.scoped))

  it.effect("a folder that cannot be made is a CacheError naming the file", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "a-file")
      fs.writeFileSync(file, "")
      const error = yield* Effect.flip(SqliteCache.make({ dir: path.join(file, "cache") }))
      assert.strictEqual(error._tag, "CacheError")
      assert.strictEqual(error.file, path.join(file, "cache", "responses.sqlite"))
      assert.match(error.message, /^the response cache .*responses\.sqlite: /)
    }).pipe(Effect.scoped))
})

describe("CacheKey", () => {
  const request = { kind: "openai", url: "http://127.0.0.1:1/v1/chat/completions", model: "m", body: { a: 1, b: [1, 2] } }
  it("epochs, models, kinds and bodies are apart; key order and credentials are not", () => {
    const key = CacheKey.of({ ...request, epoch: 1 })
    assert.match(key, /^[0-9a-f]{64}$/)
    assert.notStrictEqual(key, CacheKey.of({ ...request, epoch: 2 }))
    assert.notStrictEqual(key, CacheKey.of({ ...request, epoch: 1, model: "n" }))
    assert.notStrictEqual(key, CacheKey.of({ ...request, epoch: 1, kind: "judge" }))
    assert.notStrictEqual(key, CacheKey.of({ ...request, epoch: 1, body: { a: 1, b: [2, 1] } }))
    assert.strictEqual(key, CacheKey.of({ ...request, epoch: 1, body: { b: [1, 2], a: 1 } }))
    assert.strictEqual(key, CacheKey.of({ ...request, epoch: 1, url: "http://me:pw@127.0.0.1:1/v1/chat/completions?api_key=sk-1" }))
    assert.notStrictEqual(key, CacheKey.of({ ...request, epoch: 1, url: "http://127.0.0.1:1/v1/chat/completions?deployment=x" }))
    assert.strictEqual(CacheKey.canonical({ b: 1, a: { d: undefined, c: 2 } }), "{\"a\":{\"c\":2},\"b\":1}")
  })
})

describe("ResponseCache.call", () => {
  it.effect("stores a decoded answer only; serves it next time; counts each trial's hits and misses", () =>
    Effect.gen(function*() {
      const cache = yield* SqliteCache.make({ dir: tempDir(), countTrials: true })
      let sent = 0
      const send = (body: unknown) => Effect.sync(() => (sent++, body))
      const decode = (body: unknown) =>
        typeof body === "object" && body !== null && "answer" in body ? Effect.succeed(body.answer) : Effect.fail("no answer")
      const call = (epoch: number, answer: unknown, usable?: (body: unknown) => boolean) =>
        ResponseCache.call(
          { kind: "test", url: "http://h/x", body: { q: 1 }, trial: { id: `t:${epoch}`, epoch } },
          send(answer),
          decode,
          usable
        ).pipe(Effect.provideService(ResponseCache.ResponseCache, cache), Effect.result)
      // Not decoded: not stored, asked again.
      yield* call(1, { error: "x" })
      yield* call(1, { error: "x" })
      assert.strictEqual(sent, 2)
      // Decoded but not usable (an error body read as a finish): not stored.
      yield* call(1, { answer: "filtered" }, () => false)
      yield* call(1, { answer: "4" })
      assert.strictEqual(sent, 4)
      // Served: the same answer, no request.
      const served = yield* call(1, { answer: "other" })
      assert.strictEqual(sent, 4)
      assert.deepStrictEqual(served._tag === "Success" ? served.success : undefined, "4")
      // Another epoch is another sample.
      yield* call(2, { answer: "5" })
      assert.strictEqual(sent, 5)
      assert.strictEqual(cache.tallies.take("t:1"), "partial")
      assert.strictEqual(cache.tallies.take("t:1"), undefined, "taken once")
      assert.strictEqual(cache.tallies.take("t:2"), "miss")
      yield* call(2, { answer: "6" })
      assert.strictEqual(cache.tallies.take("t:2"), "hit")
      assert.strictEqual(cache.tallies.size, 0)
    }).pipe(Effect.scoped))

  it.effect("a cache that does not count trials keeps no tally (a program that never takes them)", () =>
    Effect.gen(function*() {
      const cache = yield* SqliteCache.make({ dir: tempDir() })
      for (let i = 0; i < 3; i++) {
        yield* ResponseCache.call(
          { kind: "t", url: "http://h/x", body: { i }, trial: { id: `t${i}:1`, epoch: 1 } },
          Effect.succeed({ ok: true } as unknown),
          Effect.succeed
        ).pipe(Effect.provideService(ResponseCache.ResponseCache, cache))
      }
      assert.strictEqual(cache.tallies.size, 0)
      assert.strictEqual((yield* cache.stats).entries, 3)
    }).pipe(Effect.scoped))

  it.effect("without the service, every call is sent and nothing is counted", () =>
    Effect.gen(function*() {
      let sent = 0
      for (let i = 0; i < 2; i++) {
        yield* ResponseCache.call({ kind: "t", url: "http://h/x", body: {} }, Effect.sync(() => ++sent), Effect.succeed)
      }
      assert.strictEqual(sent, 2)
    }))
})

// The fixture writer, on Node 24 with tsx's loader.
const writer = (dir: string, from: number, count: number) => {
  const bin = path.resolve(import.meta.dirname, "..", "node_modules", ".bin")
  const child = spawn(path.join(bin, "node"), ["--import", "tsx", "test/fixtures/cache-writer.ts", dir, String(from), String(count)], {
    cwd: path.resolve(import.meta.dirname, ".."),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
  child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal }))
  )
  const stored = () => (stdout.match(/stored \d+/g) ?? []).length
  return { child, done, stored, stderr: () => stderr }
}

const readAll = (dir: string): Map<string, string> => {
  const db = new DatabaseSync(path.join(dir, "responses.sqlite"))
  try {
    assert.strictEqual((db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check, "ok")
    const rows = db.prepare("SELECT key, body FROM responses").all() as Array<{ key: string; body: string }>
    return new Map(rows.map((row) => [row.key, row.body]))
  } finally {
    db.close()
  }
}

describe("SqliteCache across processes", () => {
  it("two processes writing at once (1,500 keys each, 500 shared): both finish, every entry whole", async () => {
    const dir = tempDir()
    const a = writer(dir, 0, 1500)
    const b = writer(dir, 1000, 1500)
    const [ra, rb] = await Promise.all([a.done, b.done])
    assert.deepStrictEqual(ra, { code: 0, signal: null }, a.stderr())
    assert.deepStrictEqual(rb, { code: 0, signal: null }, b.stderr())
    const rows = readAll(dir)
    assert.strictEqual(rows.size, 2500)
    for (const [key, body] of rows) assert.strictEqual((JSON.parse(body) as { key: string }).key, key)
  }, 120_000)

  it("a writer SIGKILLed mid-write leaves a whole file: every entry it reported stored is there and parses", async () => {
    const dir = tempDir()
    const w = writer(dir, 0, 0)
    const deadline = Date.now() + 60_000
    while (w.stored() < 300 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    w.child.kill("SIGKILL")
    const result = await w.done
    assert.strictEqual(result.signal, "SIGKILL", w.stderr())
    const reported = w.stored()
    assert.isAtLeast(reported, 300)
    const rows = readAll(dir)
    assert.isAtLeast(rows.size, reported)
    for (let i = 0; i < reported; i++) assert.isTrue(rows.has(`k-${i}`), `k-${i} was reported stored`)
    for (const [key, body] of rows) assert.strictEqual((JSON.parse(body) as { key: string }).key, key)
    // The file still opens as a cache, and takes writes.
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const cache = yield* SqliteCache.make({ dir })
      yield* cache.store("after", "{}")
      assert.isTrue(Option.isSome(yield* cache.lookup("after")))
    })))
  }, 120_000)
})

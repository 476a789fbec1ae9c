/**
 * Issue 37, items 7 and 8: a Hub download is bounded and never half-kept.
 * Against the fake Hub on 127.0.0.1 (test/fixtures/hub-server.ts) through
 * the real undici client and the real file system: a CDN that sends
 * headers and then nothing, or no headers, or one that trickles a byte
 * per 20 ms (TestClock drives `--hub-timeout`; the test lets each byte
 * out), a body larger than the Hub declares or than `--max-download`, a
 * body cut short with a clean end, and two fibers filling one cache entry
 * at once.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as child from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Hub from "../src/datasets/internal/hub.ts"
import { DatasetError } from "../src/datasets/Source.ts"
import { content, drip, serveHub, sha } from "./fixtures/hub-server.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})
const cacheDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-hf-dl-"))
  dirs.push(dir)
  return dir
}

const layer = Layer.mergeAll(NodeHttpClient.layerUndici, NodeServices.layer)
const FILE = "data/train-00000-of-00001.parquet"
const SPEC = "hf:owner/big"
const whole = content(400_000, 9)

const hub = () =>
  serveHub({ "owner/big": { refs: { main: { sha: sha("4"), files: new Map([[FILE, whole]]) } } } })

const localOf = (cache: string) => path.join(cache, "hf", "owner", "big", sha("4"), ...FILE.split("/"))

const resolveWith = (
  endpoint: string,
  cache: string,
  bounds: { readonly timeoutMs?: number; readonly maxDownload?: number; readonly maxInfo?: number } = {}
) =>
  Hub.resolve(SPEC, Hub.parseSpec(SPEC) as Hub.HubRef, { endpoint, token: undefined, cacheDir: cache, ...bounds }).pipe(
    Effect.provide(layer)
  )

const failureOf = (effect: Effect.Effect<unknown, DatasetError>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, DatasetError)
    assert.isTrue(error.message.startsWith(`${SPEC}: `), error.message)
    return error
  })

// Real time for the socket, test time for the bound: wait (really) for the
// request to be held, then move the TestClock a second at a time until the
// resolution ends; the test time it took is returned.
const realSleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))
// A condition on the world outside the test's clock (a socket, a file), polled in real time; the
// bound only ends a test that would otherwise hang, it decides nothing.
const untilReal = (done: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 3000 && !done(); i++) yield* realSleep(5)
    assert.isTrue(done(), `waited 15 s (real) for ${what}`)
  })
const endUnderTestClock = <A, E>(fiber: Fiber.Fiber<A, E>, held: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !held(); i++) yield* realSleep(10)
    assert.isTrue(held(), "the request was held")
    yield* realSleep(300)
    let seconds = 0
    while (fiber.pollUnsafe() === undefined && seconds < 120) {
      yield* TestClock.adjust("1 second")
      seconds++
      yield* realSleep(5)
    }
    return seconds
  })

describe("--hub-timeout: every wait on the Hub is bounded (TestClock)", () => {
  it.effect("headers, then no byte for the timeout: a transient error naming the URL (redacted) and the bytes received", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      server.behaveNext(FILE, { _tag: "Silent" })
      const fiber = yield* Effect.forkChild(failureOf(resolveWith(server.endpoint, cache, { timeoutMs: 5000 })))
      const cdn = `/cdn/owner/big/${sha("4")}/${FILE}`
      const seconds = yield* endUnderTestClock(fiber, () => server.count(cdn) === 1)
      const error = yield* Fiber.join(fiber)
      assert.isAtLeast(seconds, 5)
      assert.strictEqual(error.transient, true)
      // The URL asked for, not the CDN's signed one it redirects to.
      assert.include(error.message, `download from ${server.endpoint}/datasets/owner/big/resolve/${sha("4")}/${FILE} stalled`)
      assert.include(error.message, "stalled: no byte for 5s (--hub-timeout); 0 B received (0 bytes), kept to resume: run again")
      assert.notInclude(error.message, "deadbeef")
      assert.isFalse(fs.existsSync(localOf(cache)))
    })))

  it.effect("no headers for the timeout: a transient error naming the URL and the timeout", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      server.behaveNext(FILE, { _tag: "NoHeaders" })
      const fiber = yield* Effect.forkChild(failureOf(resolveWith(server.endpoint, cache, { timeoutMs: 5000 })))
      const seconds = yield* endUnderTestClock(fiber, () => server.count(`/cdn/owner/big/${sha("4")}/${FILE}`) === 1)
      const error = yield* Fiber.join(fiber)
      assert.isAtLeast(seconds, 5)
      assert.strictEqual(error.transient, true)
      assert.include(error.message, `no answer from ${server.endpoint}/datasets/owner/big/resolve/${sha("4")}/${FILE} in 5s (--hub-timeout)`)
      assert.isFalse(fs.existsSync(localOf(cache)))
    })))
})

describe("a body too slow, too large or too short", () => {
  it.effect("a byte every 20 ms of test time (under 1 KB/s over a 1 s timeout) ends the download; the .part keeps what came, and a run after resumes it (TestClock)", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      const tap = drip()
      server.behaveNext(FILE, { _tag: "Drip", drip: tap })
      const fiber = yield* Effect.forkChild(failureOf(resolveWith(server.endpoint, cache, { timeoutMs: 1000 })))
      const part = `${localOf(cache)}.part`
      const partSize = () => fs.existsSync(part) ? fs.statSync(part).size : -1
      // Real time only for the socket: wait (bounded) for the answer's headers, then for each byte to
      // reach the .part (counted by the reader before it is written) before the next 20 ms of test time.
      yield* untilReal(() => server.count(`/cdn/owner/big/${sha("4")}/${FILE}`) === 1 && partSize() === 0, "the headers of the answer")
      let sent = 0
      while (fiber.pollUnsafe() === undefined && sent < 200) {
        tap.send(1)
        sent++
        yield* untilReal(() => partSize() === sent || fiber.pollUnsafe() !== undefined, `byte ${sent} in the .part`)
        yield* TestClock.adjust("20 millis")
      }
      assert.isDefined(fiber.pollUnsafe(), `the download still runs after ${sent} bytes at one per 20 ms of test time`)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.transient, true)
      // One window of 1 s at a byte per 20 ms: 50 bytes, 49 or 50 counted in it; not a stall.
      const m = /is too slow: (49|50) bytes in 1s \(--hub-timeout\), under 1 KB\/s; \d+ B received \((\d+) bytes\), kept to resume/.exec(error.message)
      assert.isNotNull(m, error.message)
      // The .part holds what the message says came, and it came in about 1 s of test time.
      const kept = fs.statSync(part).size
      assert.strictEqual(kept, Number(m![2]))
      assert.isAtLeast(kept, 49)
      assert.isAtMost(kept, 51)
      const resolved = yield* resolveWith(server.endpoint, cache, { timeoutMs: 1000 })
      assert.deepStrictEqual(new Uint8Array(fs.readFileSync(resolved.files[0]!.local)), whole)
      // Resumed from the bytes kept: a Range request after them.
      assert.strictEqual(server.requestsOf(`/cdn/owner/big/${sha("4")}/${FILE}`).at(-1)?.headers.range, `bytes=${kept}-`)
    })))

  it.live("more bytes than the Hub declares (x-linked-size, no Content-Length): stopped, the .part removed, nothing cached", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      server.linkedSize.set(FILE, 1000)
      server.behaveNext(FILE, { _tag: "Chunked" })
      const error = yield* failureOf(resolveWith(server.endpoint, cache))
      assert.strictEqual(error.transient, true)
      assert.include(error.message, "is larger than the 1000 bytes the Hub declares (x-linked-size): stopped at")
      assert.isFalse(fs.existsSync(`${localOf(cache)}.part`))
      assert.isFalse(fs.existsSync(localOf(cache)))
    })))

  it.live("no size declared: more than --max-download stops, removes the .part and names the limit", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      server.linkedSize.set(FILE, null)
      server.behaveNext(FILE, { _tag: "Chunked" })
      const error = yield* failureOf(resolveWith(server.endpoint, cache, { maxDownload: 100_000 }))
      assert.include(error.message, "is larger than --max-download 100 KB (no size declared)")
      assert.isFalse(fs.existsSync(`${localOf(cache)}.part`))
      assert.isFalse(fs.existsSync(localOf(cache)))
      // Under the limit, the same undeclared body is cached.
      server.behaveNext(FILE, { _tag: "Chunked" })
      const resolved = yield* resolveWith(server.endpoint, cache, { maxDownload: 500_000 })
      assert.deepStrictEqual(new Uint8Array(fs.readFileSync(resolved.files[0]!.local)), whole)
    })))

  it.live("a body that ends cleanly short of the declared size is never renamed into the cache; the next run resumes it", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      server.behaveNext(FILE, { _tag: "Chunked", bytes: 150_000 })
      const error = yield* failureOf(resolveWith(server.endpoint, cache))
      assert.include(error.message, `has 150000 of ${whole.length} bytes: run again to resume it`)
      assert.isFalse(fs.existsSync(localOf(cache)))
      assert.strictEqual(fs.statSync(`${localOf(cache)}.part`).size, 150_000)
      const resolved = yield* resolveWith(server.endpoint, cache)
      assert.deepStrictEqual(new Uint8Array(fs.readFileSync(resolved.files[0]!.local)), whole)
    })))
})

describe("the dataset info answer", () => {
  it.live("larger than the cap (1 MB here, 64 MB by default): stopped, naming the URL and the cap; under the default it reads", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* serveHub({
        "owner/big": { refs: { main: { sha: sha("4"), files: new Map([[FILE, whole]]) } }, infoPadding: 4_000_000 }
      })
      const cache = cacheDir()
      const error = yield* failureOf(resolveWith(server.endpoint, cache, { maxInfo: 1_000_000 }))
      assert.include(
        error.message,
        `the answer of ${server.endpoint}/api/datasets/owner/big/revision/main is larger than 1 MB (1000000 bytes), too large for a dataset info: stopped`
      )
      assert.strictEqual(server.count(`/datasets/owner/big/resolve/${sha("4")}/${FILE}`), 0)
      const resolved = yield* resolveWith(server.endpoint, cache)
      assert.deepStrictEqual(new Uint8Array(fs.readFileSync(resolved.files[0]!.local)), whole)
    })))
})

describe("one cache entry, two runs", () => {
  it.live("two fibers filling the same entry at once both succeed; the file is downloaded once", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      // Both requests are in before either body is sent.
      server.bodyDelayMs = 300
      const [a, b] = yield* Effect.all([resolveWith(server.endpoint, cache), resolveWith(server.endpoint, cache)], { concurrency: 2 })
      for (const resolved of [a, b]) assert.deepStrictEqual(new Uint8Array(fs.readFileSync(resolved.files[0]!.local)), whole)
      assert.strictEqual(server.count(`/cdn/owner/big/${sha("4")}/${FILE}`), 1)
      assert.isFalse(fs.existsSync(`${localOf(cache)}.lock`))
      assert.isFalse(fs.existsSync(`${localOf(cache)}.part`))
    })))

  it.effect("a lock whose holder lives but whose .part has not moved for three --hub-timeouts: an error naming the lock to delete (TestClock)", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      const lock = `${localOf(cache)}.lock`
      fs.mkdirSync(path.dirname(localOf(cache)), { recursive: true })
      // This process: alive, and never moving the .part.
      fs.writeFileSync(lock, `${process.pid} ${os.hostname()}\n`)
      fs.writeFileSync(`${localOf(cache)}.part`, whole.subarray(0, 1000))
      const fiber = yield* Effect.forkChild(failureOf(resolveWith(server.endpoint, cache, { timeoutMs: 2000 })))
      const seconds = yield* endUnderTestClock(fiber, () => server.count("/api/datasets/owner/big/revision/main") === 1)
      const error = yield* Fiber.join(fiber)
      assert.isAtLeast(seconds, 6)
      assert.include(error.message, `${lock} is held by another run (${process.pid} ${os.hostname()}) whose download has not moved for 6s`)
      assert.include(error.message, `delete ${lock} and run again`)
      // Nothing was downloaded, and the lock is not ours to remove.
      assert.strictEqual(server.count(`/datasets/owner/big/resolve/${sha("4")}/${FILE}`), 0)
      assert.isTrue(fs.existsSync(lock))
    })))

  it.live("a lock left by a killed run of this host (its pid gone) is taken over", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const cache = cacheDir()
      const gone = child.spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString()
      fs.mkdirSync(path.dirname(localOf(cache)), { recursive: true })
      fs.writeFileSync(`${localOf(cache)}.lock`, `${gone} ${os.hostname()}\n`)
      fs.writeFileSync(`${localOf(cache)}.part`, whole.subarray(0, 1000))
      const resolved = yield* resolveWith(server.endpoint, cache)
      assert.deepStrictEqual(new Uint8Array(fs.readFileSync(resolved.files[0]!.local)), whole)
      assert.strictEqual(server.requestsOf(`/cdn/owner/big/${sha("4")}/${FILE}`)[0]!.headers.range, "bytes=1000-")
    })))
})

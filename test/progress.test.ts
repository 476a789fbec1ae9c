/**
 * The progress line's ETA: the remaining time is rounded up before it is split
 * into units, so no unit ever shows its carry (`1m60s`, `59m60s`); the live
 * line cut to the terminal's width; the last line of a stopped run without
 * an ETA.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Progress from "../src/programs/run/Progress.ts"

const source = (completed: number, total: number | undefined): Progress.Source => ({
  probe: new MutableProbe(),
  recorded: { completed, failed: 0, partial: 0 },
  skipped: () => 0,
  total: () => total,
  parallelism: 4
})

// The ETA field of a line after `finished` trials (none failed, none skipped)
// in `elapsedMs`, out of `total`: the remaining time is
// (total - finished) * elapsedMs / finished.
const eta = (finished: number, elapsedMs: number, total: number): string => {
  const text = Progress.line(source(finished, total), elapsedMs)
  const field = /(?:^| {2})ETA (\S+)(?: {2}|$)/.exec(text)
  assert.isNotNull(field, `no one-word ETA field in ${JSON.stringify(text)}`)
  return field![1]!
}

describe("Progress ETA", () => {
  it("a remaining time just under a unit boundary rounds up into the next unit (no 1m60s, 59m60s)", () => {
    // 2 trials per second; the remaining trials give the remaining seconds.
    assert.strictEqual(eta(2, 1000, 2 + 239), "2m") // 119.5 s: was 1m60s
    assert.strictEqual(eta(2, 1000, 2 + 7199), "1h") // 3599.5 s: was 59m60s
    assert.strictEqual(eta(2, 1000, 2 + 14_399), "2h") // 7199.5 s: was 1h59m, rounded down
  })

  it("exact values: rounded up to whole seconds below an hour, whole minutes from an hour on", () => {
    assert.strictEqual(eta(10, 1000, 10), "0s") // nothing left
    assert.strictEqual(eta(5, 1000, 5 + 2), "1s") // 0.4 s: never 0s while trials remain
    assert.strictEqual(eta(2, 1000, 2 + 100), "50s")
    assert.strictEqual(eta(5, 1000, 5 + 296), "1m") // 59.2 s rounds up to 60 s
    assert.strictEqual(eta(2, 1000, 2 + 120), "1m")
    assert.strictEqual(eta(2, 1000, 2 + 122), "1m1s")
    assert.strictEqual(eta(2, 1000, 2 + 7141), "59m31s") // 3570.5 s
    assert.strictEqual(eta(2, 1000, 2 + 7201), "1h1m") // 3600.5 s
    assert.strictEqual(eta(2, 1000, 2 + 180_122), "1d1h2m") // 90061 s
  })

  it("no ETA before the first trial finishes, nor without a total", () => {
    assert.notInclude(Progress.line(source(0, 10), 5000), "ETA")
    assert.include(Progress.line(source(1, 10), 5000), "ETA 45s")
    assert.notInclude(Progress.line(source(1, undefined), 5000), "ETA")
  })
})

describe("Progress.fit: the live line on a narrow terminal", () => {
  const text = "1234/10000 (12%)  395.7/s  ETA 22s  active 8/8  failed 10  interrupted 3"

  it("keeps the whole fields that fit in columns - 1, cuts a first field that does not, and keeps a short line", () => {
    assert.strictEqual(Progress.fit(text, 45), "1234/10000 (12%)  395.7/s  ETA 22s")
    assert.strictEqual(Progress.fit(text, 35), "1234/10000 (12%)  395.7/s  ETA 22s")
    assert.strictEqual(Progress.fit(text, 34), "1234/10000 (12%)  395.7/s")
    assert.strictEqual(Progress.fit(text, 10), "1234/1000")
    assert.strictEqual(Progress.fit(text, text.length + 1), text)
    assert.strictEqual(Progress.fit(text, text.length), text.slice(0, text.lastIndexOf("  ")))
    assert.strictEqual(Progress.fit(text, undefined), text)
    assert.strictEqual(Progress.fit(text, 0), text)
    for (let columns = 2; columns <= text.length + 2; columns++) {
      const fitted = Progress.fit(text, columns)
      assert.isBelow(fitted.length, columns, `${columns} columns: ${JSON.stringify(fitted)}`)
      assert.isTrue(text.startsWith(fitted))
    }
  })

  it.effect("a tty display writes each line cut to the terminal's width, read at each tick", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      let columns = 45
      const probe = new MutableProbe()
      const src: Progress.Source = { ...source(1234, 10_000), probe, parallelism: 8 }
      const fiber = yield* Progress.display(src, {
        tty: true,
        interval: "1 second",
        write: (t) => writes.push(t),
        columns: () => columns
      }).pipe(Effect.forkChild)
      yield* TestClock.adjust("3 seconds")
      columns = 20
      yield* TestClock.adjust("1 second")
      yield* Fiber.interrupt(fiber)
      const lines = writes.filter((w) => w !== "\r\x1b[2K").map((w) => w.replace("\r\x1b[2K", ""))
      // In full: "1234/10000 (12%)  1234.0/s  ETA 8s  active 0/8  failed 0", 56 characters.
      assert.deepStrictEqual(lines, [
        "1234/10000 (12%)  1234.0/s  ETA 8s",
        "1234/10000 (12%)  617.0/s  ETA 15s",
        "1234/10000 (12%)  411.3/s  ETA 22s",
        "1234/10000 (12%)"
      ])
      assert.strictEqual(writes.at(-1), "\r\x1b[2K")
    }))
})

describe("Progress: the last line of a stopped run", () => {
  it.effect("has no ETA (interrupted, failure budget, input error); the lines before it do", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const probe = new MutableProbe()
      const src: Progress.Source = { ...source(50, 200), probe, parallelism: 4 }
      const fiber = yield* Progress.display(src, { tty: false, interval: "1 second", write: (t) => writes.push(t) }).pipe(
        Effect.forkChild
      )
      yield* TestClock.adjust("2 seconds")
      probe.interrupted = 3
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(writes, [
        "progress: 50/200 (25%)  50.0/s  ETA 3s  active 0/4  failed 0\n",
        "progress: 50/200 (25%)  25.0/s  ETA 6s  active 0/4  failed 0\n",
        "progress: 50/200 (25%)  25.0/s  active 0/4  failed 0  interrupted 3\n"
      ])
    }))

  it("Progress.line with final: no ETA, whatever is left", () => {
    assert.include(Progress.line(source(5, 10), 1000), "ETA")
    assert.notInclude(Progress.line(source(5, 10), 1000, { final: true }), "ETA")
    assert.strictEqual(Progress.line(source(5, 10), 1000, { final: true }), "5/10 (50%)  5.0/s  active 0/4  failed 0")
  })
})

/**
 * The progress line's ETA: the remaining time is rounded up before it is split
 * into units, so no unit ever shows its carry (`1m60s`, `59m60s`).
 */
import { assert, describe, it } from "@effect/vitest"
import { MutableProbe } from "../src/internal/probe.ts"
import * as Progress from "../src/Progress.ts"

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

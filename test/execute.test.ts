import { assert, describe, it } from "@effect/vitest"
import { isoTime } from "../src/internal/execute.ts"

describe("isoTime", () => {
  it("matches Date#toISOString across minutes, seconds and milliseconds", () => {
    let ms = Date.UTC(2026, 11, 2, 23, 58, 58, 990)
    // Steps of 7 ms and 61 s cross second, minute, hour and day boundaries.
    for (let i = 0; i < 20_000; i++) {
      ms += i % 50 === 0 ? 61_000 : 7
      assert.strictEqual(isoTime(ms), new Date(ms).toISOString())
    }
    for (const fixed of [0, 999, 1000, 59_999, 60_000, Date.UTC(2030, 0, 1)]) {
      assert.strictEqual(isoTime(fixed), new Date(fixed).toISOString())
    }
  })
})

/**
 * The compact id set behind resume and duplicate checks: no false negatives,
 * `add` reports repeats, and it agrees with a plain `Set` through its growth.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { IdSet } from "../src/internal/IdSet.ts"

describe("IdSet", () => {
  it("holds 300,000 trial ids: every one found, repeats refused, others absent", () => {
    const n = 300_000
    const set = new IdSet()
    const id = (i: number) => `synthetic-${i}:${1 + (i % 3)}`
    let refused = 0
    for (let i = 0; i < n; i++) if (!set.add(id(i))) refused++
    assert.deepStrictEqual([refused, set.size], [0, n])
    let missing = 0
    let repeated = 0
    let falsePositives = 0
    for (let i = 0; i < n; i++) {
      if (!set.has(id(i))) missing++
      if (set.add(id(i))) repeated++
      // Same shapes, never added: the next epoch, and ids past the end.
      if (set.has(`synthetic-${i}:${4 + (i % 3)}`) || set.has(id(n + i))) falsePositives++
    }
    assert.deepStrictEqual({ missing, repeated, falsePositives, size: set.size }, { missing: 0, repeated: 0, falsePositives: 0, size: n })
  })

  it("the empty string and ids that differ only late or in case are distinct", () => {
    const set = new IdSet(1)
    const ids = ["", " ", "a", "A", "ab", "ba", "x".repeat(1000), "x".repeat(999) + "y", "é", "e\u0301", "😀", "\u0000"]
    for (const id of ids) assert.isTrue(set.add(id), JSON.stringify(id))
    for (const id of ids) assert.isFalse(set.add(id), JSON.stringify(id))
    for (const id of ids) assert.isTrue(set.has(id), JSON.stringify(id))
    assert.strictEqual(set.size, ids.length)
  })

  it.effect.prop(
    "agrees with a Set on random sequences with repeats, from any initial capacity",
    { ids: Schema.Array(Schema.String), capacity: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 64 })) },
    ({ capacity, ids }) =>
      Effect.sync(() => {
        const set = new IdSet(capacity)
        const reference = new Set<string>()
        // Each id twice, so repeats always happen.
        for (const id of [...ids, ...ids.slice().reverse()]) {
          assert.strictEqual(set.add(id), !reference.has(id), JSON.stringify(id))
          reference.add(id)
        }
        for (const id of reference) assert.isTrue(set.has(id))
        assert.strictEqual(set.size, reference.size)
      }),
    { arbitrary: { runs: 200 } }
  )
})

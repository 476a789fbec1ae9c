/**
 * The compact id set behind resume and duplicate checks: no false negatives,
 * `add` reports repeats, and it agrees with a plain `Set` through its growth;
 * fingerprints are 128-bit SipHash under a key of each set's own, and the table
 * stays under 48 bytes an id.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { fingerprint, IdSet } from "../src/internal/IdSet.ts"

// The scheme IdSet used before: two unkeyed 32-bit hashes of the code units.
const oldFingerprint = (s: string): [number, number] => {
  let f = 0x811c9dc5
  let m = 0x9747b28c ^ s.length
  for (let i = 0; i < s.length; i++) {
    f = Math.imul(f ^ s.charCodeAt(i), 0x01000193)
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    m ^= Math.imul(k, 0x1b873593)
    m = (m << 13) | (m >>> 19)
    m = (Math.imul(m, 5) + 0xe6546b64) | 0
  }
  m ^= m >>> 16
  m = Math.imul(m, 0x85ebca6b)
  m ^= m >>> 13
  m = Math.imul(m, 0xc2b2ae35)
  m ^= m >>> 16
  return [f >>> 0, m >>> 0]
}

const hex = (words: ArrayLike<number>) =>
  Array.from(new Uint8Array(Uint32Array.from(words).buffer), (b) => b.toString(16).padStart(2, "0")).join("")

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

  it("ids that are not well-formed UTF-16 stay distinct: code units are hashed, not UTF-8", () => {
    // UTF-8 would turn each lone surrogate into U+FFFD, making the first three one id.
    const ids = ["\ud800", "\udc00", "\ufffd", "\ud800\udc00", "\udc00\ud800", "\u{10000}x", "\ud800\udc00\ud800"]
    const set = new IdSet(1)
    for (const id of ids) assert.isTrue(set.add(id), JSON.stringify(id))
    for (const id of ids) assert.isTrue(set.has(id), JSON.stringify(id))
    // "\ud800\udc00" is "\u{10000}": the same string, so one id.
    assert.isFalse(set.add("\u{10000}"))
    assert.strictEqual(set.size, ids.length)
  })

  it("fingerprints are SipHash-2-4-128 of the id's UTF-16LE bytes (the reference vectors)", () => {
    // From veorq/SipHash vectors.h (vectors_sip128): key 00..0f, message 00 01 .. len-1.
    // An even byte length is a string of len/2 code units; these cover 0-3 units
    // past the last full block, and several blocks.
    const vectors: ReadonlyArray<readonly [number, string]> = [
      [0, "a3817f04ba25a8e66df67214c7550293"],
      [2, "8177228da4a45dc7fca38bdef60affe4"],
      [4, "f88164c12d9c8faf7d0f6e7c7bcd5579"],
      [6, "14eeca338b208613485ea0308fd7a15e"],
      [8, "3b62a9ba6258f5610f83e264f31497b4"],
      [14, "31fcefac66d7de9c7ec7485fe4494902"],
      [16, "6ee2a4ca67b054bbfd3315bf85230577"],
      [62, "5853542321f567a005d547a4f04759bd"]
    ]
    const key = new Uint32Array(Uint8Array.from({ length: 16 }, (_, i) => i).buffer)
    const out = new Uint32Array(6)
    for (const [bytes, expected] of vectors) {
      let id = ""
      for (let i = 0; i < bytes; i += 2) id += String.fromCharCode(i | ((i + 1) << 8))
      out.fill(0xffffffff)
      fingerprint(key, id, out, 1)
      assert.strictEqual(hex(out.subarray(1, 5)), expected, `${bytes} bytes`)
      // Only the four words at `at` are written.
      assert.deepStrictEqual([out[0], out[5]], [0xffffffff, 0xffffffff])
      // A set with this key stores exactly this fingerprint.
      assert.strictEqual(hex(new IdSet(1, key).fingerprintOf(id)), expected, `${bytes} bytes, through IdSet`)
    }
  })

  it("each set draws its own key: the same id gets a different 128-bit fingerprint in another set", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => `task-${i}:1`)
    const a = new IdSet()
    const b = new IdSet()
    let same = 0
    for (const id of ids) if (hex(a.fingerprintOf(id)) === hex(b.fingerprintOf(id))) same++
    assert.strictEqual(same, 0)
    // A set with a given key fingerprints like `fingerprint` with that key, so
    // the key is what differs; and all four words carry hash bits: under this
    // key each word takes 10,000 values across 10,000 ids.
    const key = Uint32Array.of(1, 2, 3, 4)
    const keyed = new IdSet(1, key)
    const out = new Uint32Array(4)
    const distinct = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()]
    for (const id of ids) {
      fingerprint(key, id, out, 0)
      assert.deepStrictEqual(keyed.fingerprintOf(id), Array.from(out))
      out.forEach((word, i) => distinct[i].add(word))
    }
    assert.deepStrictEqual(distinct.map((words) => words.size), [10_000, 10_000, 10_000, 10_000])
  })

  it("ids crafted to collide under the old unkeyed 64-bit fingerprint are two ids", () => {
    // Found offline in 11 s of CPU (no key, so anyone can): first ideographs whose
    // FNV-1a states agree in the high 16 bits, then a second one for each that
    // cancels the rest of the FNV-1a and the Murmur-like difference.
    const a = "task-1205-\u825d\u60b0:1"
    const b = "task-1205-\u6552\u894d:1"
    assert.notStrictEqual(a, b)
    assert.deepStrictEqual(oldFingerprint(a), oldFingerprint(b))
    // The old set took b for a repeat of a: a trial skipped on resume, a false
    // duplicate task id in a dataset.
    const set = new IdSet()
    assert.isTrue(set.add(a))
    assert.isFalse(set.has(b))
    assert.isTrue(set.add(b))
    assert.isTrue(set.has(a) && set.has(b))
    assert.strictEqual(set.size, 2)
  })

  it("bytes per id stay between 21.3 and 48 across growth, from initialCapacity ids on", () => {
    for (const initialCapacity of [1, 1024]) {
      const set = new IdSet(initialCapacity)
      let min = Infinity
      let max = 0
      let growths = 0
      let bytes = set.byteLength
      for (let i = 0; i < 200_000; i++) {
        set.add(`synthetic-${i}:1`)
        if (set.byteLength !== bytes) growths++
        bytes = set.byteLength
        if (set.size < Math.max(initialCapacity, 6)) continue
        min = Math.min(min, bytes / set.size)
        max = Math.max(max, bytes / set.size)
      }
      // 16-byte slots, 3/8 to 3/4 full: the extremes are 16 / (3/4) and 16 / (3/8).
      assert.isAtLeast(growths, 8, `initialCapacity ${initialCapacity}`)
      assert.isAtLeast(min, 16 / (3 / 4), `initialCapacity ${initialCapacity}`)
      assert.isBelow(max, 48, `initialCapacity ${initialCapacity}`)
      assert.isAtMost(max, 16 / (3 / 8), `initialCapacity ${initialCapacity}`)
    }
  })

  it("has on an empty set answers without hashing: it never reads the id", () => {
    let reads = 0
    // Reads like the string "a", counting every look at it.
    const id = {
      get length() {
        reads++
        return 1
      },
      charCodeAt: () => {
        reads++
        return 0x61
      }
    } as unknown as string
    assert.isFalse(new IdSet().has(id))
    assert.strictEqual(reads, 0)
    const set = new IdSet()
    set.add("a")
    assert.isTrue(set.has(id))
    assert.isAbove(reads, 0)
  })

  it("refuses a key that is not 128 bits, naming what it got", () => {
    assert.throws(() => new IdSet(1, new Uint32Array(2)), "IdSet key must be 4 32-bit words (128 bits), got 2")
  })
})

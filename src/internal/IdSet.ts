/**
 * A compact set of string ids for resume and duplicate checks: each id is
 * stored as a 128-bit fingerprint, SipHash-2-4 with 128-bit output keyed by a
 * random 128-bit key that each set draws from `crypto.getRandomValues` and
 * never shows, in an open-addressing table of one `Uint32Array`.
 *
 * Guarantee: an id that was added is always found. An id that was not added
 * is reported present only if its fingerprint equals a stored one: for ids
 * chosen without knowing the key (it never leaves the process), each pair
 * collides with probability 2^-128, so n ids hold any collision with
 * probability at most about n^2 / 2^129: 1.5e-27 at a million ids, 1.5e-25
 * at ten million. An unkeyed hash gives no such bound against chosen ids:
 * the old 64-bit (FNV-1a, Murmur-like) pair had colliding ids that are easy
 * to compute (test/idset.test.ts holds one pair).
 *
 * Memory: 16 bytes a slot, and the table is kept 3/8 to 3/4 full, so from
 * `initialCapacity` ids on (and 6, the first table having 16 slots) it needs
 * 21.3 to 42.7 bytes per id (ten million ids: 268 MB), against the ~60-100 of
 * a `Set<string>`. While it doubles, the old and the new table coexist for a
 * moment: 64 bytes per id.
 *
 * Cost: `npx tsx scripts/bench/idset.ts` measures it.
 *
 * @internal
 */
import { getRandomValues } from "node:crypto"

/** Words of a fingerprint, which is also a slot of the table. */
const WORDS = 4
const MIN_SLOTS = 16
// Past this a word offset (slot << 2) would overflow an int32.
const MAX_SLOTS = 2 ** 28

export class IdSet {
  private readonly key: Uint32Array
  /** The fingerprint of the id being looked up, so a lookup allocates nothing. */
  private readonly scratch = new Uint32Array(WORDS)
  /** Slot i is words 4i..4i+3; a first word of 0 marks it empty. */
  private slots: Uint32Array
  private mask: number
  /** Above this many ids the table doubles: it stays at most 3/4 full. */
  private limit: number
  private count = 0

  /**
   * `key` (four 32-bit words) is for tests that need the same fingerprints
   * twice; without it each set draws its own, which is what the collision
   * bound assumes.
   */
  constructor(initialCapacity = 1024, key?: Uint32Array) {
    if (key !== undefined && key.length !== WORDS) {
      throw new RangeError(`IdSet key must be ${WORDS} 32-bit words (128 bits), got ${key.length}`)
    }
    this.key = key === undefined ? getRandomValues(new Uint32Array(WORDS)) : Uint32Array.from(key)
    let slots = MIN_SLOTS
    while ((slots / 4) * 3 < initialCapacity && slots < MAX_SLOTS) slots *= 2
    this.slots = new Uint32Array(slots * WORDS)
    this.mask = slots - 1
    this.limit = (slots / 4) * 3
  }

  get size(): number {
    return this.count
  }

  /** Bytes of the table: what the bytes-per-id figures above measure. */
  get byteLength(): number {
    return this.slots.byteLength
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    const at = this.probe(id)
    if (at >= 0) return false
    const slots = this.slots
    const scratch = this.scratch
    const o = ~at
    slots[o] = scratch[0]
    slots[o + 1] = scratch[1]
    slots[o + 2] = scratch[2]
    slots[o + 3] = scratch[3]
    if (++this.count > this.limit) this.grow()
    return true
  }

  has(id: string): boolean {
    // A run without --resume asks an empty set about every trial.
    if (this.count === 0) return false
    return this.probe(id) >= 0
  }

  /** The fingerprint this set stores for `id`, as four 32-bit words. */
  fingerprintOf(id: string): ReadonlyArray<number> {
    this.probe(id)
    return Array.from(this.scratch)
  }

  /**
   * Leaves the fingerprint of `id` in `scratch` and returns the word offset
   * of its slot, or the complement (~offset, negative) of the empty slot
   * where it belongs.
   */
  private probe(id: string): number {
    const scratch = this.scratch
    fingerprint(this.key, id, scratch, 0)
    // 0 marks an empty slot; folding it into 1 raises the chance that two
    // fingerprints agree by a factor of only 1 + 2^-31.
    if (scratch[0] === 0) scratch[0] = 1
    const a = scratch[0]
    const b = scratch[1]
    const c = scratch[2]
    const d = scratch[3]
    const slots = this.slots
    const mask = this.mask
    for (let i = a & mask;; i = (i + 1) & mask) {
      const o = i << 2
      const first = slots[o]
      if (first === 0) return ~o
      if (first === a && slots[o + 1] === b && slots[o + 2] === c && slots[o + 3] === d) return o
    }
  }

  private grow(): void {
    const old = this.slots
    const count = old.length / WORDS * 2
    if (count > MAX_SLOTS) {
      throw new RangeError(`IdSet holds at most ${(MAX_SLOTS / 4) * 3} ids (a ${MAX_SLOTS * 16 / 2 ** 30} GiB table)`)
    }
    const slots = new Uint32Array(count * WORDS)
    const mask = count - 1
    for (let from = 0; from < old.length; from += WORDS) {
      const a = old[from]
      if (a === 0) continue
      let i = a & mask
      while (slots[i << 2] !== 0) i = (i + 1) & mask
      const to = i << 2
      slots[to] = a
      slots[to + 1] = old[from + 1]
      slots[to + 2] = old[from + 2]
      slots[to + 3] = old[from + 3]
    }
    this.slots = slots
    this.mask = mask
    this.limit = (count / 4) * 3
  }
}

/**
 * SipHash-2-4 with 128-bit output (Aumasson and Bernstein; the reference
 * code's `siphash(in, inlen, k, out, 16)`) of `id` read as UTF-16LE bytes,
 * written to `out[at..at+3]` as the little-endian words of its 16 bytes.
 * `key` holds the 16 key bytes as four little-endian words.
 *
 * The code units are hashed as they are, not encoded to UTF-8, which would
 * turn every lone surrogate into U+FFFD and make such ids collide. Each
 * 64-bit word of the state is a (low, high) pair of int32s: JS has no 64-bit
 * integers short of BigInt, which is far slower.
 *
 * @example
 * const out = new Uint32Array(4)
 * fingerprint(new Uint32Array([0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c]), "", out, 0)
 * // out: the reference vector for the empty message, a3 81 7f 04 ...
 */
export const fingerprint = (key: Uint32Array, id: string, out: Uint32Array, at: number): void => {
  let v0l = key[0] ^ 0x70736575
  let v0h = key[1] ^ 0x736f6d65
  let v1l = key[2] ^ 0x6e646f6d ^ 0xee
  let v1h = key[3] ^ 0x646f7261
  let v2l = key[0] ^ 0x6e657261
  let v2h = key[1] ^ 0x6c796765
  let v3l = key[2] ^ 0x79746573
  let v3h = key[3] ^ 0x74656462
  const n = id.length
  const blocks = n >>> 2
  let ml = 0
  let mh = 0
  let t = 0
  // Steps 0..blocks-1 absorb 8-byte blocks, step `blocks` the padded last
  // one, and the two after it squeeze out the two halves of the output: one
  // loop, so the round is written once.
  for (let step = 0; step < blocks + 3; step++) {
    let rounds = 2
    if (step < blocks) {
      const i = step << 2
      ml = id.charCodeAt(i) | (id.charCodeAt(i + 1) << 16)
      mh = id.charCodeAt(i + 2) | (id.charCodeAt(i + 3) << 16)
    } else if (step === blocks) {
      const i = step << 2
      const left = n & 3
      ml = left > 0 ? id.charCodeAt(i) | (left > 1 ? id.charCodeAt(i + 1) << 16 : 0) : 0
      // The top byte is the byte length mod 256: (2n & 0xff) << 24 is n << 25.
      mh = (left > 2 ? id.charCodeAt(i + 2) : 0) | (n << 25)
    } else {
      rounds = 4
      if (step === blocks + 1) v2l ^= 0xee
      else v1l ^= 0xdd
    }
    if (step <= blocks) {
      v3l ^= ml
      v3h ^= mh
    }
    for (let r = 0; r < rounds; r++) {
      // v0 += v1; v1 <<<= 13; v1 ^= v0; v0 <<<= 32
      t = (v0l + v1l) | 0
      v0h = (v0h + v1h + ((t >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0
      v0l = t
      t = (v1h << 13) | (v1l >>> 19)
      v1l = (v1l << 13) | (v1h >>> 19)
      v1h = t
      v1l ^= v0l
      v1h ^= v0h
      t = v0l
      v0l = v0h
      v0h = t
      // v2 += v3; v3 <<<= 16; v3 ^= v2
      t = (v2l + v3l) | 0
      v2h = (v2h + v3h + ((t >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0
      v2l = t
      t = (v3h << 16) | (v3l >>> 16)
      v3l = (v3l << 16) | (v3h >>> 16)
      v3h = t
      v3l ^= v2l
      v3h ^= v2h
      // v0 += v3; v3 <<<= 21; v3 ^= v0
      t = (v0l + v3l) | 0
      v0h = (v0h + v3h + ((t >>> 0) < (v0l >>> 0) ? 1 : 0)) | 0
      v0l = t
      t = (v3h << 21) | (v3l >>> 11)
      v3l = (v3l << 21) | (v3h >>> 11)
      v3h = t
      v3l ^= v0l
      v3h ^= v0h
      // v2 += v1; v1 <<<= 17; v1 ^= v2; v2 <<<= 32
      t = (v2l + v1l) | 0
      v2h = (v2h + v1h + ((t >>> 0) < (v2l >>> 0) ? 1 : 0)) | 0
      v2l = t
      t = (v1h << 17) | (v1l >>> 15)
      v1l = (v1l << 17) | (v1h >>> 15)
      v1h = t
      v1l ^= v2l
      v1h ^= v2h
      t = v2l
      v2l = v2h
      v2h = t
    }
    if (step <= blocks) {
      v0l ^= ml
      v0h ^= mh
    } else {
      const o = at + ((step - blocks - 1) << 1)
      out[o] = v0l ^ v1l ^ v2l ^ v3l
      out[o + 1] = v0h ^ v1h ^ v2h ^ v3h
    }
  }
}

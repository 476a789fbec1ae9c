/**
 * A compact set of string ids for resume and duplicate checks: each id is
 * stored as a 64-bit fingerprint (two independent 32-bit hashes) in an
 * open-addressing table of typed arrays, about 16-32 bytes per id instead of
 * the ~60-100 a JS `Set<string>` needs. Ten million ids fit in ~320 MB at
 * worst, a million in ~32 MB.
 *
 * Two different ids collide only if both hashes agree: with n ids the chance
 * that any pair collides is about n^2 / 2^65 (3e-8 at a million ids).
 *
 * @internal
 */
export class IdSet {
  private hi: Uint32Array
  private lo: Uint32Array
  private used: Uint8Array
  private mask: number
  size = 0

  constructor(initialCapacity = 1024) {
    let capacity = 16
    while (capacity < initialCapacity * 2) capacity *= 2
    this.hi = new Uint32Array(capacity)
    this.lo = new Uint32Array(capacity)
    this.used = new Uint8Array(capacity)
    this.mask = capacity - 1
  }

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    return this.insert(fnv1a(id), murmurish(id))
  }

  has(id: string): boolean {
    const h = fnv1a(id)
    const l = murmurish(id)
    let slot = (h ^ l) & this.mask
    while (this.used[slot] === 1) {
      if (this.hi[slot] === h && this.lo[slot] === l) return true
      slot = (slot + 1) & this.mask
    }
    return false
  }

  private insert(h: number, l: number): boolean {
    let slot = (h ^ l) & this.mask
    while (this.used[slot] === 1) {
      if (this.hi[slot] === h && this.lo[slot] === l) return false
      slot = (slot + 1) & this.mask
    }
    this.used[slot] = 1
    this.hi[slot] = h
    this.lo[slot] = l
    if (++this.size * 2 > this.mask + 1) this.grow()
    return true
  }

  private grow(): void {
    const { hi, lo, used } = this
    const capacity = (this.mask + 1) * 2
    this.hi = new Uint32Array(capacity)
    this.lo = new Uint32Array(capacity)
    this.used = new Uint8Array(capacity)
    this.mask = capacity - 1
    this.size = 0
    for (let i = 0; i < used.length; i++) {
      if (used[i] === 1) this.insert(hi[i], lo[i])
    }
  }
}

const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const murmurish = (s: string): number => {
  let h = 0x9747b28c ^ s.length
  for (let i = 0; i < s.length; i++) {
    let k = Math.imul(s.charCodeAt(i), 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    h ^= Math.imul(k, 0x1b873593)
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

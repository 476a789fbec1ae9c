/**
 * What IdSet's 128-bit keyed fingerprints cost: nanoseconds per hash for the
 * candidates that were weighed, per add/has at 1e6 and 1e7 ids, and bytes per
 * id across growth.
 *
 *   npx tsx scripts/bench/idset.ts [--sizes 1e6,1e7] [--rounds 3]
 *
 * Times are the best of `rounds`, as CPU time (user + system) per operation,
 * which other work on the machine disturbs less than wall time; wall time is
 * printed beside it. The ids are trial ids, `task-<i>:<epoch>` (~14 chars), and
 * in the hash table also 60-char ones.
 */
import { createHmac, hash, randomBytes } from "node:crypto"
import { parseArgs } from "node:util"
import { fingerprint, IdSet } from "../../src/internal/IdSet.ts"

const { values } = parseArgs({
  options: { sizes: { type: "string", default: "1e6,1e7" }, rounds: { type: "string", default: "3" } }
})
const sizes = values.sizes.split(",").map(Number)
const rounds = Number(values.rounds)
if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(rounds) || rounds < 1) {
  throw new Error(`--sizes takes positive integers (got ${values.sizes}), --rounds a positive integer (got ${values.rounds})`)
}

const shortId = (i: number) => `task-${i}:${1 + (i % 3)}`
const longId = (i: number) => `dataset/some-long-task-name-${i}-0123456789abcdef:${1 + (i % 3)}`

/** Best of `rounds` runs of `body` (which does `ops` operations): CPU and wall ns per op. */
const measure = (ops: number, body: () => void) => {
  let cpu = Infinity
  let wall = Infinity
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage()
    const w0 = process.hrtime.bigint()
    body()
    const w = Number(process.hrtime.bigint() - w0)
    const c = process.cpuUsage(c0)
    cpu = Math.min(cpu, ((c.user + c.system) * 1000) / ops)
    wall = Math.min(wall, w / ops)
  }
  return `${cpu.toFixed(0).padStart(6)} ns cpu ${wall.toFixed(0).padStart(6)} ns wall`
}

// The candidates, hashing only.
const out = new Uint32Array(4)
const key = new Uint32Array(4)
randomBytes(16).copy(Buffer.from(key.buffer))
const seed = randomBytes(16)
const scratch = Buffer.alloc(1 << 16)
seed.copy(scratch)
/** A one-shot digest of seed || UTF-16LE id (UTF-8 would merge lone surrogates), first 128 bits. */
const digest = (algorithm: string) => (id: string) => {
  const length = scratch.write(id, 16, "utf16le")
  const d = hash(algorithm, scratch.subarray(0, 16 + length), "buffer")
  out[0] = d.readUInt32LE(0)
  out[1] = d.readUInt32LE(4)
  out[2] = d.readUInt32LE(8)
  out[3] = d.readUInt32LE(12)
}
const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
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
  return (h ^ (h >>> 16)) >>> 0
}
const candidates: ReadonlyArray<readonly [string, (id: string) => void]> = [
  ["old: FNV-1a + Murmur-like, 64-bit, unkeyed", (id) => {
    out[0] = fnv1a(id)
    out[1] = murmurish(id)
  }],
  ["SipHash-2-4-128 in JS (shipped)", (id) => fingerprint(key, id, out, 0)],
  ["crypto.hash sha256(seed || id)", digest("sha256")],
  ["crypto.hash md5(seed || id)", digest("md5")],
  ["createHmac sha256 per id", (id) => {
    createHmac("sha256", seed).update(id, "utf16le").digest().copy(Buffer.from(out.buffer))
  }]
]
const hashOps = 300_000
for (const [shape, make] of [["14-char ids", shortId], ["60-char ids", longId]] as const) {
  const ids = Array.from({ length: hashOps }, (_, i) => make(i))
  console.log(`hash only, ${shape}:`)
  for (const [name, f] of candidates) {
    console.log(`  ${name.padEnd(44)} ${measure(hashOps, () => ids.forEach(f))}`)
  }
}

// The set as shipped.
for (const n of sizes) {
  for (const [shape, make] of [["14-char", shortId], ["60-char", longId]] as const) {
    const ids = Array.from({ length: n }, (_, i) => make(i))
    const absent = Array.from({ length: n }, (_, i) => make(n + i))
    let set = new IdSet()
    console.log(`IdSet, ${n} ${shape} ids:`)
    console.log(`  add (growing from the default 1024)     ${measure(n, () => {
      set = new IdSet()
      for (const id of ids) set.add(id)
    })}`)
    console.log(`  has, present                            ${measure(n, () => ids.forEach((id) => set.has(id)))}`)
    console.log(`  has, absent                             ${measure(n, () => absent.forEach((id) => set.has(id)))}`)
    const empty = new IdSet()
    console.log(`  has on an empty set (no --resume)       ${measure(n, () => ids.forEach((id) => empty.has(id)))}`)
    console.log(`  table ${(set.byteLength / 2 ** 20).toFixed(0)} MiB, ${(set.byteLength / set.size).toFixed(1)} bytes/id`)
  }
}

// Bytes per id after every add, from the default initial capacity (1024) on.
const top = Math.max(...sizes)
const set = new IdSet()
let min = Infinity
let max = 0
for (let i = 0; i < top; i++) {
  set.add(shortId(i))
  if (set.size < 1024) continue
  const perId = set.byteLength / set.size
  min = Math.min(min, perId)
  max = Math.max(max, perId)
}
console.log(`bytes/id from 1024 to ${top} ids: min ${min.toFixed(1)}, max ${max.toFixed(1)} (the table alone; while it doubles, old + new: up to 64)`)

/**
 * Edit distance over Unicode code points, with a bounded cost: linear memory
 * and at most `maxCells` dynamic-programming cells, so a 1 MB output can
 * never take quadratic time or memory.
 *
 * The work is Ukkonen's banded algorithm: after the common prefix and suffix
 * are dropped, the distance is checked against a bound k (the length
 * difference first, then doubled), computing only the cells within k of the
 * diagonal: m * (2k + 1) cells for the shorter side's m code points. So the
 * cost is about m * d for a distance d, and a short reference against a huge
 * output costs m * n once. Two rows of n + 1 integers are all it keeps.
 *
 * @since 0.1.0
 */

/**
 * The default budget: 2^26 cells, a few hundred milliseconds at most.
 *
 * @category constants
 * @since 0.1.0
 */
export const DEFAULT_MAX_CELLS = 2 ** 26

/**
 * `Exact`: the distance and the cells computed. `TooLarge`: the budget ran
 * out first; the distance is known only to be at least `atLeast`.
 *
 * @category models
 * @since 0.1.0
 */
export type Result =
  | { readonly _tag: "Exact"; readonly distance: number; readonly cells: number }
  | { readonly _tag: "TooLarge"; readonly atLeast: number; readonly cells: number }

/**
 * The code points of `text`.
 *
 * @category conversions
 * @since 0.1.0
 */
export const codePoints = (text: string): Uint32Array => {
  const out = new Uint32Array(text.length)
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!
    out[n++] = cp
    if (cp > 0xffff) i++
  }
  return out.subarray(0, n)
}

/**
 * The Levenshtein distance (insertions, deletions and substitutions of code
 * points, each costing 1) between `a` and `b`, within `maxCells` cells.
 *
 * **Example** (A distance and a similarity)
 *
 * ```ts
 * import { Levenshtein } from "agent-trials"
 *
 * const a = Levenshtein.codePoints("kitten")
 * const b = Levenshtein.codePoints("sitting")
 * Levenshtein.distance(a, b) // { _tag: "Exact", distance: 3, cells: ... }
 * ```
 *
 * @category algorithms
 * @since 0.1.0
 */
export const distance = (a: Uint32Array, b: Uint32Array, maxCells: number = DEFAULT_MAX_CELLS): Result => {
  let start = 0
  let endA = a.length
  let endB = b.length
  while (start < endA && start < endB && a[start] === b[start]) start++
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  // The shorter side indexes the rows.
  const [s, l] = endA - start <= endB - start
    ? [a.subarray(start, endA), b.subarray(start, endB)]
    : [b.subarray(start, endB), a.subarray(start, endA)]
  const m = s.length
  const n = l.length
  if (m === 0) return { _tag: "Exact", distance: n, cells: 0 }
  let cells = 0
  // The distance is at least n - m; each check that fails proves it above k.
  let proven = n - m
  const rows = [new Uint32Array(n + 1), new Uint32Array(n + 1)] as const
  for (let k = Math.max(n - m, 1);; k = Math.min(n, k * 2)) {
    // A band more than half as wide as a row costs about what the whole row
    // does: take the whole row, which cannot fail, rather than double again.
    if (4 * k + 2 > n + 1) k = n
    const cost = m * Math.min(n + 1, 2 * k + 1)
    if (cells + cost > maxCells) return { _tag: "TooLarge", atLeast: proven, cells }
    cells += cost
    // Never above n, so at k = n the check cannot fail.
    const d = within(s, l, k, rows[0], rows[1])
    if (d <= k) return { _tag: "Exact", distance: d, cells }
    proven = k + 1
  }
}

/**
 * The similarity `1 - distance / max(length a, length b)` in [0, 1]; 1 for
 * two empty texts.
 *
 * @category algorithms
 * @since 0.1.0
 */
export const similarity = (distance: number, lengthA: number, lengthB: number): number => {
  const longest = Math.max(lengthA, lengthB)
  return longest === 0 ? 1 : 1 - distance / longest
}

// The distance if it is at most k, else some value above k. Cells outside
// the band |i - j| <= k are "more than k" (INF); both rows start as INF and a
// row's band only moves right, so a cell just past the band was never written.
const within = (s: Uint32Array, l: Uint32Array, k: number, rowA: Uint32Array, rowB: Uint32Array): number => {
  const m = s.length
  const n = l.length
  const INF = k + 1
  let prev = rowA.fill(INF)
  let cur = rowB.fill(INF)
  for (let j = 0; j <= Math.min(n, k); j++) prev[j] = j
  for (let i = 1; i <= m; i++) {
    const lo = Math.max(1, i - k)
    const hi = Math.min(n, i + k)
    cur[0] = i <= k ? i : INF
    if (lo > 1) cur[lo - 1] = INF
    const si = s[i - 1]
    let rowMin = cur[0]
    for (let j = lo; j <= hi; j++) {
      const sub = prev[j - 1] + (si === l[j - 1] ? 0 : 1)
      const del = prev[j] + 1
      const ins = cur[j - 1] + 1
      let v = sub < del ? sub : del
      if (ins < v) v = ins
      if (v > INF) v = INF
      cur[j] = v
      if (v < rowMin) rowMin = v
    }
    // Every path to the end crosses this row: all of it above k means the distance is.
    if (rowMin > k) return INF
    const t = prev
    prev = cur
    cur = t
  }
  return prev[n]
}

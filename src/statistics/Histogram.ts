/**
 * A fixed log-scale histogram for percentiles in constant space. Re-exported
 * by `Summary.ts` (through `SummaryTally.ts`).
 *
 * @since 0.1.0
 */

// Buckets grow by 5%: a percentile is reported to within about ±2.5%.
const GROWTH = 1.05
const MIN_MS = 0.001
const BUCKETS = Math.ceil(Math.log(1e8 / MIN_MS) / Math.log(GROWTH)) + 2

/**
 * A latency histogram with fixed buckets.
 *
 * @category models
 * @since 0.1.0
 */
export class LatencyHistogram {
  readonly counts = new Float64Array(BUCKETS)
  total = 0
  max = 0

  record(ms: number): void {
    const b = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(ms / MIN_MS) / Math.log(GROWTH)))
    this.counts[b]++
    this.total++
    if (ms > this.max) this.max = ms
  }

  /** The latencies bucket `b` of `counts` holds, in ms: `[low, high)` (bucket 0 is `[0, 0.001]`). */
  bucketRange(b: number): readonly [low: number, high: number] {
    return b === 0 ? [0, MIN_MS] : [MIN_MS * GROWTH ** (b - 1), MIN_MS * GROWTH ** b]
  }

  /** The q-quantile (0..1), as the geometric middle of its bucket; undefined when empty. */
  quantile(q: number): number | undefined {
    if (this.total === 0) return undefined
    const rank = Math.max(1, Math.ceil(q * this.total))
    let seen = 0
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]
      if (seen >= rank) {
        if (b === 0) return MIN_MS
        const low = MIN_MS * GROWTH ** (b - 1)
        return Math.min(this.max, low * Math.sqrt(GROWTH))
      }
    }
    return this.max
  }
}

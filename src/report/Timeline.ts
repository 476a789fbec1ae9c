/**
 * Throughput and calls in flight over time, in constant space over a time
 * range not known in advance: a fixed number of equal buckets; when a time
 * falls outside them, the bucket width doubles (pairs of buckets merge) and
 * the range grows to the right or to the left, until it fits. Per bucket: the
 * trials that finished in it, and the time-weighted overlap of every trial's
 * `[started, finished]` with it, so `busy / width` is the mean number of
 * calls in flight during the bucket. Both sums are additive, so merging
 * buckets loses nothing but resolution.
 *
 * @since 0.1.0
 */

/**
 * One bucket: `[start, start + width)` in epoch milliseconds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Bucket {
  readonly start: number
  readonly width: number
  /** Trials whose `finished_at` is in the bucket. */
  readonly finished: number
  /** Of those, failed ones. */
  readonly failed: number
  /** Sum over trials of the milliseconds of `[started, finished]` inside the bucket. */
  readonly busyMs: number
}

/**
 * A timeline of `size` buckets (an even number >= 2).
 *
 * @category models
 * @since 0.1.0
 */
export class Timeline {
  readonly size: number
  /** Start of the first bucket, epoch ms (NaN until the first interval). */
  origin = Number.NaN
  /** Width of every bucket, ms. */
  width: number
  readonly finished: Float64Array
  readonly failed: Float64Array
  readonly busy: Float64Array
  /** Earliest start and latest finish seen. */
  first = Number.POSITIVE_INFINITY
  last = Number.NEGATIVE_INFINITY
  count = 0
  /** Intervals left out: a time that is not a finite number. */
  skipped = 0

  constructor(size = 120, initialWidthMs = 1) {
    if (!(Number.isInteger(size) && size >= 2 && size % 2 === 0)) {
      throw new RangeError(`a timeline needs an even number of buckets >= 2, got ${size}`)
    }
    if (!(initialWidthMs > 0)) throw new RangeError(`a bucket width must be > 0 ms, got ${initialWidthMs}`)
    this.size = size
    this.width = initialWidthMs
    this.finished = new Float64Array(size)
    this.failed = new Float64Array(size)
    this.busy = new Float64Array(size)
  }

  /** Records one trial that ran over `[startMs, endMs]` (an inverted interval is read as a point at `endMs`). */
  add(startMs: number, endMs: number, failed = false): void {
    if (!(Number.isFinite(startMs) && Number.isFinite(endMs))) {
      this.skipped++
      return
    }
    const start = Math.min(startMs, endMs)
    if (Number.isNaN(this.origin)) this.origin = Math.floor(start / this.width) * this.width
    this.cover(start)
    this.cover(endMs)
    this.count++
    if (start < this.first) this.first = start
    if (endMs > this.last) this.last = endMs
    const end = this.index(endMs)
    this.finished[end]++
    if (failed) this.failed[end]++
    for (let b = this.index(start); b <= end; b++) {
      const lo = this.origin + b * this.width
      const overlap = Math.min(endMs, lo + this.width) - Math.max(start, lo)
      if (overlap > 0) this.busy[b] += overlap
    }
  }

  /** The buckets from the first to the last that saw anything (empty before any `add`). */
  buckets(): Array<Bucket> {
    if (this.count === 0) return []
    const from = this.index(this.first)
    const to = this.index(this.last)
    const out: Array<Bucket> = []
    for (let b = from; b <= to; b++) {
      out.push({
        start: this.origin + b * this.width,
        width: this.width,
        finished: this.finished[b],
        failed: this.failed[b],
        busyMs: this.busy[b]
      })
    }
    return out
  }

  private index(t: number): number {
    return Math.min(this.size - 1, Math.max(0, Math.floor((t - this.origin) / this.width)))
  }

  // Doubles the width until `t` is inside: to the right keeping the origin,
  // to the left moving it back by the old span (the old buckets become the
  // right half).
  private cover(t: number): void {
    while (t < this.origin || t >= this.origin + this.size * this.width) {
      const left = t < this.origin
      const half = this.size / 2
      for (const a of [this.finished, this.failed, this.busy]) {
        if (left) {
          for (let i = this.size - 1; i >= half; i--) a[i] = a[2 * (i - half)] + a[2 * (i - half) + 1]
          a.fill(0, 0, half)
        } else {
          for (let i = 0; i < half; i++) a[i] = a[2 * i] + a[2 * i + 1]
          a.fill(0, half)
        }
      }
      if (left) this.origin -= this.size * this.width
      this.width *= 2
    }
  }
}

/**
 * The clocks a trial reads on its hot path: the live clock recognised (so a
 * call's duration comes from `performance.now()`), the wall time derived from
 * the same reading, the synchronous block a reading was taken in, and the
 * ISO timestamps of its record formatted from tables.
 *
 * @internal
 */
import { Clock, Context } from "effect"

// Effect's live Clock (a Reference's default is made once and shared): when a
// run reads it, a call's duration comes from `performance.now()`, the same
// monotonic clock without a BigInt per read. Any other Clock (TestClock, a
// user's) is read through its own methods.
export const liveClock: Clock.Clock = Context.get(Context.empty(), Clock.Clock)

/**
 * The live clock's wall time (`Date.now()`) from a `performance.now()`
 * reading, so that a trial reads the clock once where it needs both a
 * duration and a timestamp: every read costs about 50 ns on a virtual
 * machine, and a trial reads it three times (two when its first call starts
 * in the block that admitted it: `SyncBlock`). The two clocks advance together (both are slewed
 * by NTP); a step of the wall clock is caught by comparing with `Date.now()`
 * at most once a second, and the offset follows it when the two differ by
 * more than `Date.now()`'s own truncation.
 *
 * @internal
 */
export class WallClock {
  offset: number
  checkedAt = Number.NEGATIVE_INFINITY
  constructor(offset = performance.timeOrigin) {
    this.offset = offset
  }
  /** Whole milliseconds since the epoch at `performance.now()` reading `now`. */
  at(now: number): number {
    if (now - this.checkedAt >= 1000 || now < this.checkedAt) this.check(now, Date.now())
    return Math.floor(now + this.offset)
  }
  /** Re-aligns with the wall clock `wallMs` read at `now`. */
  check(now: number, wallMs: number): void {
    this.checkedAt = now
    // `Date.now()` truncates: aligned clocks differ by -1 < drift <= 0.
    const drift = wallMs - (now + this.offset)
    if (drift > 1 || drift < -2) this.offset += drift + 0.5
  }
}

export const wallClock = new WallClock()

/**
 * Numbers the synchronous blocks of JavaScript the runner's code runs in: a
 * block ends where the microtask queue runs, which happens before a fiber
 * that suspends can be resumed. Two readings with the same number were taken
 * with nothing but the caller's own code in between. One microtask per
 * block, queued by the first `current()` of the block.
 *
 * @internal
 */
export class SyncBlock {
  block = 0
  queued = false
  readonly next = (): void => {
    this.queued = false
    this.block++
  }
  current(): number {
    if (!this.queued) {
      this.queued = true
      queueMicrotask(this.next)
    }
    return this.block
  }
}

export const syncBlock = new SyncBlock()

// `Date#toISOString` costs about a microsecond; timestamps of one run share
// their first 17 characters for a minute, so only the seconds are formatted,
// from tables, and the last two distinct milliseconds are remembered: the
// trials that finish in one turn of the event loop share their `finished_at`,
// and often their `started_at`. Measured with a 1 ms agent (T=1e5, P=64):
// formatting each timestamp anew cost about 2% of the run's throughput.
let isoMinute = Number.NaN
let isoPrefix = ""
let isoLastMs = Number.NaN
let isoLast = ""
let isoOtherMs = Number.NaN
let isoOther = ""
const SECONDS = Array.from({ length: 60 }, (_, s) => `${s < 10 ? "0" : ""}${s}.`)
const MILLIS = Array.from({ length: 1000 }, (_, m) => `${m < 10 ? "00" : m < 100 ? "0" : ""}${m}Z`)
/** @internal */
export const isoTime = (ms: number): string => {
  if (ms === isoLastMs) return isoLast
  if (ms === isoOtherMs) return isoOther
  const minute = Math.floor(ms / 60_000)
  if (minute !== isoMinute) {
    isoMinute = minute
    isoPrefix = new Date(minute * 60_000).toISOString().slice(0, 17)
  }
  const rest = ms - minute * 60_000
  const seconds = Math.floor(rest / 1000)
  const text = isoPrefix + SECONDS[seconds] + MILLIS[Math.floor(rest - seconds * 1000)]
  isoOtherMs = isoLastMs
  isoOther = isoLast
  isoLastMs = ms
  isoLast = text
  return text
}

/**
 * The runner's policy machinery: the jitter draw, the rate limiter and the
 * adaptive limit. Built by the runner from a run's options (`rate`,
 * `adaptive`), they move its probe's counters, so they are not part of the
 * public API: `Policy` holds the policies as a user states them.
 *
 * @internal
 */
import { Duration, Effect, Random, type Semaphore } from "effect"
import type { MutableProbe } from "./probe.ts"

/**
 * A jitter draw in [0, 1) from the Effect `Random` service (seedable in tests).
 *
 * @internal
 */
export const jitter: Effect.Effect<number> = Random.next

/**
 * A cap on call starts: at most `limit` per `per`, spaced evenly (no bursts),
 * shared by every call of a run.
 *
 * Built by the runner from the `rate` option; not part of the public API.
 *
 * @internal
 */
export class RateLimiter {
  private nextFree = Number.NEGATIVE_INFINITY
  readonly limit: number
  readonly per: Duration.Input
  readonly intervalMs: number

  constructor(limit: number, per: Duration.Input) {
    this.limit = limit
    this.per = per
    this.intervalMs = Duration.toMillis(per) / limit
  }

  /** Waits for this call's start slot. */
  readonly acquire: Effect.Effect<void> = Effect.clockWith((clock) =>
    Effect.suspend(() => {
      const now = clock.currentTimeMillisUnsafe()
      const slot = Math.max(now, this.nextFree)
      this.nextFree = slot + this.intervalMs
      return slot > now ? Effect.sleep(slot - now) : Effect.void
    })
  )
}

/**
 * How an agent call ended, as the adaptive limit sees it: `succeeded`,
 * `throttled` (an HTTP 429), or `failed` (anything else: a 5xx, a timeout, a
 * network error, invalid output, a defect, an interruption).
 *
 * @internal
 */
export type CallOutcome = "succeeded" | "throttled" | "failed"

/**
 * Additive-increase / multiplicative-decrease of the run's concurrency on
 * HTTP 429: the Semaphore's permits are halved on a 429 (at most once per
 * window: only a call that started after the last decrease can trigger the
 * next), and raised by one after `limit` successful calls since the last
 * change, never above `max` nor below 1.
 *
 * Only a successful call counts toward a raise: a 5xx or a timeout is no
 * evidence that the current concurrency is served. Other failures neither
 * count nor reset the count: only a 429 says the limit is too high, and a few
 * failures that have nothing to do with load (a bad task, invalid output)
 * must not pin the limit low for the rest of the run.
 *
 * Built by the runner from `adaptive: true`; it moves the run's probe
 * counters, so it is not part of the public API.
 *
 * @internal
 */
export class AdaptiveLimit {
  private starts = 0
  private decreasedAt = 0
  private successes = 0
  private readonly semaphore: Semaphore.Semaphore
  readonly max: number
  private readonly probe: MutableProbe

  // The probe's limit and range start at `max` (set where the run's policies
  // are built); this only moves them.
  constructor(semaphore: Semaphore.Semaphore, max: number, probe: MutableProbe) {
    this.semaphore = semaphore
    this.max = max
    this.probe = probe
  }

  get limit(): number {
    return this.probe.limit
  }

  /** Called as a call starts; the ticket is handed back with its outcome. */
  start(): number {
    return ++this.starts
  }

  onOutcome(ticket: number, outcome: CallOutcome): Effect.Effect<void> {
    if (outcome === "throttled") {
      if (ticket <= this.decreasedAt || this.limit === 1) return Effect.void
      this.decreasedAt = this.starts
      this.successes = 0
      return this.set(Math.max(1, Math.floor(this.limit / 2)))
    }
    if (outcome === "failed" || this.limit >= this.max || ++this.successes < this.limit) return Effect.void
    this.successes = 0
    return this.set(this.limit + 1)
  }

  private set(limit: number): Effect.Effect<void> {
    const probe = this.probe
    probe.limit = limit
    if (limit < probe.lowestLimit) probe.lowestLimit = limit
    if (limit > probe.highestLimit) probe.highestLimit = limit
    return this.semaphore.resize(limit)
  }
}

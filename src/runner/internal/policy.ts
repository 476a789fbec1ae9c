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
 * HTTP 429, to find the concurrency a server sustains and stay near it:
 *
 * - raise by one after `limit` successful calls in a row (a window of the
 *   current limit's worth of completions) without a 429 in between, never
 *   above `max`;
 * - halve on a 429, never below 1, at most once per window: only a call that
 *   started after the last decrease can lower the limit again, and not before
 *   the `Retry-After` of the 429 that made the last decrease has passed
 *   (capped at `holdMaxMs`).
 *
 * The second half of the window rule is what keeps a server that refuses a
 * share of its requests whatever the load from pinning the limit at a few
 * calls: its 429s until the time it named say nothing the last decrease has
 * not already answered, while the successes meanwhile still raise it.
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
  private holdUntilMs = Number.NEGATIVE_INFINITY
  private successes = 0
  private readonly semaphore: Semaphore.Semaphore
  readonly max: number
  private readonly probe: MutableProbe
  private readonly holdMaxMs: number

  // The probe's limit and range start at `max` (set where the run's policies
  // are built); this only moves them.
  constructor(semaphore: Semaphore.Semaphore, max: number, probe: MutableProbe, holdMaxMs = 60_000) {
    this.semaphore = semaphore
    this.max = max
    this.probe = probe
    this.holdMaxMs = holdMaxMs
  }

  get limit(): number {
    return this.probe.limit
  }

  /** Called as a call starts; the ticket is handed back with its outcome. */
  start(): number {
    return ++this.starts
  }

  /** A call's outcome; `error` is its failure (a 429's `Retry-After` holds the next decrease). */
  onOutcome(ticket: number, outcome: CallOutcome, error?: unknown): Effect.Effect<void> {
    if (outcome === "throttled") {
      this.successes = 0
      if (ticket <= this.decreasedAt || this.limit === 1) return Effect.void
      return Effect.clockWith((clock) => Effect.suspend(() => this.decrease(ticket, clock.currentTimeMillisUnsafe(), error)))
    }
    if (outcome === "failed" || this.limit >= this.max || ++this.successes < this.limit) return Effect.void
    this.successes = 0
    return this.set(this.limit + 1)
  }

  // Checked again here: another call's decrease may have come in between.
  private decrease(ticket: number, nowMs: number, error: unknown): Effect.Effect<void> {
    if (ticket <= this.decreasedAt || this.limit === 1 || nowMs < this.holdUntilMs) return Effect.void
    this.decreasedAt = this.starts
    this.holdUntilMs = nowMs + Math.min(askedWaitMs(error) ?? 0, this.holdMaxMs)
    return this.set(Math.max(1, Math.floor(this.limit / 2)))
  }

  private set(limit: number): Effect.Effect<void> {
    const probe = this.probe
    probe.limit = limit
    if (limit < probe.lowestLimit) probe.lowestLimit = limit
    if (limit > probe.highestLimit) probe.highestLimit = limit
    return this.semaphore.resize(limit)
  }
}

// The wait a refusal asks for: an HttpStatusError's `retryAfterMs`, an
// AiError's `retryAfter` Duration; undefined when it names none.
const askedWaitMs = (error: unknown): number | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const e = error as { readonly retryAfterMs?: unknown; readonly retryAfter?: unknown }
  const asked = typeof e.retryAfterMs === "number"
    ? e.retryAfterMs
    : Duration.isDuration(e.retryAfter)
    ? Duration.toMillis(e.retryAfter)
    : undefined
  return asked !== undefined && asked >= 0 ? asked : undefined
}

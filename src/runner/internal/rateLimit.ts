/**
 * Rate limits in a trial's attempts: a 429 (or a 503) with `Retry-After` is
 * waited out and asked again without using up a retry (`--retries` counts
 * the agent's real failures), within `rateLimitWaitMax` in all; a trial that
 * is still refused for rate limits records `RateLimited`.
 *
 * @internal
 */
import { Duration } from "effect"
import { describe } from "../../domain/internal/agent.ts"
import * as Trajectories from "../../domain/Trajectory.ts"
import * as Policy from "../Policy.ts"

/** A trial's rate-limit waits so far (fields of its `TrialRun`: no object per trial). @internal */
export interface RateLimitWaits {
  rateLimitWaits: number
  rateLimitWaitedMs: number
  /** What they count for against `rateLimitWaitMax` (each at least `RATE_LIMIT_WAIT_FLOOR_MS`). */
  rateLimitChargedMs: number
}

/**
 * The wait before asking again, counted in `waits`; `"spent"` when the
 * trial may wait no more (it ends `RateLimited`); undefined when `error` is
 * no rate limit with a `Retry-After` (an ordinary failure).
 *
 * @internal
 */
export const nextWait = (
  policy: Policy.RetryPolicy,
  error: unknown,
  waits: RateLimitWaits
): number | "spent" | undefined => {
  const wait = Policy.rateLimitWaitMs(policy, error, waits.rateLimitChargedMs)
  if (typeof wait !== "number") return wait
  waits.rateLimitWaits++
  waits.rateLimitWaitedMs += wait
  waits.rateLimitChargedMs += Math.max(wait, Policy.RATE_LIMIT_WAIT_FLOOR_MS)
  return wait
}

const format = (ms: number) => Duration.format(Duration.millis(ms))

/**
 * The error a trial still refused for rate limits records, its last
 * refusal's message first.
 *
 * @internal
 */
export const rateLimited = (
  error: unknown,
  policy: Policy.RetryPolicy,
  waits: RateLimitWaits
): Policy.RateLimited => {
  const status = (error as { readonly status?: unknown }).status
  const max = Duration.toMillis(policy.rateLimitWaitMax ?? "10 minutes")
  const why = waits.rateLimitChargedMs >= max
    ? `still rate limited after ${waits.rateLimitWaits} Retry-After waits (${
      format(waits.rateLimitWaitedMs)
    } in all; --rate-limit-wait-max ${format(max)})`
    : `still rate limited, with no Retry-After to wait for, after ${policy.retries} retries`
  const trajectory = Trajectories.ofError(error)
  return new Policy.RateLimited({
    message: `${describe(error)}: ${why}`,
    ...(typeof status === "number" ? { status } : undefined),
    waits: waits.rateLimitWaits,
    waited_ms: waits.rateLimitWaitedMs,
    ...(trajectory === undefined ? undefined : { trajectory })
  })
}

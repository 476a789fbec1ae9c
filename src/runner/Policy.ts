/**
 * Failure handling around each agent call: a timeout per attempt, retries with
 * jittered exponential backoff for retryable failures (honouring
 * `Retry-After`), a cap on call starts per unit of time, an adaptive
 * concurrency limit that backs off on HTTP 429, and a failure budget.
 *
 * All waiting happens on the Effect Clock, so tests drive it with TestClock.
 *
 * @since 0.1.0
 */
import { Cause, Duration, Effect, Option, Schedule, Schema } from "effect"
import * as internal from "./internal/policy.ts"
import * as Options from "../internal/options.ts"
import { Trajectory, Usage } from "../domain/Trial.ts"

export { parseDurationMs } from "../internal/options.ts"

/**
 * An attempt ran past `timeout`; the call was interrupted.
 *
 * @category errors
 * @since 0.1.0
 */
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", {
  message: Schema.String,
  timeout_ms: Schema.Number,
  /** The steps the attempt had taken when it timed out (an agent that reports them). */
  trajectory: Schema.optionalKey(Trajectory),
  /** What the attempt had spent when it timed out, as far as its agent reported. */
  usage: Schema.optionalKey(Usage)
}) {}

/**
 * A trial that was still refused for rate limits (HTTP 429, or a 503 with
 * `Retry-After`) when it could wait no more: its `Retry-After` waits reached
 * `rateLimitWaitMax` in all, or a 429 without `Retry-After` used up the
 * retries. Not the agent's failure: the server's rate limit.
 *
 * @category errors
 * @since 0.5.0
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  /** The HTTP status of the last refusal, when it had one. */
  status: Schema.optionalKey(Schema.Number),
  /** The `Retry-After` waits made, and their total. */
  waits: Schema.Number,
  waited_ms: Schema.Number,
  trajectory: Schema.optionalKey(Trajectory)
}) {}

/**
 * More trials failed than `maxFailures` allows: the run stopped admitting.
 *
 * @category errors
 * @since 0.1.0
 */
export class MaxFailuresExceeded extends Schema.TaggedError<MaxFailuresExceeded>()("MaxFailuresExceeded", {
  message: Schema.String,
  failed: Schema.Number,
  finished: Schema.Number
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * Retries of retryable failures.
 *
 * @category models
 * @since 0.1.0
 */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most `retries + 1` attempts). */
  readonly retries: number
  /** Backoff before retry k (1-based) is jitter * min(max, base * 2^(k-1)), jitter in [0.5, 1). */
  readonly base: Duration.Input
  readonly max?: Duration.Input | undefined
  /** Longest wait a `Retry-After` may impose. Default 60 s. */
  readonly retryAfterMax?: Duration.Input | undefined
  /**
   * Longest a trial waits in all on rate limits' `Retry-After` (each wait
   * counted as at least 1 s). These waits use up no retry. Default 10 minutes.
   */
  readonly rateLimitWaitMax?: Duration.Input | undefined
}

/**
 * The CLI's retry policy: 2 retries, backoff from 500 ms doubling up to 30 s,
 * a `Retry-After` honoured up to 60 s, and up to 10 minutes in all of
 * rate-limit waits per trial.
 *
 * @category retry
 * @since 0.1.0
 */
export const defaultRetry: RetryPolicy = {
  retries: 2,
  base: "500 millis",
  max: "30 seconds",
  retryAfterMax: "60 seconds",
  rateLimitWaitMax: "10 minutes"
}

/**
 * Whether a failure is a rate limit: an HTTP 429, a 503 or 529 (Anthropic's
 * overloaded) with `Retry-After`,
 * or an `effect/ai` `AiError` whose reason is a `RateLimitError`.
 *
 * @category retry
 * @since 0.5.0
 */
export const isRateLimit = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const e = error as { readonly _tag?: unknown; readonly status?: unknown; readonly retryAfterMs?: unknown; readonly reason?: unknown }
  if (e._tag === "HttpStatusError") return e.status === 429 || ((e.status === 503 || e.status === 529) && typeof e.retryAfterMs === "number")
  if (e._tag === "AiError") return (e.reason as { readonly _tag?: unknown } | undefined)?._tag === "RateLimitError"
  return e._tag === "RateLimited"
}

/**
 * What a rate-limit wait is counted as, at least, against `rateLimitWaitMax`:
 * `Retry-After: 0` cannot loop forever.
 *
 * @category retry
 * @since 0.5.0
 */
export const RATE_LIMIT_WAIT_FLOOR_MS = 1000

/**
 * The wait before asking again after a rate limit with a `Retry-After`
 * (capped by `retryAfterMax` and by what is left of `rateLimitWaitMax` after
 * `waitedMs`); `"spent"` when nothing is left; undefined when `error` is no
 * rate limit with a `Retry-After` (then it is an ordinary failure).
 *
 * @category retry
 * @since 0.5.0
 */
export const rateLimitWaitMs = (policy: RetryPolicy, error: unknown, waitedMs: number): number | "spent" | undefined => {
  if (!isRateLimit(error)) return undefined
  const e = error as { readonly retryAfterMs?: unknown; readonly retryAfter?: unknown }
  const asked = typeof e.retryAfterMs === "number"
    ? e.retryAfterMs
    : Duration.isDuration(e.retryAfter)
    ? Duration.toMillis(e.retryAfter)
    : undefined
  if (asked === undefined || !(asked >= 0)) return undefined
  const left = Duration.toMillis(policy.rateLimitWaitMax ?? "10 minutes") - waitedMs
  if (left <= 0) return "spent"
  return Math.min(asked, Duration.toMillis(policy.retryAfterMax ?? "60 seconds"), left)
}

/**
 * Whether a failure is worth another attempt: timeouts, network errors, HTTP
 * 408, 429 and 5xx, an `effect/ai` `AiError` whose reason is retryable (a
 * rate limit, a provider's 5xx, a lost connection), and any error that says
 * `retryable: true` (directly or on
 * its `cause`, for errors thrown by a user's callable). Everything else (other
 * 4xx, invalid output, defects) fails at once.
 *
 * @category retry
 * @since 0.1.0
 */
export const isRetryable = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const e = error as {
    readonly _tag?: unknown
    readonly status?: unknown
    readonly retryable?: unknown
    readonly cause?: unknown
    readonly isRetryable?: unknown
  }
  if (e.retryable === true) return true
  // An `effect/ai` AiError (a model's failure) says for itself: rate limits,
  // provider 5xx and lost connections are retryable.
  if (e._tag === "AiError" && typeof e.isRetryable === "boolean") return e.isRetryable
  if (e._tag === "Timeout" || e._tag === "NetworkError") return true
  if (e._tag === "HttpStatusError" && typeof e.status === "number") {
    return e.status === 408 || e.status === 429 || e.status >= 500
  }
  const cause = e.cause as { readonly retryable?: unknown } | undefined
  return typeof cause === "object" && cause !== null && cause.retryable === true
}

/**
 * How long to wait before retry `attempt` (1 = the first retry) after `error`:
 * the `Retry-After` of a 429, 503 or 529 when it has one (capped), else the
 * jittered exponential backoff.
 *
 * @category retry
 * @since 0.1.0
 */
export const retryDelayMs = (policy: RetryPolicy, attempt: number, error: unknown, jitter: number): number => {
  const e = error as { readonly status?: unknown; readonly retryAfterMs?: unknown; readonly retryAfter?: unknown } | undefined
  if (
    e !== undefined && (e.status === 429 || e.status === 503 || e.status === 529) &&
    typeof e.retryAfterMs === "number" && e.retryAfterMs >= 0
  ) {
    return Math.min(e.retryAfterMs, Duration.toMillis(policy.retryAfterMax ?? "60 seconds"))
  }
  // An AiError's rate limit carries its Retry-After as a Duration.
  if (e !== undefined && Duration.isDuration(e.retryAfter)) {
    return Math.min(Duration.toMillis(e.retryAfter), Duration.toMillis(policy.retryAfterMax ?? "60 seconds"))
  }
  const base = Duration.toMillis(policy.base)
  const max = Duration.toMillis(policy.max ?? "30 seconds")
  const exponential = Math.min(max, base * 2 ** (attempt - 1))
  return Math.round(exponential * (0.5 + jitter / 2))
}

/**
 * The retry policy of the retry flags (`--retries`, `--backoff`,
 * `--backoff-max`, `--retry-after-max`): built once per run, for its agent
 * calls and its judge alike.
 *
 * @category retry
 * @since 0.3.0
 */
export const retryOf = (flags: {
  readonly retries: number
  readonly backoff: Duration.Input
  readonly backoffMax: Duration.Input
  readonly retryAfterMax: Duration.Input
  readonly rateLimitWaitMax?: Duration.Input | undefined
}): RetryPolicy => ({
  retries: flags.retries,
  base: flags.backoff,
  max: flags.backoffMax,
  retryAfterMax: flags.retryAfterMax,
  rateLimitWaitMax: flags.rateLimitWaitMax ?? defaultRetry.rateLimitWaitMax
})

/**
 * The policy as a `Schedule` over the failures of an effect: another attempt
 * after a rate limit's `Retry-After` (`rateLimitWaitMs`, not counted as a
 * retry, up to `rateLimitWaitMax` in all), or after a retryable failure
 * (`isRetryable`), at most `retries` of them, each after `retryDelayMs`
 * (the jittered exponential backoff); its output is the attempt's number. `onRetry` sees
 * each retry decided, before its wait. For `Effect.retry`; the runner's own
 * attempts apply the same decisions inline, as they also count and trace
 * each wait.
 *
 * @category retry
 * @since 0.3.0
 */
export const retrySchedule = (
  policy: RetryPolicy,
  onRetry?: (retry: number, delayMs: number) => void
): Schedule.Schedule<number, unknown> =>
  Schedule.fromStepWithMetadata(Effect.sync(() => {
    // Per use of the schedule: the rate-limit waits so far, which use up no retry.
    let waits = 0
    let waitedMs = 0
    return (meta: Schedule.InputMetadata<unknown>) => {
      const wait = rateLimitWaitMs(policy, meta.input, waitedMs)
      if (typeof wait === "number") {
        waits++
        waitedMs += Math.max(wait, RATE_LIMIT_WAIT_FLOOR_MS)
        onRetry?.(meta.attempt, wait)
        return Effect.succeed<[number, Duration.Duration]>([meta.attempt, Duration.millis(wait)])
      }
      const retry = meta.attempt - waits
      return wait === "spent" || retry > policy.retries || !isRetryable(meta.input)
        ? Cause.done(meta.attempt - 1)
        : Effect.map(internal.jitter, (j): [number, Duration.Duration] => {
          const delayMs = retryDelayMs(policy, retry, meta.input, j)
          onRetry?.(meta.attempt, delayMs)
          return [meta.attempt, Duration.millis(delayMs)]
        })
    }
  }))



/**
 * Parses `--max-failures`: a count (`25`) or a percentage (`10%`); undefined
 * when `Options.MaxFailures` refuses it (its decoding says why).
 *
 * @category failures
 * @since 0.1.0
 */
export const parseMaxFailures = (text: string): MaxFailures | undefined =>
  Option.getOrUndefined(Schema.decodeUnknownOption(Options.MaxFailures)(text))


/**
 * The failure budget. `Count`: the run stops when more than `count` trials
 * have failed. `Fraction`: when more than `fraction` of the trials finished so
 * far have failed, judged from `minFinished` finished trials on (default 20),
 * so one early failure does not end a run.
 *
 * @category failures
 * @since 0.1.0
 */
export type MaxFailures =
  | { readonly _tag: "Count"; readonly count: number }
  | { readonly _tag: "Fraction"; readonly fraction: number; readonly minFinished?: number | undefined }

/**
 * Whether the budget is exceeded after `failed` of `finished` trials.
 *
 * @category failures
 * @since 0.1.0
 */
export const exceeded = (limit: MaxFailures, failed: number, finished: number): boolean =>
  limit._tag === "Count"
    ? failed > limit.count
    // Compare quotients, not a product: 0.29 * 100 is 28.999999999999996, which
    // would count 29 failures of 100 as more than 29%. Both sides are the
    // nearest doubles to their ratios, so equal ratios compare equal.
    : finished >= (limit.minFinished ?? 20) && failed / finished > limit.fraction

/**
 * Describes a budget for messages: `25 failures` or `10% of trials`.
 *
 * @category failures
 * @since 0.1.0
 */
export const describeMaxFailures = (limit: MaxFailures): string =>
  limit._tag === "Count"
    ? `${limit.count} failed trials`
    // 0.07 * 100 is 7.000000000000001: round off the binary noise.
    : `${Number((limit.fraction * 100).toPrecision(12))}% failed trials`

/**
 * Whether an error is an HTTP 429: what makes `adaptive` lower the limit.
 *
 * @category adaptive
 * @since 0.1.0
 */
export const isThrottled = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { readonly status?: unknown }).status === 429

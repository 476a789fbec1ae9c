/**
 * Failures of the HTTP agents. They carry only text and numbers (no request,
 * response or cause objects), so a trial record built from them cannot pick
 * up a header or a secret by accident.
 *
 * @since 0.1.0
 */
import { Duration, Result, Schema } from "effect"
import { Headers } from "effect/http"
import type { InvalidAgentOutput } from "./Errors.ts"

/**
 * The agent's server answered with a status outside 2xx. `retryAfterMs` is
 * its `Retry-After` header, so a retry policy can honour it.
 *
 * @category errors
 * @since 0.1.0
 */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", {
  status: Schema.Number,
  message: Schema.String,
  retryAfterMs: Schema.optionalKey(Schema.Number)
}) {}

/**
 * No HTTP answer: connection refused or reset, DNS failure, invalid URL, a body
 * cut off mid-way. `url` is the endpoint as shown (its secrets redacted) and
 * `problem` what went wrong (`connect ECONNREFUSED 127.0.0.1:9`).
 *
 * @category errors
 * @since 0.1.0
 */
export class NetworkError extends Schema.TaggedError<NetworkError>()("NetworkError", {
  url: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `POST ${this.url} failed: ${this.problem}`
  }
}

/**
 * The request body could not be encoded as JSON (a BigInt or a cycle in a
 * task given by a program): `url` is the endpoint as shown (its secrets
 * redacted) and `problem` names the field and what is wrong with it.
 * Not retried: the same body fails the same way.
 *
 * @category errors
 * @since 0.6.0
 */
export class HttpBodyError extends Schema.TaggedError<HttpBodyError>()("HttpBodyError", {
  url: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `cannot send POST ${this.url}: its body cannot be encoded as JSON: ${this.problem}`
  }
}

/**
 * Everything an HTTP agent fails with.
 *
 * @category models
 * @since 0.1.0
 */
export type HttpAgentError = HttpStatusError | NetworkError | InvalidAgentOutput | HttpBodyError

/**
 * Reads a `Retry-After` value (whole seconds or an HTTP date) as milliseconds
 * from `nowMs`; a past date gives 0, an unreadable value `undefined`.
 *
 * **Example** (Seconds and an HTTP date)
 *
 * ```ts
 * import { HttpErrors } from "agent-trials"
 *
 * HttpErrors.retryAfterMs("2", Date.now()) // 2000
 * HttpErrors.retryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("2015-10-21T07:27:00Z")) // 60000
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const retryAfterMs = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined
  const parsed = Headers.parseRetryAfter(value.trim())
  return Result.isSuccess(parsed)
    ? Duration.toMillis(Headers.retryAfterDelay(parsed.success, nowMs))
    : undefined
}

/**
 * What a chat completion body says when it is no answer: an `{"error": ...}`
 * sent with HTTP 200, no choices, a choice without a message, a choice that
 * finished with `error` or `content_filter`. One reading, shared by the
 * one-call `openai:` agent and the tool loop's model, so both record the
 * same body the same way; and whether another attempt may mend it
 * (overloaded, rate-limited, 5xx-shaped: yes; `insufficient_quota`, a
 * content filter, a malformed body: no).
 *
 * @internal
 */
import { preview } from "./post.ts"
import { field, isObject } from "./fields.ts"

/**
 * Why a body (or an error a model reported) is no answer.
 *
 * @internal
 */
export interface Trouble {
  readonly kind: "RateLimited" | "Overloaded" | "QuotaExhausted" | "ContentFilter" | "Error" | "Malformed"
  readonly retryable: boolean
  /** Worded to follow "the chat completion ..." (`has no choices`, `is an error: ...`). */
  readonly detail: string
}

/**
 * The trouble of a 2xx chat completion body, or undefined when its first
 * choice has a message (whether the message holds what a caller needs is
 * the caller's to check).
 *
 * @internal
 */
export const troubleOf = (body: unknown): Trouble | undefined => {
  if (!isObject(body)) return { kind: "Malformed", retryable: false, detail: `is not a JSON object: ${previewOf(body)}` }
  // OpenAI-style `{ error: {...} }`, and vLLM's `{ object: "error", message, code }`.
  if (isError(body["error"])) return { ...kindOfError(body["error"]), detail: `is an error: ${errorText(body["error"])}` }
  if (body["object"] === "error") return { ...kindOfError(body), detail: `is an error: ${errorText(body)}` }
  const choices = body["choices"]
  if (!Array.isArray(choices) || choices.length === 0) {
    return { kind: "Malformed", retryable: false, detail: `has no choices (${Array.isArray(choices) ? "[]" : "no array at choices"}): ${previewOf(body)}` }
  }
  const choice = choices[0]
  // OpenRouter reports a provider's failure inside the choice.
  const inner = isObject(choice) ? choice["error"] : undefined
  if (isError(inner)) return { ...kindOfError(inner), detail: `is an error at choices[0].error: ${errorText(inner)}` }
  const finish = isObject(choice) ? choice["finish_reason"] : undefined
  if (finish === "content_filter") {
    return { kind: "ContentFilter", retryable: false, detail: `was withheld by a content filter (finish_reason content_filter): ${previewOf(body)}` }
  }
  if (finish === "error") return { kind: "Error", retryable: false, detail: `finished with an error (finish_reason error): ${previewOf(body)}` }
  if (!isObject(choice) || !isObject(choice["message"])) {
    return { kind: "Malformed", retryable: false, detail: `has no message at choices[0]: ${previewOf(body)}` }
  }
  return undefined
}

/**
 * Whether an error a model reported (an error body's `error`, an `Error`, a
 * string) is worth another attempt: read from its code or status when it has
 * one, else from its type and words. Quota comes first: OpenAI sends `insufficient_quota` with
 * status 429, and no retry mends it.
 *
 * @internal
 */
export const kindOfError = (error: unknown): Pick<Trouble, "kind" | "retryable"> => {
  const status = [field(error, "code"), field(error, "status"), field(error, "status_code")].map(statusOf).find((n) => n !== undefined)
  const names = [field(error, "type"), field(error, "code"), field(error, "status")].filter((v) => typeof v === "string").join(" ").toLowerCase()
  const words = `${names} ${messageOf(error) ?? ""}`.toLowerCase()
  if (status === 402 || /insufficient_quota|quota_exceeded|billing|insufficient_funds|exceeded your current quota/.test(words)) {
    return { kind: "QuotaExhausted", retryable: false }
  }
  // A status, when the error has one, decides; else its words.
  if (status !== undefined) {
    if (status === 429) return { kind: "RateLimited", retryable: true }
    return status >= 500 || status === 408 ? { kind: "Overloaded", retryable: true } : { kind: "Error", retryable: false }
  }
  if (/rate.?limit|too.?many.?requests|resource_exhausted/.test(words)) return { kind: "RateLimited", retryable: true }
  if (/overload|unavailable|server.?error|internal.?error|api_error|timed? ?out|capacity|try again later/.test(words)) {
    return { kind: "Overloaded", retryable: true }
  }
  return { kind: "Error", retryable: false }
}

/**
 * An error a model reported, as one line: its type, code and message.
 *
 * @internal
 */
export const errorText = (error: unknown): string => {
  const message = messageOf(error)
  const tags = (["type", "code", "status"] as const).flatMap((name) => {
    const value = field(error, name)
    return typeof value === "string" || typeof value === "number" ? [`${name} ${value}`] : []
  })
  if (message === undefined && tags.length === 0) return previewOf(error)
  return preview([tags.length > 0 ? `(${tags.join(", ")})` : "", message ?? ""].filter((s) => s !== "").join(" "))
}

const messageOf = (error: unknown): string | undefined => {
  if (typeof error === "string") return error
  const message = field(error, "message")
  if (typeof message === "string") return message
  return error instanceof Error ? error.message : undefined
}

const statusOf = (value: unknown): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : undefined
  return n !== undefined && n >= 400 && n <= 599 ? n : undefined
}

const previewOf = (value: unknown): string => preview(typeof value === "string" ? value : JSON.stringify(value) ?? String(value))

// An empty `error` ("", {}) some proxies add to every body says nothing.
const isError = (value: unknown): boolean =>
  (typeof value === "string" && value !== "") || (isObject(value) && Object.keys(value).length > 0)

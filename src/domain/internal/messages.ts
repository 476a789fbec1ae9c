/**
 * Anthropic's Messages API as the `anthropic:` agent, its tool loop's model
 * and `judge:anthropic:` speak it: the URL, the headers, the usage in our
 * names, the text of an answer, and what a 2xx body says when it is no
 * answer (read as `troubleOf` reads a chat completion).
 *
 * @internal
 */
import { Redacted } from "effect"
import type { Trouble } from "./completion.ts"
import { errorText, kindOfError } from "./completion.ts"
import { field, isObject } from "./fields.ts"
import { preview } from "./post.ts"
import type { Usage } from "../Trial.ts"

/**
 * The `anthropic-version` header every request sends.
 *
 * @internal
 */
export const ANTHROPIC_VERSION = "2023-06-01"

/**
 * The Messages API's default `max_tokens` (it is required there) when
 * `--max-output-tokens` is not given.
 *
 * @internal
 */
export const DEFAULT_MAX_TOKENS = 4096

/**
 * `BASE_URL/v1/messages`, the path appended before any query
 * (`anthropic:https://api.anthropic.com` asks
 * `https://api.anthropic.com/v1/messages`).
 *
 * @internal
 */
export const messagesUrl = (baseUrl: string): string => {
  if (!URL.canParse(baseUrl)) return `${baseUrl.replace(/\/+$/, "")}/v1/messages`
  const url = new URL(baseUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/messages`
  return url.href
}

/**
 * The headers of a request: `x-api-key` (the key), `anthropic-version`, then
 * the caller's own (`--header`), which win.
 *
 * @internal
 */
export const messagesHeaders = (
  key: Redacted.Redacted<string> | undefined,
  extra: Readonly<Record<string, string>> | undefined
): Record<string, string> => ({
  ...(key === undefined ? undefined : { "x-api-key": Redacted.value(key) }),
  "anthropic-version": ANTHROPIC_VERSION,
  ...extra
})

/**
 * A Messages API `usage` in our names: `input_tokens` counts every input
 * token (the uncached ones, those read from the prompt cache and those
 * written to it), `cached_input_tokens` the ones read
 * (`cache_read_input_tokens`), `cache_write_input_tokens` the ones written
 * (`cache_creation_input_tokens`); `model` the model the request named.
 * Undefined without `input_tokens` and `output_tokens`.
 *
 * @internal
 */
export const messagesUsage = (body: unknown, model: string): Usage | undefined => {
  const usage = field(body, "usage")
  const input = count(field(usage, "input_tokens"))
  const output = count(field(usage, "output_tokens"))
  if (input === undefined || output === undefined) return undefined
  const read = count(field(usage, "cache_read_input_tokens"))
  const written = count(field(usage, "cache_creation_input_tokens"))
  const all = input + (read ?? 0) + (written ?? 0)
  return {
    input_tokens: all,
    output_tokens: output,
    total_tokens: all + output,
    ...(read === undefined ? undefined : { cached_input_tokens: read }),
    ...(written === undefined ? undefined : { cache_write_input_tokens: written }),
    model
  }
}

/**
 * The text blocks of a message's `content`, joined.
 *
 * @internal
 */
export const messagesText = (body: unknown): string => {
  const content = field(body, "content")
  return Array.isArray(content)
    ? content.flatMap((block) => field(block, "type") === "text" && typeof field(block, "text") === "string" ? [field(block, "text") as string] : [])
      .join("")
    : ""
}

/**
 * Why a 2xx Messages API body is no answer, or undefined: an `{"type":
 * "error"}` body (overloaded and rate limits retryable), no `content` array,
 * or a `refusal` stop (a content filter).
 *
 * @internal
 */
export const messagesTrouble = (body: unknown): Trouble | undefined => {
  if (!isObject(body)) return { kind: "Malformed", retryable: false, detail: `is not a JSON object: ${previewOf(body)}` }
  if (body["type"] === "error" || isObject(body["error"])) {
    const error = body["error"] ?? body
    return { ...kindOfError(error), detail: `is an error: ${errorText(error)}` }
  }
  if (!Array.isArray(body["content"])) {
    return { kind: "Malformed", retryable: false, detail: `has no content array: ${previewOf(body)}` }
  }
  if (body["stop_reason"] === "refusal") {
    return { kind: "ContentFilter", retryable: false, detail: `was refused (stop_reason refusal): ${previewOf(body)}` }
  }
  return undefined
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined

const previewOf = (value: unknown): string => preview(typeof value === "string" ? value : JSON.stringify(value) ?? String(value))

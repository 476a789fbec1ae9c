/**
 * The key of a cached response: a sha256 over the canonical JSON (object
 * keys sorted) of what decides the answer: the agent kind, the URL without
 * its credentials, the model, the whole request body, the trial's epoch
 * and the caller's own headers.
 * The epoch is in it so that K epochs are K independent samples the first
 * time and the same K samples the next time.
 *
 * @since 0.8.0
 */
import { createHash } from "node:crypto"
import { withoutCredentials } from "../internal/redact.ts"

/**
 * What a cached call is keyed by.
 *
 * @category models
 * @since 0.8.0
 */
export interface Request {
  /** `openai`, `anthropic`, `chat` (a tool loop's turn), `http`, `judge` or `judge-messages`. */
  readonly kind: string
  /** The URL called; its userinfo and credential-named query parameters are left out of the key. */
  readonly url: string
  /** The model asked, when the kind names one. */
  readonly model?: string | undefined
  /** The whole request body: messages, tools, options. */
  readonly body: unknown
  /** The trial's epoch; undefined outside an epoch run. */
  readonly epoch?: number | undefined
  /** The caller's own headers (`--header`), which may change the answer; none when undefined. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The hex sha256 of the request's canonical JSON.
 *
 * **Example** (Epochs are apart)
 *
 * ```ts
 * import { CacheKey } from "agent-trials"
 *
 * const request = { kind: "openai", url: "http://127.0.0.1:8080/v1/chat/completions", model: "m", body: { messages: [] } }
 * CacheKey.of({ ...request, epoch: 1 }) !== CacheKey.of({ ...request, epoch: 2 }) // true
 * ```
 *
 * @category keys
 * @since 0.8.0
 */
export const of = (request: Request): string =>
  createHash("sha256").update(canonical([
    request.kind,
    urlOf(request.url),
    request.model ?? null,
    request.epoch ?? null,
    request.body,
    // Only when given: the keys of calls without headers stay as they were.
    ...(request.headers === undefined ? [] : [request.headers])
  ])).digest("hex")

// An agent calls one URL: parsing it once spares a URL parse per call.
let lastUrl: { readonly url: string; readonly key: string } | undefined
const urlOf = (url: string): string => {
  if (lastUrl?.url !== url) lastUrl = { url, key: withoutCredentials(url) }
  return lastUrl.key
}

/**
 * JSON with every object's keys sorted, so two bodies that differ only in
 * the order of their keys have one key; `undefined` fields are left out, as
 * `JSON.stringify` leaves them.
 *
 * @category keys
 * @since 0.8.0
 */
export const canonical = (value: unknown): string => JSON.stringify(sorted(value)) ?? "null"

const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted)
  if (typeof value !== "object" || value === null) return value
  const json = (value as { readonly toJSON?: unknown }).toJSON
  if (typeof json === "function") return sorted(json.call(value))
  // fromEntries defines own properties, so a "__proto__" key stays data.
  return Object.fromEntries(
    Object.keys(value).sort().flatMap((key) => {
      const item = (value as Record<string, unknown>)[key]
      return item === undefined ? [] : [[key, sorted(item)]]
    })
  )
}

/**
 * One JSON POST as the HTTP agents make it: send, read the whole body, turn
 * every way it can go wrong into an `HttpAgentError`. Secrets are scrubbed
 * from the raw body before anything is parsed or quoted, so neither an error
 * message nor the parsed response can carry them.
 *
 * @internal
 */
import { Clock, Effect, type Redacted } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { InvalidAgentOutput } from "../../Errors.ts"
import { HttpStatusError, NetworkError, retryAfterMs } from "../HttpErrors.ts"

/** @internal */
export interface PostOptions {
  readonly url: string
  readonly body: unknown
  readonly headers?: Record<string, string> | undefined
  readonly bearer?: Redacted.Redacted<string> | undefined
  /** Removes secrets from any text that may end up in a result or message. */
  readonly scrub: (text: string) => string
}

/**
 * The parsed JSON body of a 2xx answer.
 *
 * @internal
 */
export const postJson = (
  options: PostOptions
): Effect.Effect<unknown, HttpStatusError | NetworkError | InvalidAgentOutput, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const { scrub, url } = options
    const where = scrub(displayUrl(url))
    let request = HttpClientRequest.post(url, { headers: options.headers ?? {}, acceptJson: true })
    if (options.bearer !== undefined) request = HttpClientRequest.bearerToken(request, options.bearer)
    // Tasks are JSON by construction; a BigInt or a cycle is a bug of the caller (a defect).
    request = yield* Effect.orDie(HttpClientRequest.bodyJson(request, options.body))
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request).pipe(Effect.mapError((e) => toNetworkError(e, where, scrub)))
    const text = scrub(yield* response.text.pipe(Effect.mapError((e) => toNetworkError(e, where, scrub))))

    if (response.status < 200 || response.status >= 300) {
      const detail = errorMessageOf(text) ?? (text.trim() === "" ? "(empty body)" : preview(text))
      const delay = retryAfterMs(response.headers["retry-after"], yield* Clock.currentTimeMillis)
      return yield* new HttpStatusError({
        status: response.status,
        message: `HTTP ${response.status} from ${where}: ${detail}`,
        ...(delay === undefined ? undefined : { retryAfterMs: delay })
      })
    }
    try {
      return JSON.parse(text) as unknown
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return yield* new InvalidAgentOutput({
        message: `Response from ${where} is not JSON (${reason}): ${preview(text)}`
      })
    }
  })

/**
 * Replaces every occurrence of each secret (raw, JSON-escaped and
 * percent-encoded, as a server may echo it) with `<redacted>`.
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<string>): (text: string) => string => {
  const forms = new Set<string>()
  for (const secret of secrets) {
    if (secret.length === 0) continue
    forms.add(secret)
    forms.add(JSON.stringify(secret).slice(1, -1))
    forms.add(encodeURIComponent(secret))
  }
  // Longest first, so a secret that contains another is removed whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length)
  if (ordered.length === 0) return (text) => text
  return (text) => ordered.reduce((acc, form) => acc.replaceAll(form, "<redacted>"), text)
}

/**
 * At most 200 characters of `text` on one line.
 *
 * @internal
 */
export const preview = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > 200 ? `${line.slice(0, 200)}...` : line
}

// An OpenAI-style `{ "error": { "message": ... } }` says more than the raw body.
const errorMessageOf = (text: string): string | undefined => {
  try {
    const body = JSON.parse(text) as { readonly error?: { readonly message?: unknown } } | null
    const message = body?.error?.message
    return typeof message === "string" && message.length > 0 ? preview(message) : undefined
  } catch {
    return undefined
  }
}

const toNetworkError = (error: HttpClientError.HttpClientError, where: string, scrub: (text: string) => string) => {
  const cause: unknown = error.reason.cause
  const detail = cause instanceof Error ? describeCause(cause) : error.reason._tag
  return new NetworkError({ message: scrub(`POST ${where} failed: ${detail}`) })
}

// undici reports "fetch failed"-style wrappers; the useful words (ECONNREFUSED,
// "other side closed") are on the innermost cause.
const describeCause = (error: Error): string => {
  let current: unknown = error
  const parts: Array<string> = []
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { readonly code?: unknown }).code
    const text = current.message || current.name
    parts.push(typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text)
    current = current.cause
  }
  return preview(parts.join(": "))
}

/**
 * The URL as messages show it: without credentials (`https://user:pass@host`).
 *
 * @internal
 */
export const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.username === "" && parsed.password === "") return url
    parsed.username = ""
    parsed.password = ""
    return parsed.toString()
  } catch {
    return url
  }
}

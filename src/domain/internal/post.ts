/**
 * One JSON POST as the HTTP agents make it: send, read the whole body, turn
 * every way it can go wrong into an `HttpAgentError`. Secrets are scrubbed
 * from every body and message (a 2xx body string by string after parsing,
 * anything else as text before it is quoted), and a URL is only ever shown
 * through `redactUrl`, so no record or message can carry them.
 *
 * @internal
 */
import { Clock, Effect, Exit, Redacted, Tracer } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { InvalidAgentOutput } from "../Errors.ts"
import { field } from "./fields.ts"
import { HttpBodyError, HttpStatusError, NetworkError, retryAfterMs } from "../HttpErrors.ts"
import { encodeJson } from "../../internal/jsonBody.ts"
import { redactUrl } from "../../internal/redact.ts"
import { RawPost, type RawPostFn } from "./rawPost.ts"
import type { Usage } from "../Trial.ts"

/** @internal */
export interface PostOptions {
  readonly url: string
  readonly body: unknown
  readonly headers?: Record<string, string> | undefined
  readonly bearer?: Redacted.Redacted<string> | undefined
  /** Removes secrets from any text that may end up in a result or message. */
  readonly scrub: (text: string) => string
  /** How messages name `url`: `scrub(redactUrl(url))`, made once by an agent rather than per call. */
  readonly where?: string | undefined
}

/**
 * The parsed JSON body of a 2xx answer. Through the run's raw POST
 * (`RawPost`) when its program provides one and no tracer takes the client
 * spans, else through the `HttpClient`: the same request, the same errors.
 *
 * @internal
 */
export const postJson = (
  options: PostOptions
): Effect.Effect<unknown, HttpStatusError | NetworkError | InvalidAgentOutput | HttpBodyError, HttpClient.HttpClient> =>
  Effect.withFiber((fiber): Effect.Effect<unknown, HttpStatusError | NetworkError | InvalidAgentOutput | HttpBodyError, HttpClient.HttpClient> => {
    const raw = fiber.getRef(RawPost)
    const where = options.where ?? options.scrub(redactUrl(options.url))
    const viaRaw = raw === undefined || fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer
      ? undefined
      : postRawThen(raw, { ...options, where }, Effect.succeed)
    if (viaRaw !== undefined) return viaRaw
    // Tasks read from files are JSON by construction; a program's own may hold a BigInt or a cycle.
    const encoded = encodeJson(options.body)
    if (typeof encoded !== "string") {
      return Effect.fail(new HttpBodyError({ url: where, problem: options.scrub(encoded.problem) }))
    }
    return viaClient(options, where, encoded)
  })

const viaClient = (options: PostOptions, where: string, encoded: string) =>
  Effect.gen(function*() {
    const { scrub, url } = options
    let request = HttpClientRequest.post(url, { headers: options.headers ?? {}, acceptJson: true })
    if (options.bearer !== undefined) request = HttpClientRequest.bearerToken(request, options.bearer)
    request = HttpClientRequest.bodyText(request, encoded, "application/json")
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request).pipe(Effect.mapError((e) => toNetworkError(e, where, scrub)))
    const raw = yield* response.text.pipe(Effect.mapError((e) => toNetworkError(e, where, scrub)))
    return yield* settle(response.status, response.headers["retry-after"], raw, where, scrub)
  })

// The headers the HttpClient path sends: the caller's, `accept`, the bearer, the body's type.
const rawHeaders = (options: PostOptions): Record<string, string> => {
  const headers: Record<string, string> = {}
  if (options.headers !== undefined) for (const name in options.headers) headers[name.toLowerCase()] = options.headers[name]!
  headers["accept"] = "application/json"
  if (options.bearer !== undefined) headers["authorization"] = `Bearer ${Redacted.value(options.bearer)}`
  headers["content-type"] = "application/json"
  return headers
}

/**
 * `postJson` through the run's raw POST, its 2xx body handed straight to
 * `decode`: one callback per call and no step between the answer and the
 * agent's output. For a caller that has checked the raw path applies
 * (`RawPost` provided, no tracer); `undefined` when the URL does not parse
 * (the `HttpClient` path then gives its error).
 *
 * @internal
 */
export const postRawThen = <A, E>(
  raw: RawPostFn,
  options: PostOptions & { readonly where: string },
  decode: (body: unknown) => Effect.Effect<A, E>
): Effect.Effect<A, E | HttpStatusError | NetworkError | InvalidAgentOutput | HttpBodyError> | undefined => {
  const target = parsedUrl(options.url)
  if (target === undefined) return undefined
  const { scrub, where } = options
  const encoded = encodeJson(options.body)
  if (typeof encoded !== "string") return Effect.fail(new HttpBodyError({ url: where, problem: scrub(encoded.problem) }))
  const headers = rawHeaders(options)
  return Effect.callback<A, E | HttpStatusError | NetworkError | InvalidAgentOutput>((resume) => {
    const abort = raw(target, headers, encoded, (answer, cause) => {
      if (answer === undefined) return resume(Effect.fail(networkError(cause, "TransportError", where, scrub)))
      if (answer.status < 200 || answer.status >= 300) {
        return resume(Effect.flatMap(settle(answer.status, answer.retryAfter, answer.text, where, scrub), decode))
      }
      const body = bodyOf(answer.text, where, scrub)
      resume(body._tag === "Success" ? decode(body.value) : Exit.failCause(body.cause))
    })
    return Effect.sync(abort)
  })
}

// A URL parsed once per agent, not per request; an unparsable one goes through the HttpClient (its error).
const parsedUrls = new Map<string, URL | undefined>()
const parsedUrl = (url: string): URL | undefined => {
  let parsed = parsedUrls.get(url)
  if (parsed === undefined && !parsedUrls.has(url)) {
    if (parsedUrls.size >= 256) parsedUrls.clear()
    parsed = URL.canParse(url) ? new URL(url) : undefined
    parsedUrls.set(url, parsed)
  }
  return parsed
}

// The answer as the agents read it: a non-2xx status is `HttpStatusError`, a body that is not JSON
// `InvalidAgentOutput`, else the body with every string scrubbed.
const settle = (
  status: number,
  retryAfter: string | undefined,
  raw: string,
  where: string,
  scrub: (text: string) => string
): Effect.Effect<unknown, HttpStatusError | InvalidAgentOutput> => {
  if (status < 200 || status >= 300) {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const text = scrub(raw)
      const detail = errorMessageOf(text) ?? (text.trim() === "" ? "(empty body)" : preview(text))
      const delay = retryAfterMs(retryAfter, now)
      return Effect.fail(
        new HttpStatusError({
          status,
          message: `HTTP ${status} from ${where}: ${detail}`,
          ...(delay === undefined ? undefined : { retryAfterMs: delay })
        })
      )
    })
  }
  return bodyOf(raw, where, scrub)
}

// A 2xx body parsed first and scrubbed string by string: a secret that looks
// like a number or spans a quote cannot break the JSON a trial records.
const bodyOf = (raw: string, where: string, scrub: (text: string) => string): Exit.Exit<unknown, InvalidAgentOutput> => {
  let body: unknown
  try {
    body = JSON.parse(raw)
  } catch {
    // The reason quotes the text around the fault: take it from the scrubbed text.
    const text = scrub(raw)
    return Exit.fail(
      new InvalidAgentOutput({
        message: `Response from ${where} is not JSON (${jsonError(text)}): ${preview(text)}`
      })
    )
  }
  return Exit.succeed(scrubJson(body, scrub))
}

const jsonError = (text: string): string => {
  try {
    JSON.parse(text)
    return "invalid JSON"
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

// In place: the value was just parsed here and nothing else holds it. Only
// what changes is written, so a body without secrets is walked, not copied.
const scrubJson = (value: unknown, scrub: (text: string) => string): unknown => {
  if (typeof value === "string") return scrub(value)
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const scrubbed = scrubJson(item, scrub)
      if (scrubbed !== item) value[i] = scrubbed
    }
    return value
  }
  const record = value as Record<string, unknown>
  for (const key in record) {
    // A key that changes, or "__proto__" (an assignment would set the prototype): built anew.
    if (key === "__proto__" || scrub(key) !== key) return rebuilt(record, scrub)
    const item = record[key]
    const scrubbed = scrubJson(item, scrub)
    if (scrubbed !== item) record[key] = scrubbed
  }
  return record
}

// fromEntries defines own properties, so a "__proto__" key stays data.
const rebuilt = (record: Record<string, unknown>, scrub: (text: string) => string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).map(([key, item]) => [scrub(key), scrubJson(item, scrub)]))

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

const toNetworkError = (error: HttpClientError.HttpClientError, where: string, scrub: (text: string) => string) =>
  networkError(error.reason.cause, error.reason._tag, where, scrub)

const networkError = (cause: unknown, tag: string, where: string, scrub: (text: string) => string) =>
  new NetworkError({ url: where, problem: scrub(cause instanceof Error ? describeCause(cause) : tag) })

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
 * `BASE_URL/chat/completions`, the path appended before any query, so
 * `openai:http://h/v1?api_key=K` asks `/v1/chat/completions?api_key=K`.
 * Shared by the OpenAI-compatible agent and the judge.
 *
 * @internal
 */
export const chatCompletionsUrl = (baseUrl: string): string => {
  if (!URL.canParse(baseUrl)) return `${baseUrl.replace(/\/+$/, "")}/chat/completions`
  const url = new URL(baseUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/chat/completions`
  return url.href
}

/**
 * A chat completion's `usage`, in our names: `prompt_tokens`,
 * `completion_tokens` and `total_tokens`, with the newer
 * `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens` when the server sends them;
 * `model` is the model the request named (the one priced). Undefined when
 * the body has no usable `usage` (a server that does not count).
 *
 * @internal
 */
export const chatUsage = (body: unknown, model: string): Usage | undefined => {
  const usage = field(body, "usage")
  const input = count(field(usage, "prompt_tokens"))
  const output = count(field(usage, "completion_tokens"))
  if (input === undefined || output === undefined) return undefined
  const result: { -readonly [K in keyof Usage]: Usage[K] } = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: count(field(usage, "total_tokens")) ?? input + output
  }
  const cached = count(field(field(usage, "prompt_tokens_details"), "cached_tokens"))
  if (cached !== undefined) result.cached_input_tokens = cached
  const reasoning = count(field(field(usage, "completion_tokens_details"), "reasoning_tokens"))
  if (reasoning !== undefined) result.reasoning_tokens = reasoning
  result.model = model
  return result
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined

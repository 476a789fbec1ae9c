/**
 * An `effect/ai` `LanguageModel` over an OpenAI-compatible chat completions
 * endpoint, written on `LanguageModel.make` (the effect-4 provider packages
 * do not load on effect 4.1). It sends the prompt's messages and the
 * toolkit's tools as chat completions `messages` and `tools`, and reads the
 * first choice back as text, tool calls and a finish part with the usage.
 * Requests go through the same JSON POST as the `openai:` agent: the key stays
 * `Redacted` and is scrubbed from every body and message.
 *
 * @since 0.5.0
 */
import { Duration, Effect, Layer, Redacted, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import type { HttpClient } from "effect/http"
import { troubleOf } from "../domain/internal/completion.ts"
import { at, field } from "../domain/internal/fields.ts"
import { chatCompletionsUrl, chatUsage, postJson, preview } from "../domain/internal/post.ts"
import type { HttpAgentError } from "../domain/HttpErrors.ts"
import { keySecrets, redactUrl, scrubber, urlCredentials, urlSecrets } from "../internal/redact.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as ResponseCache from "../cache/ResponseCache.ts"
import * as ModelTrouble from "./internal/modelTrouble.ts"
import * as Request from "../domain/Request.ts"

/**
 * Where the model is and which one to ask.
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended to its path. */
  readonly baseUrl: string
  readonly model: string
  /** Sent as `Authorization: Bearer <key>`; no header when undefined or empty. */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** The system prompt, temperature, output limit, seed, headers and body fields a team sets. */
  readonly request?: Request.Options | undefined
}

/**
 * The `LanguageModel` of an OpenAI-compatible endpoint. HTTP 429 fails with
 * a `RateLimitError` that carries the `Retry-After`, 5xx with an
 * `InternalProviderError`, a lost connection with a `NetworkError` (all
 * retryable), other statuses and unreadable bodies with reasons that are
 * not. A 2xx body that is no answer fails too, read as the one-call agent
 * reads it: an `{"error": ...}` that says rate-limited (`RateLimitError`),
 * overloaded or 5xx (`InternalProviderError`), out of quota
 * (`QuotaExhaustedError`) or else (`UnknownError`); no choices, no message,
 * or neither content nor tool calls (`InvalidResponseError`). A
 * `content_filter` finish is the response's finish reason (its usage kept).
 * Streaming is not offered (the loop asks for whole turns).
 *
 * **Example** (A model for a tool loop)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { ChatModel } from "agent-trials"
 *
 * const answer = LanguageModel.generateText({ prompt: "What is 2 + 2?" }).pipe(
 *   Effect.provideServiceEffect(
 *     LanguageModel.LanguageModel,
 *     ChatModel.make({ baseUrl: "http://127.0.0.1:8080/v1", model: "m", apiKey: undefined })
 *   )
 * )
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (options: Options): Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = chatCompletionsUrl(options.baseUrl)
    const key = options.apiKey === undefined ? "" : Redacted.value(options.apiKey)
    const bearer = key === "" ? undefined : options.apiKey
    const headers = Request.headersOf(options.request)
    // Its key, credentials and headers: every record of the run loses them (`Redactor`).
    const everywhere = [...keySecrets(key), ...urlCredentials(url), ...(options.request?.headers ?? []).flatMap((h) => keySecrets(h.value))]
    const scrub = scrubber(everywhere, urlSecrets(url))
    const where = scrub(redactUrl(url))
    const client = yield* Effect.context<HttpClient.HttpClient>()
    return yield* LanguageModel.make({
      generateText: (request) => {
        const body = Request.chatBody(requestBody(options.model, request) as { messages: ReadonlyArray<unknown> }, options.request)
        // Added in the caller's context (the trial's): the post runs in the client's.
        return Redactor.remember(everywhere).pipe(
          // Each turn through the response cache when the run provides one
          // (`--cache`); the tool agent says which trial it is for.
          Effect.andThen(ResponseCache.call(
            { kind: "openai", url, model: options.model, body, headers },
            postJson({ url, body, bearer, headers, scrub }).pipe(
              Effect.provideContext(client),
              Effect.mapError((error) => toAiError(error, where))
            ),
            (answer) => toParts(answer, options.model, where),
            // A content filter is read as a finish, but it is no answer to keep.
            (answer) => troubleOf(answer) === undefined
          ))
        )
      },
      streamText: () =>
        Stream.fail(
          AiError.make({
            module: "ChatModel",
            method: "streamText",
            reason: new AiError.InvalidRequestError({ description: "ChatModel answers whole turns only (no streaming)" })
          })
        )
    })
  })

/**
 * {@link make} as a `Layer` of `LanguageModel`.
 *
 * @category layers
 * @since 0.5.0
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

const requestBody = (model: string, request: LanguageModel.ProviderOptions): Record<string, unknown> => {
  const tools = request.tools.filter((tool) => !Tool.isProviderDefined(tool)).map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(Tool.getDescription(tool) === undefined ? undefined : { description: Tool.getDescription(tool) }),
      parameters: Tool.getJsonSchema(tool)
    }
  }))
  const body: Record<string, unknown> = { model, messages: messagesOf(request.prompt) }
  if (tools.length > 0) {
    body["tools"] = tools
    body["tool_choice"] = toolChoiceOf(request.toolChoice)
  }
  return body
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  return choice.mode === "required" ? "required" : "auto"
}

const messagesOf = (prompt: Prompt.Prompt): Array<Record<string, unknown>> =>
  prompt.content.flatMap((message): Array<Record<string, unknown>> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
        return [{ role: "user", content: textOf(message.content) }]
      case "assistant": {
        const calls = message.content.flatMap((part) =>
          part.type === "tool-call" && !part.providerExecuted
            ? [{ id: part.id, type: "function", function: { name: part.name, arguments: JSON.stringify(part.params ?? {}) } }]
            : []
        )
        const text = textOf(message.content)
        return [{ role: "assistant", content: text === "" && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : undefined) }]
      }
      case "tool":
        return message.content.flatMap((part) =>
          part.type === "tool-result"
            ? [{ role: "tool", tool_call_id: part.id, content: typeof part.result === "string" ? part.result : JSON.stringify(part.result) ?? "" }]
            : []
        )
    }
  })

const textOf = (parts: ReadonlyArray<{ readonly type: string }>): string =>
  parts.flatMap((part) => part.type === "text" ? [(part as Prompt.TextPart).text] : []).join("")

// A body that is no answer fails the call (see `troubleOf`), except a
// content filter: that is the finish reason of a response that keeps its
// usage, and the tool loop fails the turn on it.
const toParts = (body: unknown, model: string, where: string): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> => {
  const trouble = troubleOf(body)
  const fail = (kind: Parameters<typeof ModelTrouble.toAiError>[0], detail: string) =>
    Effect.fail(ModelTrouble.toAiError(kind, `the chat completion from ${where} ${detail}`, "ChatModel", "generateText"))
  if (trouble !== undefined && trouble.kind !== "ContentFilter") return fail(trouble.kind, trouble.detail)
  const choice = at(field(body, "choices"), 0)
  const message = field(choice, "message")
  const parts: Array<Response.PartEncoded> = []
  const content = field(message, "content")
  if (typeof content === "string" && content !== "") parts.push({ type: "text", text: content })
  const calls = field(message, "tool_calls")
  if (Array.isArray(calls)) {
    calls.forEach((call, index) => {
      const fn = field(call, "function")
      const id = field(call, "id")
      const args = field(fn, "arguments")
      parts.push({
        type: "tool-call",
        id: typeof id === "string" && id !== "" ? id : `call_${index}`,
        name: String(field(fn, "name") ?? ""),
        params: typeof args === "string" ? parseArguments(args) : args ?? {}
      })
    })
  }
  // As the one-call agent: no string content and no call is no answer.
  if (trouble === undefined && typeof content !== "string" && !(Array.isArray(calls) && calls.length > 0)) {
    const refusal = field(message, "refusal")
    return fail(
      "Malformed",
      `has no string at choices[0].message.content and no tool_calls${
        typeof refusal === "string" ? ` (the model refused: ${preview(refusal)})` : ""
      }: ${preview(JSON.stringify(body) ?? "")}`
    )
  }
  const usage = chatUsage(body, model)
  parts.push({
    type: "finish",
    reason: finishReason(field(choice, "finish_reason")),
    usage: {
      inputTokens: {
        total: usage?.input_tokens,
        cacheRead: usage?.cached_input_tokens,
        uncached: usage === undefined ? undefined : usage.input_tokens - (usage.cached_input_tokens ?? 0),
        cacheWrite: undefined
      },
      outputTokens: { total: usage?.output_tokens, reasoning: usage?.reasoning_tokens, text: undefined }
    }
  })
  return Effect.succeed(parts)
}

// Arguments that are not JSON reach the tool as the raw text: its parameter
// check fails, and the model sees why, as a tool error.
const parseArguments = (text: string): unknown => {
  if (text.trim() === "") return {}
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const finishReason = (value: unknown): Response.FinishReason => {
  switch (value) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "content_filter":
      return "content-filter"
    default:
      return "unknown"
  }
}

const toAiError = (error: HttpAgentError, where: string): AiError.AiError => {
  const reason = (() => {
    switch (error._tag) {
      case "HttpStatusError":
        if (error.status === 429) {
          return new AiError.RateLimitError({
            ...(error.retryAfterMs === undefined ? undefined : { retryAfter: Duration.millis(error.retryAfterMs) })
          })
        }
        return error.status >= 500 || error.status === 408
          ? new AiError.InternalProviderError({ description: error.message })
          : AiError.reasonFromHttpStatus({ status: error.status, description: error.message })
      case "NetworkError":
        return new AiError.NetworkError({ reason: "TransportError", method: "POST", url: where, description: error.message })
      case "InvalidAgentOutput":
        return new AiError.InvalidResponseError({ description: error.message })
      case "HttpBodyError":
        return new AiError.InvalidRequestError({ description: error.message })
    }
  })()
  return AiError.make({ module: "ChatModel", method: "generateText", reason })
}

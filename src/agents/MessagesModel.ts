/**
 * An `effect/ai` `LanguageModel` over Anthropic's Messages API, written on
 * `LanguageModel.make` beside the OpenAI-compatible `ChatModel`. It sends
 * the prompt as `system` and `messages` (tool calls as `tool_use` blocks,
 * their results as `tool_result` blocks), the toolkit's tools as `tools`
 * with their JSON Schema, and reads the answer's `content` back as text,
 * tool calls and a finish part with the usage (cache reads and writes
 * included). Requests go through the same JSON POST as the HTTP agents: the
 * key stays `Redacted` until the request and is scrubbed from every body
 * and message.
 *
 * @since 0.10.0
 */
import { Duration, Effect, Layer, Redacted, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import type { HttpClient } from "effect/http"
import { field } from "../domain/internal/fields.ts"
import {
  DEFAULT_MAX_TOKENS,
  messagesHeaders,
  messagesTrouble,
  messagesUrl,
  messagesUsage
} from "../domain/internal/messages.ts"
import { postJson, preview } from "../domain/internal/post.ts"
import type { HttpAgentError } from "../domain/HttpErrors.ts"
import * as Request from "../domain/Request.ts"
import { keySecrets, redactUrl, scrubber, urlCredentials, urlSecrets } from "../internal/redact.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as ResponseCache from "../cache/ResponseCache.ts"
import * as ModelTrouble from "./internal/modelTrouble.ts"

/**
 * Where the model is, which one to ask, and how.
 *
 * @category models
 * @since 0.10.0
 */
export interface Options {
  /** e.g. `https://api.anthropic.com`; `/v1/messages` is appended to its path. */
  readonly baseUrl: string
  readonly model: string
  /** Sent as `x-api-key`; no header when undefined. */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** The system prompt, temperature, output limit, headers and body fields a team sets. */
  readonly request?: Request.Options | undefined
}

/**
 * The secrets a Messages API caller scrubs: the key, the URL's credentials
 * and the values of its own headers.
 *
 * @internal
 */
export const secretsOf = (url: string, apiKey: Redacted.Redacted<string> | undefined, request: Request.Options | undefined) => [
  ...keySecrets(apiKey === undefined ? "" : Redacted.value(apiKey)),
  ...urlCredentials(url),
  ...(request?.headers ?? []).flatMap((h) => keySecrets(h.value))
]

/**
 * The `LanguageModel` of a Messages API endpoint. HTTP 429, and a 503 or
 * 529 (overloaded) with `retry-after`, fail with a `RateLimitError` that
 * carries the wait; other 5xx and a 529 without one with an
 * `InternalProviderError`, a lost connection with a `NetworkError` (all
 * retryable); 401 and other statuses with reasons that are not. A 2xx
 * `{"type": "error"}` body is read as `troubleOf` reads a chat completion's;
 * no `content` array is an `InvalidResponseError`; a `refusal` stop is the
 * response's `content-filter` finish. Streaming is not offered.
 *
 * **Example** (A model for a tool loop)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { MessagesModel } from "agent-trials"
 *
 * const answer = LanguageModel.generateText({ prompt: "What is 2 + 2?" }).pipe(
 *   Effect.provideServiceEffect(
 *     LanguageModel.LanguageModel,
 *     MessagesModel.make({ baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5", apiKey: undefined })
 *   )
 * )
 * ```
 *
 * @category constructors
 * @since 0.10.0
 */
export const make = (options: Options): Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const url = messagesUrl(options.baseUrl)
    const everywhere = secretsOf(url, options.apiKey, options.request)
    const scrub = scrubber(everywhere, urlSecrets(url))
    const where = scrub(redactUrl(url))
    const own = Request.headersOf(options.request)
    const headers = messagesHeaders(options.apiKey, own)
    const client = yield* Effect.context<HttpClient.HttpClient>()
    return yield* LanguageModel.make({
      generateText: (request) => {
        const body = requestBody(options, request)
        return Redactor.remember(everywhere).pipe(
          Effect.andThen(ResponseCache.call(
            { kind: "anthropic", url, model: options.model, body, headers: own },
            postJson({ url, body, headers, scrub }).pipe(
              Effect.provideContext(client),
              Effect.mapError((error) => toAiError(error, where))
            ),
            (answer) => toParts(answer, options.model, where),
            (answer) => messagesTrouble(answer) === undefined
          ))
        )
      },
      streamText: () =>
        Stream.fail(
          AiError.make({
            module: "MessagesModel",
            method: "streamText",
            reason: new AiError.InvalidRequestError({ description: "MessagesModel answers whole turns only (no streaming)" })
          })
        )
    })
  })

/**
 * {@link make} as a `Layer` of `LanguageModel`.
 *
 * @category layers
 * @since 0.10.0
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

const requestBody = (options: Options, request: LanguageModel.ProviderOptions): Record<string, unknown> => {
  const tools = request.tools.filter((tool) => !Tool.isProviderDefined(tool)).map((tool) => ({
    name: tool.name,
    ...(Tool.getDescription(tool) === undefined ? undefined : { description: Tool.getDescription(tool) }),
    input_schema: Tool.getJsonSchema(tool)
  }))
  // The prompt's own system messages after the team's system prompt.
  const systems = request.prompt.content.flatMap((m) => m.role === "system" ? [m.content] : [])
  const system = [options.request?.system, ...systems].filter((s) => s !== undefined && s !== "").join("\n\n")
  const body: Record<string, unknown> = { model: options.model, messages: messagesOf(request.prompt) }
  if (tools.length > 0) {
    body["tools"] = tools
    body["tool_choice"] = toolChoiceOf(request.toolChoice)
  }
  return Request.messagesBody(
    body,
    { ...options.request, system: system === "" ? undefined : system },
    DEFAULT_MAX_TOKENS
  )
}

const toolChoiceOf = (choice: LanguageModel.ToolChoice<string>): unknown => {
  if (typeof choice === "string") return choice === "required" ? { type: "any" } : { type: choice === "none" ? "none" : "auto" }
  if ("tool" in choice) return { type: "tool", name: choice.tool }
  return { type: choice.mode === "required" ? "any" : "auto" }
}

type Block = Record<string, unknown>

// Messages of one role in a row are one message of the API (a turn's tool
// results follow its calls as one user message).
const messagesOf = (prompt: Prompt.Prompt): Array<{ role: "user" | "assistant"; content: Array<Block> }> => {
  const out: Array<{ role: "user" | "assistant"; content: Array<Block> }> = []
  const push = (role: "user" | "assistant", blocks: Array<Block>) => {
    if (blocks.length === 0) return
    const last = out[out.length - 1]
    if (last?.role === role) last.content.push(...blocks)
    else out.push({ role, content: blocks })
  }
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        break
      case "user":
        push("user", textBlocks(message.content))
        break
      case "assistant":
        push("assistant", [
          ...textBlocks(message.content),
          ...message.content.flatMap((part) =>
            part.type === "tool-call" && !part.providerExecuted
              ? [{ type: "tool_use", id: part.id, name: part.name, input: part.params ?? {} }]
              : []
          )
        ])
        break
      case "tool":
        push(
          "user",
          message.content.flatMap((part) =>
            part.type === "tool-result"
              ? [{
                type: "tool_result",
                tool_use_id: part.id,
                content: typeof part.result === "string" ? part.result : JSON.stringify(part.result) ?? "",
                ...(part.isFailure ? { is_error: true } : undefined)
              }]
              : []
          )
        )
        break
    }
  }
  return out
}

const textBlocks = (parts: ReadonlyArray<{ readonly type: string }>): Array<Block> =>
  parts.flatMap((part) => {
    const text = part.type === "text" ? (part as Prompt.TextPart).text : ""
    return text === "" ? [] : [{ type: "text", text }]
  })

const toParts = (body: unknown, model: string, where: string): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> => {
  const trouble = messagesTrouble(body)
  if (trouble !== undefined && trouble.kind !== "ContentFilter") {
    return Effect.fail(ModelTrouble.toAiError(trouble.kind, `the message from ${where} ${trouble.detail}`, "MessagesModel", "generateText"))
  }
  const parts: Array<Response.PartEncoded> = []
  const content = field(body, "content")
  for (const [index, block] of (Array.isArray(content) ? content : []).entries()) {
    const type = field(block, "type")
    const text = field(block, "text")
    if (type === "text" && typeof text === "string" && text !== "") parts.push({ type: "text", text })
    if (type === "tool_use") {
      const id = field(block, "id")
      parts.push({
        type: "tool-call",
        id: typeof id === "string" && id !== "" ? id : `toolu_${index}`,
        name: String(field(block, "name") ?? ""),
        params: field(block, "input") ?? {}
      })
    }
  }
  const usage = messagesUsage(body, model)
  const written = usage?.cache_write_input_tokens
  parts.push({
    type: "finish",
    reason: finishReason(field(body, "stop_reason")),
    usage: {
      inputTokens: {
        total: usage?.input_tokens,
        cacheRead: usage?.cached_input_tokens,
        cacheWrite: written,
        uncached: usage === undefined ? undefined : usage.input_tokens - (usage.cached_input_tokens ?? 0) - (written ?? 0)
      },
      outputTokens: { total: usage?.output_tokens, reasoning: undefined, text: undefined }
    }
  })
  return Effect.succeed(parts)
}

const finishReason = (value: unknown): Response.FinishReason => {
  switch (value) {
    case "end_turn":
    case "stop_sequence":
      return "stop"
    case "max_tokens":
      return "length"
    case "tool_use":
      return "tool-calls"
    case "refusal":
      return "content-filter"
    default:
      return "unknown"
  }
}

const toAiError = (error: HttpAgentError, where: string): AiError.AiError => {
  const reason = (() => {
    switch (error._tag) {
      case "HttpStatusError": {
        const wait = error.retryAfterMs === undefined ? undefined : { retryAfter: Duration.millis(error.retryAfterMs) }
        // Overloaded with a wait asked for is waited out as a rate limit is.
        if (error.status === 429 || ((error.status === 503 || error.status === 529) && wait !== undefined)) {
          return new AiError.RateLimitError({ ...wait, http: { body: error.message } })
        }
        return error.status >= 500 || error.status === 408
          ? new AiError.InternalProviderError({ description: error.message })
          : AiError.reasonFromHttpStatus({ status: error.status, description: error.message })
      }
      case "NetworkError":
        return new AiError.NetworkError({ reason: "TransportError", method: "POST", url: where, description: error.message })
      case "InvalidAgentOutput":
        return new AiError.InvalidResponseError({ description: preview(error.message) })
      case "HttpBodyError":
        return new AiError.InvalidRequestError({ description: error.message })
    }
  })()
  return AiError.make({ module: "MessagesModel", method: "generateText", reason })
}

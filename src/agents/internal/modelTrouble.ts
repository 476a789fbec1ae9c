/**
 * A model turn that is no answer, as an `effect/ai` `AiError` whose reason
 * says whether a retry may mend it: an error body of `ChatModel`'s endpoint,
 * and a response of any `LanguageModel` (an `effect-ai:` layer too) that
 * finished with `error` or `content-filter`.
 *
 * @internal
 */
import { AiError, type LanguageModel } from "effect/ai"
import type { Trouble } from "../../domain/internal/completion.ts"

/**
 * The `AiError` of a trouble: rate limits and overloads are retryable
 * reasons, quota, content filter, other errors and malformed bodies not.
 * `description` says what and where.
 *
 * @internal
 */
export const toAiError = (kind: Trouble["kind"], description: string, module: string, method: string): AiError.AiError => {
  const http = { body: description }
  const reason = (() => {
    switch (kind) {
      case "RateLimited":
        return new AiError.RateLimitError({ http })
      case "Overloaded":
        return new AiError.InternalProviderError({ description })
      case "QuotaExhausted":
        return new AiError.QuotaExhaustedError({ http })
      case "ContentFilter":
        return new AiError.ContentPolicyError({ description })
      case "Error":
        return new AiError.UnknownError({ description })
      case "Malformed":
        return new AiError.InvalidResponseError({ description })
    }
  })()
  return AiError.make({ module, method, reason })
}

/**
 * Why a turn's response is no answer, or undefined: it finished with
 * `content-filter` or `error`. (`LanguageModel.make` already refuses error
 * parts in a whole response, as an `InvalidOutputError`.)
 *
 * @internal
 */
export const unusable = (response: LanguageModel.GenerateTextResponse<any, any>): AiError.AiError | undefined => {
  switch (response.finishReason) {
    case "content-filter":
      return toAiError("ContentFilter", "the answer was withheld by a content filter (finish reason content-filter)", "LanguageModel", "generateText")
    case "error":
      return toAiError("Error", "the model finished with an error (finish reason error)", "LanguageModel", "generateText")
    default:
      return undefined
  }
}

/**
 * An `AiError`'s message, with the body it quotes when its reason's own
 * message does not (a rate limit, an exhausted quota).
 *
 * @internal
 */
export const describeAiError = (error: AiError.AiError): string => {
  const body = (error.reason as { readonly http?: { readonly body?: unknown } }).http?.body
  return typeof body === "string" && body !== "" && !error.message.includes(body) ? `${error.message}: ${body}` : error.message
}

/**
 * An agent that is one call to an OpenAI-compatible chat completions
 * endpoint (OpenAI, vLLM, llama.cpp, Ollama, ...). The API key stays
 * `Redacted`, and its value is scrubbed from every body and message before a
 * trial record can see it.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent, TrialContext } from "../domain/Agent.ts"
import { InvalidAgentOutput } from "../domain/Errors.ts"
import type { AgentEvalTask, AgentOutput } from "../domain/Trial.ts"
import type { HttpAgentError } from "../domain/HttpErrors.ts"
import { troubleOf } from "../domain/internal/completion.ts"
import { at, field } from "../domain/internal/fields.ts"
import { chatCompletionsUrl, chatUsage, postJson, preview } from "../domain/internal/post.ts"
import { keySecrets, redactUrl, scrubber, urlCredentials, urlSecrets } from "../internal/redact.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as ResponseCache from "../cache/ResponseCache.ts"
import * as Request from "../domain/Request.ts"
import { userContent } from "./internal/prompt.ts"
import { leanPost } from "./internal/lean.ts"
import * as ChatModel from "./ChatModel.ts"
import { AgentBuildError, type AgentKind } from "./Kind.ts"
import * as ToolAgent from "./tools/Agent.ts"

/**
 * Options of a chat completions agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * e.g. `https://api.openai.com/v1`; `/chat/completions` is appended to its
   * path (before any query). Shown in messages only through `redactUrl`.
   */
  readonly baseUrl: string
  readonly model: string
  /** Sent as `Authorization: Bearer <key>`; no header when undefined or empty. */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** The system prompt, temperature, output limit, seed, headers and body fields a team sets. */
  readonly request?: Request.Options | undefined
}

/**
 * Sends `task.inputs.instruction` (or, without a string instruction, the JSON
 * of `task.inputs`) as one user message, or, in a conversation with a
 * simulated user (`trial.conversation`), the conversation's messages; the first choice's content is the
 * output text, the whole body the `response`, and the body's `usage` the
 * output's `usage` (priced as `model`). A 2xx body that is no answer (an
 * `{"error": ...}`, no choices, no message, `finish_reason` `content_filter`
 * or `error`) is `InvalidAgentOutput`, marked `retryable` when it says it is
 * overloaded, rate-limited or a 5xx (not `insufficient_quota`). With a
 * `ResponseCache` provided (`run --cache`), the call goes through it.
 *
 * **Example** (The key from `OPENAI_API_KEY`)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { OpenAiAgent } from "agent-trials"
 *
 * const agent = Effect.map(OpenAiAgent.keyFromConfig, (apiKey) =>
 *   OpenAiAgent.make({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini", apiKey }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Agent<HttpAgentError, HttpClient.HttpClient> => {
  const url = chatCompletionsUrl(options.baseUrl)
  const key = options.apiKey === undefined ? "" : Redacted.value(options.apiKey)
  const bearer = key === "" ? undefined : options.apiKey
  const headers = Request.headersOf(options.request)
  // Its key, credentials and headers: every record of the run loses them (`Redactor`).
  const everywhere = [...keySecrets(key), ...urlCredentials(url), ...(options.request?.headers ?? []).flatMap((h) => keySecrets(h.value))]
  const scrub = scrubber(everywhere, urlSecrets(url))
  const where = scrub(redactUrl(url))
  // With a simulated user (`--user`), the whole conversation so far: the cache keys on all of it.
  const requestOf = (task: AgentEvalTask, trial: TrialContext | undefined) =>
    Request.chatBody(
      { model: options.model, messages: trial?.conversation ?? [{ role: "user", content: userContent(task) }] },
      options.request
    )
  const decode = (body: unknown) => toOutput(body, where, options.model)
  const full = Effect.fn("OpenAiAgent.call")(function*(task: AgentEvalTask, trial?: TrialContext) {
    yield* Redactor.remember(everywhere)
    const request = requestOf(task, trial)
    // Through the response cache when the run provides one (`--cache`).
    return yield* ResponseCache.call(
      { kind: "openai", url, model: options.model, body: request, trial, headers },
      postJson({ url, body: request, bearer, headers, scrub, where }),
      decode
    )
  })
  // Without a tracer or a cache, the lean path (`internal/lean.ts`).
  return (task, trial) =>
    Effect.withFiber((fiber) =>
      leanPost(fiber, everywhere, { url, body: requestOf(task, trial), bearer, headers, scrub, where }, decode) ??
        full(task, trial)
    )
}

export { keyFromConfig } from "../internal/apiKey.ts"

const toOutput = (body: unknown, where: string, model: string): Effect.Effect<AgentOutput, InvalidAgentOutput> => {
  const usage = chatUsage(body, model)
  // An error body, no choice, no message, a content filter: read as the tool loop reads them.
  const trouble = troubleOf(body)
  if (trouble !== undefined) {
    return Effect.fail(
      new InvalidAgentOutput({
        message: `Chat completion from ${where} ${trouble.detail}`,
        ...(usage === undefined ? undefined : { usage }),
        ...(trouble.retryable ? { retryable: true } : undefined)
      })
    )
  }
  const message = field(at(field(body, "choices"), 0), "message")
  const content = field(message, "content")
  if (typeof content !== "string") {
    const refusal = field(message, "refusal")
    const refused = typeof refusal === "string" ? ` (the model refused: ${preview(refusal)})` : ""
    return Effect.fail(
      new InvalidAgentOutput({
        message: `Chat completion from ${where} has no string at choices[0].message.content${refused}: ${
          preview(JSON.stringify(body) ?? "")
        }`,
        ...(usage === undefined ? undefined : { usage })
      })
    )
  }
  const metadata: Record<string, unknown> = {}
  for (const name of ["model", "usage"] as const) {
    const value = field(body, name)
    if (value !== undefined) metadata[name] = value
  }
  return Effect.succeed({
    output_text: content,
    response: body,
    ...(Object.keys(metadata).length > 0 ? { metadata } : undefined),
    ...(usage === undefined ? undefined : { usage })
  })
}

/**
 * `openai:BASE_URL`: the agent kind (with `--model`, and the key from
 * `OPENAI_API_KEY`).
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: AgentKind<{ readonly _tag: "OpenAi"; readonly baseUrl: string }> = {
  tag: "OpenAi",
  matches: (text) => text.startsWith("openai:"),
  usage: "openai:BASE_URL",
  help: "openai:BASE_URL",
  doc: "One chat completions call to an OpenAI-compatible API (needs `--model`; the key from `OPENAI_API_KEY`); " +
    "with `--tools`, a tool-calling loop over it",
  parse: (text) => {
    const baseUrl = text.slice("openai:".length)
    return URL.canParse(baseUrl) && /^https?:/.test(baseUrl)
      ? { _tag: "OpenAi", baseUrl }
      : `--agent openai:${redactUrl(baseUrl)}: expected openai:BASE_URL with an http(s) URL, e.g. openai:https://api.openai.com/v1`
  },
  format: (spec) => `openai:${spec.baseUrl}`,
  recorded: (spec) => `openai:${redactUrl(spec.baseUrl)}`,
  usesModel: true,
  usesTools: true,
  usesConversation: true,
  build: (spec, options) => {
    const model = options.model
    if (model === undefined || model === "") {
      return Effect.fail(new AgentBuildError({ problem: `--agent openai:${redactUrl(spec.baseUrl)} needs --model NAME` }))
    }
    const chat = { baseUrl: spec.baseUrl, model, apiKey: options.apiKey, request: options.request }
    // With --tools, the tool loop over the same endpoint; else one call.
    return options.tools === undefined || options.tools.length === 0
      ? Effect.succeed(make(chat))
      : ToolAgent.make(ChatModel.layer(chat), ToolAgent.optionsOf(options, model))
  }
}

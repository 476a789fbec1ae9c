/**
 * `anthropic:BASE_URL`: an agent that is one call to Anthropic's Messages
 * API (`POST BASE_URL/v1/messages`, `x-api-key` from `ANTHROPIC_API_KEY`,
 * `anthropic-version`), or, with `--tools`, the tool loop over
 * `MessagesModel`. The key stays `Redacted`, and its value is scrubbed from
 * every body and message before a trial record can see it.
 *
 * @since 0.10.0
 */
import { Effect, type Redacted } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent, TrialContext } from "../domain/Agent.ts"
import { InvalidAgentOutput } from "../domain/Errors.ts"
import type { HttpAgentError } from "../domain/HttpErrors.ts"
import {
  DEFAULT_MAX_TOKENS,
  messagesHeaders,
  messagesText,
  messagesTrouble,
  messagesUrl,
  messagesUsage
} from "../domain/internal/messages.ts"
import { field } from "../domain/internal/fields.ts"
import { postJson, preview } from "../domain/internal/post.ts"
import * as Request from "../domain/Request.ts"
import type { AgentEvalTask, AgentOutput } from "../domain/Trial.ts"
import { anthropicKeyFromConfig } from "../internal/apiKey.ts"
import { redactUrl, scrubber, urlSecrets } from "../internal/redact.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as ResponseCache from "../cache/ResponseCache.ts"
import { userContent } from "./internal/prompt.ts"
import { AgentBuildError, type AgentKind } from "./Kind.ts"
import * as MessagesModel from "./MessagesModel.ts"
import * as ToolAgent from "./tools/Agent.ts"
import type { McpServerFailed, Requirements, ToolConnectError } from "./tools/Source.ts"

/**
 * Options of a Messages API agent.
 *
 * @category models
 * @since 0.10.0
 */
export type Options = MessagesModel.Options

/**
 * Sends `task.inputs.instruction` (or the JSON of `task.inputs`) as one user
 * message, or, with a simulated user, the conversation's messages; the
 * answer's text blocks are the output text, the whole body the `response`,
 * its `usage` the output's (cache reads and writes counted, priced as
 * `model`). A 2xx body that is no answer (`{"type": "error"}`, no `content`,
 * a `refusal` stop) is `InvalidAgentOutput`, marked `retryable` when it says
 * it is overloaded or rate-limited. With a `ResponseCache` provided, the
 * call goes through it.
 *
 * **Example** (The key from `ANTHROPIC_API_KEY`)
 *
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { AnthropicAgent } from "agent-trials"
 *
 * const agent = AnthropicAgent.make({
 *   baseUrl: "https://api.anthropic.com",
 *   model: "claude-sonnet-4-5",
 *   apiKey: Redacted.make(process.env.ANTHROPIC_API_KEY ?? ""),
 *   request: { system: "Answer in one word.", temperature: 0 }
 * })
 * ```
 *
 * @category constructors
 * @since 0.10.0
 */
export const make = (options: Options): Agent<HttpAgentError, HttpClient.HttpClient> => {
  const url = messagesUrl(options.baseUrl)
  const everywhere = MessagesModel.secretsOf(url, options.apiKey, options.request)
  const scrub = scrubber(everywhere, urlSecrets(url))
  const where = scrub(redactUrl(url))
  const own = Request.headersOf(options.request)
  const headers = messagesHeaders(options.apiKey, own)
  return Effect.fn("AnthropicAgent.call")(function*(task: AgentEvalTask, trial?: TrialContext) {
    yield* Redactor.remember(everywhere)
    const messages = trial?.conversation ?? [{ role: "user", content: userContent(task) }]
    const body = Request.messagesBody({ model: options.model, messages }, options.request, DEFAULT_MAX_TOKENS)
    return yield* ResponseCache.call(
      { kind: "anthropic", url, model: options.model, body, headers: own, trial },
      postJson({ url, body, headers, scrub }),
      (answer) => toOutput(answer, where, options.model),
      (answer) => messagesTrouble(answer) === undefined
    )
  })
}

const toOutput = (body: unknown, where: string, model: string): Effect.Effect<AgentOutput, InvalidAgentOutput> => {
  const usage = messagesUsage(body, model)
  const trouble = messagesTrouble(body)
  if (trouble !== undefined) {
    return Effect.fail(
      new InvalidAgentOutput({
        message: `Message from ${where} ${trouble.detail}`,
        ...(usage === undefined ? undefined : { usage }),
        ...(trouble.retryable ? { retryable: true } : undefined)
      })
    )
  }
  const content = field(body, "content") as ReadonlyArray<unknown>
  if (!content.some((block) => field(block, "type") === "text")) {
    return Effect.fail(
      new InvalidAgentOutput({
        message: `Message from ${where} has no text block in content: ${preview(JSON.stringify(body) ?? "")}`,
        ...(usage === undefined ? undefined : { usage })
      })
    )
  }
  const metadata: Record<string, unknown> = {}
  for (const name of ["model", "stop_reason", "usage"] as const) {
    const value = field(body, name)
    if (value !== undefined) metadata[name] = value
  }
  return Effect.succeed({
    output_text: messagesText(body),
    response: body,
    ...(Object.keys(metadata).length > 0 ? { metadata } : undefined),
    ...(usage === undefined ? undefined : { usage })
  })
}

const readKey = (shown: string): Effect.Effect<Redacted.Redacted<string>, AgentBuildError> =>
  anthropicKeyFromConfig.pipe(
    Effect.mapError((e) => new AgentBuildError({ where: `--agent ${shown}`, problem: `cannot read ANTHROPIC_API_KEY: ${e.message}` })),
    Effect.flatMap((key) =>
      key === undefined
        ? Effect.fail(new AgentBuildError({ problem: `--agent ${shown} needs ANTHROPIC_API_KEY (sent as x-api-key); it is not set` }))
        : Effect.succeed(key)
    )
  )

/**
 * `anthropic:BASE_URL`: the agent kind (with `--model`, and the key from
 * `ANTHROPIC_API_KEY`, which must be set).
 *
 * @category kinds
 * @since 0.10.0
 */
export const kind: AgentKind<{ readonly _tag: "Anthropic"; readonly baseUrl: string }> = {
  tag: "Anthropic",
  matches: (text) => text.startsWith("anthropic:"),
  usage: "anthropic:BASE_URL",
  help: "anthropic:BASE_URL",
  doc: "One call to Anthropic's Messages API, `BASE_URL/v1/messages` (needs `--model`; the key from `ANTHROPIC_API_KEY`); " +
    "with `--tools`, a tool-calling loop over it",
  parse: (text) => {
    const baseUrl = text.slice("anthropic:".length)
    return URL.canParse(baseUrl) && /^https?:/.test(baseUrl)
      ? { _tag: "Anthropic", baseUrl }
      : `--agent anthropic:${redactUrl(baseUrl)}: expected anthropic:BASE_URL with an http(s) URL, e.g. anthropic:https://api.anthropic.com`
  },
  format: (spec) => `anthropic:${spec.baseUrl}`,
  recorded: (spec) => `anthropic:${redactUrl(spec.baseUrl)}`,
  usesModel: true,
  usesTools: true,
  usesConversation: true,
  build: (spec, options) => {
    const shown = `anthropic:${redactUrl(spec.baseUrl)}`
    const model = options.model
    if (model === undefined || model === "") {
      return Effect.fail(new AgentBuildError({ problem: `--agent ${shown} needs --model NAME` }))
    }
    if (options.request?.seed !== undefined) {
      return Effect.fail(
        new AgentBuildError({
          problem: `--agent ${shown}: the Messages API takes no seed: drop --model-seed (a compatible server's own field goes in --request)`
        })
      )
    }
    return Effect.flatMap(readKey(shown), (apiKey): Effect.Effect<
      Agent<unknown, HttpClient.HttpClient>,
      AgentBuildError | ToolConnectError | McpServerFailed,
      Requirements
    > => {
      const messages: Options = { baseUrl: spec.baseUrl, model, apiKey, request: options.request }
      return options.tools === undefined || options.tools.length === 0
        ? Effect.succeed(make(messages))
        : ToolAgent.make(MessagesModel.layer(messages), ToolAgent.optionsOf(options, model))
    })
  }
}

/**
 * A simulated user played by a model: `--user openai:BASE_URL` with
 * `--user-model M`, one chat completions call per turn, as tau-bench's user
 * simulator does. Its system prompt holds the task's user instruction and
 * tells it to say `###STOP###` once the goal is met; the roles are mirrored
 * (the agent's answers are its `user` messages, its own earlier messages its
 * `assistant` ones). Requests go through the same JSON POST as the
 * `openai:` agent (the key `Redacted` and scrubbed from every body and
 * message), the run's retries, and the response cache when the run has one.
 *
 * @since 0.9.0
 */
import { Duration, Effect, Redacted } from "effect"
import type { Message } from "../../domain/Conversation.ts"
import { InvalidAgentOutput } from "../../domain/Errors.ts"
import { troubleOf } from "../../domain/internal/completion.ts"
import { at, field } from "../../domain/internal/fields.ts"
import { chatCompletionsUrl, chatUsage, postJson, preview } from "../../domain/internal/post.ts"
import {
  DEFAULT_MAX_TOKENS,
  messagesHeaders,
  messagesText,
  messagesTrouble,
  messagesUrl,
  messagesUsage
} from "../../domain/internal/messages.ts"
import type { ModelUsage } from "../../domain/Trial.ts"
import * as Usages from "../../domain/Usage.ts"
import { keySecrets, redactUrl, scrubber, urlCredentials, urlSecrets } from "../../internal/redact.ts"
import * as ResponseCache from "../../cache/ResponseCache.ts"
import * as Policy from "../../runner/Policy.ts"
import * as Redactor from "../../runner/Redactor.ts"
import { type SimulatedUser, type UserKind, UserBuildError, UserError } from "./User.ts"

/**
 * What a model user says to end the conversation.
 *
 * @category constants
 * @since 0.9.0
 */
export const STOP = "###STOP###"

/**
 * How long one call of the user model may take (each attempt).
 *
 * @category constants
 * @since 0.9.0
 */
export const CALL_TIMEOUT = Duration.minutes(2)

/**
 * What the user model is asked to say first: the agent's greeting, as
 * tau-bench opens (it is not part of the recorded conversation).
 *
 * @category constants
 * @since 0.9.0
 */
export const GREETING = "Hi! How can I help you today?"

/**
 * Where the user model is and which one to ask.
 *
 * @category models
 * @since 0.9.0
 */
export interface Options {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Each call's retries (the run's policy); none when undefined. */
  readonly retry?: Policy.RetryPolicy | undefined
  /**
   * The API the endpoint speaks: `chat` (chat completions, the default) or
   * `messages` (Anthropic's Messages API: the instruction as `system`, and
   * the greeting first, so the messages start with the user role).
   */
  readonly api?: "chat" | "messages" | undefined
}

/**
 * The user model's system prompt for an instruction.
 *
 * @category constructors
 * @since 0.9.0
 */
export const systemPrompt = (instruction: string): string =>
  [
    "You are a user talking to a customer service agent. Play the user described by this instruction:",
    "",
    instruction,
    "",
    "Rules:",
    "- Write one message at a time, as the user would: only what the current step needs, not the whole instruction at once.",
    "- Do not invent information the instruction does not give; if you are asked for it, say you do not know.",
    "- Do not repeat the instruction word for word: use your own words.",
    `- When the instruction's goal is met (or cannot be met), answer with ${STOP} alone to end the conversation.`
  ].join("\n")

/**
 * The user model's messages for a conversation: the system prompt, then
 * the conversation with its roles mirrored; the greeting when it is empty.
 *
 * @category constructors
 * @since 0.9.0
 */
export const mirrored = (instruction: string, conversation: ReadonlyArray<Message>): Array<Message | { role: "system"; content: string }> => [
  { role: "system", content: systemPrompt(instruction) },
  ...(conversation.length === 0
    ? [{ role: "user" as const, content: GREETING }]
    : conversation.map((m): Message => ({ role: m.role === "user" ? "assistant" : "user", content: m.content })))
]

/**
 * The user a model plays. A turn whose answer holds `###STOP###` ends the
 * conversation (its text still recorded). A call that fails for good (its
 * retries spent, no answer in the body, no answer within `CALL_TIMEOUT`) is
 * `UserError`, with what the turn spent.
 *
 * @category constructors
 * @since 0.9.0
 */
export const make = (options: Options): SimulatedUser => {
  const messages = options.api === "messages"
  const url = messages ? messagesUrl(options.baseUrl) : chatCompletionsUrl(options.baseUrl)
  const key = options.apiKey === undefined ? "" : Redacted.value(options.apiKey)
  const bearer = key === "" || messages ? undefined : options.apiKey
  const headers = messages ? messagesHeaders(key === "" ? undefined : options.apiKey, undefined) : undefined
  const everywhere = [...keySecrets(key), ...urlCredentials(url)]
  const scrub = scrubber(everywhere, urlSecrets(url))
  const where = scrub(redactUrl(url))
  const timeoutMs = Duration.toMillis(CALL_TIMEOUT)
  return (turn) =>
    Effect.gen(function*() {
      yield* Redactor.remember(everywhere)
      const body = messages
        ? messagesBodyOf(options.model, turn.instruction, turn.conversation)
        : { model: options.model, messages: mirrored(turn.instruction, turn.conversation) }
      let spent: ModelUsage | undefined
      const attempt = ResponseCache.call(
        { kind: messages ? "user-messages" : "user", url, model: options.model, body, trial: turn.trial },
        postJson({ url, body, bearer, headers, scrub }),
        (answer) => {
          // Every attempt's usage counts, a retried one's too.
          const usage = messages ? messagesUsage(answer, options.model) : chatUsage(answer, options.model)
          if (usage !== undefined) spent = Usages.add(spent, usage)
          return messages ? messageAnswerOf(answer, where) : answerOf(answer, where)
        },
        (answer) => (messages ? messagesTrouble(answer) : troubleOf(answer)) === undefined
      ).pipe(
        Effect.timeoutOrElse({
          duration: timeoutMs,
          orElse: () =>
            Effect.fail(
              new Policy.Timeout({
                message: `the user model call to ${where} did not finish within ${Duration.format(CALL_TIMEOUT)}`,
                timeout_ms: timeoutMs
              })
            )
        })
      )
      const text = yield* (options.retry === undefined ? attempt : Effect.retry(attempt, Policy.retrySchedule(options.retry))).pipe(
        Effect.mapError((error) =>
          new UserError({
            message: `the user model failed in turn ${turn.turn}: ${error.message}`,
            ...(spent === undefined ? undefined : { usage: spent })
          })
        )
      )
      return { text, ends: text.includes(STOP), ...(spent === undefined ? undefined : { usage: spent }) }
    })
}

const answerOf = (body: unknown, where: string): Effect.Effect<string, InvalidAgentOutput> => {
  const trouble = troubleOf(body)
  if (trouble !== undefined) {
    return Effect.fail(
      new InvalidAgentOutput({ message: `Chat completion from ${where} ${trouble.detail}`, ...(trouble.retryable ? { retryable: true } : undefined) })
    )
  }
  const content = field(field(at(field(body, "choices"), 0), "message"), "content")
  return typeof content === "string"
    ? Effect.succeed(content)
    : Effect.fail(
      new InvalidAgentOutput({
        message: `Chat completion from ${where} has no string at choices[0].message.content: ${preview(JSON.stringify(body) ?? "")}`
      })
    )
}

// The Messages API takes the instruction as `system`, and its messages
// start with the user role: the greeting the user answered comes first.
const messagesBodyOf = (model: string, instruction: string, conversation: ReadonlyArray<Message>) => {
  const [, ...said] = mirrored(instruction, conversation)
  return {
    model,
    system: systemPrompt(instruction),
    messages: conversation.length === 0 ? said : [{ role: "user", content: GREETING }, ...said],
    max_tokens: DEFAULT_MAX_TOKENS
  }
}

const messageAnswerOf = (body: unknown, where: string): Effect.Effect<string, InvalidAgentOutput> => {
  const trouble = messagesTrouble(body)
  if (trouble !== undefined) {
    return Effect.fail(
      new InvalidAgentOutput({ message: `Message from ${where} ${trouble.detail}`, ...(trouble.retryable ? { retryable: true } : undefined) })
    )
  }
  const content = field(body, "content") as ReadonlyArray<unknown>
  return content.some((block) => field(block, "type") === "text")
    ? Effect.succeed(messagesText(body))
    : Effect.fail(new InvalidAgentOutput({ message: `Message from ${where} has no text block in content: ${preview(JSON.stringify(body) ?? "")}` }))
}

type ModelSpec = { readonly _tag: "OpenAi"; readonly baseUrl: string }

/**
 * `openai:BASE_URL`: the user kind (with `--user-model`; the key from
 * `AGENT_TRIALS_USER_API_KEY`, else `OPENAI_API_KEY`).
 *
 * @category kinds
 * @since 0.9.0
 */
export const kind: UserKind<ModelSpec> = {
  tag: "OpenAi",
  matches: (text) => text.startsWith("openai:"),
  usage: "openai:BASE_URL",
  doc: "A model plays the user, one chat completions call per turn (needs `--user-model`; the key from " +
    "`AGENT_TRIALS_USER_API_KEY`, else `OPENAI_API_KEY`); it ends the conversation with `###STOP###`",
  parse: (text) => {
    const baseUrl = text.slice("openai:".length)
    return URL.canParse(baseUrl) && /^https?:/.test(baseUrl)
      ? { _tag: "OpenAi", baseUrl }
      : `--user openai:${redactUrl(baseUrl)}: expected openai:BASE_URL with an http(s) URL, e.g. openai:https://api.openai.com/v1`
  },
  format: (spec) => `openai:${spec.baseUrl}`,
  recorded: (spec) => `openai:${redactUrl(spec.baseUrl)}`,
  usesModel: true,
  build: (spec, options) =>
    options.model === undefined || options.model === ""
      ? Effect.fail(new UserBuildError({ problem: `--user openai:${redactUrl(spec.baseUrl)} needs --user-model NAME` }))
      : Effect.succeed(make({ baseUrl: spec.baseUrl, model: options.model, apiKey: options.apiKey, retry: options.retry }))
}

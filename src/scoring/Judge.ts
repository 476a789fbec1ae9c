/**
 * An LLM grader (`judge:BASE_URL`): one chat completion per trial on an
 * OpenAI-compatible endpoint, asking whether the answer is correct given the
 * reference and ending with `GRADE: C` or `GRADE: I`.
 *
 * The call goes through the openai agent's HTTP code (the same request,
 * error mapping and secret scrubbing) with a timeout per attempt and retries
 * of retryable failures (timeouts, network errors, HTTP 408/429/5xx) after
 * the jittered backoff or the server's `Retry-After`, as `Policy` defines
 * them for agent calls. All waiting is on the Effect Clock. The API key is
 * scrubbed from every explanation and message. How many judge calls run at
 * once is the scoring stage's limit, not the judge's.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Redacted, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { InvalidAgentOutput } from "../domain/Errors.ts"
import { chatCompletionsUrl, chatUsage, postJson, preview } from "../domain/internal/post.ts"
import {
  DEFAULT_MAX_TOKENS,
  messagesHeaders,
  messagesText,
  messagesTrouble,
  messagesUrl,
  messagesUsage
} from "../domain/internal/messages.ts"
import * as Request from "../domain/Request.ts"
import { keySecrets, redactUrl, scrubber, urlCredentials, urlSecrets } from "../internal/redact.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as ResponseCache from "../cache/ResponseCache.ts"
import type { TrialContext } from "../domain/Agent.ts"
import { troubleOf } from "../domain/internal/completion.ts"
import * as Policy from "../runner/Policy.ts"
import { type AgentEvalTask, type Trajectory, Usage } from "../domain/Trial.ts"
import * as Trajectories from "../domain/Trajectory.ts"
import * as PathScorers from "./PathScorers.ts"
import * as Usages from "../domain/Usage.ts"
import * as Scorer from "../domain/Scorer.ts"

/**
 * Options of a judge.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly name?: string | undefined
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended to its path. */
  readonly baseUrl: string
  readonly model: string
  /** Sent as `Authorization: Bearer <key>` (`x-api-key` to the Messages API); no header when undefined or empty. */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /**
   * The API the endpoint speaks: `chat` (chat completions, the default) or
   * `messages` (Anthropic's Messages API, `BASE_URL/v1/messages`).
   */
  readonly api?: "chat" | "messages" | undefined
  /** The judge's system prompt, temperature, output limit, seed, headers and body fields (`--judge-*`). */
  readonly request?: Request.Options | undefined
  /** Per attempt. Default 60 seconds. */
  readonly timeout?: Duration.Input | undefined
  /** Default `Policy.defaultRetry` (2 retries from 500 ms); `{ retries: 0, ... }` for none. */
  readonly retry?: Policy.RetryPolicy | undefined
  /** Puts the trial's trajectory (`Trajectory.text`) in the prompt; a trial without one gets a `NoTrajectory` error. */
  readonly trajectory?: boolean | undefined
}

/**
 * The judge answered without a final `GRADE: C` or `GRADE: I` line. Its
 * text is kept as the score's explanation.
 *
 * @category errors
 * @since 0.1.0
 */
export class UnusableGrade extends Schema.TaggedError<UnusableGrade>()("UnusableGrade", {
  message: Schema.String,
  explanation: Schema.String,
  /** What the judge's calls spent on the unusable answer. */
  usage: Schema.optionalKey(Usage)
}) {}

/**
 * The judge's endpoint answered 2xx with no chat completion in it.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidJudgeResponse extends Schema.TaggedError<InvalidJudgeResponse>()("InvalidJudgeResponse", {
  message: Schema.String,
  /** What the judge's calls spent, the unusable one included. */
  usage: Schema.optionalKey(Usage)
}) {}

/**
 * What a judge has done so far: attempts started, retries (waits begun),
 * calls in flight and trials waiting to retry.
 *
 * @category models
 * @since 0.1.0
 */
export interface Counts {
  readonly attempts: number
  readonly retries: number
  readonly active: number
  readonly waiting: number
}

/**
 * A judge: a scorer, and its counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface Judge extends Scorer.Scorer<HttpClient.HttpClient> {
  readonly counts: () => Counts
}

/**
 * Makes a judge. The score is 1 and passes for `GRADE: C`, 0 for `GRADE: I`;
 * the judge's whole answer is the explanation.
 *
 * **Example** (A judge with the key from `OPENAI_API_KEY`)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Judge, OpenAiAgent } from "agent-trials"
 *
 * const judge = Effect.map(OpenAiAgent.keyFromConfig, (apiKey) =>
 *   Judge.make({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini", apiKey, timeout: "30 seconds" }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Judge => {
  const messages = options.api === "messages"
  const url = messages ? messagesUrl(options.baseUrl) : chatCompletionsUrl(options.baseUrl)
  const key = options.apiKey === undefined ? "" : Redacted.value(options.apiKey)
  const bearer = key === "" || messages ? undefined : options.apiKey
  const own = Request.headersOf(options.request)
  const headers = messages ? messagesHeaders(key === "" ? undefined : options.apiKey, own) : own
  // Its key, credentials and headers: what the run loses from its records and last error (`Redactor`).
  const everywhere = [...keySecrets(key), ...urlCredentials(url), ...(options.request?.headers ?? []).flatMap((h) => keySecrets(h.value))]
  const scrub = scrubber(everywhere, urlSecrets(url))
  const where = scrub(redactUrl(url))
  const timeoutMs = Duration.toMillis(options.timeout ?? "60 seconds")
  const retry = options.retry ?? Policy.defaultRetry
  const counts = { attempts: 0, retries: 0, active: 0, waiting: 0 }

  // `spent` adds up the usage of one score's attempts.
  const attempt = (content: string, spent: Spent, trial: TrialContext | undefined): Effect.Effect<string, unknown, HttpClient.HttpClient> =>
    Effect.suspend(() => {
      counts.attempts++
      counts.active++
      const asked = { model: options.model, messages: [{ role: "user", content }] }
      const body = messages ? Request.messagesBody(asked, options.request, DEFAULT_MAX_TOKENS) : Request.chatBody(asked, options.request)
      // Through the response cache when the run provides one (`--cache`).
      const call = ResponseCache.call(
        { kind: messages ? "judge-messages" : "judge", url, model: options.model, body, trial, headers: own },
        postJson({ url, body, bearer, headers, scrub }),
        (answer) => {
          const usage = messages ? messagesUsage(answer, options.model) : chatUsage(answer, options.model)
          if (usage !== undefined) spent.usage = Usages.add(spent.usage, usage)
          return messages ? messageAnswerOf(answer, where, spent) : answerOf(answer, where, spent)
        },
        (answer) => (messages ? messagesTrouble(answer) : troubleOf(answer)) === undefined
      ).pipe(Effect.mapError((e) => e instanceof InvalidAgentOutput ? new InvalidJudgeResponse({ message: e.message }) : e))
      return Effect.ensuring(
        Effect.timeoutOrElse(call, {
          duration: timeoutMs,
          orElse: () =>
            Effect.fail(
              new Policy.Timeout({
                message: `the judge call to ${where} did not finish within ${Duration.format(Duration.millis(timeoutMs))}`,
                timeout_ms: timeoutMs
              })
            )
        }),
        Effect.sync(() => counts.active--)
      )
    })

  // A call waits between its attempts from the retry's decision to the next
  // attempt's start (or its interruption).
  const withRetries = (content: string, spent: Spent, trial: TrialContext | undefined): Effect.Effect<string, unknown, HttpClient.HttpClient> =>
    Effect.suspend(() => {
      let waiting = false
      const waited = Effect.sync(() => {
        if (waiting) counts.waiting--
        waiting = false
      })
      const schedule = Policy.retrySchedule(retry, () => {
        counts.retries++
        counts.waiting++
        waiting = true
      })
      return Effect.andThen(waited, attempt(content, spent, trial)).pipe(Effect.retry(schedule), Effect.ensuring(waited))
    })

  const scorer = Scorer.make(options.name ?? "judge", (task, output, trial) =>
    Effect.gen(function*() {
      yield* Redactor.remember(everywhere)
      const expected = yield* Scorer.reference(task, "judge")
      const steps = options.trajectory === true ? yield* PathScorers.trajectoryOf(trial, options.name ?? "judge") : undefined
      const spent: Spent = { usage: undefined }
      // The trial's record gives the key its epoch and counts the call for it.
      const epoch = trial?.metadata["epoch"]
      const context = trial === undefined ? undefined : { id: trial.id, epoch: typeof epoch === "number" ? epoch : undefined }
      const answer = scrub(yield* withRetries(prompt(task, expected, output, steps), spent, context))
      const grade = gradeOf(answer)
      const usage = spent.usage === undefined ? undefined : { usage: spent.usage }
      if (grade === undefined) {
        return yield* new UnusableGrade({
          message: `the judge at ${where} gave no final GRADE: C or GRADE: I line: ${preview(answer)}`,
          explanation: answer,
          ...usage
        })
      }
      return { value: grade === "C" ? 1 : 0, passed: grade === "C", explanation: answer, ...usage }
    }))
  return { ...scorer, counts: () => ({ ...counts }) }
}

/**
 * The grading prompt: the question (the task's `inputs.instruction`, or the
 * JSON of its inputs), the reference (a string as it is, anything else as
 * JSON) and the answer; with a `trajectory`, also the agent's steps
 * (`Trajectory.text`), which the grade then covers, and the conversation
 * when a simulated user took part.
 *
 * @category prompts
 * @since 0.1.0
 */
export const prompt = (task: AgentEvalTask, expected: unknown, answer: string, trajectory?: Trajectory | undefined): string => {
  const instruction = task.inputs["instruction"]
  const question = typeof instruction === "string" ? instruction : JSON.stringify(task.inputs, null, 2)
  const referenceText = typeof expected === "string" ? expected : JSON.stringify(expected, null, 2)
  // With a simulated user (`--user`), the steps hold the conversation too: the header says so.
  const talked = trajectory?.some((step) => step.type === "user_message") === true
  const path = trajectory === undefined ? [] : [
    talked
      ? "[The conversation (user: and assistant: lines) and the agent's steps: its model turns, tool calls and tool results]"
      : "[Agent's steps: its model turns, tool calls and tool results]",
    Trajectories.text(trajectory),
    ""
  ]
  return [
    trajectory === undefined
      ? "You are grading an answer to a question against a reference answer."
      : "You are grading an agent's answer to a question, and the steps it took to reach it, against a reference answer.",
    "",
    "[Question]",
    question,
    "",
    "[Reference answer]",
    referenceText,
    "",
    ...path,
    "[Answer]",
    answer,
    "",
    (trajectory === undefined
      ? "Is the answer correct, given the reference answer? "
      : "Is the answer correct, given the reference answer, and did the agent reach it by sound steps (the right " +
        "tools with the right arguments, its results used, no needless or harmful calls)? ") +
    "Wording and format may differ; what it says must agree " +
    "with the reference. Explain your reasoning in a few sentences, then end with a line that is exactly " +
    "`GRADE: C` if the answer is correct or `GRADE: I` if it is incorrect."
  ].join("\n")
}

// The last `GRADE: X` wins: a judge may quote the instructions before grading.
// Markdown around it (`**GRADE:** \`C\``) is allowed; `GRADE: Correct` is not a grade.
const GRADE = /GRADE[\s*_`]*:[\s*_`]*([CI])(?![A-Za-z])/gi

/**
 * The grade of a judge's answer, `C` or `I`, or undefined when it has none.
 *
 * @category parsing
 * @since 0.1.0
 */
export const gradeOf = (answer: string): "C" | "I" | undefined => {
  let grade: "C" | "I" | undefined
  for (const m of answer.matchAll(GRADE)) grade = m[1].toUpperCase() as "C" | "I"
  return grade
}

interface Spent {
  usage: Usage | undefined
}

const answerOf = (body: unknown, where: string, spent: Spent): Effect.Effect<string, InvalidJudgeResponse> => {
  const content = field(field(at(field(body, "choices"), 0), "message"), "content")
  return typeof content === "string"
    ? Effect.succeed(content)
    : Effect.fail(
      new InvalidJudgeResponse({
        message: `chat completion from ${where} has no string at choices[0].message.content: ${preview(JSON.stringify(body) ?? "")}`,
        ...(spent.usage === undefined ? undefined : { usage: spent.usage })
      })
    )
}

const messageAnswerOf = (body: unknown, where: string, spent: Spent): Effect.Effect<string, InvalidJudgeResponse> => {
  const trouble = messagesTrouble(body)
  const content = field(body, "content")
  return trouble === undefined && Array.isArray(content) && content.some((block) => field(block, "type") === "text")
    ? Effect.succeed(messagesText(body))
    : Effect.fail(
      new InvalidJudgeResponse({
        message: `message from ${where} ${trouble?.detail ?? `has no text block in content: ${preview(JSON.stringify(body) ?? "")}`}`,
        ...(spent.usage === undefined ? undefined : { usage: spent.usage })
      })
    )
}

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined

const at = (value: unknown, index: number): unknown => Array.isArray(value) ? value[index] : undefined

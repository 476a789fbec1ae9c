/**
 * The tool loop: ask an `effect/ai` `LanguageModel`, run the tool calls it
 * returns (up to `toolParallelism` at once within a turn), feed the results
 * back, and stop at an answer without tool calls or after `maxTurns` turns.
 * Every step is recorded as the trial's trajectory. The loop runs in the
 * trial's own fiber, so its permit bounds it and an interruption (a timeout,
 * Ctrl-C) cancels the model call and the tools running.
 *
 * A tool that fails (it throws, its arguments do not fit, an MCP server
 * reports an error, the name is unknown) gives a `tool_result` with
 * `is_error: true` that the model sees, never a failed trial. A model call
 * that fails is retried by the run's retry policy (429 with its
 * `Retry-After`, 5xx, a lost connection, an error body that says it is
 * overloaded or rate-limited); when the retries are spent, or at once for a
 * failure no retry mends (a content filter, an exhausted quota, a response
 * without an answer), the trial fails with `ModelError` naming the turn, its
 * trajectory and usage kept. A response that finished with `error` or
 * `content-filter` is no answer (`ChatModel` fails on error bodies itself).
 *
 * @since 0.5.0
 */
import { Cause, Clock, Effect, Exit, Option, Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Response, type Toolkit } from "effect/ai"
import { describe } from "../../internal/describe.ts"
import type { Message } from "../../domain/Conversation.ts"
import type { AgentEvalTask, AgentOutput, TrajectoryStep } from "../../domain/Trial.ts"
import { Trajectory, Usage } from "../../domain/Trial.ts"
import * as Trajectories from "../../domain/Trajectory.ts"
import * as Usages from "../../domain/Usage.ts"
import * as Policy from "../../runner/Policy.ts"
import * as ModelTrouble from "../internal/modelTrouble.ts"
import { userContent } from "../internal/prompt.ts"
import { messagesOf } from "./internal/history.ts"

/**
 * The loop reached `max_turns` model turns without an answer.
 *
 * @category errors
 * @since 0.5.0
 */
export class MaxTurns extends Schema.TaggedError<MaxTurns>()("MaxTurns", {
  message: Schema.String,
  max_turns: Schema.Number,
  trajectory: Trajectory,
  usage: Schema.optionalKey(Usage)
}) {}

/**
 * A model call failed for good (its retries spent, or a failure no retry
 * mends): `reason` is the `AiError` reason's tag (`RateLimitError`,
 * `InternalProviderError`, `AuthenticationError`, ...).
 *
 * @category errors
 * @since 0.5.0
 */
export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  message: Schema.String,
  reason: Schema.String,
  turn: Schema.Number,
  trajectory: Trajectory,
  usage: Schema.optionalKey(Usage)
}) {}

/**
 * Tools with their handlers, as `Toolkit`'s `WithHandler`.
 *
 * @category models
 * @since 0.5.0
 */
export type Tools = Toolkit.WithHandler<any>

/**
 * How the loop runs.
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  readonly tools: Tools
  /** Model turns at most (a number >= 1); reaching it fails with `MaxTurns`. */
  readonly maxTurns: number
  /** Tool calls of one turn run at once, at most (a number >= 1). */
  readonly toolParallelism: number
  /** Each model call's retries; none when undefined. */
  readonly retry?: Policy.RetryPolicy | undefined
  /** The model the usage is priced as (`--model`). */
  readonly model?: string | undefined
  /**
   * With a simulated user (`--user`): the conversation so far, sent instead
   * of the task's instruction; the loop answers its last user message.
   */
  readonly conversation?: ReadonlyArray<Message> | undefined
  /** The conversation's steps so far, the loop's earlier turns in it: replayed, when given, instead of `conversation`. */
  readonly history?: Trajectory | undefined
}

/**
 * Runs the loop for one task with the `LanguageModel` in context: the answer
 * is the last turn's text, `trajectory` every step, `usage` the turns' sum.
 *
 * **Example** (A loop over a toolkit)
 *
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, Toolkit } from "effect/ai"
 * import { ChatModel, ToolLoop } from "agent-trials"
 *
 * const Add = Tool.make("add", { parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }), success: Schema.Number })
 * const tools = Toolkit.make(Add)
 * const answer = Effect.gen(function*() {
 *   const handlers = yield* tools
 *   return yield* ToolLoop.run({ id: "t1", inputs: { instruction: "What is 2 + 3?" } }, {
 *     tools: handlers,
 *     maxTurns: 10,
 *     toolParallelism: 4
 *   })
 * }).pipe(
 *   Effect.provide(tools.toLayer({ add: ({ a, b }) => Effect.succeed(a + b) })),
 *   Effect.provide(ChatModel.layer({ baseUrl: "http://127.0.0.1:8080/v1", model: "m", apiKey: undefined }))
 * )
 * ```
 *
 * @category running
 * @since 0.5.0
 */
export const run = (
  task: AgentEvalTask,
  options: Options
): Effect.Effect<AgentOutput, MaxTurns | ModelError, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    const steps: Array<TrajectoryStep> = []
    let usage: Usage | undefined
    // A timeout of the attempt keeps what the loop did up to then: the steps
    // taken, the calls still running, and whether it waited for the model.
    const started: Array<Started> = []
    let now: { turn: number; waiting: boolean } = { turn: 1, waiting: true }
    const progress = yield* Trajectories.CurrentProgress
    if (progress !== undefined) {
      progress.current = (nowMs) => {
        const done = started.flatMap((s) => s.outcome === undefined ? [] : [s.outcome])
        const still = started.filter((s) => s.outcome === undefined)
        return {
          steps: [
            ...steps,
            ...started.map((s) => callStep(s.call, s.startedMs, s.outcome?.durationMs ?? nowMs - s.startedMs)),
            ...done.map(resultStep)
          ],
          doing: now.waiting
            ? `in turn ${now.turn}: waiting for the model`
            : `in turn ${now.turn}: running ${still.map((s) => s.call.name).join(", ") || "tools"}`
        }
      }
    }
    let prompt: Prompt.Prompt = options.history !== undefined
      ? Prompt.make(messagesOf(options.history))
      : options.conversation === undefined
      ? Prompt.make(userContent(task))
      : Prompt.make(options.conversation.map((message) => ({ role: message.role, content: message.content })))
    const kept = () => ({ trajectory: [...steps], ...(usage === undefined ? undefined : { usage }) })
    for (let turn = 1; turn <= options.maxTurns; turn++) {
      now = { turn, waiting: true }
      const startedMs = yield* Clock.currentTimeMillis
      const call = model.generateText({
        prompt,
        toolkit: options.tools,
        disableToolCallResolution: true,
        // Undeclared names and arguments that do not fit reach the loop,
        // which answers them as tool errors the model sees.
        toolCallValidation: "deferred"
      }).pipe(
        // A response that is no answer (a content filter, an error finish)
        // fails the call, inside its retries; what it spent is kept.
        Effect.flatMap((response: LanguageModel.GenerateTextResponse<any, any>) => {
          const trouble = ModelTrouble.unusable(response)
          if (trouble === undefined) return Effect.succeed(response)
          const spent = usageOf(response.usage, options.model)
          if (spent !== undefined) usage = Usages.add(usage, spent)
          return Effect.fail(trouble)
        })
      ) as Effect.Effect<LanguageModel.GenerateTextResponse<any, any>, AiError.AiError>
      const exit = yield* (options.retry === undefined ? call : Effect.retry(call, Policy.retrySchedule(options.retry))).pipe(
        Effect.tap((response) => Effect.annotateCurrentSpan(usageAttributes(response.usage))),
        Effect.withSpan(`chat ${options.model ?? ""}`.trim(), {
          attributes: { "gen_ai.operation.name": "chat", ...(options.model === undefined ? undefined : { "gen_ai.request.model": options.model }) }
        }),
        Effect.exit
      )
      if (Exit.isFailure(exit)) {
        const error = Cause.hasInterrupts(exit.cause) ? undefined : Cause.squash(exit.cause)
        // An interruption (the trial's own) or a defect passes through as it is.
        if (!AiError.isAiError(error)) return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
        return yield* new ModelError({
          message: `the model call of turn ${turn} failed: ${ModelTrouble.describeAiError(error)}`,
          reason: error.reason._tag,
          turn,
          ...kept()
        })
      }
      const response = exit.value
      const endedMs = yield* Clock.currentTimeMillis
      const turnUsage = usageOf(response.usage, options.model)
      if (turnUsage !== undefined) usage = Usages.add(usage, turnUsage)
      if (progress !== undefined) progress.usage = usage
      steps.push({
        type: "model",
        content: response.text,
        started_at: isoOf(startedMs),
        duration_ms: endedMs - startedMs,
        ...(turnUsage === undefined ? undefined : { usage: turnUsage })
      })
      const calls = response.toolCalls as ReadonlyArray<Response.ToolCallPart<string, unknown>>
      if (calls.length === 0) {
        return { output_text: response.text, trajectory: steps, ...(usage === undefined ? undefined : { usage }) }
      }
      now = { turn, waiting: false }
      const results = yield* Effect.forEach(calls, (call) => runTool(options.tools, call, started), {
        concurrency: options.toolParallelism
      })
      // The turn's calls are steps now: what a timeout keeps from here on is in `steps`.
      started.length = 0
      for (const result of results) steps.push(callStep(result.call, result.startedMs, result.durationMs))
      for (const result of results) steps.push(resultStep(result))
      prompt = Prompt.concat(
        prompt,
        Prompt.fromResponseParts([
          ...response.content.filter((part: Response.AnyPart) => part.type === "text" || part.type === "tool-call"),
          ...results.map((result) =>
            Response.makePart("tool-result", {
              id: result.call.id,
              name: result.call.name,
              isFailure: result.isFailure,
              result: result.content,
              encodedResult: result.content,
              providerExecuted: false,
              preliminary: false
            })
          )
        ])
      )
    }
    return yield* new MaxTurns({
      message: `the model asked for tools in each of its ${options.maxTurns} turns without an answer (--max-turns ${options.maxTurns})`,
      max_turns: options.maxTurns,
      ...kept()
    })
  })

interface ToolOutcome {
  readonly call: Response.ToolCallPart<string, unknown>
  readonly startedMs: number
  readonly durationMs: number
  readonly isFailure: boolean
  /** What the model is sent and the record keeps: the encoded result, or the error's text. */
  readonly content: unknown
}

const callStep = (call: Response.ToolCallPart<string, unknown>, startedMs: number, durationMs: number): TrajectoryStep => ({
  type: "tool_call",
  name: call.name,
  id: call.id,
  arguments: call.params,
  started_at: isoOf(startedMs),
  duration_ms: durationMs
})

const resultStep = (result: ToolOutcome): TrajectoryStep => ({
  type: "tool_result",
  name: result.call.name,
  id: result.call.id,
  content: result.content,
  ...(result.isFailure ? { is_error: true } : undefined),
  started_at: isoOf(result.startedMs + result.durationMs),
  duration_ms: 0
})

// A turn's call once started; its outcome once it has one.
interface Started {
  readonly call: Response.ToolCallPart<string, unknown>
  readonly startedMs: number
  outcome: ToolOutcome | undefined
}

// `started` gets the call as it starts, its outcome as it ends: what a timeout keeps.
const runTool = (
  tools: Tools,
  call: Response.ToolCallPart<string, unknown>,
  started: Array<Started>
): Effect.Effect<ToolOutcome> =>
  Effect.gen(function*() {
    const startedMs = yield* Clock.currentTimeMillis
    const entry: Started = { call, startedMs, outcome: undefined }
    started.push(entry)
    const outcome = yield* execute(tools, call).pipe(
      Effect.withSpan(`execute_tool ${call.name}`, {
        attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.id }
      })
    )
    const endedMs = yield* Clock.currentTimeMillis
    entry.outcome = { call, startedMs, durationMs: endedMs - startedMs, ...outcome }
    return entry.outcome
  })

const execute = (
  tools: Tools,
  call: Response.ToolCallPart<string, unknown>
): Effect.Effect<{ readonly isFailure: boolean; readonly content: unknown }> => {
  if (!Object.hasOwn(tools.tools, call.name)) {
    const names = Object.keys(tools.tools)
    return Effect.succeed({
      isFailure: true,
      content: `unknown tool ${JSON.stringify(call.name)} (the tools are: ${names.length === 0 ? "none" : names.join(", ")})`
    })
  }
  return tools.handle(call.name, call.params as never, call.id).pipe(
    Effect.flatMap((results) => Stream.runLast(Stream.filter(results, (result) => !result.preliminary))),
    Effect.map((last) =>
      Option.match(last, {
        onNone: () => ({ isFailure: true, content: "the tool gave no result" }),
        onSome: (result) => ({ isFailure: result.isFailure, content: result.encodedResult })
      })
    ),
    // Interruption is the trial's own (a timeout, Ctrl-C), and a tool source
    // that is gone for good (`McpServerFailed`) fails the trial: both propagate.
    Effect.catchCause((cause) =>
      Cause.hasInterrupts(cause) || (Cause.squash(cause) as { readonly _tag?: unknown } | null)?._tag === "McpServerFailed"
        ? Effect.failCause(cause as Cause.Cause<never>)
        : Effect.succeed({ isFailure: true, content: errorText(Cause.squash(cause)) })
    )
  ) as Effect.Effect<{ readonly isFailure: boolean; readonly content: unknown }>
}

// An MCP tool's error result says most in its own text content.
const errorText = (error: unknown): string => {
  const reason = (error as { readonly reason?: { readonly result?: { readonly content?: unknown } } } | null)?.reason
  const content = reason?.result?.content
  if (Array.isArray(content)) {
    const texts = content.flatMap((part) =>
      typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
        ? [(part as { text: string }).text]
        : []
    )
    if (texts.length > 0) return texts.join("\n")
  }
  return error instanceof Error && error.message !== "" ? error.message : describe(error, { max: 2000, clip: "preview" })
}

const usageOf = (usage: Response.Usage, model: string | undefined): Usage | undefined => {
  const input = usage.inputTokens.total
  const output = usage.outputTokens.total
  if (input === undefined && output === undefined) return undefined
  const counted: { -readonly [K in keyof Usage]: Usage[K] } = {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    total_tokens: (input ?? 0) + (output ?? 0)
  }
  if (usage.inputTokens.cacheRead !== undefined) counted.cached_input_tokens = usage.inputTokens.cacheRead
  if (usage.inputTokens.cacheWrite !== undefined) counted.cache_write_input_tokens = usage.inputTokens.cacheWrite
  if (usage.outputTokens.reasoning !== undefined) counted.reasoning_tokens = usage.outputTokens.reasoning
  if (model !== undefined) counted.model = model
  return counted
}

const usageAttributes = (usage: Response.Usage): Record<string, unknown> => ({
  ...(usage.inputTokens.total === undefined ? undefined : { "gen_ai.usage.input_tokens": usage.inputTokens.total }),
  ...(usage.outputTokens.total === undefined ? undefined : { "gen_ai.usage.output_tokens": usage.outputTokens.total })
})

const isoOf = (ms: number): string => new Date(ms).toISOString()

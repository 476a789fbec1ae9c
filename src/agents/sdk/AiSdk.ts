/**
 * The Vercel AI SDK's `generateText` result (and a `ToolLoopAgent`'s
 * `generate` result, the same type) read into an `AgentOutput`: the final
 * text; each step's model turn, its tool calls (arguments) and their results
 * or errors, in order; the usage summed over the steps with the model id the
 * provider answered with. Durations are the SDK's own (`performance`:
 * `responseTimeMs` for the model turn, `toolExecutionMs` for each call), the
 * steps placed one after another from the call's start.
 *
 * @since 0.10.0
 */
import { add as addUsage } from "../../domain/Usage.ts"
import type { AgentOutput, TrajectoryStep, Usage } from "../../domain/Trial.ts"
import { describe } from "../../internal/describe.ts"
import { aroundCall, bySdk, type CallTiming, count, endedNow, isRecord, type ResultReader } from "./Reader.ts"

/**
 * What is read of an AI SDK token usage (`LanguageModelUsage`).
 *
 * @category models
 * @since 0.10.0
 */
export interface AiSdkUsage {
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
  readonly totalTokens?: number | undefined
  readonly inputTokenDetails?: { readonly cacheReadTokens?: number | undefined } | undefined
  readonly outputTokenDetails?: { readonly reasoningTokens?: number | undefined } | undefined
}

/**
 * What is read of an AI SDK step (`StepResult`).
 *
 * @category models
 * @since 0.10.0
 */
export interface AiSdkStep {
  readonly text: string
  /** Its parts: `tool-call`, `tool-result` and `tool-error` are read, the others skipped. */
  readonly content: ReadonlyArray<{ readonly type: string }>
  readonly usage: AiSdkUsage
  readonly performance?: {
    readonly stepTimeMs?: number | undefined
    readonly responseTimeMs?: number | undefined
    readonly toolExecutionMs?: Readonly<Record<string, number>> | undefined
  } | undefined
  readonly model?: { readonly modelId?: string | undefined } | undefined
  readonly response?: { readonly modelId?: string | undefined } | undefined
}

/**
 * What is read of an AI SDK `generateText` result (`GenerateTextResult`, also
 * what a `ToolLoopAgent`'s `generate` gives): the SDK's own type fits it, so
 * agent-trials' types do not need the SDK installed.
 *
 * @category models
 * @since 0.10.0
 */
export interface AiSdkResult {
  readonly text: string
  readonly steps: ReadonlyArray<AiSdkStep>
}

type AnyResult = AiSdkResult
type AnyStep = AiSdkStep

type Part =
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: unknown }
  | { readonly type: "tool-result"; readonly toolCallId: string; readonly toolName: string; readonly output: unknown }
  | { readonly type: "tool-error"; readonly toolCallId: string; readonly toolName: string; readonly error: unknown }

// `steps` of objects with `content` and `usage`, and the final `text`: what
// `generateText` and `ToolLoopAgent.generate` give (getters on a class).
const matches = (value: unknown): boolean => {
  if (!isRecord(value)) return false
  const steps = value["steps"]
  if (!Array.isArray(steps) || steps.length === 0 || typeof value["text"] !== "string") return false
  return steps.every((step) => isRecord(step) && Array.isArray(step["content"]) && isRecord(step["usage"]))
}

/**
 * One step's usage in our fields (`input_tokens` include the cache reads,
 * `output_tokens` the reasoning, as the SDK counts them too).
 *
 * @internal
 */
export const usageOf = (usage: AiSdkUsage, model: string | undefined): Usage | undefined => {
  const input = count(usage.inputTokens)
  const output = count(usage.outputTokens)
  if (input === undefined && output === undefined) return undefined
  const cached = count(usage.inputTokenDetails?.cacheReadTokens)
  const reasoning = count(usage.outputTokenDetails?.reasoningTokens)
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    total_tokens: count(usage.totalTokens) ?? (input ?? 0) + (output ?? 0),
    ...(cached === undefined ? undefined : { cached_input_tokens: cached }),
    ...(reasoning === undefined ? undefined : { reasoning_tokens: reasoning }),
    ...(model === undefined ? undefined : { model })
  }
}

// The model id the provider answered with, else the one asked for.
const modelOf = (step: AnyStep): string | undefined => {
  const answered = step.response?.modelId
  if (typeof answered === "string" && answered !== "") return answered
  const asked = step.model?.modelId
  return typeof asked === "string" && asked !== "" ? asked : undefined
}

const read = (result: AnyResult, call: CallTiming): AgentOutput => {
  const steps: Array<TrajectoryStep> = []
  let usage: Usage | undefined
  let cursor = call.started_ms
  for (const step of result.steps) {
    const performance = isRecord(step.performance) ? step.performance : undefined
    const responseMs = typeof performance?.responseTimeMs === "number" ? performance.responseTimeMs : undefined
    const toolMs: Readonly<Record<string, number>> = isRecord(performance?.toolExecutionMs) ? performance.toolExecutionMs : {}
    const stepUsage = usageOf(step.usage, modelOf(step))
    if (stepUsage !== undefined) usage = addUsage(usage, stepUsage)
    steps.push({
      type: "model",
      content: step.text,
      ...(responseMs === undefined ? aroundCall(call) : bySdk(cursor, responseMs)),
      ...(stepUsage === undefined ? undefined : { usage: stepUsage })
    })
    const toolsAt = cursor + (responseMs ?? 0)
    const calls: Array<TrajectoryStep> = []
    const results: Array<TrajectoryStep> = []
    for (const part of step.content as ReadonlyArray<Part>) {
      if (part.type === "tool-call") {
        const ms = toolMs[part.toolCallId]
        calls.push({
          type: "tool_call",
          name: part.toolName,
          id: part.toolCallId,
          arguments: part.input,
          ...(responseMs === undefined || ms === undefined ? aroundCall(call) : bySdk(toolsAt, ms))
        })
      } else if (part.type === "tool-result" || part.type === "tool-error") {
        const ms = toolMs[part.toolCallId]
        const at = responseMs === undefined || ms === undefined ? aroundCall(call) : bySdk(toolsAt + ms, 0)
        results.push({
          type: "tool_result",
          name: part.toolName,
          id: part.toolCallId,
          content: part.type === "tool-result" ? part.output : describe(part.error, { max: 2000, clip: "preview" }),
          ...(part.type === "tool-error" ? { is_error: true } : undefined),
          ...at
        })
      }
    }
    steps.push(...calls, ...results)
    const stepMs = typeof performance?.stepTimeMs === "number" ? performance.stepTimeMs : undefined
    cursor += stepMs ?? 0
  }
  return {
    output_text: result.text,
    trajectory: steps,
    ...(usage === undefined ? undefined : { usage })
  }
}

/**
 * The reader of AI SDK results, for the registry.
 *
 * @category readers
 * @since 0.10.0
 */
export const reader: ResultReader = {
  name: "the AI SDK",
  matches,
  read: (value, call) => read(value as AnyResult, call)
}

/**
 * An AI SDK `generateText` result (or a `ToolLoopAgent`'s `generate` result)
 * as an `AgentOutput` (the SDK's `GenerateTextResult` fits `AiSdkResult`).
 * `call` is when the call started and ended (epoch ms), where the steps are
 * placed; without it, a call that ended now and took as long as its steps
 * did. A `module:` agent may return the result itself instead: it is read
 * the same way.
 *
 * **Example** (An AI SDK agent's answer, trajectory and usage)
 *
 * ```ts
 * import { generateText, isStepCount, type LanguageModel } from "ai"
 * import { Adapters } from "agent-trials"
 *
 * declare const model: LanguageModel
 * const agent = async (task: { readonly inputs: Record<string, unknown> }) =>
 *   Adapters.fromAiSdk(await generateText({ model, prompt: String(task.inputs["question"]), stopWhen: isStepCount(5) }))
 * ```
 *
 * @category readers
 * @since 0.10.0
 */
export const fromAiSdk = (result: AiSdkResult, call?: CallTiming): AgentOutput => {
  if (call !== undefined) return read(result, call)
  let ms = 0
  for (const step of result.steps) {
    const stepMs = isRecord(step.performance) ? step.performance.stepTimeMs : undefined
    ms += typeof stepMs === "number" ? stepMs : 0
  }
  return read(result, endedNow(ms))
}

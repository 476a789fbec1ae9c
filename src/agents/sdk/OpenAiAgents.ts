/**
 * The OpenAI Agents SDK's `RunResult` (of `run(agent, input)`) read into an
 * `AgentOutput`: the final output (as text; a structured output as JSON);
 * each model response in order as a model turn with its text and usage,
 * then the function calls it asked for (arguments) and their results (the
 * run's `tool_call_output_item`s, joined by call id); the usage summed over
 * the responses, with the model id the response names (else the agent's
 * model name). The SDK reports no timings: every step is timed around the
 * whole call (`timing: "call"`).
 *
 * @since 0.10.0
 */
import { add as addUsage } from "../../domain/Usage.ts"
import type { AgentOutput, TrajectoryStep, Usage } from "../../domain/Trial.ts"
import { aroundCall, type CallTiming, count, endedNow, isRecord, type ResultReader } from "./Reader.ts"

/**
 * What is read of an OpenAI Agents SDK `RunResult`: the SDK's own class fits
 * it, so agent-trials' types do not need the SDK installed.
 *
 * @category models
 * @since 0.10.0
 */
export interface OpenAiAgentsResult {
  /** The run's items: its `tool_call_output_item`s are read (a tool's output by call id). */
  readonly newItems: ReadonlyArray<unknown>
  /** Each model response: `usage`, `output` (messages, function calls) and `providerData.model`. */
  readonly rawResponses: ReadonlyArray<unknown>
  readonly finalOutput?: unknown
  readonly interruptions?: ReadonlyArray<unknown> | undefined
  readonly lastAgent?: unknown
}

// `newItems` and `rawResponses` (getters on the class), and a `state`: what
// `run(agent, input)` gives.
const matches = (value: unknown): boolean =>
  isRecord(value) && Array.isArray(value["newItems"]) && Array.isArray(value["rawResponses"]) && isRecord(value["state"]) &&
  "finalOutput" in value

// The SDK's usage details are a record, or one record per request.
const detail = (details: unknown, key: string): number | undefined => {
  const list = Array.isArray(details) ? details : [details]
  let sum: number | undefined
  for (const d of list) {
    const n = isRecord(d) ? count(d[key]) : undefined
    if (n !== undefined) sum = (sum ?? 0) + n
  }
  return sum
}

const usageOf = (usage: unknown, model: string | undefined): Usage | undefined => {
  if (!isRecord(usage)) return undefined
  const input = count(usage["inputTokens"])
  const output = count(usage["outputTokens"])
  if (input === undefined && output === undefined) return undefined
  const cached = detail(usage["inputTokensDetails"], "cached_tokens")
  const reasoning = detail(usage["outputTokensDetails"], "reasoning_tokens")
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    total_tokens: count(usage["totalTokens"]) ?? (input ?? 0) + (output ?? 0),
    ...(cached === undefined ? undefined : { cached_input_tokens: cached }),
    ...(reasoning === undefined ? undefined : { reasoning_tokens: reasoning }),
    ...(model === undefined ? undefined : { model })
  }
}

const textOf = (item: Record<string, unknown>): string => {
  const content = item["content"]
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.map((part) => isRecord(part) && part["type"] === "output_text" && typeof part["text"] === "string" ? part["text"] : "").join("")
}

const argumentsOf = (text: unknown): unknown => {
  if (typeof text !== "string") return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const nonEmpty = (u: unknown): string | undefined => typeof u === "string" && u !== "" ? u : undefined

const read = (result: OpenAiAgentsResult, call: CallTiming): AgentOutput => {
  // A run stopped for approvals has no final output (the SDK warns if it is read).
  const waiting = Array.isArray(result.interruptions) ? result.interruptions.length : 0
  const final = waiting > 0 ? undefined : result.finalOutput as unknown
  if (final === undefined || final === null) {
    throw new Error(
      `the OpenAI Agents SDK run ended without a final output${waiting > 0 ? ` (${waiting} tool calls awaiting approval)` : ""}`
    )
  }
  const outputs = new Map<string, unknown>()
  for (const item of result.newItems as ReadonlyArray<unknown>) {
    if (!isRecord(item) || item["type"] !== "tool_call_output_item" || !isRecord(item["rawItem"])) continue
    const id = item["rawItem"]["callId"]
    if (typeof id === "string") outputs.set(id, item["output"])
  }
  const agentModel = isRecord(result.lastAgent) ? nonEmpty(result.lastAgent["model"]) : undefined
  const timing = aroundCall(call)
  const steps: Array<TrajectoryStep> = []
  let usage: Usage | undefined
  for (const response of result.rawResponses as ReadonlyArray<unknown>) {
    if (!isRecord(response)) continue
    const provider = response["providerData"]
    const stepUsage = usageOf(response["usage"], (isRecord(provider) ? nonEmpty(provider["model"]) : undefined) ?? agentModel)
    if (stepUsage !== undefined) usage = addUsage(usage, stepUsage)
    const items = Array.isArray(response["output"]) ? response["output"].filter(isRecord) : []
    steps.push({
      type: "model",
      content: items.filter((item) => item["type"] === "message").map(textOf).join(""),
      ...timing,
      ...(stepUsage === undefined ? undefined : { usage: stepUsage })
    })
    const calls = items.filter((item) => item["type"] === "function_call" && typeof item["name"] === "string")
    for (const item of calls) {
      steps.push({
        type: "tool_call",
        name: item["name"] as string,
        ...(typeof item["callId"] === "string" ? { id: item["callId"] } : undefined),
        arguments: argumentsOf(item["arguments"]),
        ...timing
      })
    }
    for (const item of calls) {
      const id = item["callId"]
      if (typeof id !== "string" || !outputs.has(id)) continue
      steps.push({ type: "tool_result", name: item["name"] as string, id, content: outputs.get(id), ...timing })
    }
  }
  return {
    output_text: typeof final === "string" ? final : JSON.stringify(final),
    trajectory: steps,
    ...(usage === undefined ? undefined : { usage })
  }
}

/**
 * The reader of OpenAI Agents SDK results, for the registry.
 *
 * @category readers
 * @since 0.10.0
 */
export const reader: ResultReader = {
  name: "the OpenAI Agents SDK",
  matches,
  read: (value, call) => read(value as OpenAiAgentsResult, call)
}

/**
 * An OpenAI Agents SDK `RunResult` as an `AgentOutput` (the SDK's class fits
 * `OpenAiAgentsResult`). `call` is when the
 * run started and ended (epoch ms): the SDK times no step, so each is timed
 * around it; without it, a call that ended now. Throws when the run ended
 * without a final output (tool calls awaiting approval). A `module:` agent
 * may return the result itself instead: it is read the same way.
 *
 * **Example** (An Agents SDK agent's answer, trajectory and usage)
 *
 * ```ts
 * import { Agent, run } from "@openai/agents"
 * import { Adapters } from "agent-trials"
 *
 * const assistant = new Agent({ name: "assistant", instructions: "Answer briefly.", model: "gpt-4.1-mini" })
 * const agent = async (task: { readonly inputs: Record<string, unknown> }) =>
 *   Adapters.fromOpenAiAgents(await run(assistant, String(task.inputs["question"])))
 * ```
 *
 * @category readers
 * @since 0.10.0
 */
export const fromOpenAiAgents = (result: OpenAiAgentsResult, call?: CallTiming): AgentOutput =>
  read(result, call ?? endedNow())

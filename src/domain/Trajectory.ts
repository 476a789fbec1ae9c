/**
 * Trajectories: the path an agent that acts took, read off a record. The
 * Schema is `Trial.Trajectory`; a step is one model turn, and its tool calls
 * follow it.
 *
 * @since 0.5.0
 */
import { Context, Schema } from "effect"
import { type AgentEvalTrial, Trajectory, type TrajectoryStep, type Usage } from "./Trial.ts"

/**
 * The steps a trial recorded: its output's trajectory, or, for a failed
 * trial, the one its error kept (a loop that reached `--max-turns`).
 *
 * @category getters
 * @since 0.5.0
 */
export const ofTrial = (trial: AgentEvalTrial): Trajectory | undefined =>
  trial.output?.trajectory ?? trial.error?.trajectory

const isTrajectory = Schema.is(Trajectory)

/**
 * What the current attempt of a trial has done so far: an agent that records
 * its path as it goes (the tool loop) sets `current` and keeps `usage` up to
 * date, so a timeout that interrupts it keeps both. The runner provides a
 * fresh one to each attempt it bounds by `timeoutMs`; its `Timeout` error
 * carries the steps, the usage, and what the agent was doing.
 *
 * @category models
 * @since 0.5.0
 */
export interface Progress {
  /**
   * The steps at `nowMs`: those finished, then the tool calls still running
   * (their duration so far, no result after them); and what the agent was
   * doing then ("in turn 2: waiting for the model").
   */
  current: ((nowMs: number) => { readonly steps: ReadonlyArray<TrajectoryStep>; readonly doing?: string }) | undefined
  usage: Usage | undefined
}

/**
 * The current attempt's `Progress`, when the runner bounds the attempt by a
 * timeout; `undefined` otherwise (nothing to keep).
 *
 * **Example** (A loop that reports its steps as it goes)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Trajectory, type Trial } from "agent-trials"
 *
 * const loop = Effect.gen(function*() {
 *   const steps: Array<Trial.TrajectoryStep> = []
 *   const progress = yield* Trajectory.CurrentProgress
 *   if (progress !== undefined) progress.current = () => ({ steps, doing: "thinking" })
 *   steps.push({ type: "model", content: "", started_at: new Date().toISOString(), duration_ms: 0 })
 *   return steps.length
 * })
 * ```
 *
 * @category services
 * @since 0.5.0
 */
export const CurrentProgress = Context.Reference<Progress | undefined>("agent-trials/Trajectory/CurrentProgress", {
  defaultValue: () => undefined
})

/**
 * The trajectory a failure carries on its own `trajectory` field, when it is
 * a valid one: a failed trial keeps the steps it took this way.
 *
 * @category getters
 * @since 0.5.0
 */
export const ofError = (error: unknown): Trajectory | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const own = (error as { readonly trajectory?: unknown }).trajectory
  return own !== undefined && isTrajectory(own) ? own : undefined
}

/**
 * The tool calls of a trajectory, in order.
 *
 * **Example** (Two calls after one turn)
 *
 * ```ts
 * import { Trajectory } from "agent-trials"
 *
 * const at = "2026-01-01T00:00:00.000Z"
 * Trajectory.toolCalls([
 *   { type: "model", started_at: at, duration_ms: 5 },
 *   { type: "tool_call", name: "search", arguments: { q: "x" }, started_at: at, duration_ms: 1 },
 *   { type: "tool_result", name: "search", content: "found", started_at: at, duration_ms: 0 }
 * ]).map((step) => step.name) // ["search"]
 * ```
 *
 * @category getters
 * @since 0.5.0
 */
export const toolCalls = (trajectory: Trajectory): ReadonlyArray<TrajectoryStep> =>
  trajectory.filter((step) => step.type === "tool_call")

/**
 * The steps of a trajectory: its model turns (what `--max-turns` bounds and
 * `steps:max=N` scores).
 *
 * @category getters
 * @since 0.5.0
 */
export const steps = (trajectory: Trajectory): number => {
  let count = 0
  for (const step of trajectory) if (step.type === "model") count++
  return count
}

/**
 * How many times each tool was called, by name (a call without a name
 * counts under `""`).
 *
 * @category getters
 * @since 0.5.0
 */
export const callsByTool = (trajectory: Trajectory): ReadonlyMap<string, number> => {
  const counts = new Map<string, number>()
  for (const step of trajectory) {
    if (step.type === "tool_call") counts.set(step.name ?? "", (counts.get(step.name ?? "") ?? 0) + 1)
  }
  return counts
}

/**
 * A trajectory as plain text, one numbered line per step: a model turn, a
 * tool call with its arguments as JSON, a tool result with its content (a
 * string as it is, anything else as JSON) and `(error)` for a failed call,
 * and, with a simulated user, `user: ...` and `assistant: ...` for what each
 * side said.
 * Contents are kept whole: this is what a judge reads (`judge:...,trajectory`).
 *
 * **Example** (A call and its result)
 *
 * ```ts
 * import { Trajectory } from "agent-trials"
 *
 * const at = "2026-01-01T00:00:00.000Z"
 * Trajectory.text([
 *   { type: "model", started_at: at, duration_ms: 5 },
 *   { type: "tool_call", name: "search", arguments: { q: "x" }, started_at: at, duration_ms: 1 },
 *   { type: "tool_result", name: "search", content: "found", started_at: at, duration_ms: 0 }
 * ])
 * // 1. model turn
 * // 2. tool call search {"q":"x"}
 * // 3. tool result search: found
 * ```
 *
 * @category formatting
 * @since 0.5.0
 */
export const text = (trajectory: Trajectory): string =>
  trajectory.length === 0
    ? "(no steps)"
    : trajectory.map((step, i) => `${i + 1}. ${stepText(step)}`).join("\n")

const stepText = (step: TrajectoryStep): string => {
  const name = step.name ?? "(unnamed)"
  switch (step.type) {
    case "model": {
      const content = step.content === undefined || step.content === "" ? "" : `: ${contentText(step.content)}`
      return `model turn${content}`
    }
    case "tool_call":
      return `tool call ${name}${step.arguments === undefined ? "" : ` ${JSON.stringify(step.arguments)}`}`
    case "tool_result":
      return `tool result ${name}${step.is_error === true ? " (error)" : ""}: ${contentText(step.content)}`
    case "user_message":
      return `user: ${contentText(step.content)}`
    case "assistant_message":
      return `assistant: ${contentText(step.content)}`
  }
}

const contentText = (content: unknown): string =>
  typeof content === "string" ? content : content === undefined ? "" : JSON.stringify(content) ?? String(content)

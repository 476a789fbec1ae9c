/**
 * Trajectories: the path an agent that acts took, read off a record. The
 * Schema is `Trial.Trajectory`; a step is one model turn, and its tool calls
 * follow it.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import { type AgentEvalTrial, Trajectory, type TrajectoryStep } from "./Trial.ts"

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

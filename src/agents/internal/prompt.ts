/**
 * What a chat model is asked for a task: shared by the `openai:` agent and
 * the tool loop.
 *
 * @internal
 */
import type { AgentEvalTask } from "../../domain/Trial.ts"

/**
 * `task.inputs.instruction` when it is a string, else the JSON of `task.inputs`.
 *
 * @internal
 */
export const userContent = (task: AgentEvalTask): string => {
  const instruction = task.inputs["instruction"]
  return typeof instruction === "string" ? instruction : JSON.stringify(task.inputs)
}

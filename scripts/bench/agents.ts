/**
 * The benchmark's agents, each written once as a user would write it: a
 * Promise-returning callable `(task, { signal }) => Promise<string>`. Every
 * approach calls exactly these functions; agent-trials gets them through
 * `Agent.fromPromise`.
 */
import type { AgentEvalTask } from "../../src/domain/Trial.ts"

export type UserAgent = (task: AgentEvalTask, context: { readonly signal: AbortSignal }) => Promise<string>

export const agentNames = ["noop", "tick", "sleep1ms"] as const
export type AgentName = (typeof agentNames)[number]

export const agents: Record<AgentName, UserAgent> = {
  // A cache hit or an instant stub: the promise is already resolved.
  noop: () => Promise.resolve("ok"),
  // Resolves after one macrotask.
  tick: () => new Promise((resolve) => setImmediate(resolve, "ok")),
  // The smallest real wait; timers fire late under load, which is part of the measurement.
  sleep1ms: () => new Promise((resolve) => setTimeout(resolve, 1, "ok"))
}

export const isAgentName = (name: string): name is AgentName => (agentNames as ReadonlyArray<string>).includes(name)

/**
 * The same lazy source for every approach: tasks `{ id, inputs: { i }, reference: "ok" }`,
 * made on demand. Every agent answers "ok", so `exact` (the `scored` approach) passes
 * each trial; the reference is on every task so that `scored` and `unordered` differ
 * only by the scoring stage.
 */
export function* tasks(count: number): Generator<AgentEvalTask> {
  for (let i = 0; i < count; i++) yield { id: `t${i}`, inputs: { i }, reference: "ok" }
}

/**
 * Agents: what a trial calls. The runner takes any
 * `(task) => Effect<AgentOutput, E, R>`; the adapters here turn a user's Effect
 * or Promise function into one, guarded so that a callable that throws, rejects
 * or returns the wrong shape fails its own trial and never the run.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Message } from "./Conversation.ts"
import type { AgentError, InvalidAgentOutput } from "./Errors.ts"
import { callables, invoke } from "./internal/agent.ts"
import type { AgentEvalTask, AgentOutput, Trajectory } from "./Trial.ts"

/**
 * An agent as the runner sees it.
 *
 * @category models
 * @since 0.1.0
 */
export type Agent<E = unknown, R = never> = (task: AgentEvalTask, trial?: TrialContext) => Effect.Effect<AgentOutput, E, R>

/**
 * Which trial a call is for: agents that must behave differently per epoch
 * (a simulated agent, a sampler with a per-trial seed) read it.
 *
 * @category models
 * @since 0.1.0
 */
export interface TrialContext {
  readonly id: string
  readonly epoch: number | undefined
  /** The trial's own directory, on a `--workspace` run. */
  readonly workspace?: string | undefined
  /**
   * On a run with a simulated user (`--user`): the conversation so far, the
   * user's last message last. The agent answers it.
   */
  readonly conversation?: ReadonlyArray<Message> | undefined
  /**
   * With a simulated user: the conversation's steps so far, the agent's own
   * earlier steps in it (model turns, tool calls, their results), for an
   * agent that replays them (the tool loop).
   */
  readonly history?: Trajectory | undefined
}

/**
 * A user's Promise-returning callable. `signal` fires when the trial is
 * interrupted (a timeout, Ctrl-C, the end of the run), so the callable can
 * abort its own work (`fetch(url, { signal })`).
 *
 * @category models
 * @since 0.1.0
 */
export type PromiseAgent = (
  task: AgentEvalTask,
  context: { readonly signal: AbortSignal }
) => PromiseLike<AgentOutput | string> | AgentOutput | string

/**
 * Wraps an Effect-returning function so that a synchronous throw (before it
 * returns an Effect) becomes a defect of that trial.
 *
 * **Example** (An Effect function as an agent)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Agent } from "agent-trials"
 *
 * const agent = Agent.fromEffect((task) => Effect.succeed({ output_text: `echo ${task.id}` }))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromEffect = <E, R>(f: Agent<E, R>): Agent<E, R> => (task, trial) => Effect.suspend(() => f(task, trial))

/**
 * Adapts a Promise (or plain value) returning callable. A string result becomes
 * `{ output_text }`; an object must match `AgentOutput`. Throws and rejections
 * become `AgentError`, a wrong shape `InvalidAgentOutput`.
 *
 * **Example** (A fetch call as an agent)
 *
 * ```ts
 * import { Agent } from "agent-trials"
 *
 * const agent = Agent.fromPromise(async (task, { signal }) => {
 *   const res = await fetch("http://127.0.0.1:8080/agent", { method: "POST", body: JSON.stringify(task), signal })
 *   return await res.text()
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromPromise = (f: PromiseAgent): Agent<AgentError | InvalidAgentOutput> =>
  fromCallable(f) as Agent<AgentError | InvalidAgentOutput>

/**
 * A foreign callable that may return a value, a Promise or an Effect, called
 * as `f(task, { signal, trial })`: what `module:` agents export. Throws and
 * rejections become `AgentError`, a wrong shape `InvalidAgentOutput`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromCallable = (
  f: (task: AgentEvalTask, context: { readonly signal: AbortSignal; readonly trial: TrialContext }) => unknown
): Agent<unknown> => {
  const agent: Agent<unknown> = (task, trial) =>
    Effect.callback<AgentOutput, unknown>((resume) => invoke(f, task, trial, resume))
  callables.set(agent, f)
  return agent
}

export { toAgentOutput } from "./internal/agent.ts"

/**
 * Agents: what a trial calls. The runner takes any
 * `(task) => Effect<AgentOutput, E, R>`; the adapters here turn a user's Effect
 * or Promise function into one, guarded so that a callable that throws, rejects
 * or returns the wrong shape fails its own trial and never the run.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { AgentError, InvalidAgentOutput } from "./Errors.ts"
import { AgentOutput, type AgentEvalTask } from "./Trial.ts"

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
 * @example
 * ```ts
 * const agent = Agent.fromEffect((task) => Effect.succeed({ output_text: task.id }))
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
 * @example
 * ```ts
 * const agent = Agent.fromPromise(async (task, { signal }) => {
 *   const res = await fetch("http://127.0.0.1:8080/agent", { method: "POST", body: JSON.stringify(task), signal })
 *   return await res.text()
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromPromise = (f: PromiseAgent): Agent<AgentError | InvalidAgentOutput> => (task) =>
  Effect.flatMap(
    Effect.tryPromise({
      // The parameter must be declared: Effect only creates the AbortSignal for
      // functions that take one.
      try: (signal: AbortSignal) => Promise.resolve(f(task, { signal })),
      catch: (cause) => new AgentError({ message: describe(cause), cause })
    }),
    toAgentOutput
  )

const decodeOutput = Schema.decodeUnknownExit(AgentOutput)

/**
 * Normalises what a foreign agent returned: a string is the output text, an
 * object must be an `AgentOutput`.
 *
 * @category conversions
 * @since 0.1.0
 */
export const toAgentOutput = (value: unknown): Effect.Effect<AgentOutput, InvalidAgentOutput> => {
  if (typeof value === "string") return Effect.succeed({ output_text: value })
  const exit = decodeOutput(value)
  if (exit._tag === "Success") return Effect.succeed(exit.value)
  return Effect.fail(
    new InvalidAgentOutput({
      message: `Agent returned ${preview(value)}, expected a string or { output_text: string, ... }`
    })
  )
}

/** A one-line description of anything thrown. */
export const describe = (cause: unknown): string => {
  if (cause instanceof Error) return cause.message || cause.name
  if (typeof cause === "string") return cause
  return preview(cause)
}

const preview = (value: unknown): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text
}

/**
 * How the runner calls a user's function: the function behind each agent
 * `Agent.fromCallable` made (so the runner can call it in the trial's own
 * callback instead of through the agent's Effect), the call itself, and the
 * normalising of what it returned. Not part of the public API; `Agent`
 * re-exports `toAgentOutput`.
 *
 * @internal
 */
import { Effect, Exit, Schema } from "effect"
import type { Agent, TrialContext } from "../Agent.ts"
import { AgentError, InvalidAgentOutput } from "../Errors.ts"
import { AgentOutput, type AgentEvalTask } from "../Trial.ts"
import { describe as describeCause, preview } from "../../internal/describe.ts"
import { schemaFailure } from "./failure.ts"

/** @internal */
export type Callable = (task: AgentEvalTask, context: { readonly signal: AbortSignal; readonly trial: TrialContext }) => unknown

/**
 * The user's function behind each agent made by `fromCallable` (and
 * `fromPromise`), so the runner can call it in the trial's own callback
 * instead of through the agent's Effect.
 *
 * @internal
 */
export const callables = new WeakMap<Agent<any, any>, Callable>()

/**
 * Calls `f` once and hands what it gave, as an Exit (or, for an Effect, an
 * effect that ends in its output), to `done`; the returned effect aborts the
 * call's signal. `fromCallable`'s call; the runner calls `callDirect`, the
 * same call, so both treat a throw, a rejection and a wrong shape alike.
 *
 * @internal
 */
export const invoke = (
  f: Callable,
  task: AgentEvalTask,
  trial: TrialContext | undefined,
  done: (result: Effect.Effect<AgentOutput, unknown>) => void
): Effect.Effect<void> => {
  const call = callDirect(f, task, trial, done)
  return Effect.sync(() => call.abort())
}

/**
 * `invoke` for a caller that aborts the call itself when it is interrupted
 * (the runner does, where it settles an interrupted trial's counts): no
 * cancel effect is made per call.
 *
 * @internal
 */
export const callDirect = (
  f: Callable,
  task: AgentEvalTask,
  trial: TrialContext | undefined,
  done: (result: Effect.Effect<AgentOutput, unknown>, isExit: boolean) => void
): { abort(): void } => {
  const context = new CallContext(trial ?? { id: task.id, epoch: undefined })
  const onError = (cause: unknown) => done(Exit.fail(new AgentError({ message: describe(cause), cause })), true)
  try {
    const result = f(task, context)
    // A native Promise is never an Effect: `instanceof` is one prototype
    // walk, where the Effect check is a symbol lookup on every call.
    if (!(result instanceof Promise) && Effect.isEffect(result)) {
      done(Effect.flatMap(result as Effect.Effect<unknown, unknown>, toAgentOutput), false)
    } else if (isPromiseLike(result)) result.then((value) => done(toAgentOutput(value), true), onError)
    else done(toAgentOutput(result), true)
  } catch (cause) {
    onError(cause)
  }
  return context
}

// The AbortController is made only if the callable reads `signal`: most do
// not, and making one costs about a microsecond per call.
class CallContext {
  private controller: AbortController | undefined
  readonly trial: TrialContext
  constructor(trial: TrialContext) {
    this.trial = trial
  }
  /** With a simulated user (`--user`): the conversation so far, which the agent answers. */
  get conversation(): TrialContext["conversation"] {
    return this.trial.conversation
  }
  get signal(): AbortSignal {
    return (this.controller ??= new AbortController()).signal
  }
  abort(): void {
    this.controller?.abort()
  }
}

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

const decodeOutput = Schema.decodeUnknownExit(AgentOutput)

/**
 * Normalises what a foreign agent returned: a string is the output text, an
 * object must be an `AgentOutput`.
 *
 * @category conversions
 * @since 0.1.0
 */
export const toAgentOutput = (value: unknown): Exit.Exit<AgentOutput, InvalidAgentOutput> => {
  if (typeof value === "string") return Exit.succeed({ output_text: value })
  if (isPlainOutput(value)) return Exit.succeed(value)
  const exit = decodeOutput(withoutUndefined(value))
  if (exit._tag === "Success") return Exit.succeed(exit.value)
  const text = (value as { readonly output_text?: unknown } | null)?.output_text
  return Exit.fail(
    new InvalidAgentOutput({
      message: `Agent returned ${preview(value, 200)}, expected a string or { output_text: string, ... }` +
        fieldAtFault(exit.cause.reasons[0]),
      // The answer it did give, whole: the preview above is clipped.
      ...(typeof text === "string" ? { output_text: text } : undefined)
    })
  )
}

// `: field usage.input_tokens: Expected ...` when the Schema's failure is
// inside the object (a wrong type at the top level says it all already).
const fieldAtFault = (reason: unknown): string => {
  const { path, problem } = schemaFailure(reason)
  return path === undefined ? "" : `: field ${path.join(".")}: ${problem}`
}

// `{ output_text, metadata: undefined }` is what JavaScript callers often
// write for "no metadata": treat an undefined optional field as absent.
const withoutUndefined = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  const o = value as Record<string, unknown>
  if (
    !("metadata" in o && o["metadata"] === undefined) && !("response" in o && o["response"] === undefined) &&
    !("usage" in o && o["usage"] === undefined) && !("trajectory" in o && o["trajectory"] === undefined)
  ) {
    return value
  }
  const copy: Record<string, unknown> = {}
  for (const key in o) if (o[key] !== undefined) copy[key] = o[key]
  return copy
}

/**
 * The common shape, checked without the Schema machinery: a string output,
 * if present a plain-object metadata and a usage of counts (`plainUsage`).
 * Anything else, or anything unsure, takes the Schema path.
 *
 * @internal
 */
export const isPlainOutput = (value: unknown): value is AgentOutput => {
  if (typeof value !== "object" || value === null) return false
  const o = value as { readonly output_text?: unknown; readonly metadata?: unknown; readonly usage?: unknown }
  if (typeof o.output_text !== "string") return false
  for (const key in o) {
    if (key !== "output_text" && key !== "metadata" && key !== "response" && key !== "usage") return false
  }
  if ("usage" in o && !plainUsage(o.usage)) return false
  const m = o.metadata
  return m === undefined ? !("metadata" in o) : typeof m === "object" && m !== null && !Array.isArray(m)
}

const countKeys = new Set(["input_tokens", "output_tokens", "total_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens"])

// What the Usage Schema accepts, in its common form: the three counts, the
// optional ones, all safe non-negative integers, a model name, a finite
// non-negative cost; no `user` (left to the Schema).
const plainUsage = (usage: unknown): boolean => {
  if (typeof usage !== "object" || usage === null || Array.isArray(usage)) return false
  const u = usage as Record<string, unknown>
  for (const key of ["input_tokens", "output_tokens", "total_tokens"]) if (!(key in u)) return false
  for (const key in u) {
    const value = u[key]
    if (countKeys.has(key)) {
      if (!Number.isSafeInteger(value) || (value as number) < 0) return false
    } else if (key === "model") {
      if (typeof value !== "string") return false
    } else if (key === "cost_usd") {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return false
    } else return false
  }
  return true
}

/**
 * A one-line description of anything thrown.
 *
 * @internal
 */
export const describe = (cause: unknown): string => describeCause(cause, { max: 200, clip: "preview" })

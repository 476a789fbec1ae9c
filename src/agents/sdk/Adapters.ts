/**
 * Agent SDKs' results read natively: a `module:` agent may return an AI SDK
 * `generateText` result (or a `ToolLoopAgent`'s `generate` result) or an
 * OpenAI Agents SDK `RunResult` as it is, and the run records its answer,
 * trajectory, usage and model. The readers are here for explicit use too
 * (`fromAiSdk`, `fromOpenAiAgents`). Neither SDK is loaded: results are
 * recognised by their shape, and typed by the fields read (`AiSdkResult`,
 * `OpenAiAgentsResult`), which the SDKs' own result types fit, so the types
 * of agent-trials need neither SDK installed.
 *
 * @since 0.10.0
 */
import { Clock, Effect } from "effect"
import * as AiSdk from "./AiSdk.ts"
import * as OpenAiAgents from "./OpenAiAgents.ts"
import { type CallTiming, nowMs, type ResultReader } from "./Reader.ts"

export type { CallTiming, ResultReader } from "./Reader.ts"
export { type AiSdkResult, type AiSdkStep, type AiSdkUsage, fromAiSdk } from "./AiSdk.ts"
export { fromOpenAiAgents, type OpenAiAgentsResult } from "./OpenAiAgents.ts"

/**
 * The readers a `module:` agent's result is tried against, in order.
 *
 * @category registry
 * @since 0.10.0
 */
export const readers: ReadonlyArray<ResultReader> = [AiSdk.reader, OpenAiAgents.reader]

/**
 * `value` read by the first reader it matches, else `value` itself (a string
 * or an `AgentOutput`, checked as before). `call` is asked for only when a
 * reader matches: a plain answer costs no clock read.
 *
 * @category readers
 * @since 0.10.0
 */
export const read = (value: unknown, call: () => CallTiming): unknown => {
  if (typeof value !== "object" || value === null) return value
  for (const reader of readers) if (reader.matches(value)) return reader.read(value, call())
  return value
}

type Callable<C> = (task: any, context: C) => unknown

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

/**
 * A user's callable whose SDK results are read (`read`), timed around the
 * call: a value, a Promise of one or an Effect of one, as it returned. A
 * Promise's call is timed from when it returned the Promise (the SDKs do
 * their work after their first await); a value returned at once took no
 * time.
 *
 * @category combinators
 * @since 0.10.0
 */
export const reading = <C>(f: Callable<C>): Callable<C> => (task, context) => {
  const out = f(task, context)
  if (!(out instanceof Promise) && Effect.isEffect(out)) {
    return Effect.gen(function*() {
      const from = yield* Clock.currentTimeMillis
      const value = yield* (out as Effect.Effect<unknown, unknown, never>)
      const to = yield* Clock.currentTimeMillis
      return yield* Effect.try({ try: () => read(value, () => ({ started_ms: from, ended_ms: to })), catch: (e) => e })
    })
  }
  if (isPromiseLike(out)) {
    const started = nowMs()
    return Promise.resolve(out).then((value) => read(value, () => ({ started_ms: started, ended_ms: nowMs() })))
  }
  return read(out, () => {
    const now = nowMs()
    return { started_ms: now, ended_ms: now }
  })
}

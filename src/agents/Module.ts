/**
 * A user's module as an agent: `module:PATH[#export]`. The export (the default
 * export when none is named) is a callable
 * `(task, { signal, trial }) => AgentOutput | string | Promise<...> | Effect<...>`.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { loadExport } from "../internal/loadExport.ts"
import { fromCallable } from "../domain/Agent.ts"
import type { AgentEvalTask } from "../domain/Trial.ts"

/**
 * The module cannot be loaded, or lacks a callable export of that name.
 *
 * @category errors
 * @since 0.1.0
 */
export class ModuleAgentError extends Schema.TaggedError<ModuleAgentError>()("ModuleAgentError", {
  message: Schema.String
}) {}

type UserCallable = (
  task: AgentEvalTask,
  context: { readonly signal: AbortSignal; readonly trial: { readonly id: string; readonly epoch: number | undefined } }
) => unknown

/**
 * Imports `file` (relative to `cwd`) and returns its export `exportName`
 * (`default` when omitted) as an agent.
 *
 * @category constructors
 * @since 0.1.0
 */
export const load = Effect.fn("ModuleAgent.load")(function*(file: string, exportName: string | undefined, cwd: string) {
  const fn = yield* loadExport(file, exportName, cwd, "agent module").pipe(
    Effect.mapError((message) => new ModuleAgentError({ message }))
  )
  return fromCallable(fn as UserCallable)
})

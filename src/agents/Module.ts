/**
 * A user's module as an agent: `module:PATH[#export]`. The export (the default
 * export when none is named) is a callable
 * `(task, { signal, trial }) => AgentOutput | string | Promise<...> | Effect<...>`.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, fromCallable } from "../Agent.ts"
import type { AgentEvalTask } from "../Trial.ts"

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
  const absolute = path.resolve(cwd, file)
  const name = exportName ?? "default"
  const mod = yield* Effect.tryPromise({
    try: () => import(pathToFileURL(absolute).href) as Promise<Record<string, unknown>>,
    catch: (e) => new ModuleAgentError({ message: `cannot load agent module ${file}: ${describe(e)}` })
  })
  let fn = mod[name]
  // A CommonJS module imported from ESM puts its exports under `default`.
  if (fn === undefined && exportName !== undefined) {
    const cjs = mod["default"] as Record<string, unknown> | undefined
    fn = typeof cjs === "object" && cjs !== null ? cjs[exportName] : undefined
  }
  if (typeof fn !== "function") {
    const exports = Object.keys(mod).filter((k) => k !== "__esModule")
    return yield* new ModuleAgentError({
      message: fn === undefined
        ? `agent module ${file} has no export "${name}" (it exports: ${exports.length > 0 ? exports.join(", ") : "nothing"})`
        : `export "${name}" of agent module ${file} is a ${typeof fn}, not a function`
    })
  }
  return fromCallable(fn as UserCallable)
})

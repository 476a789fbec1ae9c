/**
 * A user's module as an agent: `module:PATH[#export]`. The export (the default
 * export when none is named) is a callable
 * `(task, { signal, trial }) => AgentOutput | string | Promise<...> | Effect<...>`;
 * with a simulated user (`--user`), its context also has the `conversation`
 * so far, which it answers. It may also return an AI SDK `generateText`
 * result or an OpenAI Agents SDK `RunResult` (or a Promise or Effect of
 * one): it is read natively (`Adapters`).
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { loadExport } from "../internal/loadExport.ts"
import { fromCallable } from "../domain/Agent.ts"
import type { AgentEvalTask } from "../domain/Trial.ts"
import { AgentBuildError, type AgentKind } from "./Kind.ts"
import { reading } from "./sdk/Adapters.ts"

/**
 * The module cannot be loaded, or lacks a callable export of that name.
 *
 * @category errors
 * @since 0.1.0
 */
export class ModuleAgentError extends Schema.TaggedError<ModuleAgentError>()("ModuleAgentError", {
  file: Schema.String,
  /** The export asked for; the default export when absent. */
  export_name: Schema.optionalKey(Schema.String),
  /** What is wrong, worded with the file (the message). */
  problem: Schema.String
}) {
  override get message(): string {
    return this.problem
  }
}

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
    Effect.mapError((problem) =>
      new ModuleAgentError({ file, ...(exportName === undefined ? undefined : { export_name: exportName }), problem })
    )
  )
  return fromCallable(reading(fn as UserCallable))
})

type ModuleSpec = { readonly _tag: "Module"; readonly file: string; readonly exportName: string | undefined }

const moduleText = (file: string, exportName: string | undefined) =>
  `module:${file}${exportName === undefined ? "" : `#${exportName}`}`

/**
 * `module:PATH[#export]`: the agent kind.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: AgentKind<ModuleSpec> = {
  tag: "Module",
  matches: (text) => text.startsWith("module:"),
  usage: "module:PATH[#export]",
  help: "module:PATH[#export]",
  doc: "A function your module exports (the default export without `#export`), called with the task, giving an `AgentOutput` or a string, or a Promise or Effect of one; an AI SDK `generateText` result or an OpenAI Agents SDK `RunResult` is read natively (answer, trajectory, usage, model)",
  parse: (text) => {
    const rest = text.slice("module:".length)
    const hash = rest.lastIndexOf("#")
    const file = hash === -1 ? rest : rest.slice(0, hash)
    const exportName = hash === -1 ? undefined : rest.slice(hash + 1)
    if (file === "") return `--agent ${text}: expected module:PATH[#export]`
    if (exportName === "") return `--agent ${text}: the export name after # is empty`
    return { _tag: "Module", file, exportName }
  },
  format: (spec) => moduleText(spec.file, spec.exportName),
  recorded: (spec, resolve) => moduleText(resolve(spec.file), spec.exportName),
  input: (spec) => spec.file,
  usesConversation: true,
  build: (spec, options) =>
    load(spec.file, spec.exportName, options.cwd).pipe(
      Effect.mapError((e) => new AgentBuildError({ where: `--agent ${moduleText(spec.file, spec.exportName)}`, problem: e.message }))
    )
}

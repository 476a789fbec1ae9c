/**
 * A simulated user of one's own: `--user module:PATH#export`. The export
 * (the default one without `#export`) is called once per turn as
 * `(conversation, task, { instruction, turn, trial, signal })` and returns
 * the user's next message, or `null` to end the conversation; a Promise or
 * an Effect of one, as module agents and scorers may.
 *
 * @since 0.9.0
 */
import { Effect } from "effect"
import type { Message } from "../../domain/Conversation.ts"
import type { AgentEvalTask } from "../../domain/Trial.ts"
import { describe, preview } from "../../internal/describe.ts"
import { loadExport } from "../../internal/loadExport.ts"
import { type SimulatedUser, type Turn, type UserKind, UserBuildError, UserError } from "./User.ts"

type ModuleSpec = { readonly _tag: "Module"; readonly file: string; readonly exportName: string | undefined }

type UserFunction = (
  conversation: ReadonlyArray<Message>,
  task: AgentEvalTask,
  context: {
    readonly instruction: string
    readonly turn: number
    readonly trial: Turn["trial"]
    readonly signal: AbortSignal
  }
) => unknown

/**
 * The user a function is: each turn's call guarded so that a throw, a
 * rejection or a value that is neither a string nor `null` fails the trial
 * with `UserError`, never the run. The conversation it gets is a copy.
 *
 * @category constructors
 * @since 0.9.0
 */
export const fromFunction = (f: UserFunction, where = "the user module"): SimulatedUser => (turn) =>
  Effect.callback<unknown, unknown>((resume) => {
    const controller = new AbortController()
    try {
      const result = f([...turn.conversation], turn.task, {
        instruction: turn.instruction,
        turn: turn.turn,
        trial: turn.trial,
        signal: controller.signal
      })
      if (Effect.isEffect(result)) resume(result as Effect.Effect<unknown, unknown>)
      else if (isPromiseLike(result)) result.then((value) => resume(Effect.succeed(value)), (error) => resume(Effect.fail(error)))
      else resume(Effect.succeed(result))
    } catch (error) {
      resume(Effect.fail(error))
    }
    return Effect.sync(() => controller.abort())
  }).pipe(
    Effect.mapError((error) => new UserError({ message: `${where} failed in turn ${turn.turn}: ${describe(error, { max: 500, clip: "preview" })}` })),
    Effect.flatMap((value) =>
      typeof value === "string" || value === null || value === undefined
        ? Effect.succeed(typeof value === "string" ? { text: value, ends: false } : { ends: true })
        : Effect.fail(
          new UserError({
            message: `${where} returned ${preview(value, 200)} in turn ${turn.turn}, expected the next message (a string) or null to end`
          })
        )
    )
  )

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

const moduleText = (file: string, exportName: string | undefined) =>
  `module:${file}${exportName === undefined ? "" : `#${exportName}`}`

/**
 * `module:PATH[#export]`: the user kind.
 *
 * @category kinds
 * @since 0.9.0
 */
export const kind: UserKind<ModuleSpec> = {
  tag: "Module",
  matches: (text) => text.startsWith("module:"),
  usage: "module:PATH[#export]",
  doc: "A function your module exports, called each turn with the conversation so far, the task and " +
    "`{ instruction, turn, trial, signal }`, giving the next message or `null` to end (or a Promise or Effect of one)",
  parse: (text) => {
    const rest = text.slice("module:".length)
    const hash = rest.lastIndexOf("#")
    const file = hash === -1 ? rest : rest.slice(0, hash)
    const exportName = hash === -1 ? undefined : rest.slice(hash + 1)
    if (file === "") return `--user ${text}: expected module:PATH[#export]`
    if (exportName === "") return `--user ${text}: the export name after # is empty`
    return { _tag: "Module", file, exportName }
  },
  format: (spec) => moduleText(spec.file, spec.exportName),
  recorded: (spec, resolve) => moduleText(resolve(spec.file), spec.exportName),
  input: (spec) => spec.file,
  build: (spec, options) =>
    loadExport(spec.file, spec.exportName, options.cwd, "user module").pipe(
      Effect.map((fn) => fromFunction(fn as UserFunction, `the user module ${moduleText(spec.file, spec.exportName)}`)),
      Effect.mapError((problem) => new UserBuildError({ where: `--user ${moduleText(spec.file, spec.exportName)}`, problem }))
    )
}

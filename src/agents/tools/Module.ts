/**
 * `module:PATH[#export]` as a tool source: the export (the default one when
 * none is named) is one of
 * - an `effect/ai` toolkit with its handlers: `{ toolkit, layer }` (the
 *   `Toolkit` and the `Layer` of `toolkit.toLayer(...)`), or an Effect of
 *   a `Toolkit.WithHandler` (`Effect.provide(toolkit, layer)`);
 * - a plain object of functions: `{ NAME: { description?, parameters,
 *   execute(args, { signal }) } }`, where `parameters` is a JSON Schema, a
 *   Zod schema or another Standard Schema that gives its JSON Schema (an AI
 *   SDK `ToolSet` of `tool({ description, inputSchema, execute })` is such
 *   an object too), and `execute` may return a value, a Promise, an async
 *   iterable (its last value) or an Effect; a throw or a rejection is a tool
 *   error the model sees. The model is sent the JSON Schema; the arguments
 *   are checked first (by the schema's own `validate`, else by ajv):
 *   arguments that do not fit are a tool error too, and `execute` is not
 *   called. Parameters that give no JSON Schema are refused at connect,
 *   naming the tool and why.
 *
 * @since 0.5.0
 */
import { Effect, Layer, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { loadValue } from "../../internal/loadExport.ts"
import * as ResponseCache from "../../cache/ResponseCache.ts"
import type { TrialContext } from "../../domain/Agent.ts"
import { parametersOf } from "./internal/parameters.ts"
import type { Tools } from "./Loop.ts"
import { ToolConnectError, type ToolSource } from "./Source.ts"

type ModuleSpec = { readonly _tag: "ModuleTools"; readonly file: string; readonly exportName: string | undefined }

/**
 * A plain tool: its JSON Schema parameters and the function that runs it.
 *
 * @category models
 * @since 0.5.0
 */
export interface PlainTool {
  readonly description?: string | undefined
  /** A JSON Schema, a Zod schema, a Standard Schema with a JSON Schema, or an AI SDK schema. */
  readonly parameters?: unknown
  /** The same, as the Vercel AI SDK's `tool({ inputSchema })` names it. */
  readonly inputSchema?: unknown
  readonly execute: (
    args: unknown,
    context: {
      readonly signal: AbortSignal
      readonly abortSignal: AbortSignal
      readonly toolCallId: string
      readonly messages: ReadonlyArray<unknown>
      /** The trial's workspace, on a `--workspace` run. */
      readonly workspace?: string | undefined
      /** The trial's id and epoch. */
      readonly trial?: TrialContext | undefined
    }
  ) => unknown
}

// A Promise's value; an async iterable's last value (the AI SDK's streaming `execute`).
const settle = async (out: unknown): Promise<unknown> => {
  const value = await out
  if (typeof value !== "object" || value === null || typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function") {
    return value
  }
  let last: unknown
  for await (const item of value as AsyncIterable<unknown>) last = item
  return last
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isWithHandler = (u: unknown): u is Tools => isObject(u) && isObject(u["tools"]) && typeof u["handle"] === "function"

/**
 * The tools of a module's export (see the module's doc for the shapes); a
 * failure is `ToolConnectError` at `where`.
 *
 * @category constructors
 * @since 0.5.0
 */
export const fromExport = (value: unknown, where: string): Effect.Effect<Tools, ToolConnectError> => {
  if (Effect.isEffect(value)) {
    return (value as Effect.Effect<unknown, unknown>).pipe(
      Effect.mapError((e) => new ToolConnectError({ where, problem: `building the toolkit failed: ${String((e as Error)?.message ?? e)}` })),
      Effect.flatMap((built) =>
        isWithHandler(built) ? Effect.succeed(built) : Effect.fail(new ToolConnectError({ where, problem: "the Effect gave no toolkit with handlers" }))
      )
    )
  }
  if (isObject(value) && Effect.isEffect(value["toolkit"]) && Layer.isLayer(value["layer"])) {
    const toolkit = value["toolkit"] as Effect.Effect<unknown, never, never>
    return fromExport(Effect.provide(toolkit, value["layer"] as unknown as Layer.Layer<never>), where)
  }
  if (!isObject(value)) {
    return Effect.fail(new ToolConnectError({ where, problem: `expected a toolkit with its layer or an object of tools, got a ${typeof value}` }))
  }
  return Effect.gen(function*() {
    const tools: Array<Tool.Any> = []
    const handlers: Record<
      string,
      (params: unknown, context: { readonly toolCallId?: string | undefined } | undefined) => Effect.Effect<unknown, string>
    > = {}
    for (const [name, entry] of Object.entries(value)) {
      if (!isObject(entry) || typeof entry["execute"] !== "function") {
        return yield* new ToolConnectError({ where, problem: `tool "${name}" needs an execute function ({ description?, parameters, execute })` })
      }
      const plain = entry as unknown as PlainTool
      // effect/ai does not check JSON-Schema parameters: arguments that do not
      // fit are a tool error the model sees, and `execute` never runs on them.
      const parameters = yield* Effect.mapError(parametersOf(entry, name), (problem) => new ToolConnectError({ where, problem }))
      tools.push(Tool.dynamic(name, {
        ...(plain.description === undefined ? undefined : { description: plain.description }),
        parameters: parameters.jsonSchema as never,
        success: Schema.Unknown,
        failure: Schema.String
      }))
      handlers[name] = (params, context) =>
        parameters.check(params).pipe(Effect.flatMap((args) =>
          Effect.flatMap(Effect.service(ResponseCache.CurrentTrial), (trial) => Effect.tryPromise({
            try: (signal) => {
              // `signal` as ours, `abortSignal` and `toolCallId` as the AI SDK's `execute` reads them.
              const out = plain.execute(args, {
                signal,
                abortSignal: signal,
                toolCallId: context?.toolCallId ?? "",
                messages: [],
                ...(trial === undefined ? undefined : { trial, workspace: trial.workspace })
              })
              return Effect.isEffect(out) ? Effect.runPromise(out as Effect.Effect<unknown>) : settle(out)
            },
            catch: (e) => e instanceof Error ? e.message : String(e)
          }))
        ))
    }
    const toolkit = Toolkit.make(...tools)
    return yield* (Effect.provide(toolkit, toolkit.toLayer(handlers as never)) as unknown as Effect.Effect<Tools, ToolConnectError>)
  })
}

const moduleText = (file: string, exportName: string | undefined) =>
  `module:${file}${exportName === undefined ? "" : `#${exportName}`}`

/**
 * The source.
 *
 * @category sources
 * @since 0.5.0
 */
export const source: ToolSource<ModuleSpec> = {
  tag: "ModuleTools",
  matches: (text) => text.startsWith("module:"),
  usage: "module:PATH[#export]",
  doc: "Your module's tools: an `effect/ai` toolkit with its handlers layer (`{ toolkit, layer }`), or an object of " +
    "functions (`{ NAME: { description, parameters, execute } }`) whose parameters are a JSON Schema, a Zod schema or " +
    "a Standard Schema with a JSON Schema (an AI SDK `tool({ inputSchema })` set too)",
  parse: (text) => {
    const rest = text.slice("module:".length)
    const hash = rest.lastIndexOf("#")
    const file = hash === -1 ? rest : rest.slice(0, hash)
    const exportName = hash === -1 ? undefined : rest.slice(hash + 1)
    if (file === "") return `--tools ${text}: expected module:PATH[#export]`
    if (exportName === "") return `--tools ${text}: the export name after # is empty`
    return { _tag: "ModuleTools", file, exportName }
  },
  format: (spec) => moduleText(spec.file, spec.exportName),
  stateful: false,
  connect: (spec, options) => {
    const where = `--tools ${moduleText(spec.file, spec.exportName)}`
    return loadValue(spec.file, spec.exportName, options.cwd, "tools module").pipe(
      Effect.mapError((problem) => new ToolConnectError({ where, problem })),
      Effect.flatMap((value) => fromExport(value, where))
    )
  }
}

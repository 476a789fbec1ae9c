/**
 * `effect-ai:PATH#export`: the user's own `effect/ai` model as an agent that
 * acts. The module exports a `Layer` that provides `LanguageModel` (the very
 * layer a service runs in production); the tool loop runs over it with the
 * `--tools` sources (none: each trial is one turn). The layer is built once
 * per run, with the run's HTTP client and child-process spawner at hand.
 *
 * @since 0.5.0
 */
import { Effect, Layer } from "effect"
import type { LanguageModel } from "effect/ai"
import { loadValue } from "../internal/loadExport.ts"
import { AgentBuildError, type AgentKind } from "./Kind.ts"
import * as ToolAgent from "./tools/Agent.ts"
import type { Requirements } from "./tools/Source.ts"

type EffectAiSpec = { readonly _tag: "EffectAi"; readonly file: string; readonly exportName: string | undefined }

const specText = (file: string, exportName: string | undefined) =>
  `effect-ai:${file}${exportName === undefined ? "" : `#${exportName}`}`

/**
 * `effect-ai:PATH[#export]`: the agent kind.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: AgentKind<EffectAiSpec> = {
  tag: "EffectAi",
  matches: (text) => text.startsWith("effect-ai:"),
  usage: "effect-ai:PATH[#export]",
  help: "effect-ai:PATH[#export]",
  doc: "The tool loop over your own `effect/ai` model: a module exporting a `Layer` that provides `LanguageModel` " +
    "(the default export without `#export`), with the `--tools` sources",
  parse: (text) => {
    const rest = text.slice("effect-ai:".length)
    const hash = rest.lastIndexOf("#")
    const file = hash === -1 ? rest : rest.slice(0, hash)
    const exportName = hash === -1 ? undefined : rest.slice(hash + 1)
    if (file === "") return `--agent ${text}: expected effect-ai:PATH[#export]`
    if (exportName === "") return `--agent ${text}: the export name after # is empty`
    return { _tag: "EffectAi", file, exportName }
  },
  format: (spec) => specText(spec.file, spec.exportName),
  recorded: (spec, resolve) => specText(resolve(spec.file), spec.exportName),
  input: (spec) => spec.file,
  usesTools: true,
  build: (spec, options) => {
    const where = `--agent ${specText(spec.file, spec.exportName)}`
    return loadValue(spec.file, spec.exportName, options.cwd, "model module").pipe(
      Effect.mapError((problem) => new AgentBuildError({ where, problem })),
      Effect.flatMap((value) =>
        Layer.isLayer(value)
          ? Effect.succeed(value as Layer.Layer<LanguageModel.LanguageModel, unknown, Requirements>)
          : Effect.fail(new AgentBuildError({ where, problem: `export "${spec.exportName ?? "default"}" is a ${typeof value}, not a Layer that provides LanguageModel` }))
      ),
      Effect.flatMap((layer) =>
        ToolAgent.make(layer, ToolAgent.optionsOf(options, options.model)).pipe(
          // The tool loop's problems are worded under the spec too.
          Effect.catchTags({
            AgentBuildError: (e) => Effect.fail(new AgentBuildError({ where, problem: e.message })),
            ToolConnectError: (e) => Effect.fail(new AgentBuildError({ where, problem: e.message }))
          })
        )
      )
    )
  }
}

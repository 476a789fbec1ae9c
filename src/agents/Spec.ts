/**
 * `--agent SPEC`: which agent a CLI run calls.
 *
 * - `sim[:latency=20ms,jitter=10ms,fail=0.02,seed=1]` (jitter unless given: 10 ms, at most half the latency)
 * - `module:PATH[#export]`
 * - `http://...`, `https://...`
 * - `openai:BASE_URL` (with a model, and `OPENAI_API_KEY`)
 *
 * @since 0.1.0
 */
import { Effect, type Redacted } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../domain/Agent.ts"
import * as HttpAgent from "./Http.ts"
import { redactUrl } from "../internal/redact.ts"
import * as ModuleAgent from "./Module.ts"
import * as OpenAiAgent from "./OpenAi.ts"
import * as Sim from "./Sim.ts"

/**
 * A parsed agent spec.
 *
 * @category models
 * @since 0.1.0
 */
export type AgentSpec =
  | { readonly _tag: "Sim"; readonly options: Sim.SimOptions }
  | { readonly _tag: "Module"; readonly file: string; readonly exportName: string | undefined }
  | { readonly _tag: "Http"; readonly url: string }
  | { readonly _tag: "OpenAi"; readonly baseUrl: string }

/**
 * Parses a spec; a string result is the problem, worded for `--agent`. A URL
 * is echoed only through `redactUrl` (no userinfo, no query values).
 *
 * @category parsing
 * @since 0.1.0
 */
export const parse = (spec: string): AgentSpec | string => {
  if (spec === "sim" || spec.startsWith("sim:")) {
    const options = Sim.parseOptions(spec.slice(4))
    return typeof options === "string" ? `--agent ${spec}: ${options}` : { _tag: "Sim", options }
  }
  if (spec.startsWith("module:")) {
    const rest = spec.slice("module:".length)
    const hash = rest.lastIndexOf("#")
    const file = hash === -1 ? rest : rest.slice(0, hash)
    const exportName = hash === -1 ? undefined : rest.slice(hash + 1)
    if (file === "") return `--agent ${spec}: expected module:PATH[#export]`
    if (exportName === "") return `--agent ${spec}: the export name after # is empty`
    return { _tag: "Module", file, exportName }
  }
  if (spec.startsWith("http://") || spec.startsWith("https://")) {
    return validUrl(spec) ? { _tag: "Http", url: spec } : `--agent ${redactUrl(spec)}: not a valid URL`
  }
  if (spec.startsWith("openai:")) {
    const baseUrl = spec.slice("openai:".length)
    return validUrl(baseUrl) && /^https?:/.test(baseUrl)
      ? { _tag: "OpenAi", baseUrl }
      : `--agent openai:${redactUrl(baseUrl)}: expected openai:BASE_URL with an http(s) URL, e.g. openai:https://api.openai.com/v1`
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(spec)?.[1]
  return `--agent ${redactUrl(spec)}: unknown agent ${scheme === undefined ? "spec" : `scheme "${scheme}:"`} ` +
    `(expected sim[:...], module:PATH[#export], http(s)://URL or openai:BASE_URL)`
}

const validUrl = (text: string): boolean => {
  try {
    new URL(text)
    return true
  } catch {
    return false
  }
}

/**
 * Builds the agent of a spec. `model` is required for `openai:`; a module that
 * cannot be loaded or lacks the export fails with a message naming it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const build = (
  spec: AgentSpec,
  options: { readonly model: string | undefined; readonly apiKey: Redacted.Redacted<string> | undefined; readonly cwd: string }
): Effect.Effect<Agent<unknown, HttpClient.HttpClient>, string> => {
  switch (spec._tag) {
    case "Sim":
      return Effect.succeed(Sim.make(spec.options))
    case "Http":
      return Effect.succeed(HttpAgent.make(spec.url))
    case "OpenAi":
      return options.model === undefined || options.model === ""
        ? Effect.fail(`--agent openai:${redactUrl(spec.baseUrl)} needs --model NAME`)
        : Effect.succeed(OpenAiAgent.make({ baseUrl: spec.baseUrl, model: options.model, apiKey: options.apiKey }))
    case "Module":
      return ModuleAgent.load(spec.file, spec.exportName, options.cwd).pipe(
        Effect.mapError((e) => `--agent module:${spec.file}${spec.exportName === undefined ? "" : `#${spec.exportName}`}: ${e.message}`)
      )
  }
}

/**
 * The registry of agent kinds: `--agent SPEC` is parsed, shown, recorded and
 * built through it, and `--agent`'s help and the README's table of agent
 * kinds are derived from it. A new kind is its file (an `AgentKind`) and one
 * entry in `builtIn`; a program of one's own may pass a longer list.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../domain/Agent.ts"
import { redactUrl } from "../internal/redact.ts"
import * as AnthropicAgent from "./Anthropic.ts"
import * as EffectAiAgent from "./EffectAi.ts"
import * as HttpAgent from "./Http.ts"
import { type AgentKind, AgentBuildError, type BuildOptions, type Spec } from "./Kind.ts"
import type { McpServerFailed, Requirements, ToolConnectError } from "./tools/Source.ts"
import * as ModuleAgent from "./Module.ts"
import * as OpenAiAgent from "./OpenAi.ts"
import * as SimAgent from "./Sim.ts"

export { AgentBuildError, type AgentKind, type BuildOptions, type Spec } from "./Kind.ts"

/**
 * The kinds this package has, in the order help and messages list them.
 *
 * @category registry
 * @since 0.3.0
 */
export const builtIn: ReadonlyArray<AgentKind> = [SimAgent.kind, ModuleAgent.kind, HttpAgent.kind, OpenAiAgent.kind, AnthropicAgent.kind, EffectAiAgent.kind]

/**
 * The spec type of a kind.
 *
 * @category models
 * @since 0.3.0
 */
export type SpecOf<K> = K extends AgentKind<infer S> ? S : never

/**
 * A spec of a built-in kind.
 *
 * @category models
 * @since 0.3.0
 */
export type BuiltInSpec =
  | SpecOf<typeof SimAgent.kind>
  | SpecOf<typeof ModuleAgent.kind>
  | SpecOf<typeof HttpAgent.kind>
  | SpecOf<typeof OpenAiAgent.kind>
  | SpecOf<typeof AnthropicAgent.kind>
  | SpecOf<typeof EffectAiAgent.kind>

/**
 * The spec of `text`, by the first kind that matches it; a string is the
 * problem, worded for `--agent`. A URL is echoed only through `redactUrl`.
 *
 * @category parsing
 * @since 0.3.0
 */
export function parse(text: string): BuiltInSpec | string
export function parse(text: string, kinds: ReadonlyArray<AgentKind>): Spec | string
export function parse(text: string, kinds: ReadonlyArray<AgentKind> = builtIn): Spec | string {
  const kind = kinds.find((k) => k.matches(text))
  if (kind !== undefined) return kind.parse(text)
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]
  return `--agent ${redactUrl(text)}: unknown agent ${scheme === undefined ? "spec" : `scheme "${scheme}:"`} ` +
    `(expected ${listed(kinds.map((k) => k.usage))})`
}

const listed = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`

/**
 * The kind of a spec. A spec no kind of the list parses is a defect of the
 * program that made it.
 *
 * @category registry
 * @since 0.3.0
 */
export const kindOf = (spec: Spec, kinds: ReadonlyArray<AgentKind> = builtIn): AgentKind => {
  const kind = kinds.find((k) => k.tag === spec._tag)
  if (kind === undefined) throw new Error(`no agent kind has the tag ${JSON.stringify(spec._tag)}`)
  return kind
}

/**
 * Builds the agent of a spec; a failure is `AgentBuildError`, worded for
 * `--agent`, `ToolConnectError` for `--tools`, or `McpServerFailed`: a tool
 * server that did not answer in time.
 *
 * @category constructors
 * @since 0.3.0
 */
export const build = (
  spec: Spec,
  options: BuildOptions,
  kinds: ReadonlyArray<AgentKind> = builtIn
): Effect.Effect<Agent<unknown, HttpClient.HttpClient>, AgentBuildError | ToolConnectError | McpServerFailed, Requirements> =>
  Effect.suspend(() => {
    const kind = kindOf(spec, kinds)
    if (options.tools !== undefined && options.tools.length > 0 && kind.usesTools !== true) {
      return Effect.fail(
        new AgentBuildError({
          problem: `--tools needs an agent that runs a tool loop (${kinds.filter((k) => k.usesTools === true).map((k) => k.usage).join(" or ")}), ` +
            `not ${kind.usage}`
        })
      )
    }
    return kind.build(spec, options)
  })

/**
 * `--agent`'s help: each kind's shape, the default last.
 *
 * @category docs
 * @since 0.3.0
 */
export const help = (kinds: ReadonlyArray<AgentKind> = builtIn): string =>
  `${kinds.map((k) => k.help).join(" | ")} (default sim)`

/**
 * The README's table of agent kinds.
 *
 * @category docs
 * @since 0.3.0
 */
export const docsTable = (kinds: ReadonlyArray<AgentKind> = builtIn): string =>
  ["| `--agent` | What it calls |", "| --- | --- |", ...kinds.map((k) => `| \`${k.usage}\` | ${k.doc} |`)].join("\n")

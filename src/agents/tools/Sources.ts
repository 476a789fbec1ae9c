/**
 * The registry of tool sources: `--tools SPEC` is parsed and connected
 * through it, and the README's table of tool sources is derived from it. A
 * new source is its file (a `ToolSource`) and one entry in `builtIn`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { redactUrl } from "../../internal/redact.ts"
import * as ExecTools from "./Exec.ts"
import * as McpHttpTools from "./McpHttp.ts"
import * as McpStdioTools from "./McpStdio.ts"
import * as ModuleTools from "./Module.ts"
import type { Tools } from "./Loop.ts"
import { type ConnectOptions, type McpServerFailed, type Requirements, type Spec, ToolConnectError, type ToolSource } from "./Source.ts"

export type { ConnectOptions, Requirements, Spec, ToolSource } from "./Source.ts"
export { McpServerFailed, ToolConnectError } from "./Source.ts"

/**
 * The sources this package has, in the order messages list them.
 *
 * @category registry
 * @since 0.5.0
 */
export const builtIn: ReadonlyArray<ToolSource> = [ModuleTools.source, McpStdioTools.source, McpHttpTools.source, ExecTools.source]

/**
 * The spec of `text`, by the first source that matches it; a string is the
 * problem, worded for `--tools`.
 *
 * @category parsing
 * @since 0.5.0
 */
export const parse = (text: string, sources: ReadonlyArray<ToolSource> = builtIn): Spec | string => {
  const source = sources.find((s) => s.matches(text))
  return source !== undefined
    ? source.parse(text)
    : `--tools ${redactUrl(text)}: unknown tool source (expected ${sources.map((s) => s.usage).join(", ")})`
}

/**
 * The source of a spec.
 *
 * @category registry
 * @since 0.5.0
 */
export const sourceOf = (spec: Spec, sources: ReadonlyArray<ToolSource> = builtIn): ToolSource => {
  const source = sources.find((s) => s.tag === spec._tag)
  if (source === undefined) throw new Error(`no tool source has the tag ${JSON.stringify(spec._tag)}`)
  return source
}

/**
 * One toolkit of the tools of several sources, connected in the current
 * scope; two tools of one name are refused, naming both sources.
 *
 * @category constructors
 * @since 0.5.0
 */
export const connectAll = (
  specs: ReadonlyArray<Spec>,
  options: ConnectOptions,
  sources: ReadonlyArray<ToolSource> = builtIn
): Effect.Effect<Tools, ToolConnectError | McpServerFailed, Requirements> =>
  Effect.gen(function*() {
    const owners = new Map<string, { readonly tools: Tools; readonly from: string }>()
    for (const spec of specs) {
      const source = sourceOf(spec, sources)
      const tools = yield* source.connect(spec, options)
      for (const name of Object.keys(tools.tools)) {
        const other = owners.get(name)
        if (other !== undefined) {
          return yield* new ToolConnectError({ where: "--tools", problem: `the tool "${name}" is in both ${other.from} and ${source.format(spec)}` })
        }
        owners.set(name, { tools, from: source.format(spec) })
      }
    }
    return merge(owners)
  })

/**
 * The tools of two toolkits as one (a run's shared tools and a trial's
 * own); a name in both is refused, naming the tool.
 *
 * @category constructors
 * @since 0.9.0
 */
export const combine = (first: Tools, second: Tools): Tools | string => {
  const clash = Object.keys(second.tools).find((name) => Object.hasOwn(first.tools, name))
  if (clash !== undefined) return `the tool "${clash}" is in two --tools sources`
  const owners = new Map<string, { readonly tools: Tools }>()
  for (const name of Object.keys(first.tools)) owners.set(name, { tools: first })
  for (const name of Object.keys(second.tools)) owners.set(name, { tools: second })
  return merge(owners)
}

const merge = (owners: ReadonlyMap<string, { readonly tools: Tools }>): Tools => {
  if (new Set([...owners.values()].map((o) => o.tools)).size === 1) return [...owners.values()][0]!.tools
  const tools: Record<string, Tools["tools"][string]> = {}
  for (const [name, owner] of owners) tools[name] = owner.tools.tools[name]!
  return {
    tools,
    handle: ((name: string, ...rest: ReadonlyArray<never>) =>
      (owners.get(name)!.tools.handle as (name: string, ...rest: ReadonlyArray<never>) => unknown)(name, ...rest)) as Tools["handle"]
  }
}

/**
 * The specs as flags again, each after a space (` --tools A --tools B`);
 * empty for none. A run's definition records them after its agent.
 *
 * @category formatting
 * @since 0.5.0
 */
export const flagsText = (specs: ReadonlyArray<Spec>, sources: ReadonlyArray<ToolSource> = builtIn): string =>
  specs.map((spec) => ` --tools ${sourceOf(spec, sources).format(spec)}`).join("")

/**
 * The README's table of tool sources.
 *
 * @category docs
 * @since 0.5.0
 */
export const docsTable = (sources: ReadonlyArray<ToolSource> = builtIn): string =>
  ["| `--tools` | Its tools |", "| --- | --- |", ...sources.map((s) => `| \`${s.usage}\` | ${s.doc} |`)].join("\n")

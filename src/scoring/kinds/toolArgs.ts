/**
 * `tool-args:NAME,PATH=VALUE[,PATH=VALUE...]`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { splitTopLevel, valueOf } from "../internal/pathSpec.ts"
import * as PathScorers from "../PathScorers.ts"

/**
 * A parsed `tool-args` spec.
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolArgsSpec extends SpecBase {
  readonly _tag: "ToolArgs"
  readonly tool: string
  readonly checks: ReadonlyArray<PathScorers.ArgumentCheck>
}

const USAGE = "tool-args:NAME,PATH=VALUE"

/**
 * The `tool-args` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: ScorerKind<ToolArgsSpec> = {
  kind: "tool-args",
  tag: "ToolArgs",
  usage: USAGE,
  help: `${USAGE}[,PATH=VALUE...]`,
  doc: "some call of the tool NAME has, at each dotted PATH of its arguments, the VALUE (JSON when it parses, else " +
    "text); named `tool-args-NAME`: `tool-args:search,query=Paris,filters.limit=5`",
  parse: (rest, { bad, base }) => {
    const [tool, ...items] = splitTopLevel(rest ?? "").map((part) => part.trim())
    if (tool === undefined || tool === "" || tool.includes("=")) return bad(`expected ${USAGE} with a tool's name first`)
    if (items.length === 0) return bad(`expected ${USAGE}: at least one PATH=VALUE after the tool's name`)
    const checks: Array<PathScorers.ArgumentCheck> = []
    for (const item of items) {
      const eq = item.indexOf("=")
      const path = eq === -1 ? "" : item.slice(0, eq).trim()
      if (path === "" || path.split(".").some((s) => s === "")) {
        return bad(`expected PATH=VALUE with a dotted path into the arguments (like query or filters.limit), got ${JSON.stringify(item)}`)
      }
      checks.push({ path, value: valueOf(item.slice(eq + 1).trim()) })
    }
    return { _tag: "ToolArgs", ...base(`tool-args-${tool}`), tool, checks }
  },
  build: (spec) => Effect.succeed(PathScorers.toolArgs({ name: spec.name, tool: spec.tool, checks: spec.checks }))
}

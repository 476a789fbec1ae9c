/**
 * `tool-not-called:NAME`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { toolAndOptions } from "../internal/pathSpec.ts"
import * as PathScorers from "../PathScorers.ts"

/**
 * A parsed `tool-not-called` spec.
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolNotCalledSpec extends SpecBase {
  readonly _tag: "ToolNotCalled"
  readonly tool: string
}

/**
 * The `tool-not-called` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: ScorerKind<ToolNotCalledSpec> = {
  kind: "tool-not-called",
  tag: "ToolNotCalled",
  usage: "tool-not-called:NAME",
  help: "tool-not-called:NAME",
  doc: "the trajectory never calls the tool NAME; named `tool-not-called-NAME`",
  parse: (rest, { bad, base }) => {
    const parsed = toolAndOptions(rest, "tool-not-called:NAME", {})
    if (typeof parsed === "string") return bad(parsed)
    return { _tag: "ToolNotCalled", ...base(`tool-not-called-${parsed.tool}`), tool: parsed.tool }
  },
  build: (spec) => Effect.succeed(PathScorers.toolNotCalled({ name: spec.name, tool: spec.tool }))
}

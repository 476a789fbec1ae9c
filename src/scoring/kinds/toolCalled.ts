/**
 * `tool-called:NAME[,min=N][,max=N]`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { countOf, toolAndOptions } from "../internal/pathSpec.ts"
import * as PathScorers from "../PathScorers.ts"

/**
 * A parsed `tool-called` spec.
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolCalledSpec extends SpecBase {
  readonly _tag: "ToolCalled"
  readonly tool: string
  readonly min?: number | undefined
  readonly max?: number | undefined
}

/**
 * The `tool-called` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: ScorerKind<ToolCalledSpec> = {
  kind: "tool-called",
  tag: "ToolCalled",
  usage: "tool-called:NAME",
  help: "tool-called:NAME[,min=N][,max=N]",
  doc: "the trajectory calls the tool NAME at least `min` (default 1) and at most `max` times; named " +
    "`tool-called-NAME`: `tool-called:search,max=2`",
  parse: (rest, { bad, base }) => {
    const parsed = toolAndOptions(rest, "tool-called:NAME[,min=N][,max=N]", { min: "value", max: "value" })
    if (typeof parsed === "string") return bad(parsed)
    const min = countOf(parsed.options, "min")
    const max = countOf(parsed.options, "max")
    if (typeof min === "string") return bad(min)
    if (typeof max === "string") return bad(max)
    if ((min ?? 1) > (max ?? Number.POSITIVE_INFINITY)) return bad(`min=${min ?? 1} is above max=${max}`)
    return {
      _tag: "ToolCalled",
      ...base(`tool-called-${parsed.tool}`),
      tool: parsed.tool,
      ...(min === undefined ? undefined : { min }),
      ...(max === undefined ? undefined : { max })
    }
  },
  build: (spec) => Effect.succeed(PathScorers.toolCalled({ name: spec.name, tool: spec.tool, min: spec.min, max: spec.max }))
}

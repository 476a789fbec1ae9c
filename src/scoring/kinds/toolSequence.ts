/**
 * `tool-sequence:A>B>C[,exact]`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { toolAndOptions } from "../internal/pathSpec.ts"
import * as PathScorers from "../PathScorers.ts"

/**
 * A parsed `tool-sequence` spec.
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolSequenceSpec extends SpecBase {
  readonly _tag: "ToolSequence"
  readonly tools: ReadonlyArray<string>
  readonly exact?: boolean | undefined
}

/**
 * The `tool-sequence` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: ScorerKind<ToolSequenceSpec> = {
  kind: "tool-sequence",
  tag: "ToolSequence",
  usage: "tool-sequence:A>B",
  help: "tool-sequence:A>B>C[,exact]",
  doc: "the trajectory calls the tools in this order, other calls allowed between them (value: the fraction matched in " +
    "order); `exact`: the calls are exactly these",
  parse: (rest, { bad, base }) => {
    const parsed = toolAndOptions(rest, "tool-sequence:A>B>C[,exact]", { exact: "flag" })
    if (typeof parsed === "string") return bad(parsed)
    const tools = parsed.tool.split(">").map((name) => name.trim())
    if (tools.some((name) => name === "")) return bad(`expected tool names between the >s, got ${JSON.stringify(parsed.tool)}`)
    return {
      _tag: "ToolSequence",
      ...base("tool-sequence"),
      tools,
      ...(parsed.options["exact"] === true ? { exact: true } : undefined)
    }
  },
  build: (spec) => Effect.succeed(PathScorers.toolSequence({ name: spec.name, tools: spec.tools, exact: spec.exact }))
}

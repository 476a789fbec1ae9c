/**
 * `includes[:all|any][,ignore-case][,start|end][,strip-punctuation]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { location, options } from "../internal/specOptions.ts"
import * as Match from "../Match.ts"

/**
 * A parsed `includes` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface IncludesSpec extends SpecBase {
  readonly _tag: "Includes"
  readonly mode: "any" | "all"
  readonly ignoreCase: boolean
  readonly at?: "start" | "end" | undefined
  readonly stripPunctuation?: boolean | undefined
}

/**
 * The `includes` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<IncludesSpec> = {
  kind: "includes",
  tag: "Includes",
  usage: "includes",
  help: "includes",
  syntax: "`includes[:all|any][,ignore-case][,start|end][,strip-punctuation]`",
  doc: "the output contains the reference (any one of a list of references, or all); `includes:end,strip-punctuation` " +
    "passes \"The answer is 42.\" for 42",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { all: "flag", any: "flag", "ignore-case": "flag", start: "flag", end: "flag", "strip-punctuation": "flag" })
    if (typeof o === "string") return bad(o)
    if (o["all"] === true && o["any"] === true) return bad("all and any are exclusive")
    if (o["start"] === true && o["end"] === true) return bad("start and end are exclusive")
    return {
      _tag: "Includes",
      ...base("includes"),
      mode: o["all"] === true ? "all" : "any",
      ignoreCase: o["ignore-case"] === true,
      ...location(o)
    }
  },
  build: (spec) =>
    Effect.succeed(
      Match.includes({ name: spec.name, mode: spec.mode, ignoreCase: spec.ignoreCase, at: spec.at, stripPunctuation: spec.stripPunctuation })
    )
}

/**
 * `exact[:ignore-case][,trim=false][,start|end][,strip-punctuation]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { location, options } from "../internal/specOptions.ts"
import * as Match from "../Match.ts"

/**
 * A parsed `exact` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface ExactSpec extends SpecBase {
  readonly _tag: "Exact"
  readonly ignoreCase: boolean
  readonly trim: boolean
  readonly at?: "start" | "end" | undefined
  readonly stripPunctuation?: boolean | undefined
}

/**
 * The `exact` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<ExactSpec> = {
  kind: "exact",
  tag: "Exact",
  usage: "exact",
  help: "exact",
  syntax: "`exact[:ignore-case][,trim=false][,start|end][,strip-punctuation]`",
  doc: "the output equals the task's `reference` (trimmed by default); with `start` / `end` it opens / closes with it " +
    "(`exact:start`)",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { "ignore-case": "flag", trim: "flag", start: "flag", end: "flag", "strip-punctuation": "flag" })
    if (typeof o === "string") return bad(o)
    if (o["start"] === true && o["end"] === true) return bad("start and end are exclusive")
    return { _tag: "Exact", ...base("exact"), ignoreCase: o["ignore-case"] === true, trim: o["trim"] !== false, ...location(o) }
  },
  build: (spec) =>
    Effect.succeed(
      Match.exact({ name: spec.name, ignoreCase: spec.ignoreCase, trim: spec.trim, at: spec.at, stripPunctuation: spec.stripPunctuation })
    )
}

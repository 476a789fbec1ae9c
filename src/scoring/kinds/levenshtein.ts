/**
 * `levenshtein[:threshold=X][,ignore-case][,trim=false]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { options } from "../internal/specOptions.ts"
import * as Match from "../Match.ts"

/**
 * A parsed `levenshtein` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface LevenshteinSpec extends SpecBase {
  readonly _tag: "Levenshtein"
  readonly threshold: number
  readonly ignoreCase: boolean
  readonly trim: boolean
}

/**
 * The `levenshtein` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<LevenshteinSpec> = {
  kind: "levenshtein",
  tag: "Levenshtein",
  usage: "levenshtein",
  help: "levenshtein[:threshold=X]",
  syntax: "`levenshtein[:threshold=X][,ignore-case][,trim=false]`",
  doc: "similarity `1 - distance / max length` (its `value`) >= X (default 0.8)",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { threshold: "value", "ignore-case": "flag", trim: "flag" })
    if (typeof o === "string") return bad(o)
    const text = o["threshold"] as string | undefined
    const threshold = text === undefined ? 0.8 : /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
    if (!(threshold >= 0 && threshold <= 1)) return bad(`expected threshold to be a number from 0 to 1, got ${JSON.stringify(text)}`)
    return { _tag: "Levenshtein", ...base("levenshtein"), threshold, ignoreCase: o["ignore-case"] === true, trim: o["trim"] !== false }
  },
  build: (spec) =>
    Effect.succeed(Match.levenshtein({ name: spec.name, threshold: spec.threshold, ignoreCase: spec.ignoreCase, trim: spec.trim }))
}

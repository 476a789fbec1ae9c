/**
 * `numeric[:first|last|any][,tolerance=T]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { options, toleranceOf } from "../internal/specOptions.ts"
import * as Structured from "../Structured.ts"

/**
 * A parsed `numeric` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface NumericSpec extends SpecBase {
  readonly _tag: "Numeric"
  readonly tolerance: Structured.Tolerance
  readonly pick?: "first" | "last" | "any" | undefined
}

/**
 * The `numeric` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<NumericSpec> = {
  kind: "numeric",
  tag: "Numeric",
  usage: "numeric",
  help: "numeric[:tolerance=T]",
  syntax: "`numeric[:first|last|any][,tolerance=T]`",
  doc: "the last (or first, or any) number in the output is within T of the reference: absolute (`0.01`) or relative " +
    "(`1%`); default 0: `numeric:any,tolerance=1%`",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { tolerance: "value", first: "flag", last: "flag", any: "flag" })
    if (typeof o === "string") return bad(o)
    const picks = (["first", "last", "any"] as const).filter((p) => o[p] === true)
    if (picks.length > 1) return bad("first, last and any are exclusive")
    const tolerance = o["tolerance"] === undefined ? { _tag: "Absolute" as const, amount: 0 } : toleranceOf(o["tolerance"] as string)
    if (typeof tolerance === "string") return bad(tolerance)
    return { _tag: "Numeric", ...base("numeric"), tolerance, ...(picks.length === 1 ? { pick: picks[0] } : undefined) }
  },
  build: (spec) => Effect.succeed(Structured.numeric({ name: spec.name, tolerance: spec.tolerance, pick: spec.pick }))
}

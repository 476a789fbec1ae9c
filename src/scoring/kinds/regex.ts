/**
 * `regex`, `regex:PATTERN[,capture=N]`, `regex:/PATTERN/FLAGS[,capture=N]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { regexOf } from "../internal/specOptions.ts"
import * as Match from "../Match.ts"

/**
 * A parsed `regex` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface RegexSpec extends SpecBase {
  readonly _tag: "Regex"
  readonly pattern: RegExp | undefined
  readonly capture?: number | undefined
}

/**
 * The `regex` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<RegexSpec> = {
  kind: "regex",
  tag: "Regex",
  usage: "regex",
  help: "regex[:PATTERN]",
  syntax: "`regex`, `regex:PATTERN[,capture=N]`, `regex:/PATTERN/FLAGS[,capture=N]`",
  doc: "the pattern (the reference, or the one given) matches; with `,capture=N`, group N of the first match (0: all of it) " +
    "equals the reference, as `exact` compares (case-insensitively with the `i` flag): `regex:/answer: (\\w+)/i,capture=1`",
  parse: (rest, { bad, base }) => {
    if (rest === undefined) return { _tag: "Regex", ...base("regex"), pattern: undefined }
    // A trailing `,capture=N`, exactly, is the option; `/PATTERN/` keeps a pattern that ends so.
    const option = /,capture=(\d+)$/.exec(rest)
    const pattern = regexOf(option === null ? rest : rest.slice(0, option.index))
    if (typeof pattern === "string") {
      return bad(option === null ? pattern : pattern.replace("write regex alone", "capture=N needs a pattern; write regex alone"))
    }
    if (option === null) return { _tag: "Regex", ...base("regex"), pattern }
    const capture = Number(option[1])
    // Matching the empty alternative gives one slot per group of the pattern.
    const groups = new RegExp(`${pattern.source}|`, pattern.flags).exec("")!.length - 1
    if (capture > groups) return bad(`capture=${capture}, but the pattern has ${groups} group${groups === 1 ? "" : "s"}`)
    return { _tag: "Regex", ...base("regex"), pattern, capture }
  },
  build: (spec) => Effect.succeed(Match.regex({ name: spec.name, pattern: spec.pattern, capture: spec.capture }))
}

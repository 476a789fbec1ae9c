/**
 * `json[:find]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { options } from "../internal/specOptions.ts"
import * as Structured from "../Structured.ts"

/**
 * A parsed `json` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface JsonSpec extends SpecBase {
  readonly _tag: "Json"
  readonly find?: boolean | undefined
}

/**
 * The `json` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<JsonSpec> = {
  kind: "json",
  tag: "Json",
  usage: "json",
  help: "json",
  syntax: "`json`, `json:find`",
  doc: "the output parses as JSON and every key of the reference object has an equal value; `find` also reads the first " +
    "JSON object or array inside prose (`Result: {\"a\": 1}.`)",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { find: "flag" })
    if (typeof o === "string") return bad(o)
    return { _tag: "Json", ...base("json"), ...(o["find"] === true ? { find: true } : undefined) }
  },
  build: (spec) => Effect.succeed(Structured.json({ name: spec.name, find: spec.find }))
}

/**
 * `json-schema:FILE[,find]`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { ScorerSpecError, type ScorerKind, type SpecBase } from "../Kind.ts"
import * as JsonSchema from "../JsonSchema.ts"

/**
 * A parsed `json-schema` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface JsonSchemaSpec extends SpecBase {
  readonly _tag: "JsonSchema"
  readonly file: string
  readonly find: boolean
}

/**
 * The `json-schema` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<JsonSchemaSpec> = {
  kind: "json-schema",
  tag: "JsonSchema",
  usage: "json-schema:FILE",
  help: "json-schema:FILE",
  syntax: "`json-schema:FILE[,find]`",
  doc: "the output's JSON (read as `json` / `json:find` reads it) is valid against the JSON Schema in FILE: " +
    "`--score json-schema:schemas/answer.json`",
  parse: (rest, { bad, base }) => {
    // The file is all the rest; a trailing `,find`, exactly, is the option.
    const target = rest ?? ""
    const find = target.endsWith(",find")
    const file = find ? target.slice(0, -",find".length) : target
    if (file === "") return bad("expected json-schema:FILE[,find], FILE a JSON Schema")
    return { _tag: "JsonSchema", ...base("json-schema"), file, find }
  },
  build: (spec, { options }) =>
    JsonSchema.fromFile(spec.file, { name: spec.name, find: spec.find, cwd: options.cwd }).pipe(
      Effect.mapError((e) => new ScorerSpecError({ where: `--score ${spec.shown}`, problem: e.message }))
    )
}

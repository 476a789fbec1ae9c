/**
 * The registry of simulated user kinds: `--user SPEC` is parsed, shown,
 * recorded and built through it, and the README's table of user kinds is
 * derived from it. A new kind is its file (a `UserKind`) and one entry in
 * `builtIn`.
 *
 * @since 0.9.0
 */
import { Effect, Result, Schema } from "effect"
import { fromString } from "../../internal/options.ts"
import { redactUrl } from "../../internal/redact.ts"
import * as AnthropicUser from "./Anthropic.ts"
import * as ModelUser from "./Model.ts"
import * as ModuleUser from "./Module.ts"
import type { BuildOptions, SimulatedUser, Spec, UserBuildError, UserKind } from "./User.ts"

export { type BuildOptions, type SimulatedUser, type Spec, UserBuildError, UserError, type UserKind } from "./User.ts"

/**
 * The kinds this package has, in the order help and messages list them.
 *
 * @category registry
 * @since 0.9.0
 */
export const builtIn: ReadonlyArray<UserKind> = [ModelUser.kind, AnthropicUser.kind, ModuleUser.kind]

/**
 * The spec of `text`, by the first kind that matches it; a string is the
 * problem, worded for `--user`. A URL is echoed only through `redactUrl`.
 *
 * @category parsing
 * @since 0.9.0
 */
export const parse = (text: string, kinds: ReadonlyArray<UserKind> = builtIn): Spec | string => {
  const kind = kinds.find((k) => k.matches(text))
  if (kind !== undefined) return kind.parse(text)
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]
  return `--user ${redactUrl(text)}: unknown user ${scheme === undefined ? "spec" : `scheme "${scheme}:"`} ` +
    `(expected ${kinds.map((k) => k.usage).join(" or ")})`
}

/**
 * The kind of a spec; a spec no kind parses is a defect of the program that made it.
 *
 * @category registry
 * @since 0.9.0
 */
export const kindOf = (spec: Spec, kinds: ReadonlyArray<UserKind> = builtIn): UserKind => {
  const kind = kinds.find((k) => k.tag === spec._tag)
  if (kind === undefined) throw new Error(`no user kind has the tag ${JSON.stringify(spec._tag)}`)
  return kind
}

/**
 * Builds the user of a spec; a failure is `UserBuildError`, worded for `--user`.
 *
 * @category constructors
 * @since 0.9.0
 */
export const build = (
  spec: Spec,
  options: BuildOptions,
  kinds: ReadonlyArray<UserKind> = builtIn
): Effect.Effect<SimulatedUser, UserBuildError> => Effect.suspend(() => kindOf(spec, kinds).build(spec, options))

/**
 * `--user` as a Schema from its text: parsed by the first kind that matches
 * (whose messages name `--user`), shown again as given.
 *
 * @category schemas
 * @since 0.9.0
 */
export const UserSpec = fromString(
  Schema.declare((u: unknown): u is Spec =>
    typeof u === "object" && u !== null && builtIn.some((k) => k.tag === (u as { readonly _tag?: unknown })._tag)
  ),
  (text) => {
    const spec = parse(text)
    return typeof spec === "string" ? Result.fail(spec) : Result.succeed(spec)
  },
  (spec) => kindOf(spec).format(spec)
)

/**
 * The README's table of user kinds.
 *
 * @category docs
 * @since 0.9.0
 */
export const docsTable = (kinds: ReadonlyArray<UserKind> = builtIn): string =>
  ["| `--user` | Who plays the user |", "| --- | --- |", ...kinds.map((k) => `| \`${k.usage}\` | ${k.doc} |`)].join("\n")

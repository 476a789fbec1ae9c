/**
 * `--agent` as a Schema from its text.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { fromString } from "../internal/options.ts"
import * as AgentKinds from "./AgentKinds.ts"

/**
 * `--agent` over a list of kinds: parsed by the first kind that matches the
 * text (whose messages name `--agent`), shown again with every default
 * written out.
 *
 * @category schemas
 * @since 0.3.0
 */
export const make = <S extends AgentKinds.Spec = AgentKinds.Spec>(kinds: ReadonlyArray<AgentKinds.AgentKind>) => {
  const tags = new Set(kinds.map((k) => k.tag))
  return fromString(
    Schema.declare((u: unknown): u is S =>
      typeof u === "object" && u !== null && tags.has((u as { readonly _tag?: unknown })._tag as string)
    ),
    (text) => {
      const spec = AgentKinds.parse(text, kinds)
      return typeof spec === "string" ? Result.fail(spec) : Result.succeed(spec as S)
    },
    (spec) => AgentKinds.kindOf(spec, kinds).format(spec)
  )
}

/**
 * An `--agent` spec of a built-in kind: `sim[:latency=20ms,...]`,
 * `module:PATH[#export]`, `http(s)://URL` or `openai:BASE_URL`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AgentSpec = make<AgentKinds.BuiltInSpec>(AgentKinds.builtIn)

/**
 * `--tools` as a Schema from its text.
 *
 * @since 0.5.0
 */
import { Result, Schema } from "effect"
import { fromString } from "../../internal/options.ts"
import * as ToolSources from "./Sources.ts"

/**
 * A `--tools` spec of a built-in source: `module:PATH[#export]`,
 * `mcp:stdio:COMMAND [ARGS...]`, `mcp:URL` or `exec`, parsed by the first source
 * that matches (whose messages name `--tools`).
 *
 * @category schemas
 * @since 0.5.0
 */
export const ToolSpec = fromString(
  Schema.declare((u: unknown): u is ToolSources.Spec =>
    typeof u === "object" && u !== null &&
    ToolSources.builtIn.some((s) => s.tag === (u as { readonly _tag?: unknown })._tag)
  ),
  (text) => {
    const spec = ToolSources.parse(text)
    return typeof spec === "string" ? Result.fail(spec) : Result.succeed(spec)
  },
  (spec) => ToolSources.sourceOf(spec).format(spec)
)

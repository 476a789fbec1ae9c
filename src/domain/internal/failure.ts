/**
 * Where and why a value failed a Schema, read from the message of a decode's
 * first failure (`Expected an integer, got 1e+300\n  at ["usage"]["input_tokens"]`):
 * the one reading of it, for every message that names the field.
 *
 * @internal
 */

/**
 * The problem and the path of the field at fault (`["usage", "input_tokens"]`),
 * no path when the value failed as a whole.
 *
 * **Example** (A field inside the value)
 *
 * ```ts
 * import { schemaFailure } from "./failure.ts"
 *
 * schemaFailure({ error: { message: "Missing key\n  at [\"trajectory\"][0][\"started_at\"]" } })
 * // { problem: "Missing key", path: ["trajectory", "0", "started_at"] }
 * ```
 *
 * @internal
 */
export const schemaFailure = (
  reason: unknown,
  otherwise = ""
): { readonly problem: string; readonly path: ReadonlyArray<string> | undefined } => {
  const message = String((reason as { error?: { message?: unknown } } | undefined)?.error?.message ?? otherwise)
  const [problem = "", at] = message.split("\n  at ")
  return {
    problem,
    path: at === undefined ? undefined : [...at.matchAll(/\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]!)
  }
}

/**
 * Where and why a value failed a Schema: `schemaProblems` walks a decode's
 * issue tree (the path, the issue, the check that failed);
 * `schemaFailure` reads the message of its first failure
 * (`Expected an integer, got 1e+300\n  at ["usage"]["input_tokens"]`), for
 * the messages built on that text.
 *
 * @internal
 */
import type { SchemaAST, SchemaIssue } from "effect"

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

/**
 * One thing wrong with a value, from a Schema's issue tree: where (`path`,
 * the keys from the value's root down to the field at fault), the innermost
 * issue (a missing key, a wrong type, a union no member of which fits, or a
 * check's verdict), the check's issue when a check failed (its `filter` is
 * the check, by identity), and what the field
 * should be (`expected`: the schema of the type, or of a missing key, read
 * from its struct). No message text is read.
 *
 * @internal
 */
export interface SchemaProblem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly issue: SchemaIssue.Leaf | SchemaIssue.AnyOf
  readonly check: SchemaIssue.Filter | undefined
  readonly expected: SchemaAST.AST | undefined
}

/**
 * Every problem of an issue tree, in the order the Schema found them (decode
 * with `errors: "all"` for more than the first).
 *
 * **Example** (A missing field of a nested struct)
 *
 * ```ts
 * import { Result, Schema } from "effect"
 * import { schemaProblems } from "./failure.ts"
 *
 * const decoded = Schema.decodeUnknownResult(Schema.Struct({ a: Schema.Struct({ b: Schema.Number }) }))({ a: {} })
 * if (Result.isFailure(decoded)) schemaProblems(decoded.failure.issue)
 * // [{ path: ["a", "b"], issue: MissingKey, check: undefined, expected: <Number> }]
 * ```
 *
 * @internal
 */
export const schemaProblems = (issue: SchemaIssue.Issue): Array<SchemaProblem> => {
  const found: Array<SchemaProblem> = []
  const walk = (
    issue: SchemaIssue.Issue,
    path: ReadonlyArray<PropertyKey>,
    parent: SchemaAST.AST | undefined,
    check: SchemaIssue.Filter | undefined
  ): void => {
    switch (issue._tag) {
      case "Pointer":
        return walk(issue.issue, [...path, ...issue.path], parent, check)
      case "Composite":
        for (const inner of issue.issues) walk(inner, path, issue.ast, check)
        return
      case "Encoding":
        return walk(issue.issue, path, parent, check)
      case "Filter":
        return walk(issue.issue, path, parent, issue)
      case "MissingKey":
        return void found.push({ path, issue, check, expected: fieldOf(parent, path.at(-1)) })
      case "InvalidType":
      case "AnyOf":
        return void found.push({ path, issue, check, expected: issue.ast })
      default:
        return void found.push({ path, issue, check, expected: undefined })
    }
  }
  walk(issue, [], undefined, undefined)
  return found
}

// A key's schema in the struct that misses it.
const fieldOf = (parent: SchemaAST.AST | undefined, key: PropertyKey | undefined): SchemaAST.AST | undefined =>
  parent?._tag === "Objects" ? parent.propertySignatures.find((p) => p.name === key)?.type : undefined

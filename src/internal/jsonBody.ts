/**
 * A request body as JSON text, or what in it JSON cannot hold and where: a
 * BigInt, a cycle, a `toJSON` that throws. `JSON.stringify` only says
 * "Do not know how to serialize a BigInt"; a user needs the field.
 *
 * @internal
 */

/**
 * `value` as JSON text, or `{ problem }`: the first field JSON cannot hold,
 * by its dotted path (`inputs.n is a BigInt (10), which JSON cannot hold`).
 *
 * **Example** (A BigInt in a task)
 *
 * ```ts
 * import { encodeJson } from "./jsonBody.ts"
 *
 * encodeJson({ id: "t1", inputs: { n: 10n } }) // { problem: "field inputs.n is a BigInt (10), which JSON cannot hold" }
 * ```
 *
 * @internal
 */
export const encodeJson = (value: unknown): string | { readonly problem: string } => {
  try {
    return JSON.stringify(value) ?? "null"
  } catch (error) {
    let found: string | undefined
    try {
      found = findProblem(value, [], [], 0)
    } catch {
      // A getter that throws: JSON.stringify's own words say as much.
    }
    return { problem: found ?? (error instanceof Error ? error.message : String(error)) }
  }
}

// Deep enough for any task; a deeper problem is named by JSON.stringify's own words.
const MAX_DEPTH = 64

const fieldName = (path: ReadonlyArray<string>): string => (path.length === 0 ? "the body" : `field ${path.join(".")}`)

const findProblem = (
  value: unknown,
  path: Array<string>,
  ancestors: Array<{ readonly value: object; readonly path: string }>,
  depth: number
): string | undefined => {
  if (typeof value === "bigint") return `${fieldName(path)} is a BigInt (${value}), which JSON cannot hold`
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return undefined
  const back = ancestors.find((a) => a.value === value)
  if (back !== undefined) {
    return `${fieldName(path)} refers back to ${back.path === "" ? "the body" : back.path} (a cycle), which JSON cannot hold`
  }
  const toJSON = (value as { readonly toJSON?: unknown }).toJSON
  if (typeof toJSON === "function") {
    let json: unknown
    try {
      json = toJSON.call(value, path.at(-1) ?? "")
    } catch (error) {
      return `${fieldName(path)}: its toJSON threw (${error instanceof Error ? error.message : String(error)})`
    }
    if (json !== value) return findProblem(json, path, ancestors, depth + 1)
  }
  ancestors.push({ value, path: path.join(".") })
  try {
    for (const [key, item] of Object.entries(value)) {
      path.push(key)
      const found = findProblem(item, path, ancestors, depth + 1)
      path.pop()
      if (found !== undefined) return found
    }
    return undefined
  } finally {
    ancestors.pop()
  }
}

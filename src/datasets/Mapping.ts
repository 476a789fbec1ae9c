/**
 * How a row of a table (a CSV or Parquet row, a JSON record) becomes a task:
 * `--map id=question_id,inputs.instruction=question,reference=answer`, each
 * pair a dotted path into the task from a dotted path into the row, or, with
 * no `--map`, the default rules: the `id` column is the id (else the row
 * number, `row-N`), the first of `reference`, `answer`, `target` the
 * reference (the others of those go to `metadata`, never to the agent), and
 * every other column an input.
 *
 * @since 0.3.0
 */
import { Result, Schema } from "effect"
import { fromString, quote } from "../internal/options.ts"
import { getOwn, setOwn } from "./internal/own.ts"

/**
 * One `TARGET=SOURCE` pair: where in the task, from where in the row.
 *
 * @category models
 * @since 0.3.0
 */
export const Pair = Schema.Struct({
  /** The task's field (a `Target`) and the path below it: `["inputs", "instruction"]`. */
  target: Schema.NonEmptyArray(Schema.String),
  /** The row's column, then the path below it: `["meta", "subject"]`. */
  source: Schema.NonEmptyArray(Schema.String),
  /** As given, for messages. */
  text: Schema.String
})
export type Pair = typeof Pair.Type

/**
 * The fields of a task a pair can fill.
 *
 * @category models
 * @since 0.3.0
 */
export type Target = "id" | "inputs" | "intent" | "reference" | "metadata"

const TARGETS: ReadonlyArray<Target> = ["id", "inputs", "intent", "reference", "metadata"]

/**
 * `--map`, parsed: its pairs in order.
 *
 * @category models
 * @since 0.3.0
 */
export type Mapping = ReadonlyArray<Pair>

/** Columns the default rules read as the reference, in order of preference. */
export const REFERENCE_COLUMNS: ReadonlyArray<string> = ["reference", "answer", "target"]

const segmentsOf = (path: string): Array<string> | undefined => {
  const segments = path.split(".")
  return segments.every((s) => s.trim() !== "") ? segments.map((s) => s.trim()) : undefined
}

/**
 * Parses `--map` text, every problem named with the pair it is in.
 *
 * **Example**
 *
 * ```ts
 * import { Options } from "agent-trials"
 * import { Schema } from "effect"
 *
 * // The `--map` flag's codec, which parses with this function.
 * const mapping = Schema.decodeUnknownSync(Options.Mapping)("id=qid,inputs.question=q,reference=a")
 * // [{ target: ["id"], source: ["qid"], ... }, ...]
 * ```
 *
 * @category parsing
 * @since 0.3.0
 */
export const parse = (text: string): Result.Result<Mapping, string> => {
  const pairs: Array<Pair> = []
  const like = "like id=question_id,inputs.instruction=question,reference=answer"
  if (text.trim() === "") return Result.fail(`Expected TARGET=COLUMN pairs separated by commas (${like}), got ""`)
  for (const raw of text.split(",")) {
    const pair = raw.trim()
    const eq = pair.indexOf("=")
    if (eq < 0) return Result.fail(`${quote(pair)} is not TARGET=COLUMN (${like})`)
    const target = segmentsOf(pair.slice(0, eq).trim())
    const source = segmentsOf(pair.slice(eq + 1).trim())
    if (target === undefined || source === undefined) {
      return Result.fail(`${quote(pair)}: an empty path (${like})`)
    }
    const field = target[0]!
    if (!(TARGETS as ReadonlyArray<string>).includes(field)) {
      return Result.fail(`${quote(pair)}: the target must start with one of ${TARGETS.join(", ")}, got ${quote(target[0]!)}`)
    }
    if ((field === "id" || field === "intent") && target.length > 1) {
      return Result.fail(`${quote(pair)}: ${field} is text, it has no fields below it`)
    }
    const same = pairs.find((p) => p.target.join(".") === target.join("."))
    if (same !== undefined) return Result.fail(`${target.join(".")} is mapped twice (${same.text}, ${pair})`)
    pairs.push({ target: [field, ...target.slice(1)], source: [source[0]!, ...source.slice(1)], text: pair })
  }
  return Result.succeed(pairs)
}

/**
 * `--map` as a Schema from its text.
 *
 * @category schemas
 * @since 0.3.0
 */
export const MappingFromString = fromString(
  Schema.Array(Pair),
  parse,
  (mapping) => mapping.map((p) => p.text).join(",")
)

/**
 * The mapping as recorded (the run definition, the summary): its pairs as
 * given, or null for the default rules.
 *
 * @category formatting
 * @since 0.3.0
 */
export const recorded = (mapping: Mapping | undefined): string | null =>
  mapping === undefined ? null : mapping.map((p) => p.text).join(",")

/**
 * What a row holds at a source path: the column named by the whole dotted
 * text first (CSV headers often hold dots), else the path into the column's
 * value.
 */
const valueAt = (row: Readonly<Record<string, unknown>>, source: Pair["source"]): unknown => {
  const whole = source.join(".")
  if (source.length > 1 && Object.hasOwn(row, whole)) return row[whole]
  let value: unknown = row
  for (const segment of source) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, segment)) return undefined
    value = (value as Record<string, unknown>)[segment]
  }
  return value
}

/** At most this many column names in a message: a table may have 100,000. */
const LISTED = 20

/**
 * Column names for a message, comma-separated: at most 20,
 * then how many more.
 *
 * @category formatting
 * @since 0.5.0
 */
export const listed = (names: ReadonlyArray<string>): string =>
  names.slice(0, LISTED).join(", ") + (names.length > LISTED ? ` and ${names.length - LISTED} more` : "")

/**
 * The first problem with `mapping` over a table with `columns`: a source
 * column that is not there, named with the columns that are.
 *
 * @category checking
 * @since 0.3.0
 */
export const check = (mapping: Mapping | undefined, columns: ReadonlyArray<string>): string | undefined => {
  for (const pair of mapping ?? []) {
    if (columns.includes(pair.source.join(".")) || columns.includes(pair.source[0])) continue
    return `--map ${pair.text}: no column ${quote(pair.source[0])} (the columns: ${columns.length === 0 ? "none" : listed(columns)})`
  }
  return undefined
}

/**
 * A row made a task, before the task's Schema checks it; or the problem,
 * with the column it is in.
 *
 * @category models
 * @since 0.3.0
 */
export type Mapped =
  | { readonly _tag: "Task"; readonly task: Record<string, unknown> }
  | { readonly _tag: "Invalid"; readonly column: string | undefined; readonly message: string }

// Own keys only, walking and setting: a path through `__proto__` or `constructor` is data, never Object.prototype.
const setAt = (into: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown) => {
  let node = into
  for (const segment of path.slice(0, -1)) {
    const next = getOwn(node, segment)
    if (typeof next !== "object" || next === null || Array.isArray(next)) setOwn(node, segment, {})
    node = getOwn(node, segment) as Record<string, unknown>
  }
  setOwn(node, path[path.length - 1]!, value)
}

const idOf = (value: unknown, column: string): Mapped | string => {
  if (typeof value === "string") {
    return value.trim() === "" ? { _tag: "Invalid", column, message: "an empty id" } : value
  }
  if (typeof value === "number" && Number.isFinite(value)) return String(value)
  if (typeof value === "bigint") return String(value)
  return { _tag: "Invalid", column, message: `the id must be text or a number, got ${describe(value)}` }
}

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`

/**
 * Makes the task of a row (`number` is its 1-based position, for `row-N`).
 * A missing or null source value leaves its target out (`inputs.x`: null);
 * an id that is empty, or not text or a number, is a problem of its column.
 *
 * @category mapping
 * @since 0.3.0
 */
export const apply = (
  mapping: Mapping | undefined,
  row: Readonly<Record<string, unknown>>,
  number: number
): Mapped => {
  // Unless the mapping names the id, the default rule gives it.
  const byDefault = mapping === undefined || !mapping.some((p) => p.target[0] === "id")
  const id = byDefault && Object.hasOwn(row, "id") && row.id !== null && row.id !== "" ? idOf(row.id, "id") : `row-${number}`
  if (typeof id !== "string") return id
  const task: Record<string, unknown> = { id, inputs: {} }
  if (mapping === undefined) {
    const reference = REFERENCE_COLUMNS.find((c) => Object.hasOwn(row, c))
    for (const [column, value] of Object.entries(row)) {
      if (column === "id") continue
      if (column === reference) task.reference = value
      else if (REFERENCE_COLUMNS.includes(column)) setAt(task, ["metadata", column], value)
      else setAt(task, ["inputs", column], value)
    }
    return { _tag: "Task", task }
  }
  for (const pair of mapping) {
    const value = valueAt(row, pair.source)
    const column = pair.source.join(".")
    if (pair.target[0] === "id") {
      if (value === undefined || value === null) {
        return { _tag: "Invalid", column, message: `no id (--map ${pair.text})` }
      }
      const id = idOf(value, column)
      if (typeof id !== "string") return id
      task.id = id
      continue
    }
    if (value === undefined || value === null) {
      if (pair.target[0] === "inputs" && pair.target.length > 1) setAt(task, pair.target, null)
      continue
    }
    if (pair.target[0] === "intent" && typeof value !== "string") {
      return { _tag: "Invalid", column, message: `intent must be text, got ${describe(value)}` }
    }
    if ((pair.target[0] === "inputs" || pair.target[0] === "metadata") && pair.target.length === 1) {
      if (typeof value !== "object" || Array.isArray(value)) {
        return { _tag: "Invalid", column, message: `${pair.target[0]} must be an object, got ${describe(value)}` }
      }
    }
    setAt(task, pair.target, value)
  }
  return { _tag: "Task", task }
}

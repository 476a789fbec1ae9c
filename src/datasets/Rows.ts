/**
 * Rows of a table made tasks: what every tabular format (CSV, TSV, JSON,
 * Parquet, the Hub) shares once its reader has a row and knows where it was.
 * The mapping is checked against the table's columns before the first task
 * is given out; a row that is not a task (an id that is missing, empty or
 * repeated, a field of the wrong type) is an error naming the file, the row
 * and the column, or, with `skip`, an `Invalid` item.
 *
 * @since 0.3.0
 */
import { Effect, Schema, Stream } from "effect"
import { AgentEvalTask } from "../domain/Trial.ts"
import { IdSet } from "../internal/IdSet.ts"
import { setOwn } from "./internal/own.ts"
import * as Mapping from "./Mapping.ts"
import { DatasetError, type Item, type ReadOptions } from "./Source.ts"

/**
 * A row as its reader found it.
 *
 * @category models
 * @since 0.3.0
 */
export interface Row {
  /** Column name to value, values as JSON would hold them. */
  readonly values: Readonly<Record<string, unknown>>
  /** Where the row is, for messages: `row 3 (line 4)`, `row group 0, row 17`. */
  readonly where: string
  /** What its reader already found wrong with it (a record of another length than the header). */
  readonly problem?: string | undefined
}

const decodeTask = Schema.decodeUnknownExit(AgentEvalTask)

/**
 * The items of a table's rows. `columns` gives the table's columns when
 * its format knows them by the first row (a CSV header, a Parquet schema);
 * else the first row's keys are. `name` is the file as messages show it.
 *
 * @category constructors
 * @since 0.3.0
 */
export const toItems = <E, R>(
  name: string,
  rows: Stream.Stream<Row | DatasetError, E, R>,
  options: ReadOptions & {
    readonly columns?: (() => ReadonlyArray<string>) | undefined
    /**
     * Read a record holding `inputs` as a task as it is (the JSON
     * formats without `--map`); else every row goes through the mapping.
     */
    readonly tasksAsTheyAre?: boolean | undefined
  }
): Stream.Stream<Item, E | DatasetError, R> =>
  Stream.suspend(() => {
    const seen = new IdSet()
    let number = 0
    let checked = options.map === undefined
    const parse = (row: Row | DatasetError): Item | DatasetError => {
      // A reader's own error comes after the rows it read before it.
      if (row instanceof DatasetError) return row
      number++
      if (!checked) {
        checked = true
        const problem = Mapping.check(options.map, options.columns?.() ?? Object.keys(row.values))
        if (problem !== undefined) return new DatasetError({ path: name, message: `${name}: ${problem}` })
      }
      const invalid = (taskId: string | undefined, column: string | undefined, message: string): Item | DatasetError => {
        const text = `${name}: ${row.where}${column === undefined ? "" : `, column ${JSON.stringify(column)}`}: ${message}`
        return options.onInvalid === "skip"
          ? {
            _tag: "Invalid",
            // The record takes the row's id only while no other row has it.
            taskId: taskId !== undefined && seen.add(taskId) ? taskId : `${name}:row-${number}`,
            message: text
          }
          : new DatasetError({ path: name, message: text })
      }
      if (row.problem !== undefined) return invalid(undefined, undefined, row.problem)
      const asIs = options.tasksAsTheyAre === true && options.map === undefined && Object.hasOwn(row.values, "inputs")
      const mapped: Mapping.Mapped = asIs ? { _tag: "Task", task: row.values } : Mapping.apply(options.map, row.values, number)
      if (mapped._tag === "Invalid") return invalid(undefined, mapped.column, mapped.message)
      const exit = decodeTask(mapped.task)
      const rawId = mapped.task.id
      const id = typeof rawId === "string" ? rawId : undefined
      if (exit._tag === "Failure") {
        const [problem, where] = String(
          (exit.cause.reasons[0] as { error?: { message?: unknown } } | undefined)?.error?.message ?? "does not match AgentEvalTask"
        ).split("\n  at ")
        return invalid(id, undefined, where === undefined ? `not an AgentEvalTask: ${problem}` : `field ${fieldOf(where)}: ${problem}`)
      }
      if (!seen.add(exit.value.id)) return invalid(undefined, undefined, `duplicate task id ${JSON.stringify(exit.value.id)}`)
      return { _tag: "Task", task: exit.value }
    }
    return rows.pipe(
      Stream.map(parse),
      // A bad row stops the stream here, before any later task is admitted.
      Stream.mapEffect((item) => item instanceof DatasetError ? Effect.fail(item) : Effect.succeed(item)),
      Stream.concat(Stream.suspend(() =>
        number === 0
          ? Stream.fail(new DatasetError({ path: name, message: `${name} holds no tasks (the dataset is empty)` }))
          : Stream.empty
      ))
    )
  })

const fieldOf = (where: string) => where.replace(/^\["?|"?\]$/g, "").replace(/"\]\["/g, ".")

/**
 * A value a reader gives made one JSON can hold: a `bigint` a number when
 * it is exact, else its digits; a `Date` its ISO text; bytes base64; and
 * the same inside arrays and objects.
 *
 * @category constructors
 * @since 0.3.0
 */
export const toJsonValue = (value: unknown): unknown => {
  if (value === undefined) return null
  if (typeof value === "bigint") {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : String(value)
  }
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value)
  if (typeof value !== "object" || value === null) return value
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64")
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Array.from(value as ArrayLike<unknown>, toJsonValue)
  if (value instanceof Map) return Object.fromEntries(Array.from(value, ([k, v]) => [String(k), toJsonValue(v)]))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) setOwn(out, k, toJsonValue(v))
  return out
}

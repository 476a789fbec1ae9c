/**
 * The cells of a matrix run, read from the `matrix:` value of a config file:
 * either a map of key -> non-empty list of values (the cartesian product of
 * the lists, in the order the keys are written, the last key varying
 * fastest), or a list of cells, each a map of keys with an optional `name`.
 * A cell's name is its `name`, or a readable slug of its values
 * (`openai-h-v1_gpt-4o`); names are file names (`<cell>.jsonl`), so they are
 * unique (case aside) and safe. `select` keeps the cells `--cell NAME` asks
 * for. Pure: no services, no I/O.
 *
 * @since 0.8.0
 */
import { Result, Schema } from "effect"
import { redactText } from "../../internal/redact.ts"
import * as Levenshtein from "../../scoring/Levenshtein.ts"

const REDACTED = "<redacted>"

/**
 * A `matrix:` value, or a `--cell` name, that cannot be used: `where` is the
 * file (or flag) it came from, `index` the cell (0-based; shown 1-based),
 * `key` the key at fault, `problem` what is wrong with it.
 *
 * @category errors
 * @since 0.8.0
 */
export class MatrixCellError extends Schema.TaggedError<MatrixCellError>()("MatrixCellError", {
  where: Schema.String,
  key: Schema.optionalKey(Schema.String),
  index: Schema.optionalKey(Schema.Number),
  problem: Schema.String
}) {
  override get message(): string {
    const cell = this.index === undefined ? "" : ` cell ${this.index + 1}`
    const key = this.key === undefined ? "" : ` key ${JSON.stringify(this.key)}`
    return `${this.where}: matrix${cell}${key}: ${this.problem}`
  }
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
}

/**
 * One cell: its name (a safe file name) and the run keys it sets, as the
 * file wrote them (`agent`, `model`, `max-turns`, ...).
 *
 * @category models
 * @since 0.8.0
 */
export interface Cell {
  readonly name: string
  readonly values: Readonly<Record<string, unknown>>
}

/**
 * The longest cell name: a slug longer than this is cut and given a hash of the whole.
 *
 * @category constants
 * @since 0.8.0
 */
export const MAX_NAME = 80

// A name is a file's base name: a letter or digit first, then letters, digits, `.`, `_`, `-`.
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The cells of a `matrix:` value; `where` names the file in errors. For
 * example `{ agent: ["sim", "openai:http://h/v1"], model: ["a", "b"] }`
 * gives the cells `sim_a`, `sim_b`, `openai-h-v1_a`, `openai-h-v1_b`.
 *
 * @category constructors
 * @since 0.8.0
 */
export const cellsOf = (matrix: unknown, where: string): Result.Result<ReadonlyArray<Cell>, MatrixCellError> => {
  const bad = (problem: string, at: { readonly key?: string; readonly index?: number } = {}) =>
    Result.fail(new MatrixCellError({ where, problem, ...at }))
  const read = readCells(matrix)
  if (typeof read === "object" && "problem" in read) return bad(read.problem, read)
  const cells: Array<Cell> = []
  const seen = new Map<string, number>()
  for (const [index, cell] of read.entries()) {
    if (cell.name !== undefined && (!SAFE_NAME.test(cell.name) || cell.name.length > MAX_NAME)) {
      return bad(
        `${JSON.stringify(cell.name)} is not a safe file name: use letters, digits, '.', '_' and '-' ` +
          `(a letter or digit first, at most ${MAX_NAME} characters)`,
        { index, key: "name" }
      )
    }
    const named: Cell = { name: cell.name ?? slugOf(cell.values, index), values: cell.values }
    const first = seen.get(named.name.toLowerCase())
    if (first !== undefined) {
      return bad(
        `its name ${JSON.stringify(named.name)} is also cell ${first + 1}'s (${valuesText(cells[first].values)}; ` +
          `this one: ${valuesText(named.values)}): names are file names and must differ (case aside); give one a \`name\``,
        { index, key: "name" }
      )
    }
    seen.set(named.name.toLowerCase(), index)
    cells.push(named)
  }
  return Result.succeed(cells)
}

interface Problem {
  readonly problem: string
  readonly key?: string
  readonly index?: number
}

// The cells' names (when given) and values, or what is wrong with the shape of the value.
const readCells = (
  matrix: unknown
): ReadonlyArray<{ readonly name: string | undefined; readonly values: Record<string, unknown> }> | Problem => {
  if (Array.isArray(matrix)) {
    if (matrix.length === 0) return { problem: "is an empty list: give at least one cell (a map of run keys)" }
    const cells: Array<{ readonly name: string | undefined; readonly values: Record<string, unknown> }> = []
    for (const [index, cell] of matrix.entries()) {
      if (!isMap(cell)) return { problem: `is ${describe(cell)}: a cell is a map of run keys (optionally with \`name\`)`, index }
      const { name, ...values } = cell
      if (name !== undefined && typeof name !== "string") return { problem: `is ${describe(name)}: a cell's name is text`, index, key: "name" }
      cells.push({ name, values })
    }
    return cells
  }
  if (!isMap(matrix)) return { problem: `is ${describe(matrix)}: give a map of key -> list of values, or a list of cells` }
  const keys = Object.keys(matrix)
  if (keys.length === 0) return { problem: "is an empty map: give each key that varies a list of values" }
  for (const key of keys) {
    const list = matrix[key]
    if (key === "name") return { problem: "`name` names one cell: give the matrix as a list of cells to name them", key }
    if (!Array.isArray(list)) return { problem: `is ${describe(list)}: each key of a matrix map takes a list of the values it varies over`, key }
    if (list.length === 0) return { problem: "is an empty list: each key varies over at least one value", key }
  }
  return product(keys.map((key) => matrix[key] as Array<unknown>)).map((combination) => ({
    name: undefined,
    values: Object.fromEntries(keys.map((key, i) => [key, combination[i]]))
  }))
}

/**
 * The cells `only` names (`--cell NAME`, repeatable), in the matrix's order;
 * every cell when `only` is empty. An unknown name is refused, naming the
 * closest cell name.
 *
 * @category combinators
 * @since 0.8.0
 */
export const select = <C extends { readonly name: string }>(
  cells: ReadonlyArray<C>,
  only: ReadonlyArray<string>
): Result.Result<ReadonlyArray<C>, MatrixCellError> => {
  if (only.length === 0) return Result.succeed(cells)
  const names = cells.map((cell) => cell.name)
  const unknown = only.find((name) => !names.includes(name))
  if (unknown !== undefined) {
    const near = closest(unknown, names)
    return Result.fail(
      new MatrixCellError({
        where: "--cell",
        problem: `no cell is named ${JSON.stringify(unknown)}` +
          (near === undefined ? "" : `; the closest is ${JSON.stringify(near)}`) +
          ` (cells: ${names.join(", ")})`
      })
    )
  }
  const wanted = new Set(only)
  return Result.succeed(cells.filter((cell) => wanted.has(cell.name)))
}

/**
 * A readable slug of a cell's values: each value's text lowercased, an
 * `http://` or `https://` dropped, every run of other characters than
 * `[a-z0-9.]` made one `-` (a URL's credentials and query values left out);
 * a number or boolean value is written after its
 * key (`max-turns-5`, `adaptive`, `no-adaptive`); values joined by `_`. A
 * slug longer than `MAX_NAME` is cut and ends in a hash of the whole; an
 * empty one is `cell-N`.
 *
 * @category constructors
 * @since 0.8.0
 */
export const slugOf = (values: Readonly<Record<string, unknown>>, index: number): string => {
  const parts = Object.entries(values).map(([key, value]) => partOf(key, value)).filter((part) => part.length > 0)
  const whole = parts.join("_")
  if (whole.length === 0) return `cell-${index + 1}`
  if (whole.length <= MAX_NAME) return whole
  return `${whole.slice(0, MAX_NAME - 9).replace(/[-_.]+$/, "")}-${hash(whole)}`
}

const clean = (text: string): string =>
  text.toLowerCase().replace(/https?:\/\//g, "-").replace(/[^a-z0-9.]+/g, "-").replace(/^[-.]+|[-.]+$/g, "")

const partOf = (key: string, value: unknown): string => {
  // A URL's credentials and query values never reach a name (a file name, a line on stdout).
  if (typeof value === "string") return clean(redactText(value).replaceAll(REDACTED, ""))
  if (typeof value === "boolean") return clean(value ? key : `no-${key}`)
  if (typeof value === "number" || value === null) return clean(`${key}-${String(value)}`)
  if (Array.isArray(value)) return value.map((v) => partOf(key, v)).filter((p) => p.length > 0).join("-")
  return clean(`${key}-${JSON.stringify(value)}`)
}

// FNV-1a, 32 bits, as 8 hex digits: two long slugs that share their first part still differ.
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16).padStart(8, "0")
}

// Every combination of one value of each list, the last list varying fastest.
const product = (lists: ReadonlyArray<ReadonlyArray<unknown>>): Array<Array<unknown>> =>
  lists.reduce<Array<Array<unknown>>>((acc, list) => acc.flatMap((prefix) => list.map((v) => [...prefix, v])), [[]])

const valuesText = (values: Readonly<Record<string, unknown>>): string => {
  const entries = Object.entries(values)
  return entries.length === 0 ? "no keys" : entries.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join(", ")
}

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "a map" : `${typeof value} ${JSON.stringify(value)}`

const closest = (name: string, names: ReadonlyArray<string>): string | undefined => {
  let best: { readonly name: string; readonly d: number } | undefined
  const a = Levenshtein.codePoints(name.toLowerCase())
  for (const candidate of names) {
    const r = Levenshtein.distance(a, Levenshtein.codePoints(candidate.toLowerCase()))
    const d = r._tag === "Exact" ? r.distance : r.atLeast
    if (best === undefined || d < best.d) best = { name: candidate, d }
  }
  return best?.name
}

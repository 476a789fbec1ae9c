/**
 * The registry of dataset formats: `--tasks FILE` is read by the format
 * `--format` names, else by the one whose extension the file has, else by
 * the first (JSONL, so any other name and `-` read as JSONL). `--format`'s
 * help and the README's table of formats are derived from it. A new format
 * is its file (a `DatasetFormat`) and one entry in `builtIn`.
 *
 * @since 0.3.0
 */
import { Effect, Result, Schema, Stream } from "effect"
import { fromString, quote } from "../internal/options.ts"
import * as Csv from "./Csv.ts"
import * as HuggingFace from "./HuggingFace.ts"
import * as Json from "./Json.ts"
import * as Jsonl from "./Jsonl.ts"
import * as Parquet from "./Parquet.ts"
import { DatasetError, type DatasetFormat, type Item, type ReadOptions, type Services } from "./Source.ts"

export type { DatasetFormat, ReadOptions } from "./Source.ts"

/**
 * The formats this package reads; the first is the one for a name no other
 * claims.
 *
 * @category registry
 * @since 0.3.0
 */
export const builtIn: readonly [DatasetFormat, ...Array<DatasetFormat>] = [
  Jsonl.format,
  Json.format,
  Csv.csv,
  Csv.tsv,
  Parquet.format,
  HuggingFace.format
]

/**
 * The format `name` names, or when undefined the one for `path`; a string is
 * the problem, worded for `--format`.
 *
 * @category registry
 * @since 0.3.0
 */
export const formatOf = (
  path: string,
  name: string | undefined,
  formats: ReadonlyArray<DatasetFormat> = builtIn
): DatasetFormat | string => {
  if (name !== undefined) {
    return formats.find((f) => f.name === name) ??
      `--format ${name}: unknown dataset format (expected ${formats.map((f) => f.name).join(", ")})`
  }
  const byPrefix = formats.find((f) => f.prefix !== undefined && path.startsWith(f.prefix))
  if (byPrefix !== undefined) return byPrefix
  const lower = path.toLowerCase()
  return formats.find((f) => f.extensions.some((extension) => lower.endsWith(extension))) ?? formats[0] ??
    "no dataset format is registered"
}

/**
 * The items of `path` in its format (see `formatOf`).
 *
 * @category sources
 * @since 0.3.0
 */
export const read = (
  path: string,
  options: ReadOptions & { readonly format?: string | undefined },
  formats: ReadonlyArray<DatasetFormat> = builtIn
): Stream.Stream<Item, DatasetError, Services> => {
  const format = formatOf(path, options.format, formats)
  return typeof format === "string"
    ? Stream.fail(new DatasetError({ path, message: format }))
    : format.read(path, options)
}

/**
 * The tasks `path` holds, when its format can count them.
 *
 * @category sources
 * @since 0.3.0
 */
export const count = (
  path: string,
  name: string | undefined,
  formats: ReadonlyArray<DatasetFormat> = builtIn,
  options: Pick<ReadOptions, "jsonPath"> = {}
) => {
  const format = formatOf(path, name, formats)
  return typeof format === "string" || format.count === undefined ? Effect.succeed(undefined) : format.count(path, options)
}

/**
 * `--format NAME` as a Schema from its text: one of the formats' names.
 *
 * @category schemas
 * @since 0.3.0
 */
export const FormatName = (formats: ReadonlyArray<DatasetFormat> = builtIn) =>
  fromString(
    Schema.String,
    (text) =>
      formats.some((f) => f.name === text)
        ? Result.succeed(text)
        : Result.fail(`Expected a dataset format (${formats.map((f) => f.name).join(", ")}), got ${quote(text)}`),
    (name) => name
  )

// The names a format is chosen for: its prefix, its extensions, and for
// the first every other name.
const chosenFor = (f: DatasetFormat, i: number, code: (text: string) => string): Array<string> => [
  ...(f.prefix === undefined ? [] : [code(`${f.prefix}...`)]),
  ...f.extensions.map(code),
  ...(i === 0 ? ["any other name"] : [])
]

/**
 * `--format`'s help.
 *
 * @category docs
 * @since 0.3.0
 */
export const help = (formats: ReadonlyArray<DatasetFormat> = builtIn): string =>
  `The --tasks file's format: ${
    formats.map((f, i) => `${f.name} (${chosenFor(f, i, (t) => t).join(", ")})`).join(", ")
  }; default by the file's name`

/**
 * The README's table of dataset formats.
 *
 * @category docs
 * @since 0.3.0
 */
export const docsTable = (formats: ReadonlyArray<DatasetFormat> = builtIn): string =>
  [
    "| `--format` | Chosen for | What it reads |",
    "| --- | --- | --- |",
    ...formats.map((f, i) =>
      `| \`${f.name}\` | ${chosenFor(f, i, (t) => `\`${t}\``).join(", ")} | ${f.doc} |`
    )
  ].join("\n")

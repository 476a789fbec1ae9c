/**
 * The Parquet dataset format, read row group by row group with hyparquet
 * (pure JS; snappy, gzip, zstd, brotli and lz4 through
 * hyparquet-compressors), so memory follows the largest row group, not the
 * file. Nested columns (lists, structs, maps) become JSON values; 64-bit
 * integers numbers when exact (else their digits), timestamps ISO text,
 * bytes base64. The mapping is checked against the file's schema before
 * the first row is read.
 *
 * @since 0.3.0
 */
import { Effect, Stream } from "effect"
import type { AsyncBuffer, FileMetaData } from "hyparquet"
import { sourceChunkSize } from "../internal/limits.ts"
import { setOwn } from "./internal/own.ts"
import * as Rows from "./Rows.ts"
import { DatasetError, type DatasetFormat, type Item, type ReadOptions, type Services } from "./Source.ts"

/**
 * An open Parquet file: its footer read, its row groups to come.
 *
 * @category models
 * @since 0.3.0
 */
export interface ParquetFile {
  readonly file: AsyncBuffer
  readonly metadata: FileMetaData
  /** The top-level columns, in the schema's order. */
  readonly columns: ReadonlyArray<string>
}

const messageOf = (e: unknown) => e instanceof Error ? e.message : String(e)

// The reader and its codecs are loaded when a Parquet file is first read,
// so the library's entries load nothing but effect.
const library = () =>
  Promise.all([import("hyparquet"), import("hyparquet-compressors")]).then(([hyparquet, codecs]) => ({
    ...hyparquet,
    compressors: codecs.compressors
  }))

/**
 * Opens `path` and reads its footer; `name` is how messages show it.
 *
 * @category constructors
 * @since 0.3.0
 */
export const open = (path: string, name: string = path): Effect.Effect<ParquetFile, DatasetError> =>
  Effect.flatMap(read(path, name), (parquet) => {
    const problem = rowCountProblem(parquet.metadata)
    return problem === undefined ? Effect.succeed(parquet) : Effect.fail(new DatasetError({ path: name, message: `${name}: ${problem}` }))
  })

/**
 * A footer whose row count is not its row groups' sum: reading by the one
 * would make up rows or drop them, so the file is refused, both counts named.
 */
const rowCountProblem = (metadata: FileMetaData): string | undefined => {
  const groups = metadata.row_groups.map((g) => Number(g.num_rows))
  const sum = groups.reduce((a, b) => a + b, 0)
  const declared = Number(metadata.num_rows)
  if (declared === sum && groups.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined
  const shown = groups.length <= 20 ? groups.join(" + ") : `${groups.slice(0, 20).join(" + ")} + ... (${groups.length} row groups)`
  return `the footer says ${declared} rows but its row groups hold ${sum} (${groups.length === 0 ? "no row groups" : shown}): the file is damaged or was written wrong; write it again`
}

const read = (path: string, name: string): Effect.Effect<ParquetFile, DatasetError> =>
  Effect.tryPromise({
    try: async () => {
      const { asyncBufferFromFile, parquetMetadataAsync, parquetSchema } = await library()
      const file = await asyncBufferFromFile(path)
      const metadata = await parquetMetadataAsync(file)
      const columns = parquetSchema(metadata).children.map((c) => c.element.name)
      return { file, metadata, columns }
    },
    catch: (e) => {
      if (e instanceof DatasetError) return e
      const code = (e as { code?: unknown }).code
      return new DatasetError({
        path: name,
        message: code === "ENOENT"
          ? `tasks file not found: ${name}`
          : code === "EISDIR"
          ? `${name} is not a file`
          : `${name}: not a readable Parquet file (${messageOf(e)})`
      })
    }
  })

/**
 * The rows of an open file, one row group read at a time; `where` names a
 * row for messages (`row group 0, row 17`, after `prefix`).
 *
 * @category sources
 * @since 0.3.0
 */
export const rowsOf = (parquet: ParquetFile, name: string, prefix = ""): Stream.Stream<Rows.Row, DatasetError> => {
  const groups = parquet.metadata.row_groups
  const starts: Array<number> = []
  let rowStart = 0
  for (const group of groups) {
    starts.push(rowStart)
    rowStart += Number(group.num_rows)
  }
  // A row group is read one column at a time into that column's values
  // (decoding every column at once into row objects held about twice the
  // memory at the peak, measured with 100,000-row groups); rows are then
  // made from the columns as they are pulled, and each value let go of once
  // its row is made.
  const readColumn = (index: number, column: string, count: number) =>
    Effect.tryPromise({
      try: async () => {
        const { compressors, parquetRead } = await library()
        const values = new Array<unknown>(count)
        // Each row's value counted once, however the reader's chunks fall.
        const seen = new Uint8Array(count)
        let filled = 0
        await parquetRead({
          file: parquet.file,
          metadata: parquet.metadata,
          columns: [column],
          rowStart: starts[index]!,
          rowEnd: starts[index]! + count,
          compressors,
          onChunk: (chunk) => {
            const data = chunk.columnData as ArrayLike<unknown>
            for (let i = 0; i < data.length; i++) {
              const at = chunk.rowStart - starts[index]! + i
              if (at >= 0 && at < count) {
                values[at] = data[i]
                if (seen[at] === 0) filled++
                seen[at] = 1
              }
            }
          }
        })
        // Fewer values than the group's rows would be rows made up of nulls.
        if (filled !== count) throw new Error(`${filled} values for the row group's ${count} rows`)
        return values
      },
      catch: (e) =>
        new DatasetError({ path: name, message: `${name}: ${prefix}row group ${index}, column ${JSON.stringify(column)}: cannot be read (${messageOf(e)})` })
    })
  const group = (index: number): Stream.Stream<Rows.Row, DatasetError> => {
    const count = Number(groups[index]!.num_rows)
    return Stream.unwrap(Effect.map(
      Effect.forEach(parquet.columns, (column) => readColumn(index, column, count)),
      (data) =>
        Stream.fromIterable({
          *[Symbol.iterator]() {
            for (let i = 0; i < count; i++) {
              const values: Record<string, unknown> = {}
              for (let c = 0; c < data.length; c++) {
                setOwn(values, parquet.columns[c]!, Rows.toJsonValue(data[c]![i]))
                data[c]![i] = undefined
              }
              yield { values, where: `${prefix}row group ${index}, row ${i}` }
            }
          }
        }, { chunkSize: sourceChunkSize })
    ))
  }
  return Stream.fromIterable(groups.map((_, index) => index)).pipe(Stream.flatMap(group))
}

/**
 * The tasks of a Parquet file.
 *
 * @category sources
 * @since 0.3.0
 */
export const fromParquet = (path: string, options: ReadOptions): Stream.Stream<Item, DatasetError, Services> =>
  path === "-"
    ? Stream.fail(new DatasetError({ path, message: "--tasks -: a Parquet file cannot be read from stdin (its footer is at its end); give its path" }))
    : Stream.unwrap(Effect.map(open(path), (parquet) =>
      Rows.toItems(path, rowsOf(parquet, path), { ...options, columns: () => parquet.columns })
    ))

/**
 * `parquet`: the dataset format.
 *
 * @category formats
 * @since 0.3.0
 */
export const format: DatasetFormat = {
  name: "parquet",
  extensions: [".parquet", ".pq"],
  doc: "Read row group by row group; nested columns become JSON values; columns to fields by `--map` or the default rules",
  read: fromParquet,
  count: (path) =>
    open(path).pipe(
      Effect.map((p) => Number(p.metadata.num_rows)),
      Effect.orElseSucceed(() => undefined)
    )
}

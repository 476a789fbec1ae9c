/**
 * The CSV and TSV dataset formats: a header row, then one task per record,
 * read lazily with csv-parse (RFC 4180 quoting, embedded newlines, a BOM,
 * CRLF). Each value is text; rows become tasks by `--map` or the default
 * rules (`Mapping`). A record with another number of fields than the header
 * is a bad row (`--on-invalid skip` records it and reads on); quoting that
 * cannot be parsed stops the file, naming the line (csv-parse's words).
 *
 * @since 0.3.0
 */
import { Effect, Stream } from "effect"
import { fileBytes, stdinBytes } from "./internal/file.ts"
import * as Rows from "./Rows.ts"
import { DatasetError, type DatasetFormat, type Item, type ReadOptions, type Services } from "./Source.ts"

/**
 * csv-parse's synchronous core, which its stream `Parser` wraps (`api`,
 * kept public for its own sync API): fed chunk by chunk here, so the
 * records of a chunk come out before the next is read and an error names
 * the line it was found on.
 */
interface ParserCore {
  readonly parse: (
    chunk: Uint8Array | undefined,
    end: boolean,
    push: (record: { readonly record: ReadonlyArray<string>; readonly info: { readonly lines: number } }) => void,
    close: () => void
  ) => (Error & { readonly lines?: number }) | undefined
}

/**
 * The tasks of a delimited file (`-` reads stdin): `delimiter` `,` for CSV,
 * a tab for TSV.
 *
 * @category sources
 * @since 0.3.0
 */
export const fromDelimited = (
  path: string,
  options: ReadOptions & { readonly delimiter: string }
): Stream.Stream<Item, DatasetError, Services> =>
  Stream.unwrap(Effect.gen(function*() {
    const name = path === "-" ? "<stdin>" : path
    const bytes = path === "-" ? yield* stdinBytes : yield* fileBytes(path)
    // Loaded when a delimited file is first read, so the library's entries load nothing but effect.
    const { Parser } = yield* Effect.promise(() => import("csv-parse"))
    const core = (new Parser({
      bom: true,
      delimiter: options.delimiter,
        // A record of the wrong length is one bad row, not the end of the file.
      relax_column_count: true,
      skip_empty_lines: true,
      // Each record with the line it ends on, for messages.
      info: true
    }) as unknown as { readonly api: ParserCore }).api
    let header: ReadonlyArray<string> | undefined
    let rowNumber = 0
    const failed = (error: Error & { readonly lines?: number }) =>
      new DatasetError({
        path: name,
        ...(error.lines === undefined ? {} : { line: error.lines }),
        message: `${name}: ${error.message}`
      })
    const rowsOf = (chunk: Uint8Array | undefined, end: boolean): Array<Rows.Row | DatasetError> => {
      const rows: Array<Rows.Row> = []
      let problem: DatasetError | undefined
      const error = core.parse(chunk, end, ({ info, record }) => {
        if (header === undefined) {
          const blank = record.findIndex((c) => c.trim() === "")
          const twice = record.findIndex((c, i) => record.indexOf(c) !== i)
          if (blank >= 0) problem ??= new DatasetError({ path: name, message: `${name}: header: column ${blank + 1} has no name` })
          else if (twice >= 0) problem ??= new DatasetError({ path: name, message: `${name}: header: column ${JSON.stringify(record[twice])} is named twice` })
          header = record
          return
        }
        rowNumber++
        // Rows are counted after the header; a quoted value may span lines,
        // so the line a row starts on is the line it ends on less its newlines.
        let newlines = 0
        for (const field of record) for (let i = field.indexOf("\n"); i >= 0; i = field.indexOf("\n", i + 1)) newlines++
        const where = `row ${rowNumber} (line ${info.lines - newlines})`
        if (record.length !== header.length) {
          rows.push({ values: {}, where, problem: `expected ${header.length} fields (the header's), got ${record.length}` })
          return
        }
        const values: Record<string, string> = {}
        for (let i = 0; i < header.length; i++) values[header[i]!] = record[i]!
        rows.push({ values, where })
      }, () => {})
      if (error !== undefined) return [...rows, failed(error)]
      return problem === undefined ? rows : [problem]
    }
    const rows = bytes.pipe(
      Stream.mapError((e) => e instanceof DatasetError ? e : new DatasetError({ path: name, message: `cannot read ${name}: ${(e as Error).message}` })),
      Stream.map((chunk) => rowsOf(chunk, false)),
      Stream.concat(Stream.sync(() => rowsOf(undefined, true))),
      Stream.flattenIterable
    )
    return Rows.toItems(name, rows, { ...options, columns: () => header ?? [] })
  }))

/**
 * `csv`: the dataset format.
 *
 * @category formats
 * @since 0.3.0
 */
export const csv: DatasetFormat = {
  name: "csv",
  extensions: [".csv"],
  doc: "A header row, then a task per record (RFC 4180 quoting, BOM, CRLF); columns to fields by `--map` or the default rules",
  read: (path, options) => fromDelimited(path, { ...options, delimiter: "," })
}

/**
 * `tsv`: the dataset format.
 *
 * @category formats
 * @since 0.3.0
 */
export const tsv: DatasetFormat = {
  name: "tsv",
  extensions: [".tsv", ".tab"],
  doc: "As `csv`, separated by tabs",
  read: (path, options) => fromDelimited(path, { ...options, delimiter: "\t" })
}

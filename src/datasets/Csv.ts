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
import { Effect, type FileSystem, Stream } from "effect"
import { fileBytes, stdinBytes } from "./internal/file.ts"
import { setOwn } from "./internal/own.ts"
import { repeated } from "./internal/repeated.ts"
import * as Mapping from "./Mapping.ts"
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

const parserCore = (Parser: typeof import("csv-parse").Parser, delimiter: string): ParserCore =>
  (new Parser({
    bom: true,
    delimiter,
    // A record of the wrong length is one bad row, not the end of the file.
    relax_column_count: true,
    skip_empty_lines: true,
    // Per record: left to itself csv-parse takes the first line's ending for
    // every record, so a CRLF header over LF rows read two rows as one.
    record_delimiter: ["\r\n", "\n", "\r"],
    // Each record with the line it ends on, for messages.
    info: true
  }) as unknown as { readonly api: ParserCore }).api

/**
 * The records of a delimited file after its header, counted in a pass that
 * holds one chunk at a time (the progress total and `--estimate`'s size);
 * undefined for stdin or a file that cannot be parsed.
 *
 * @category sources
 * @since 0.5.0
 */
export const countRecords = (path: string, delimiter: string): Effect.Effect<number | undefined, never, FileSystem.FileSystem> =>
  path === "-" ? Effect.succeed(undefined) : Effect.gen(function*() {
    const bytes = yield* fileBytes(path)
    const { Parser } = yield* Effect.promise(() => import("csv-parse"))
    const core = parserCore(Parser, delimiter)
    let records = 0
    const feed = (chunk: Uint8Array | undefined, end: boolean) => {
      const error = core.parse(chunk, end, () => void records++, () => {})
      if (error !== undefined) throw error
    }
    yield* Stream.runForEach(bytes, (chunk) => Effect.try(() => feed(chunk, false)))
    yield* Effect.try(() => feed(undefined, true))
    return Math.max(0, records - 1)
  }).pipe(Effect.orElseSucceed(() => undefined))

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
    const core = parserCore(Parser, options.delimiter)
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
          const twice = repeated(record)
          if (blank >= 0) problem ??= new DatasetError({ path: name, message: `${name}: header: column ${blank + 1} has no name` })
          else if (twice.length > 0) {
            problem ??= new DatasetError({
              path: name,
              message: `${name}: header: ${
                twice.length === 1 ? `column ${JSON.stringify(twice[0])} is` : `${twice.length} columns are`
              } named twice${twice.length === 1 ? "" : `: ${Mapping.listed(twice.map((c) => JSON.stringify(c)))}`}`
            })
          }
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
        for (let i = 0; i < header.length; i++) setOwn(values, header[i]!, record[i]!)
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
  read: (path, options) => fromDelimited(path, { ...options, delimiter: "," }),
  count: (path) => countRecords(path, ",")
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
  read: (path, options) => fromDelimited(path, { ...options, delimiter: "\t" }),
  count: (path) => countRecords(path, "\t")
}

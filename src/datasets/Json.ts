/**
 * The JSON dataset format: an array of records at the top level, or under a
 * key (`--json-path data`, dotted for deeper ones), streamed with
 * @streamparser/json, so only the record being read is held whatever the
 * file's size. A record holding `inputs` is a task as it is (the JSONL
 * shape); any other goes through `--map` or the default rules (`Mapping`).
 *
 * @since 0.3.0
 */
import { Effect, type FileSystem, Stream } from "effect"
import { fileBytes, stdinBytes } from "./internal/file.ts"
import { twiceMessage, watcher } from "./internal/pathKeys.ts"
import * as Rows from "./Rows.ts"
import { DatasetError, type DatasetFormat, type Item, type ReadOptions, type Services } from "./Source.ts"

const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : `${typeof value} ${JSON.stringify(value).slice(0, 60)}`

/**
 * The tasks of a JSON file (`-` reads stdin).
 *
 * @category sources
 * @since 0.3.0
 */
export const fromJson = (path: string, options: ReadOptions): Stream.Stream<Item, DatasetError, Services> =>
  Stream.unwrap(Effect.gen(function*() {
    const name = path === "-" ? "<stdin>" : path
    const bytes = path === "-" ? yield* stdinBytes : yield* fileBytes(path)
    const at = options.jsonPath === undefined ? "the top level" : `--json-path ${options.jsonPath}`
    // Loaded when a JSON file is first read, so the library's entries load nothing but effect.
    const { JSONParser } = yield* Effect.promise(() => import("@streamparser/json"))
    const parser = new JSONParser({
      paths: [options.jsonPath === undefined ? "$.*" : `$.${options.jsonPath}.*`],
      keepStack: false
    })
    let records = 0
    let firstByte: number | undefined
    let pending: Array<Rows.Row> = []
    let error: DatasetError | undefined
    const jsonPath = options.jsonPath
    if (jsonPath !== undefined) {
      // A key on the path given twice, whatever its values hold (JSON.parse would keep the last).
      const watch = watcher(jsonPath.split("."))
      parser.onToken = ({ offset, token, value }) => {
        const twice = watch(token, value, offset)
        if (twice !== undefined) error ??= new DatasetError({ path: name, message: twiceMessage(name, jsonPath, twice) })
      }
    }
    parser.onValue = ({ key, value }) => {
      if (error !== undefined) return
      // A key, not an index: the path holds an object, whose values would be read as records.
      if (typeof key === "string") {
        error = new DatasetError({
          path: name,
          message: `${name}: ${at} is an object (keys ${JSON.stringify(key)}, ...), not an array of records: name the key of the array`
        })
        return
      }
      records++
      const where = `record ${records}`
      pending.push(
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? { values: value as Record<string, unknown>, where }
          : { values: {}, where, problem: `expected an object, got ${describe(value)}` }
      )
    }
    parser.onError = (e) => {
      error ??= new DatasetError({
        path: name,
        message: `${name}: not valid JSON ${records === 0 ? "before the first record" : `after record ${records}`} (${e.message})`
      })
    }
    const feed = (chunk: Uint8Array): Array<Rows.Row | DatasetError> => {
      if (firstByte === undefined) {
        // Without --json-path the array is the top level: an object there
        // would stream its keys' values as records.
        const i = chunk.findIndex((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf)
        if (i >= 0) {
          firstByte = chunk[i]!
          if (options.jsonPath === undefined && firstByte !== 0x5b) {
            return [new DatasetError({
              path: name,
              message: firstByte === 0x7b
                ? `${name}: the top level is an object, not an array of records: name the key that holds the array with --json-path KEY`
                : `${name}: expected an array of records at the top level`
            })]
          }
          if (options.jsonPath !== undefined && firstByte !== 0x7b) {
            return [new DatasetError({ path: name, message: `${name}: --json-path ${options.jsonPath} needs an object at the top level` })]
          }
        }
      }
      if (!parser.isEnded) parser.write(chunk)
      const rows: Array<Rows.Row | DatasetError> = pending
      pending = []
      if (error !== undefined) rows.push(error)
      return rows
    }
    const end = (): Array<Rows.Row | DatasetError> => {
      if (!parser.isEnded) parser.end()
      const rows: Array<Rows.Row | DatasetError> = pending
      if (error !== undefined) return [...rows, error]
      if (records === 0) {
        return [new DatasetError({
          path: name,
          message: options.jsonPath === undefined
            ? `${name} holds no tasks (the dataset is empty)`
            : `${name} holds no records at ${at} (the key is missing, is not an array, or the array is empty)`
        })]
      }
      return rows
    }
    const rows = bytes.pipe(
      Stream.mapError((e) => e instanceof DatasetError ? e : new DatasetError({ path: name, message: `cannot read ${name}: ${(e as Error).message}` })),
      Stream.map(feed),
      Stream.concat(Stream.sync(end)),
      Stream.flattenIterable
    )
    return Rows.toItems(name, rows, { ...options, tasksAsTheyAre: true })
  }))

/**
 * The records of a JSON file at the top level or `jsonPath`, counted in a
 * streamed pass (the progress total and `--estimate`'s size); undefined for
 * stdin or a file that is not an array of records there.
 *
 * @category sources
 * @since 0.5.0
 */
export const countRecords = (path: string, jsonPath: string | undefined): Effect.Effect<number | undefined, never, FileSystem.FileSystem> =>
  path === "-" ? Effect.succeed(undefined) : Effect.gen(function*() {
    const bytes = yield* fileBytes(path)
    const { JSONParser } = yield* Effect.promise(() => import("@streamparser/json"))
    const parser = new JSONParser({ paths: [jsonPath === undefined ? "$.*" : `$.${jsonPath}.*`], keepStack: false })
    let records = 0
    let unusable = false
    // As `fromJson` reads them: an object's values, or a key on the path given twice, are no count.
    parser.onValue = ({ key }) => {
      if (typeof key === "string") unusable = true
      else records++
    }
    if (jsonPath !== undefined) {
      const watch = watcher(jsonPath.split("."))
      parser.onToken = ({ offset, token, value }) => {
        if (watch(token, value, offset) !== undefined) unusable = true
      }
    }
    yield* Stream.runForEach(bytes, (chunk) => Effect.try(() => parser.isEnded ? undefined : parser.write(chunk)))
    if (!parser.isEnded) yield* Effect.try(() => parser.end())
    return unusable ? undefined : records
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * `json`: the dataset format.
 *
 * @category formats
 * @since 0.3.0
 */
export const format: DatasetFormat = {
  name: "json",
  extensions: [".json"],
  doc: "An array of records, at the top level or under `--json-path KEY`, streamed; a record with `inputs` is a task as it is, others are mapped",
  read: fromJson,
  count: (path, options) => countRecords(path, options?.jsonPath)
}

/**
 * The JSONL dataset format: one `AgentEvalTask` per line, read lazily line by
 * line (`-` reads stdin). Bad lines are reported with file, line and field.
 *
 * @since 0.3.0
 */
import { Effect, FileSystem, Result, Schema, Stream } from "effect"
import { IdSet } from "../internal/IdSet.ts"
import { type Line, LineTooLong, notUtf8, readError, splitLines } from "../internal/lines.ts"
import { AgentEvalTask } from "../domain/Trial.ts"
import { fileBytes, stdinBytes } from "./internal/file.ts"
import type { Mapping } from "./Mapping.ts"
import * as Rows from "./Rows.ts"
import { DatasetError, type DatasetFormat, type Item, type OnInvalid, type Services } from "./Source.ts"

const decodeTask = Schema.decodeUnknownExit(AgentEvalTask)

/**
 * The tasks of a JSONL file, one `AgentEvalTask` per line (`-` reads stdin).
 * Blank lines are ignored; an empty dataset, a missing file, malformed JSON, a
 * line that fails the schema and a duplicate task id are errors naming the
 * file and line (or, with `skip`, `Invalid` items).
 *
 * @category sources
 * @since 0.1.0
 */
export const fromJsonl = (
  path: string,
  options: { readonly onInvalid: OnInvalid; readonly map?: Mapping | undefined }
): Stream.Stream<Item, DatasetError, Services> =>
  Stream.unwrap(Effect.gen(function*() {
    const name = path === "-" ? "<stdin>" : path
    const bytes = path === "-" ? yield* stdinBytes : yield* fileBytes(path)
    if (options.map !== undefined) return Rows.toItems(name, rowsOf(name, bytes), options)
    const seen = new IdSet()
    let items = 0
    const parse = (line: Line): Item | DatasetError | undefined => {
      if (line.invalidUtf8 === undefined && line.text.trim() === "") return undefined
      items++
      const invalid = (taskId: string | undefined, message: string) =>
        options.onInvalid === "skip"
          ? {
            _tag: "Invalid" as const,
            // The record takes the line's id only while no other line has it,
            // so trial ids stay unique; otherwise it is named by its line.
            taskId: taskId !== undefined && seen.add(taskId) ? taskId : `${name}:${line.number}`,
            message: `${name}:${line.number}: ${message}`
          }
          : new DatasetError({ path: name, line: line.number, message: `${name}:${line.number}: ${message}` })
      // Its id cannot be trusted (the bad bytes would read as U+FFFD): it is
      // named by its line.
      if (line.invalidUtf8 !== undefined) return invalid(undefined, notUtf8(line))
      let json: unknown
      try {
        json = JSON.parse(line.text)
      } catch (e) {
        return invalid(undefined, `not valid JSON (${(e as Error).message})`)
      }
      const exit = decodeTask(json)
      const rawId = typeof json === "object" && json !== null ? (json as { id?: unknown }).id : undefined
      const id = typeof rawId === "string" ? rawId : undefined
      if (exit._tag === "Failure") return invalid(id, describeSchemaFailure(exit.cause.reasons[0]))
      if (!seen.add(exit.value.id)) return invalid(undefined, `duplicate task id ${JSON.stringify(exit.value.id)}`)
      return { _tag: "Task", task: exit.value }
    }
    return splitLines(bytes).pipe(
      Stream.mapError((e) => e instanceof DatasetError ? e : datasetReadError(name, e)),
      Stream.filterMap((line) => {
        const item = parse(line)
        return item === undefined ? Result.failVoid : Result.succeed(item)
      }),
      // A bad line stops the stream here, before any later task is admitted.
      Stream.mapEffect((item) => item instanceof DatasetError ? Effect.fail(item) : Effect.succeed(item)),
      Stream.concat(Stream.suspend(() =>
        items === 0
          ? Stream.fail(new DatasetError({ path: name, message: `${name} holds no tasks (the dataset is empty)` }))
          : Stream.empty
      ))
    )
  }))

// With --map, each line is a record for the mapping, not a task.
const rowsOf = <E, R>(name: string, bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Rows.Row, DatasetError, R> =>
  splitLines(bytes).pipe(
    Stream.mapError((e) => e instanceof DatasetError ? e : datasetReadError(name, e as { readonly message: string })),
    Stream.filter((line) => line.invalidUtf8 !== undefined || line.text.trim() !== ""),
    Stream.map((line): Rows.Row => {
      const where = `line ${line.number}`
      if (line.invalidUtf8 !== undefined) return { values: {}, where, problem: notUtf8(line) }
      try {
        const json: unknown = JSON.parse(line.text)
        return typeof json === "object" && json !== null && !Array.isArray(json)
          ? { values: json as Record<string, unknown>, where }
          : { values: {}, where, problem: "expected a JSON object" }
      } catch (e) {
        return { values: {}, where, problem: `not valid JSON (${(e as Error).message})` }
      }
    })
  )

// `FILE:LINE: line longer than 512 MB` (with its line), or `cannot read FILE: ...`.
const datasetReadError = (name: string, e: { readonly message: string }) =>
  new DatasetError({ path: name, ...(e instanceof LineTooLong ? { line: e.line } : undefined), message: readError(name, e) })

const describeSchemaFailure = (reason: unknown): string => {
  const message = String((reason as { error?: { message?: unknown } }).error?.message ?? "does not match AgentEvalTask")
  const [problem, where] = message.split("\n  at ")
  return where === undefined
    ? `not an AgentEvalTask: ${problem}`
    : `field ${where.replace(/^\["?|"?\]$/g, "").replace(/"\]\["/g, ".")}: ${problem}`
}

/**
 * Counts the non-blank lines of a file without holding it: the progress
 * display's total. Undefined for stdin.
 *
 * @category sources
 * @since 0.1.0
 */
export const countLines = (path: string): Effect.Effect<number | undefined, never, FileSystem.FileSystem> =>
  path === "-"
    ? Effect.succeed(undefined)
    : FileSystem.FileSystem.use((fs) =>
      splitLines(fs.stream(path)).pipe(
        Stream.runFold(() => 0, (n, line) => line.text.trim() === "" ? n : n + 1),
        Effect.orElseSucceed(() => undefined)
      ))

/**
 * `jsonl`: the dataset format.
 *
 * @category formats
 * @since 0.3.0
 */
export const format: DatasetFormat = {
  name: "jsonl",
  extensions: [".jsonl", ".ndjson"],
  doc: "One `AgentEvalTask` per line (`{\"id\": ..., \"inputs\": {...}, \"reference\": ...}`), or with `--map` one record a line, mapped; `-` reads stdin",
  read: fromJsonl,
  count: countLines
}

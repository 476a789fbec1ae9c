/**
 * The bytes of a dataset file, streamed, with the errors every format gives
 * for a missing file.
 *
 * @internal
 */
import { Effect, FileSystem, Stdio } from "effect"
import { DatasetError } from "../Source.ts"

/** Stdin's bytes, for `--tasks -`. */
export const stdinBytes = Stdio.Stdio.useSync((stdio) => stdio.stdin)

/** The bytes of the file at `path`, streamed; a missing path or one that is not a file is a `DatasetError`. */
export const fileBytes = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(path).pipe(
      Effect.mapError(() => new DatasetError({ path, message: `tasks file not found: ${path}` }))
    )
    if (info.type !== "File") return yield* new DatasetError({ path, message: `${path} is not a file` })
    return fs.stream(path)
  })

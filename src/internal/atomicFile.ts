/**
 * Whole files written so that a reader sees the old file or the new one,
 * never a part: the text goes to a temporary file beside the target
 * (`FILE.rewrite-PID`), is flushed to disk, then renamed over the target. A
 * failure or an interrupt removes the temporary file; one that a killed
 * process left is removed by the next write of that file, which says so.
 *
 * @internal
 */
import { Console, Effect, Exit, FileSystem, Path, Schema } from "effect"

/**
 * A file could not be written. `message` names the file and the operating
 * system's reason: `cannot write summary.json: ENOSPC: no space left on device, write`.
 *
 * @internal
 */
export class FileWriteError extends Schema.TaggedError<FileWriteError>()("FileWriteError", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * The operating system's words for a failed file operation (`ENOSPC: no
 * space left on device, write`), which Effect's `PlatformError` keeps on its
 * cause rather than in its message.
 *
 * @internal
 */
export const osError = (error: { readonly message: string; readonly reason?: unknown }): string => {
  const cause = (error.reason as { readonly cause?: unknown } | undefined)?.cause
  return cause instanceof Error && cause.message !== "" ? cause.message : error.message
}

/**
 * The temporary file written beside `path` before it is renamed over `path`.
 *
 * @internal
 */
export const rewritePath = (path: string, pid: number = process.pid): string => `${path}.rewrite-${pid}`

const alive = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists, under another user.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Removes the temporary files of `path` that processes no longer running
 * left behind (a kill between writing and renaming), and says so on stderr.
 * Returns the files removed. A folder that cannot be listed is left alone.
 *
 * @internal
 */
export const removeStale = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const pathApi = yield* Path.Path
  const dir = pathApi.dirname(path)
  const prefix = `${pathApi.basename(path)}.rewrite-`
  const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
  const removed: Array<string> = []
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = name.slice(prefix.length)
    if (!/^[0-9]+$/.test(pid) || alive(Number(pid))) continue
    const stale = pathApi.join(dir, name)
    const gone = yield* Effect.result(fs.remove(stale))
    if (gone._tag === "Success") {
      removed.push(stale)
      yield* Console.error(`agent-trials: removed ${stale}, a temporary file left by an interrupted run`)
    }
  }
  return removed
})

/**
 * A path that names a stream rather than a file to keep: `-` (stdin or
 * stdout) or one under `/dev/` (`/dev/stdout` is fd 1, whatever it is).
 *
 * @internal
 */
export const isDevicePath = (path: string): boolean => path === "-" || path.startsWith("/dev/")

/**
 * Writes `content` to `path` atomically (see the module doc). A path that is
 * not a regular file (a device such as `/dev/stdout`, a pipe), or any path
 * under `/dev/`, is written in place, appended: it cannot be renamed over,
 * and `/dev/stdout` redirected to a file names whatever the process's
 * output already holds (the results lines of `--out /dev/stdout`, say).
 *
 * @internal
 */
export const writeFileAtomic = Effect.fnUntraced(function*(
  path: string,
  content: string | Uint8Array,
  /** How messages name the file: `--summary s.json`; the path by default. */
  name: string = path
) {
  const fs = yield* FileSystem.FileSystem
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content
  // The reason names the file asked for, not the temporary one beside it
  // (`ENOENT: ..., open 'r.html'` for a missing folder).
  const fail = (e: { readonly message: string; readonly reason?: unknown }) =>
    new FileWriteError({ path, message: `cannot write ${name}: ${osError(e).replaceAll(rewritePath(path), path)}` })
  const info = yield* Effect.option(fs.stat(path))
  if (info._tag === "Some" && info.value.type === "Directory") {
    return yield* new FileWriteError({ path, message: `cannot write ${name}: it is a folder` })
  }
  if (info._tag === "Some" && (info.value.type !== "File" || isDevicePath(path))) {
    return yield* Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(path, { flag: "a" })
      yield* file.writeAll(bytes)
    })).pipe(Effect.mapError(fail))
  }
  yield* removeStale(path)
  const tmp = rewritePath(path)
  const write = Effect.scoped(Effect.gen(function*() {
    const file = yield* fs.open(tmp, { flag: "w" })
    yield* file.writeAll(bytes)
    yield* file.sync
  }))
  yield* Effect.uninterruptibleMask((restore) =>
    restore(write).pipe(
      Effect.andThen(fs.rename(tmp, path)),
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.ignore(fs.remove(tmp)))
    )
  ).pipe(Effect.mapError(fail))
})

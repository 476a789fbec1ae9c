/**
 * The files a command writes, checked against the files it reads before it
 * starts: no output may be the same file as an input (`run --report
 * tasks.jsonl` would turn the tasks into HTML) or as another output (one
 * would replace the other). And how every output besides a results file is
 * written: atomically, its failure worded the same way in every command.
 *
 * @internal
 */
import { Effect, FileSystem, Path, Schema } from "effect"
import { isDevicePath, writeFileAtomic } from "./atomicFile.ts"

/**
 * A file a command was given, by the flag (or argument) that named it;
 * `path` undefined when the flag was not given.
 *
 * @internal
 */
export interface NamedFile {
  readonly flag: string
  readonly path: string | undefined
}

/**
 * An output names the same file as an input or as another output (bad
 * input: exit code 2): `flag` and `path` are the output at fault, `other`
 * the input or earlier output it would overwrite. The message names both
 * flags and both paths.
 *
 * @internal
 */
export class SameFile extends Schema.TaggedError<SameFile>()("SameFile", {
  flag: Schema.String,
  path: Schema.String,
  other: Schema.Struct({ flag: Schema.String, path: Schema.String, role: Schema.Literals(["input", "output"]) })
}) {
  override get message(): string {
    return `${this.flag} ${this.path} is the same file as ${this.other.flag} ${this.other.path}: ` +
      (this.other.role === "input" ? "writing it would destroy that input" : "one would overwrite the other") +
      "; choose another file"
  }
}

// What makes two paths one file. An existing regular file is its device and
// inode, shared by every symlink and hard link to it; one not made yet is its
// real folder and its name (the folder's symlinks resolved, `..` too).
// Undefined for what holds nothing to overwrite: `-` (stdin or stdout), a
// path under /dev/ (`/dev/stdout` is fd 1, even when that is a file: it is
// appended to, never replaced), a device, a pipe, a folder (refused later,
// by the command's own checks).
const identityOf = (fs: FileSystem.FileSystem, pathApi: Path.Path, cwd: string) => {
  const canonical = (file: string): Effect.Effect<string> =>
    fs.realPath(file).pipe(Effect.catch(() => {
      const parent = pathApi.dirname(file)
      return parent === file
        ? Effect.succeed(file)
        : Effect.map(canonical(parent), (dir) => pathApi.join(dir, pathApi.basename(file)))
    }))
  const identity = (file: string, links: number): Effect.Effect<string | undefined> =>
    Effect.gen(function*() {
      const info = yield* Effect.option(fs.stat(file))
      if (info._tag === "Some") {
        if (info.value.type !== "File") return undefined
        const ino = info.value.ino
        return ino._tag === "Some" ? `inode ${info.value.dev}:${ino.value}` : `path ${yield* canonical(file)}`
      }
      // A symlink to a file not made yet: writing it makes its target.
      const target = links < 40 ? yield* Effect.option(fs.readLink(file)) : undefined
      return target?._tag === "Some"
        ? yield* identity(pathApi.resolve(pathApi.dirname(file), target.value), links + 1)
        : `path ${yield* canonical(file)}`
    })
  return (file: string) => isDevicePath(file) ? Effect.succeed(undefined) : identity(pathApi.resolve(cwd, file), 0)
}

/**
 * Fails with `SameFile` when an output is the same file as an input or as
 * an earlier output: the same path once resolved against `cwd`, or the same
 * file through a symlink or a hard link. Devices, pipes, `-` and paths
 * under `/dev/` are not files to protect (they are appended to, never
 * replaced): two outputs may both be `/dev/stdout`.
 * Inputs are not compared with each other.
 *
 * @internal
 */
export const checkDistinct = Effect.fnUntraced(function*(files: {
  readonly inputs: ReadonlyArray<NamedFile>
  readonly outputs: ReadonlyArray<NamedFile>
  readonly cwd?: string | undefined
}) {
  const fs = yield* FileSystem.FileSystem
  const pathApi = yield* Path.Path
  const identity = identityOf(fs, pathApi, files.cwd ?? pathApi.resolve("."))
  const seen: Array<readonly [NamedFile & { readonly path: string }, string, "input" | "output"]> = []
  for (const [role, list] of [["input", files.inputs], ["output", files.outputs]] as const) {
    for (const file of list) {
      if (file.path === undefined) continue
      const id = yield* identity(file.path)
      if (id === undefined) continue
      const named = { flag: file.flag, path: file.path }
      const clash = role === "output" ? seen.find(([, other]) => other === id) : undefined
      if (clash !== undefined) {
        const [other, , otherRole] = clash
        return yield* new SameFile({ flag: file.flag, path: file.path, other: { flag: other.flag, path: other.path, role: otherRole } })
      }
      seen.push([named, id, role])
    }
  }
})

/**
 * Writes an output (a summary, a report, a comparison) with
 * `writeFileAtomic`; a failure names the flag, the file and the operating
 * system's reason: `cannot write --summary s.json: ENOSPC: no space left on
 * device, write`.
 *
 * @internal
 */
export const writeOutput = (flag: string, file: string, content: string) =>
  writeFileAtomic(file, content, `${flag} ${file}`)

/**
 * The config file (`--config FILE`, else `./agent-trials.yaml` when it
 * exists): YAML or JSON, one key per option, named as the long flag is
 * (`parallelism`, `max-cost`, `tasks`), a list for a repeatable one. Each key
 * keeps its line, so a refused key or value names the file, the line and
 * the key.
 *
 * @since 0.8.0
 */
import { Console, Effect, FileSystem, Path, Schema } from "effect"
import * as Levenshtein from "../../scoring/Levenshtein.ts"

/** The file read without `--config`, in the working directory. */
export const DEFAULT_FILE = "agent-trials.yaml"

/**
 * A key of the file with its value, as parsed, and the line it is on.
 *
 * @category models
 * @since 0.8.0
 */
export interface Entry {
  readonly key: string
  readonly value: unknown
  /** 1-based. */
  readonly line: number
}

/**
 * A config file read: its keys in order, its folder (relative paths in it
 * resolve against it), and its `matrix` when it has one.
 *
 * @category models
 * @since 0.8.0
 */
export interface ConfigFile {
  /** The file as the user named it (or `agent-trials.yaml`). */
  readonly file: string
  /** The folder relative paths in the file resolve against. */
  readonly dir: string
  readonly entries: ReadonlyMap<string, Entry>
  /** The `matrix` key: the cells of a matrix run. */
  readonly matrix: Entry | undefined
}

/**
 * A config file that cannot be read or holds a bad key or value: exit 2,
 * naming the file, the line and the key.
 *
 * @category errors
 * @since 0.8.0
 */
export class ConfigFileError extends Schema.TaggedError<ConfigFileError>()("ConfigFileError", {
  file: Schema.String,
  line: Schema.optionalKey(Schema.Number),
  key: Schema.optionalKey(Schema.String),
  problem: Schema.String
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /** The flag a user changes: `--config`. */
  get flag(): string {
    return "--config"
  }
  override get message(): string {
    const place = this.line === undefined ? this.file : `${this.file}:${this.line}`
    return this.key === undefined ? `${place}: ${this.problem}` : `${place}: ${this.key}: ${this.problem}`
  }
}


/**
 * The known key closest to `key`, when one is close enough to be a slip.
 *
 * @category destructors
 * @since 0.8.0
 */
export const closest = (key: string, known: Iterable<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Infinity
  const a = Levenshtein.codePoints(key)
  for (const candidate of known) {
    const r = Levenshtein.distance(a, Levenshtein.codePoints(candidate))
    const d = r._tag === "Exact" ? r.distance : r.atLeast
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined
}

/**
 * Parses a config file's text (YAML, of which JSON is a part): a map of keys
 * each with its line. `known` are the keys of every command that reads the
 * file; one outside them is refused with the closest known key.
 *
 * @category parsing
 * @since 0.8.0
 */
export const parse = (
  text: string,
  file: string,
  dir: string,
  known: ReadonlySet<string>
): Effect.Effect<ConfigFile, ConfigFileError> =>
  Effect.flatMap(Effect.promise(() => import("yaml")), (yaml) =>
    Effect.suspend((): Effect.Effect<ConfigFile, ConfigFileError> => {
      const bad = (problem: string, line?: number, key?: string) =>
        Effect.fail(
          new ConfigFileError({ file, problem, ...(line === undefined ? undefined : { line }), ...(key === undefined ? undefined : { key }) })
        )
      const lines = new yaml.LineCounter()
      const doc = yaml.parseDocument(text, { lineCounter: lines, uniqueKeys: true })
      const lineOf = (node: unknown): number | undefined => {
        const range = (node as { readonly range?: ReadonlyArray<number> } | null)?.range
        return range === undefined ? undefined : lines.linePos(range[0]).line
      }
      const error = doc.errors[0]
      if (error !== undefined) {
        const at = error.linePos?.[0]
        return bad(`not valid YAML or JSON: ${error.message.split("\n")[0]}`, at?.line)
      }
      if (doc.contents === null) return Effect.succeed({ file, dir, entries: new Map(), matrix: undefined })
      if (!yaml.isMap(doc.contents)) {
        return bad("expected a map of keys (parallelism: 8, agent: ..., score: [exact]), got " + (yaml.isSeq(doc.contents) ? "a list" : "one value"), lineOf(doc.contents))
      }
      const entries = new Map<string, Entry>()
      let matrix: Entry | undefined
      for (const pair of doc.contents.items) {
        const line = lineOf(pair.key) ?? 1
        const key = yaml.isScalar(pair.key) ? pair.key.value : pair.key
        if (typeof key !== "string") return bad(`a key must be a name, got ${JSON.stringify(String(key))}`, line)
        const value = pair.value === null ? null : (pair.value as { toJSON(): unknown }).toJSON()
        const entry: Entry = { key, value, line }
        if (key === "matrix") {
          matrix = entry
          continue
        }
        if (!known.has(key)) {
          const near = closest(key, [...known, "matrix"])
          return bad(`unknown key${near === undefined ? "" : ` (did you mean ${near}?)`}`, line, key)
        }
        entries.set(key, entry)
      }
      return Effect.succeed({ file, dir, entries, matrix })
    }))

/**
 * Reads the config file: `explicit` (`--config FILE`) when given, else
 * `agent-trials.yaml` in `cwd` when it exists (saying so on stderr), else
 * none.
 *
 * @category reading
 * @since 0.8.0
 */
export const load = Effect.fn("ConfigFile.load")(function*(
  explicit: string | undefined,
  cwd: string,
  known: ReadonlySet<string>
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const file = explicit ?? DEFAULT_FILE
  const absolute = path.resolve(cwd, file)
  const unreadable = (problem: string) => new ConfigFileError({ file, problem })
  if (explicit === undefined) {
    const exists = yield* fs.exists(absolute).pipe(Effect.orElseSucceed(() => false))
    if (!exists) return undefined
    yield* Console.error(`agent-trials: reading ${DEFAULT_FILE} (its keys come after flags and AGENT_TRIALS_* variables; --config FILE reads another)`)
  }
  const text = yield* fs.readFileString(absolute).pipe(
    Effect.mapError((e) => unreadable(`cannot read the config file: ${e.reason._tag === "NotFound" ? "no such file" : e.message}`))
  )
  return yield* parse(text, file, path.dirname(absolute), known)
})

/**
 * The file as one cell of its matrix sees it: its keys, the cell's values
 * over them (each on the line of `matrix:`). A key of the cell that no
 * command has is refused as a key of the file is.
 *
 * @category combinators
 * @since 0.8.0
 */
export const withCell = (
  file: ConfigFile,
  cell: { readonly name: string; readonly values: Readonly<Record<string, unknown>> },
  known: ReadonlySet<string>
): Effect.Effect<ConfigFile, ConfigFileError> =>
  Effect.suspend(() => {
    const line = file.matrix?.line ?? 1
    const entries = new Map(file.entries)
    for (const [key, value] of Object.entries(cell.values)) {
      if (!known.has(key)) {
        const near = closest(key, known)
        return Effect.fail(
          new ConfigFileError({
            file: file.file,
            line,
            key: `matrix (cell ${cell.name}): ${key}`,
            problem: `unknown key${near === undefined ? "" : ` (did you mean ${near}?)`}`
          })
        )
      }
      entries.set(key, { key, value, line })
    }
    return Effect.succeed({ ...file, entries })
  })

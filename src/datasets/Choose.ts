/**
 * Which rows of a dataset a run takes: `--ids FILE` (only the task ids it
 * lists), `--sample N --seed S` (a uniform sample of N in one pass,
 * reservoir sampling, memory O(N), kept in the dataset's order),
 * `--shuffle --seed S` (a seeded order of every row, memory O(rows)) and
 * `--limit N` (the first N, after the others). The same seed gives the same
 * rows and order on every machine: the generator is ours (SplitMix32), not
 * the platform's.
 *
 * @since 0.3.0
 */
import { Console, Effect, FileSystem, Schema, Stream } from "effect"
import { createHash } from "node:crypto"
import { DatasetError, type Item } from "./Source.ts"

/**
 * The choice, as the flags give it.
 *
 * @category models
 * @since 0.3.0
 */
export interface Selection {
  readonly limit?: number | undefined
  readonly sample?: number | undefined
  readonly shuffle?: boolean | undefined
  /** The seed of `sample` and `shuffle`; 0 when undefined. */
  readonly seed?: number | undefined
  /** `--ids FILE`, its ids read (`readIds`). */
  readonly ids?: IdList | undefined
}

/**
 * An `--ids` file, read.
 *
 * @category models
 * @since 0.3.0
 */
export interface IdList {
  readonly file: string
  readonly ids: ReadonlySet<string>
  /** The SHA-256 of the file's bytes: what the run definition records of it. */
  readonly sha256: string
}

/**
 * The choice as the summary and the run definition record it: `"all"`, or
 * what was asked.
 *
 * @category schemas
 * @since 0.3.0
 */
export const Recorded = Schema.Union([
  Schema.Literal("all"),
  Schema.Struct({
    limit: Schema.optionalKey(Schema.Number),
    sample: Schema.optionalKey(Schema.Number),
    shuffle: Schema.optionalKey(Schema.Boolean),
    seed: Schema.optionalKey(Schema.Number),
    ids: Schema.optionalKey(Schema.Struct({ file: Schema.String, count: Schema.Number, sha256: Schema.String }))
  })
])
export type Recorded = typeof Recorded.Type

/**
 * Whether a selection takes every row as it is.
 *
 * @category predicates
 * @since 0.3.0
 */
export const isAll = (selection: Selection | undefined): boolean =>
  selection === undefined ||
  (selection.limit === undefined && selection.sample === undefined && selection.shuffle !== true && selection.ids === undefined)

/**
 * A selection as recorded.
 *
 * @category formatting
 * @since 0.3.0
 */
export const recorded = (selection: Selection | undefined): Recorded => {
  if (selection === undefined || isAll(selection)) return "all"
  const seeded = selection.sample !== undefined || selection.shuffle === true
  return {
    ...(selection.ids === undefined
      ? {}
      : { ids: { file: selection.ids.file, count: selection.ids.ids.size, sha256: selection.ids.sha256 } }),
    ...(selection.sample === undefined ? {} : { sample: selection.sample }),
    ...(selection.shuffle === true ? { shuffle: true } : {}),
    ...(seeded ? { seed: selection.seed ?? 0 } : {}),
    ...(selection.limit === undefined ? {} : { limit: selection.limit })
  }
}

/**
 * The combinations of flags refused, worded for the CLI; undefined when
 * fine.
 *
 * @category checking
 * @since 0.3.0
 */
export const problem = (selection: Selection, seedGiven: boolean): string | undefined => {
  if (selection.sample !== undefined && selection.limit !== undefined) {
    return "--sample N already says how many rows: it cannot be given with --limit"
  }
  if (seedGiven && selection.sample === undefined && selection.shuffle !== true) {
    return "--seed seeds --sample or --shuffle: give one of them"
  }
  return undefined
}

/**
 * Reads an `--ids` file: one task id a line; blank lines and lines starting
 * with `#` are skipped, surrounding spaces dropped.
 *
 * @category constructors
 * @since 0.3.0
 */
export const readIds = (file: string): Effect.Effect<IdList, DatasetError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const bytes = yield* fs.readFile(file).pipe(
      Effect.mapError((e) =>
        new DatasetError({
          path: file,
          message: e.reason._tag === "NotFound" ? `--ids ${file}: no such file` : `--ids ${file}: cannot read it (${e.message})`
        })
      )
    )
    const ids = new Set<string>()
    for (const line of new TextDecoder().decode(bytes).split(/\r?\n/)) {
      const id = line.trim()
      if (id !== "" && !id.startsWith("#")) ids.add(id)
    }
    if (ids.size === 0) return yield* new DatasetError({ path: file, message: `--ids ${file} lists no task ids` })
    return { file, ids, sha256: createHash("sha256").update(bytes).digest("hex") }
  })

/**
 * SplitMix32: a small, well-mixed 32-bit generator, the same on every
 * platform and version, so a seed names the same rows forever.
 *
 * @category random
 * @since 0.3.0
 */
export const generator = (seed: number): () => number => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296
  }
}

const idOf = (item: Item) => item._tag === "Task" ? item.task.id : item.taskId

/**
 * The items `selection` takes from `items`, lazily where it can be: `--ids`
 * and `--limit` stream; `--sample` holds N items and gives them once the
 * source is read; `--shuffle` holds every item.
 *
 * @category combinators
 * @since 0.3.0
 */
export const choose = <E, R>(
  items: Stream.Stream<Item, E, R>,
  selection: Selection | undefined
): Stream.Stream<Item, E, R> => {
  if (selection === undefined || isAll(selection)) return items
  let out = items
  const list = selection.ids
  if (list !== undefined) {
    const found = new Set<string>()
    out = out.pipe(
      Stream.filter((item) => {
        const id = idOf(item)
        if (!list.ids.has(id)) return false
        found.add(id)
        return true
      }),
      Stream.concat(Stream.fromEffect(Effect.suspend(() => {
        const missing = [...list.ids].filter((id) => !found.has(id))
        return missing.length === 0 ? Effect.void : Console.error(
          `agent-trials: --ids ${list.file}: ${missing.length} of its ${list.ids.size} ids are not in the dataset ` +
            `(${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", ..." : ""})`
        )
      })).pipe(Stream.drain))
    )
  }
  const sample = selection.sample
  if (sample !== undefined) {
    const source = out
    out = Stream.suspend(() => {
      const random = generator(selection.seed ?? 0)
      const reservoir: Array<{ readonly index: number; readonly item: Item }> = []
      let seen = 0
      return Stream.unwrap(Stream.runForEach(source, (item) =>
        Effect.sync(() => {
          // Algorithm R: the i-th item replaces a kept one with chance N/(i+1).
          if (seen < sample) reservoir.push({ index: seen, item })
          else {
            const j = Math.floor(random() * (seen + 1))
            if (j < sample) reservoir[j] = { index: seen, item }
          }
          seen++
        })).pipe(Effect.map(() => Stream.fromIterable(reservoir.sort((a, b) => a.index - b.index).map((k) => k.item)))))
    })
  }
  if (selection.shuffle === true) {
    const source = out
    out = Stream.suspend(() => {
      const random = generator(selection.seed ?? 0)
      return Stream.unwrap(Stream.runCollect(source).pipe(Effect.map((all) => {
        const rows = [...all]
        for (let i = rows.length - 1; i > 0; i--) {
          const j = Math.floor(random() * (i + 1))
          const t = rows[i]!
          rows[i] = rows[j]!
          rows[j] = t
        }
        return Stream.fromIterable(rows)
      })))
    })
  }
  return selection.limit === undefined ? out : Stream.take(out, selection.limit)
}

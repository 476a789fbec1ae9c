/**
 * How a run ended, written beside its results when it ends
 * (`RESULTS.jsonl.end.json`: its id, when, its outcome and the trials it
 * wrote), and removed when a run starts writing that file (a new run or
 * a `--resume`). So a reader (`view`) tells a run that ended (finished, or
 * stopped: interrupted, a budget reached, too many failures...) from one
 * still writing, and from one killed with no chance to say so (no marker,
 * and the file no longer grows).
 *
 * @since 0.9.0
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs/promises"

/**
 * The marker's content.
 *
 * @category models
 * @since 0.9.0
 */
export const RunEnd = Schema.Struct({
  run_id: Schema.String,
  ended_at: Schema.String,
  /** The summary's `outcome`: `finished`, `interrupted`, `max_cost_reached`, ... */
  outcome: Schema.String,
  /** The trials this run wrote to the file (a resumed run's own, not those before it). */
  written: Schema.Number
})
export type RunEnd = typeof RunEnd.Type

/**
 * Where the marker of the results file `out` is.
 *
 * @category paths
 * @since 0.9.0
 */
export const pathOf = (out: string): string => `${out}.end.json`

/**
 * Removes the marker of `out`, if any: a run is writing that file now.
 *
 * @category writing
 * @since 0.9.0
 */
export const clear = (out: string): Effect.Effect<void> =>
  Effect.promise(() => fs.rm(pathOf(out), { force: true }).catch(() => undefined))

/**
 * Writes the marker of `out` (through a temporary file and a rename, so a
 * reader never sees half of it). Fails with the write's own message.
 *
 * @category writing
 * @since 0.9.0
 */
export const write = (out: string, end: RunEnd): Effect.Effect<void, Error> =>
  Effect.tryPromise({
    try: async () => {
      const file = pathOf(out)
      const temp = `${file}.${process.pid}.tmp`
      await fs.writeFile(temp, JSON.stringify(end) + "\n")
      await fs.rename(temp, file)
    },
    catch: (e) => e instanceof Error ? e : new Error(String(e))
  })

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(RunEnd))

/**
 * The marker of `out`, when there is one that reads as one.
 *
 * @category reading
 * @since 0.9.0
 */
export const read = (out: string): Effect.Effect<RunEnd | undefined> =>
  Effect.promise(() =>
    fs.readFile(pathOf(out), "utf8").then(
      (text) => {
        const decoded = decode(text)
        return decoded._tag === "Some" ? decoded.value : undefined
      },
      () => undefined
    )
  )

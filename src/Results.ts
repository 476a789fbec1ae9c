/**
 * Where trials go: a JSONL results file, one `AgentEvalTrial` per line,
 * appended as trials finish and flushed in small batches. Resume reads it back
 * into a compact set of recorded trial ids and repairs a torn last line.
 *
 * @since 0.1.0
 */
import { type Duration, Effect, FileSystem, Path, Schema, Semaphore, Stream } from "effect"
import { IdSet } from "./internal/IdSet.ts"
import { splitLines } from "./internal/lines.ts"
import { AgentEvalTrial } from "./Trial.ts"

/**
 * The results file cannot be used as asked.
 *
 * @category errors
 * @since 0.1.0
 */
export class ResultsError extends Schema.TaggedError<ResultsError>()("ResultsError", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * What a resumed run found in its results file.
 *
 * @category models
 * @since 0.1.0
 */
export interface Recorded {
  /** Trial ids already done: skipped by this run. */
  readonly ids: IdSet
  /** Lines kept. */
  readonly kept: number
  /** `failed` lines removed to be run again (`--retry-failed`). */
  readonly droppedFailed: number
  /** Bytes of a torn last line cut off. */
  readonly repairedBytes: number
}

const decodeTrial = Schema.decodeUnknownExit(AgentEvalTrial)

/**
 * Gets `path` ready for appending. Without `resume`, an existing non-empty
 * file is an error: results are never overwritten. With `resume`, every valid
 * line is recorded (and handed to `onPrior`), a torn final line left by a kill
 * is cut off, and with `retryFailed` the `failed` lines are removed (the file
 * is rewritten to a temporary file and renamed over, so a crash meanwhile
 * leaves the original) so that their trials run again.
 *
 * @category resume
 * @since 0.1.0
 */
export const prepare = Effect.fn("Results.prepare")(function*(
  path: string,
  options: {
    readonly resume: boolean
    readonly retryFailed: boolean
    readonly onPrior?: ((trial: AgentEvalTrial) => void) | undefined
  }
) {
  const fs = yield* FileSystem.FileSystem
  const pathApi = yield* Path.Path
  const fail = (message: string) => new ResultsError({ path, message })
  yield* fs.makeDirectory(pathApi.dirname(path), { recursive: true }).pipe(
    Effect.mapError((e) => fail(`cannot create the folder of ${path}: ${e.message}`))
  )
  const info = yield* Effect.option(fs.stat(path))
  const empty: Recorded = { ids: new IdSet(), kept: 0, droppedFailed: 0, repairedBytes: 0 }
  if (info._tag === "None") return empty
  if (info.value.type !== "File") return yield* fail(`${path} exists and is not a file`)
  const size = Number(info.value.size)
  if (!options.resume) {
    if (size > 0) {
      return yield* fail(`${path} already holds results: pass --resume to continue that run, or choose another --out`)
    }
    return empty
  }

  const ids = new IdSet()
  let kept = 0
  let droppedFailed = 0
  let goodEnd = 0
  let lastUnterminated = false
  let badLine: { readonly number: number; readonly reason: string } | undefined
  yield* splitLines(fs.stream(path)).pipe(
    Stream.runForEachWhile((line) =>
      Effect.sync(() => {
        if (line.text.trim() === "") {
          goodEnd = line.end
          return true
        }
        const trial = parseTrial(line.text)
        if (typeof trial === "string") {
          // An unterminated bad last line is what a kill mid-write leaves: cut
          // it off. Anything else is damage we must not paper over.
          if (line.terminated) badLine = { number: line.number, reason: trial }
          return false
        }
        kept++
        goodEnd = line.end
        lastUnterminated = !line.terminated
        if (trial.status === "failed" && options.retryFailed) {
          droppedFailed++
        } else if (ids.add(trial.id)) {
          options.onPrior?.(trial)
        }
        return true
      })
    ),
    Effect.mapError((e) => fail(`cannot read ${path}: ${e.message}`))
  )
  if (badLine !== undefined) {
    return yield* fail(
      `${path}:${badLine.number}: not a trial record (${badLine.reason}); the file was left as it is`
    )
  }
  const repairedBytes = size - goodEnd
  if (repairedBytes > 0) {
    yield* fs.truncate(path, goodEnd).pipe(Effect.mapError((e) => fail(`cannot repair ${path}: ${e.message}`)))
  }
  if (lastUnterminated) {
    yield* fs.writeFileString(path, "\n", { flag: "a" }).pipe(
      Effect.mapError((e) => fail(`cannot repair ${path}: ${e.message}`))
    )
  }
  if (droppedFailed > 0) yield* rewriteWithout(path, (trial) => trial.status === "failed")
  return { ids, kept: kept - droppedFailed, droppedFailed, repairedBytes } satisfies Recorded
})

const parseTrial = (text: string): AgentEvalTrial | string => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return `not valid JSON: ${(e as Error).message}`
  }
  const exit = decodeTrial(json)
  return exit._tag === "Success" ? exit.value : "does not match AgentEvalTrial"
}

// Copies the kept lines to a temporary file beside `path`, then renames it
// over `path`: a crash in between leaves the original intact.
const rewriteWithout = Effect.fnUntraced(function*(path: string, drop: (trial: AgentEvalTrial) => boolean) {
  const fs = yield* FileSystem.FileSystem
  const tmp = `${path}.rewrite-${process.pid}`
  const fail = (e: { readonly message: string }) => new ResultsError({ path, message: `cannot rewrite ${path}: ${e.message}` })
  yield* Effect.scoped(Effect.gen(function*() {
    const out = yield* fs.open(tmp, { flag: "w" })
    const encoder = new TextEncoder()
    yield* splitLines(fs.stream(path)).pipe(
      Stream.filter((line) => {
        if (line.text.trim() === "") return false
        const trial = parseTrial(line.text)
        return typeof trial === "string" || !drop(trial)
      }),
      Stream.map((line) => line.text + "\n"),
      Stream.grouped(512),
      Stream.runForEach((lines) => out.writeAll(encoder.encode(lines.join("")))),
    )
    yield* out.sync
  })).pipe(Effect.mapError(fail))
  yield* fs.rename(tmp, path).pipe(Effect.mapError(fail))
})

/**
 * An append-only writer of trials. Lines are buffered and written when
 * `batchSize` are pending, every `flushEvery` milliseconds, and when the scope
 * closes (also on interruption), so a kill loses at most the last batch and
 * every line on disk is whole once the scope is closed.
 *
 * @category sinks
 * @since 0.1.0
 */
export interface Writer {
  readonly append: (trial: AgentEvalTrial) => Effect.Effect<void, ResultsError>
  readonly flush: Effect.Effect<void, ResultsError>
  /** Lines written to the file so far. */
  readonly written: () => number
}

/**
 * Opens `path` for appending.
 *
 * @category sinks
 * @since 0.1.0
 */
export const writer = Effect.fn("Results.writer")(function*(
  path: string,
  options?: { readonly batchSize?: number; readonly flushEvery?: Duration.Input }
) {
  const fs = yield* FileSystem.FileSystem
  const file = yield* fs.open(path, { flag: "a" }).pipe(
    Effect.mapError((e) => new ResultsError({ path, message: `cannot open ${path} for writing: ${e.message}` }))
  )
  const batchSize = options?.batchSize ?? 64
  const encoder = new TextEncoder()
  const lock = yield* Semaphore.make(1)
  let pending: Array<string> = []
  let written = 0
  const flush = lock.withPermit(Effect.suspend(() => {
    if (pending.length === 0) return Effect.void
    const lines = pending
    pending = []
    // Uninterruptible: a write cut short would leave a torn line mid-file
    // once the final flush appends after it.
    return Effect.uninterruptible(file.writeAll(encoder.encode(lines.join("")))).pipe(
      Effect.tap(() => Effect.sync(() => written += lines.length)),
      Effect.mapError((e) => new ResultsError({ path, message: `cannot write ${path}: ${e.message}` }))
    )
  }))
  yield* Effect.addFinalizer(() => Effect.ignore(flush))
  // A failed background flush is reported by the next append.
  let failure: ResultsError | undefined
  yield* flush.pipe(
    Effect.delay(options?.flushEvery ?? "200 millis"),
    Effect.forever,
    Effect.catch((e) => Effect.sync(() => failure = e)),
    Effect.forkScoped
  )
  const append = (trial: AgentEvalTrial) =>
    Effect.suspend(() => {
      if (failure !== undefined) return Effect.fail(failure)
      pending.push(JSON.stringify(trial) + "\n")
      return pending.length >= batchSize ? flush : Effect.void
    })
  return { append, flush, written: () => written } satisfies Writer
})

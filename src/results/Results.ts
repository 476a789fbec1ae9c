/**
 * Where trials go: a JSONL results file, one `AgentEvalTrial` per line,
 * appended as trials finish and flushed in small batches. Resume reads it back
 * into a compact set of recorded trial ids and repairs a torn last line.
 *
 * @since 0.1.0
 */
import { type Duration, Effect, Exit, FileSystem, Path, Schema, Scope, Semaphore, Stream } from "effect"
import { osError, removeStale, rewritePath as atomicRewritePath } from "../internal/atomicFile.ts"
import { IdSet } from "../internal/IdSet.ts"
import { notUtf8, readError, splitLines } from "../internal/lines.ts"
import { AgentEvalTrial } from "../domain/Trial.ts"
import * as Line from "./internal/line.ts"
import { onFixedPeriod } from "./internal/period.ts"

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
  readonly ids: { readonly has: (id: string) => boolean }
  /** Lines kept. */
  readonly kept: number
  /** `failed` lines removed to be run again (`--retry-failed`). */
  readonly droppedFailed: number
  /** Bytes of a torn last line cut off. */
  readonly repairedBytes: number
}

const decodeTrial = Schema.decodeUnknownExit(AgentEvalTrial)

/**
 * Gets `path` ready for appending: a file that cannot be opened for appending
 * is an error, and temporary files that a killed rewrite of it left are
 * removed (see `removeStale`). Without `resume`, an existing non-empty
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
  // Found now, not at the first write after a batch of agent calls: a file
  // that cannot be opened for appending (a read-only folder or file system).
  // One made by the check is removed again: a run that stops on bad input
  // leaves no results file behind.
  const appendable = (made: boolean) =>
    Effect.scoped(fs.open(path, { flag: "a" })).pipe(
      Effect.andThen(made ? fs.remove(path) : Effect.void),
      Effect.mapError((e) => fail(`cannot write ${path}: ${osError(e)}`))
    )
  if (info._tag === "None" || info.value.type === "File") yield* removeStale(path)
  if (info._tag === "None") return yield* Effect.as(appendable(true), empty)
  if (info.value.type === "Directory") return yield* fail(`${path} is a folder, not a file`)
  // A device or a pipe (/dev/stdout, a FIFO) can take appended lines, but
  // holds nothing to resume from.
  if (info.value.type !== "File") {
    return options.resume ? yield* fail(`${path} is not a regular file: --resume cannot read it back`) : empty
  }
  const size = Number(info.value.size)
  yield* appendable(false)
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
  let badLine: string | undefined
  yield* splitLines(fs.stream(path)).pipe(
    Stream.runForEachWhile((line) =>
      Effect.sync(() => {
        if (line.invalidUtf8 === undefined && line.text.trim() === "") {
          goodEnd = line.end
          return true
        }
        const trial = line.invalidUtf8 === undefined ? parseTrial(line.text) : undefined
        if (typeof trial !== "object") {
          // An unterminated bad last line is what a kill mid-write leaves
          // (possibly cut inside a character): cut it off. Anything else is
          // damage we must not paper over.
          if (line.terminated) {
            badLine = `${path}:${line.number}: ` +
              (trial === undefined ? notUtf8(line) : `not a trial record (${trial})`)
          }
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
    Effect.mapError((e) => fail(readError(path, e)))
  )
  if (badLine !== undefined) return yield* fail(`${badLine}; the file was left as it is`)
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
// over `path`: a crash in between leaves the original intact, and an
// interrupt or a failure removes the temporary file.
const rewriteWithout = Effect.fnUntraced(function*(path: string, drop: (trial: AgentEvalTrial) => boolean) {
  const fs = yield* FileSystem.FileSystem
  const tmp = rewritePath(path)
  const fail = (e: { readonly message: string; readonly reason?: unknown }) =>
    new ResultsError({ path, message: `cannot rewrite ${path}: ${osError(e)}` })
  const copy = Effect.scoped(Effect.gen(function*() {
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
  }))
  yield* Effect.andThen(copy, fs.rename(tmp, path)).pipe(
    Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.ignore(fs.remove(tmp))),
    Effect.mapError(fail)
  )
})

/**
 * The temporary file `--retry-failed` writes beside `path` before renaming it
 * over `path`.
 *
 * @internal
 */
export const rewritePath = (path: string): string => atomicRewritePath(path)

/**
 * Writing to the results file failed (a full disk, an I/O error): the run
 * stops, and the trials not yet on disk are not recorded. `lost` counts the
 * trials that were handed to the writer but are not in the file.
 *
 * @category errors
 * @since 0.1.0
 */
export class ResultsWriteError extends Schema.TaggedError<ResultsWriteError>()("ResultsWriteError", {
  path: Schema.String,
  message: Schema.String,
  lost: Schema.Number
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * An append-only writer of trials. Lines are buffered and written when
 * `batchSize` are pending, every `flushEvery` milliseconds, and when the scope
 * closes (also on interruption), so a kill loses at most the last batch and
 * every line on disk is whole once the scope is closed.
 *
 * The file is opened at the first write: a run that fails before any trial
 * finishes leaves no results file behind. The first failed write stops the
 * writer: it and every later `append` or `flush` fail with the same
 * `ResultsWriteError`, and `failure()` returns it (also when it happened in
 * the flush that closes the scope).
 *
 * @category sinks
 * @since 0.1.0
 */
export interface Writer {
  readonly append: (trial: AgentEvalTrial) => Effect.Effect<void, ResultsWriteError>
  readonly flush: Effect.Effect<void, ResultsWriteError>
  /** Lines written to the file so far. */
  readonly written: () => number
  /** The write failure that stopped the writer, if any. */
  readonly failure: () => ResultsWriteError | undefined
}

/**
 * Opens a writer that appends to `path`. `onWritten` sees each trial once its
 * line is on disk (not merely buffered), so counts taken from it are what the
 * file holds.
 *
 * @category sinks
 * @since 0.1.0
 */
export const writer = Effect.fn("Results.writer")(function*(
  path: string,
  options?: {
    readonly batchSize?: number
    readonly flushEvery?: Duration.Input
    readonly onWritten?: ((trial: AgentEvalTrial) => void) | undefined
  }
) {
  const fs = yield* FileSystem.FileSystem
  const batchSize = options?.batchSize ?? 64
  const onWritten = options?.onWritten
  const lock = yield* Semaphore.make(1)
  // The file lives in a scope of its own, closed after the final flush.
  const fileScope = yield* Scope.make()
  let file: Sink | undefined
  let pending: Array<AgentEvalTrial> = []
  let written = 0
  let failure: ResultsWriteError | undefined

  const stop = (batch: ReadonlyArray<AgentEvalTrial>, from: number, reason: string) => {
    failure = new ResultsWriteError({
      path,
      message: `cannot write ${path}: ${reason}`,
      lost: batch.length - from + pending.length
    })
    pending = []
    return Effect.fail(failure)
  }

  // Writes `batch` and reports which of its lines reached the file, counting
  // the bytes of each write so that a failure part-way is exact to the line.
  const writeBatch = (batch: ReadonlyArray<AgentEvalTrial>) =>
    Effect.gen(function*() {
      if (file === undefined) {
        const opened = yield* Effect.result(
          isStdout(path) ? Effect.succeed(stdoutSink) : Scope.provide(fs.open(path, { flag: "a" }), fileScope)
        )
        if (opened._tag === "Failure") return yield* stop(batch, 0, `cannot open it: ${osError(opened.failure)}`)
        file = opened.success
      }
      const ends: Array<number> = []
      let end = 0
      // A record JSON cannot write is replaced by its failed record (`Line.of`), the one `onWritten` sees.
      const records: Array<AgentEvalTrial> = []
      const texts: Array<string> = []
      let most = 0
      for (const trial of batch) {
        const encoded = Line.of(trial)
        records.push(encoded.trial)
        texts.push(encoded.text)
        most += encoded.text.length * 3 + 1
      }
      // Each line encoded once, into the bytes written (UTF-8: at most 3 bytes a UTF-16 unit).
      const buffer = Buffer.allocUnsafe(most)
      for (const text of texts) {
        end += buffer.write(text, end, "utf8")
        buffer[end++] = 10
        ends.push(end)
      }
      const bytes = buffer.subarray(0, end)
      let offset = 0
      let line = 0
      const settle = (upTo: number) => {
        for (; line < ends.length && ends[line] <= upTo; line++) {
          written++
          onWritten?.(records[line]!)
        }
      }
      while (offset < bytes.length) {
        const result = yield* Effect.result(file.write(bytes.subarray(offset)))
        if (result._tag === "Failure") {
          settle(offset)
          return yield* stop(batch, line, osError(result.failure))
        }
        offset += result.success
        settle(offset)
      }
    })

  // Taking the batch and writing it are one uninterruptible step: an
  // interrupt can come before the batch is taken (it stays pending for the
  // final flush) or after it is written, never in between; and a write cut
  // short would leave a torn line mid-file once the final flush appends.
  const flush: Effect.Effect<void, ResultsWriteError> = lock.withPermit(Effect.uninterruptible(Effect.suspend(() => {
    if (failure !== undefined) return Effect.fail(failure)
    if (pending.length === 0) return Effect.void
    const batch = pending
    pending = []
    return writeBatch(batch)
  })))

  yield* Effect.addFinalizer(() => Effect.andThen(Effect.ignore(flush), Scope.close(fileScope, Exit.void)))
  // A failed background flush stops the writer; the next append reports it.
  // On a fixed period: a slow write does not stretch the time a finished
  // trial waits to reach the file (what a kill -9 loses, and a resumed run asks again).
  yield* onFixedPeriod(flush, options?.flushEvery ?? "200 millis").pipe(
    Effect.ignore,
    Effect.forkScoped
  )
  const append = (trial: AgentEvalTrial) =>
    Effect.suspend(() => {
      if (failure !== undefined) return Effect.fail(failure)
      pending.push(trial)
      return pending.length >= batchSize ? flush : Effect.void
    })
  return { append, flush, written: () => written, failure: () => failure } satisfies Writer
})

const STDOUT_PATHS = new Set(["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])

// Where the writer's bytes go: an open file, or stdout.
interface Sink {
  readonly write: (bytes: Uint8Array) => Effect.Effect<number, { readonly message: string; readonly reason?: unknown }>
}

// Stdout is written through the process's own stream, not opened by its path:
// a socket (what a parent process's pipe often is) cannot be (ENXIO). A batch
// counts as written once the stream has handed it to the system. A failed
// write (EPIPE when the reader went away) is the callback's to report: the
// stream's 'error' event, unheard, would crash the process.
let stdoutHeard = false
const stdoutSink: Sink = {
  write: (bytes) =>
    Effect.callback((resume) => {
      if (!stdoutHeard) {
        stdoutHeard = true
        process.stdout.on("error", () => {})
      }
      process.stdout.write(bytes, (error) => resume(error ? Effect.fail(error) : Effect.succeed(bytes.length)))
    })
}

/**
 * Whether `--out` names the process's stdout (`-`, `/dev/stdout`,
 * `/dev/fd/1`): the results are then the only lines on stdout, and every
 * other line a command prints goes to stderr, so the JSONL can be piped.
 *
 * @category sinks
 * @since 0.1.0
 */
export const isStdout = (path: string): boolean => STDOUT_PATHS.has(path)

/**
 * The file `--out` names: `-` is `/dev/stdout`.
 *
 * @category sinks
 * @since 0.1.0
 */
export const outPath = (out: string): string => (out === "-" ? "/dev/stdout" : out)

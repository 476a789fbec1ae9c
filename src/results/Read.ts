/**
 * The one reader of results files: a line at a time, each line a trial
 * record or an error naming the file and the line. `run --resume` keeps its
 * own pass (it repairs a torn last line instead of failing on it); `score`,
 * `report` and `compare` read through this one.
 *
 * @since 0.3.0
 */
import { Effect, FileSystem, Option, Schema, Stream } from "effect"
import { IdSet } from "../internal/IdSet.ts"
import { type Line, notUtf8, readError, splitLines } from "../internal/lines.ts"
import { AgentEvalTrial } from "../domain/Trial.ts"
import { ResultsError } from "./Results.ts"

const decodeTrial = Schema.decodeUnknownExit(AgentEvalTrial)

/**
 * The trials of a results file, a line at a time; a line that is not a trial
 * fails the stream with its file and line number, and so does a trial id
 * seen before (a file concatenated with itself would count every trial
 * twice), naming both lines. The ids seen are kept as 128-bit fingerprints
 * (`IdSet`: 21 to 43 bytes a trial); the line of the first one is found by
 * reading the file again, only then.
 *
 * @category sources
 * @since 0.3.0
 */
export const trialsOf = (file: string): Stream.Stream<AgentEvalTrial, ResultsError, FileSystem.FileSystem> =>
  Stream.map(numberedTrialsOf(file), (numbered) => numbered.trial)

/**
 * The trials of a results file as `trialsOf` reads them, each with its line
 * number (counted from 1, blank lines included), for a reader that checks
 * more of a record than its schema and names the line that is wrong.
 *
 * @category sources
 * @since 0.3.0
 */
export const numberedTrialsOf = (
  file: string
): Stream.Stream<{ readonly trial: AgentEvalTrial; readonly line: number }, ResultsError, FileSystem.FileSystem> =>
  Stream.unwrap(Effect.map(Effect.service(FileSystem.FileSystem), (fs) => {
    const seen = new IdSet()
    const lines = splitLines(fs.stream(file)).pipe(
      Stream.mapError((e) => new ResultsError({ path: file, message: readError(file, e) })),
      Stream.filter((line) => line.invalidUtf8 !== undefined || line.text.trim() !== "")
    )
    const duplicate = (trial: AgentEvalTrial, number: number) =>
      firstLineOf(lines, trial.id, number).pipe(Effect.flatMap(Option.match({
        // Only a fingerprint collision (about 2^-128 a pair) gets here.
        onNone: () => Effect.succeed(trial),
        onSome: (first) =>
          Effect.fail(
            new ResultsError({
              path: file,
              message: `${file}:${number}: duplicate trial id ${JSON.stringify(trial.id)} (first at line ${first})`
            })
          )
      })))
    return lines.pipe(
      Stream.mapEffect((line) => {
        if (line.invalidUtf8 !== undefined) {
          return Effect.fail(new ResultsError({ path: file, message: `${file}:${line.number}: ${notUtf8(line)}` }))
        }
        let json: unknown
        try {
          json = JSON.parse(line.text)
        } catch (e) {
          return Effect.fail(
            new ResultsError({ path: file, message: `${file}:${line.number}: not valid JSON (${(e as Error).message})` })
          )
        }
        const exit = decodeTrial(json)
        if (exit._tag === "Failure") {
          return Effect.fail(new ResultsError({ path: file, message: `${file}:${line.number}: not an AgentEvalTrial` }))
        }
        const trial = exit.value
        return seen.add(trial.id)
          ? Effect.succeed({ trial, line: line.number })
          : Effect.map(duplicate(trial, line.number), (trial) => ({ trial, line: line.number }))
      })
    )
  }))

// The first line before `before` whose record has the id `id`: every line
// before it was read as a trial already.
const firstLineOf = <E, R>(lines: Stream.Stream<Line, E, R>, id: string, before: number) =>
  lines.pipe(
    Stream.takeWhile((line) => line.number < before),
    Stream.filter((line) => (JSON.parse(line.text) as { readonly id: unknown }).id === id),
    Stream.map((line) => line.number),
    Stream.runHead
  )

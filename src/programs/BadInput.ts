/**
 * What a run tells, and leaves, when it stops on bad input: its error first
 * (before any summary), no summary when it recorded nothing, no results file
 * named that was not created, and no run definition beside a results file
 * that does not exist.
 *
 * @since 0.6.0
 */
import { Cause, Console, Effect, Exit, FileSystem } from "effect"
import * as Redactor from "../runner/Redactor.ts"
import * as Results from "../results/Results.ts"
import * as RunDefinition from "./run/Definition.ts"

// The errors a run has printed itself, before its summary: the command does
// not print them again.
const toldErrors = new WeakSet<object>()

/**
 * Whether the run printed `error` itself (`tellFirst`), so the command must
 * not print it a second time.
 *
 * @category guards
 * @since 0.6.0
 */
export const told = (error: unknown): boolean => typeof error === "object" && error !== null && toldErrors.has(error)

/**
 * For a run stopped by bad input (outcome `input_error`), prints its error
 * on stderr, `agent-trials: MESSAGE`, before anything else of the run's end;
 * true when it did (then the summary follows only if the run recorded
 * something: a summary of nothing would bury the one line that matters).
 *
 * @category telling
 * @since 0.6.0
 */
export const tellFirst = (exit: Exit.Exit<unknown, unknown>, outcome: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    if (outcome !== "input_error" || Exit.isSuccess(exit)) return Effect.succeed(false)
    const reason = exit.cause.reasons.find(Cause.isFailReason)
    const error = reason?.error as { readonly message?: unknown } | undefined
    if (typeof error !== "object" || error === null || typeof error.message !== "string") return Effect.succeed(false)
    toldErrors.add(error)
    // Scrubbed of the run's secrets: the command's Redactor (the CLI provides one).
    return Effect.flatMap(
      Redactor.scrubCurrent(error.message),
      (message) => Effect.as(Console.error(`agent-trials: ${message}`), true)
    )
  })

/**
 * The `results: FILE` line, said once the file exists: at once for a file
 * that is there already (a resume, `/dev/stdout`), else when `written()`
 * first counts a line on disk (`sayWhenWritten`, after each append and
 * before the summary). A run that writes nothing names no file.
 *
 * @category telling
 * @since 0.6.0
 */
export const resultsLine = Effect.fnUntraced(function*(out: string, say: (line: string) => Effect.Effect<void>) {
  const fs = yield* FileSystem.FileSystem
  let said = false
  const sayIt = Effect.suspend(() => {
    said = true
    return say(`results: ${out}`)
  })
  if (Results.isStdout(out) || (yield* fs.exists(out).pipe(Effect.orElseSucceed(() => false)))) yield* sayIt
  return {
    sayWhenWritten: (written: () => number): Effect.Effect<void> =>
      Effect.suspend(() => (said || written() === 0 ? Effect.void : sayIt))
  }
})

/**
 * Removes the run definition (`OUT.run.json`) this run wrote when `out`
 * itself was never created (bad input before any trial, a stop before the
 * first write): a definition beside no results describes nothing.
 *
 * @category cleanup
 * @since 0.6.0
 */
export const dropLoneDefinition = (out: string): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (yield* fs.exists(out).pipe(Effect.orElseSucceed(() => true))) return
    yield* Effect.ignore(fs.remove(RunDefinition.pathOf(out)))
  })

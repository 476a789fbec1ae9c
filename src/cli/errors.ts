/**
 * How a command fails: the errors that set the exit code, and the one line
 * each prints on stderr.
 *
 * @since 0.1.0
 */
import { Console, Effect, Predicate, Runtime, Schema } from "effect"
import { exitCodeOf } from "../domain/Errors.ts"
import { whereFields, whereOf } from "../domain/internal/where.ts"
import * as BadInput from "../programs/BadInput.ts"
import * as Redactor from "../runner/Redactor.ts"

/**
 * The reproduction did not show the bounded runner within its bounds. With
 * the figures `repro` measured: `tasks` and `parallelism` as asked, and the
 * bounded runner's own counts (`bounded`: its peak of calls in flight, the
 * calls pending and fibers alive while every call was held, the trials
 * completed and failed).
 *
 * @category errors
 * @since 0.1.0
 */
export class BoundsViolated extends Schema.TaggedError<BoundsViolated>()("BoundsViolated", {
  message: Schema.String,
  tasks: Schema.optionalKey(Schema.Number),
  parallelism: Schema.optionalKey(Schema.Number),
  bounded: Schema.optionalKey(Schema.Struct({
    peak_active_calls: Schema.Number,
    pending_before_release: Schema.Number,
    live_fibers_before_release: Schema.Number,
    completed: Schema.Number,
    failed: Schema.Number
  }))
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
}

/**
 * Bad flags or input: exit code 2. It keeps the flag, the file and the line
 * at fault that the command's own error named.
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String,
  ...whereFields,
  /** Already printed by the command itself, before its summary: not printed again. */
  told: Schema.optionalKey(Schema.Boolean)
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
}

/**
 * The run stopped before its end: its failure budget (`--max-failures`) was
 * exceeded, or the results file could not be written. Exit 1. It keeps the
 * flag and the file the command's own error named (a write that failed:
 * `--out out.jsonl`).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunStopped extends Schema.TaggedError<RunStopped>()("RunStopped", {
  message: Schema.String,
  ...whereFields
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
}

/**
 * Prints a failure of ours as one plain line on stderr (no stack trace): the
 * message already names the flag, file or line at fault, scrubbed of the
 * command's secrets (its `Redactor`, which `runOnNode` provides around the
 * whole command: its command line's, and every agent's the run called).
 *
 * @category combinators
 * @since 0.1.0
 */
export const reportErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapError(self, (error) => {
    const shown = shownOf(error)
    return shown === undefined ? Effect.void : Effect.flatMap(Redactor.scrubCurrent(shown), (message) => Console.error(`agent-trials: ${message}`))
  })

// The line a command's own failure prints, by its tag; undefined for a
// failure that is not ours, or one the command has printed already.
const shownOf = (error: unknown): string | undefined => {
  if (!Predicate.isTagged(error, "UsageError") && !Predicate.isTagged(error, "BoundsViolated") && !Predicate.isTagged(error, "RunStopped")) {
    return undefined
  }
  const { message, told } = error as unknown as { readonly message: string; readonly told?: boolean }
  return told === true ? undefined : message
}

// A command's own failure as its exit, by the exit code its class carries
// (`Errors.exitCodeOf`): bad input 2, a stop on the way (a failure budget, a
// results file that cannot be written) 1.
export const exitFor = (error: { readonly message: string }): UsageError | RunStopped =>
  exitCodeOf(error) === 2
    ? new UsageError({ message: error.message, ...whereOf(error), ...(BadInput.told(error) ? { told: true } : undefined) })
    : new RunStopped({ message: error.message, ...whereOf(error) })

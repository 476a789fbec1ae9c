/**
 * How a command fails: the errors that set the exit code, and the one line
 * each prints on stderr.
 *
 * @since 0.1.0
 */
import { Console, Effect, Runtime, Schema } from "effect"
import * as BadInput from "../programs/BadInput.ts"
import * as Redactor from "../runner/Redactor.ts"

/**
 * The reproduction did not show the bounded runner within its bounds.
 *
 * @category errors
 * @since 0.1.0
 */
export class BoundsViolated extends Schema.TaggedError<BoundsViolated>()("BoundsViolated", {
  message: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 1
  override readonly [Runtime.errorReported] = false
}

/**
 * Bad flags or input: exit code 2.
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String,
  /** Already printed by the command itself, before its summary: not printed again. */
  told: Schema.optionalKey(Schema.Boolean)
}) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
}

/**
 * The run stopped before its end: its failure budget (`--max-failures`) was
 * exceeded, or the results file could not be written. Exit 1.
 *
 * @category errors
 * @since 0.1.0
 */
export class RunStopped extends Schema.TaggedError<RunStopped>()("RunStopped", {
  message: Schema.String
}) {
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
  Effect.tapError(self, (error) =>
    (error instanceof UsageError && error.told !== true) || error instanceof BoundsViolated || error instanceof RunStopped
      ? Effect.flatMap(Redactor.scrubCurrent(error.message), (message) => Console.error(`agent-trials: ${message}`))
      : Effect.void)

// A command's own failure as its exit: bad input 2, a stop on the way (a
// failure budget, a results file that cannot be written) 1.
export const exitFor = (isInput: (error: unknown) => boolean) => (error: { readonly message: string }) =>
  isInput(error)
    ? new UsageError({ message: error.message, ...(BadInput.told(error) ? { told: true } : undefined) })
    : new RunStopped({ message: error.message })

/**
 * The command-line surface. Entrypoints in scripts/ only run these commands.
 *
 * @since 0.1.0
 */
import { Console, Effect, Runtime, Schema } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { formatReport, reproduce } from "./Repro.ts"

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
  message: Schema.String
}) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
}

/**
 * Prints a failure of ours as one plain line on stderr (no stack trace): the
 * message already names the flag, file or line at fault.
 *
 * @category combinators
 * @since 0.1.0
 */
export const reportErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapError(self, (error) =>
    error instanceof UsageError || error instanceof BoundsViolated
      ? Console.error(`agent-trials: ${error.message}`)
      : Effect.void)

/**
 * A command-line parse failure, already printed with the help text: exit 2.
 *
 * @category errors
 * @since 0.1.0
 */
export class ParseFailed extends Schema.TaggedError<ParseFailed>()("ParseFailed", {}) {
  override readonly [Runtime.errorExitCode] = 2
  override readonly [Runtime.errorReported] = false
}

/**
 * Runs a command on the process arguments: `--help` exits 0, a parse error 2.
 *
 * @category running
 * @since 0.1.0
 */
export const runCommand = <Name extends string, Input, E, R>(command: Command.Command<Name, Input, {}, E, R>) =>
  Command.run(command, { version: "0.1.0" }).pipe(
    Effect.catchIf(CliError.isCliError, (error) =>
      error._tag === "ShowHelp" && error.errors.length === 0 ? Effect.void : Effect.fail(new ParseFailed()))
  )

/**
 * `repro [--tasks N] [--parallelism N] [--json]`.
 *
 * @category commands
 * @since 0.1.0
 */
export const reproCommand = Command.make(
  "repro",
  {
    tasks: Flag.Int("tasks").pipe(
      Flag.withDescription("Number of controlled tasks to run through each runner"),
      Flag.withDefault(512)
    ),
    parallelism: Flag.Int("parallelism").pipe(
      Flag.withDescription("Configured parallelism (an integer >= 1)"),
      Flag.withDefault(8)
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print one JSON object instead of text"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("Cli.repro")(function*({ json, parallelism, tasks }) {
    if (!Number.isSafeInteger(tasks) || tasks < 0) {
      return yield* new UsageError({ message: `--tasks must be an integer >= 0, got ${tasks}` })
    }
    const report = yield* reproduce({ tasks, parallelism }).pipe(
      Effect.mapError((e) => new UsageError({ message: e.message.replace("parallelism", "--parallelism") }))
    )
    yield* Console.log(json ? JSON.stringify(report, null, 2) : formatReport(report))
    if (!report.bounds_held) {
      return yield* new BoundsViolated({ message: "the bounded runner exceeded its bounds or left tasks incomplete" })
    }
  }, reportErrors)
).pipe(Command.withDescription(
  "Reproduce the eager-admission bug: run the original shape and agent-trials side by side on a gated local agent"
))

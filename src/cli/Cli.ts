/**
 * The command-line surface. Entrypoints in scripts/ only run these commands.
 *
 * @since 0.1.0
 */
import { Console, Effect, Runtime, Schema } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import { cacheCommand } from "./cache.ts"
import { clusterCommand, makeWorkerCommand, workerCommand } from "./cluster.ts"
import { compareCommand, makeCompareCommand } from "./compare.ts"
import { initCommand } from "./init.ts"
import { reportCommand } from "./report.ts"
import { reproCommand } from "./repro.ts"
import { makeRunCommand, runCommand } from "./run.ts"
import { makeScoreCommand, scoreCommand } from "./score.ts"
import { viewCommand } from "./view.ts"
import { packageVersion } from "../internal/packageVersion.ts"
import * as Kinds from "../programs/Kinds.ts"

export { BoundsViolated, reportErrors, RunStopped, UsageError } from "./errors.ts"
export { cacheCommand, clusterCommand, compareCommand, initCommand, reportCommand, reproCommand, runCommand, scoreCommand, viewCommand, workerCommand }
export { makeCompareCommand, makeRunCommand, makeScoreCommand, makeWorkerCommand }

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

// A refused value is one line on stderr, like every other usage error (the
// message names the flag or variable and what is expected); anything else
// (an unknown flag, a missing value) still gets the help text.
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation" &&
      event.errors.every((e) => e._tag === "ValidationError" || e._tag === "InvalidValue")
      ? Console.error(event.errors.map((e) => `agent-trials: ${e.message}`).join("\n"))
      : CliOutput.defaultPresenter.present(event)
}

/**
 * Runs a command on the process arguments: `--help` exits 0, a parse error 2.
 *
 * @category running
 * @since 0.1.0
 */
export const runCli = <Name extends string, Input, E, R>(command: Command.Command<Name, Input, {}, E, R>) =>
  Command.run(command, { version: packageVersion() }).pipe(
    Effect.provideService(CliOutput.Presenter, presenter),
    Effect.catchIf(CliError.isCliError, (error) =>
      error._tag === "ShowHelp" && error.errors.length === 0 ? Effect.void : Effect.fail(new ParseFailed()))
  )

/**
 * The root command over a registry of kinds: `--agent`, `--score`, the
 * dataset formats and the outputs, and their help, come from `kinds`, and
 * every command's program reads them from the `Kinds.Registry` service,
 * provided here once.
 *
 * @category commands
 * @since 0.3.0
 */
export const make = (kinds: Kinds.Kinds) =>
  Command.make("agent-trials").pipe(
    Command.withDescription("A bounded, streaming evaluation runner for AI agents"),
    Command.withSubcommands([
      makeRunCommand(kinds),
      makeScoreCommand(kinds),
      makeCompareCommand(kinds),
      reportCommand,
      viewCommand,
      reproCommand,
      initCommand,
      makeWorkerCommand(kinds),
      clusterCommand,
      cacheCommand
    ]),
    Command.provide(Kinds.layerOf(kinds))
  )

/**
 * `agent-trials`: the root command, with this package's kinds.
 *
 * @category commands
 * @since 0.1.0
 */
export const trialsCommand = make(Kinds.builtIn)

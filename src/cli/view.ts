/**
 * The `view` command.
 *
 * @since 0.7.0
 */
import { Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { exitFor, reportErrors } from "./errors.ts"

/**
 * `view [DIR] [--port N] [--host H]`: a local web server over every run
 * under DIR (default `runs`), live while runs write; prints its URL and
 * serves until Ctrl-C.
 *
 * @category commands
 * @since 0.7.0
 */
export const viewCommand = Command.make(
  "view",
  {
    dir: Argument.String("dir").pipe(
      Argument.withDescription("The folder of results files, searched recursively (matrix folders included)"),
      Argument.withDefault("runs")
    ),
    port: Flag.Int("port").pipe(Flag.withDescription("The port to listen on (default: a free one)"), Flag.withDefault(0)),
    host: Flag.String("host").pipe(
      Flag.withDescription("The address to bind (default 127.0.0.1, loopback only; another exposes the runs to that network)"),
      Flag.withDefault("127.0.0.1")
    )
  },
  Effect.fn("Cli.view")(function*({ dir, host, port }) {
    // Loaded by the command that uses it: other commands start without the HTTP server.
    const View = yield* Effect.promise(() => import("../view/Server.ts"))
    return yield* View.serve({ dir, host, port }).pipe(Effect.mapError(exitFor))
  }, reportErrors)
).pipe(Command.withDescription(
  "Serve every run under DIR on a local web page: runs, live trials, transcripts, comparisons (until Ctrl-C)"
))

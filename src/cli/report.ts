/**
 * The `report` command.
 *
 * @since 0.1.0
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import * as ReportOptions from "../programs/config/Report.ts"
import * as Kinds from "../programs/Kinds.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { configFlag, givenFlagsOf, readConfig, valuesOf } from "./flags.ts"

/**
 * `report RESULTS.jsonl --html FILE [--max-rows N] [--tasks FILE] [--summary
 * FILE]`: one self-contained HTML page about a results file.
 *
 * @category commands
 * @since 0.1.0
 */
export const reportCommand = Command.make(
  "report",
  {
    results: Argument.String("results").pipe(Argument.withDescription("The results file (JSONL) to report on")),
    config: configFlag,
    ...givenFlagsOf(ReportOptions.options)
  },
  Effect.fn("Cli.report")(function*(flags) {
    const { config, results, ...given } = flags
    // The keys a config file may hold: the kinds' (their outputs' flags) when a root command gave them.
    const kinds = Option.getOrElse(yield* Effect.serviceOption(Kinds.Registry), () => Kinds.builtIn)
    const file = yield* readConfig(kinds, config)
    // Loaded by the command that uses it: other commands start without it.
    const Report = yield* Effect.promise(() => import("../programs/Report.ts"))
    const written = yield* Report.report({ results, ...yield* valuesOf(ReportOptions.options, given, file) }).pipe(
      Effect.mapError(exitFor)
    )
    yield* Console.log(
      `report: ${written.html} (${written.trials} trials, ${written.rows} rows in the table, ${written.bytes} bytes)`
    )
  }, reportErrors)
).pipe(Command.withDescription(
  "Write one self-contained HTML report of a results file: counts, scores, pass@k, latency, throughput, failures, a table of trials"
))

/**
 * The `report` command.
 *
 * @since 0.1.0
 */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as DatasetFormats from "../datasets/DatasetFormats.ts"
import * as Options from "../programs/Options.ts"
import * as Report from "../programs/Report.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { datasetFlags, datasetOptions, optionFlag } from "./flags.ts"

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
    html: Flag.String("html").pipe(Flag.withDescription("Write the report (one self-contained HTML file) here")),
    maxRows: optionFlag(
      "max-rows",
      "N",
      Options.Parallelism,
      Report.DEFAULT_MAX_ROWS,
      `Rows of the trials table at most, failures first; every aggregate covers the whole file (default ${Report.DEFAULT_MAX_ROWS})`
    ),
    tasks: Flag.String("tasks").pipe(
      Flag.withDescription(
        "Task file: the input and reference of the rows shown, joined by task id, read as run reads it (--format, --map, --json-path); " +
          "default: the tasks the results file's run definition names, read as that run read them"
      ),
      Flag.optional
    ),
    ...datasetFlags(DatasetFormats.builtIn),
    summary: Flag.String("summary").pipe(
      Flag.withDescription("The summary of the run that wrote RESULTS (run --summary FILE; one of another run or other trials is refused): outcome, wall time, parallelism, peaks, epochs, scorers"),
      Flag.optional
    )
  },
  Effect.fn("Cli.report")(function*(flags) {
    const written = yield* Report.report({
      results: flags.results,
      html: flags.html,
      maxRows: flags.maxRows,
      tasks: Option.getOrUndefined(flags.tasks),
      ...datasetOptions(flags),
      summary: Option.getOrUndefined(flags.summary)
    }).pipe(Effect.mapError(exitFor))
    yield* Console.log(
      `report: ${written.html} (${written.trials} trials, ${written.rows} rows in the table, ${written.bytes} bytes)`
    )
  }, reportErrors)
).pipe(Command.withDescription(
  "Write one self-contained HTML report of a results file: counts, scores, pass@k, latency, throughput, failures, a table of trials"
))

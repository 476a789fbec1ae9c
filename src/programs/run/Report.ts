/**
 * `--report FILE`: the HTML report a run writes at its end.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type OutputFormat, OutputWriteError } from "../Output.ts"
// Loaded when a run asks for its report: a run without --report never reads the report code.
const loadReport = Effect.promise(() => import("../Report.ts"))

/**
 * The output format. The report reads the file the run wrote, with the run's
 * summary and its task source read again (synthetic tasks are the same on
 * every read; stdin cannot be read twice). A report that cannot be written
 * leaves the results as they are; the failure is its message, naming
 * --report.
 *
 * @category formats
 * @since 0.3.0
 */
export const format: OutputFormat = {
  flag: "report",
  description: "Write the HTML report here at the end of the run (see the report command)",
  doc: "The HTML report of the run, as [`agent-trials report`](#the-report-agent-trials-report) makes it",
  readsResults: true,
  write: (path, context) =>
    Effect.flatMap(loadReport, (Report) =>
      Report.write({
      results: context.out,
      html: path,
      flag: "--report",
      maxRows: Report.DEFAULT_MAX_ROWS,
      summary: context.summary,
      tasks: context.tasks
    })).pipe(
      Effect.flatMap((written) => context.say(`report: ${written.html}`)),
      Effect.mapError((e) =>
        new OutputWriteError({
          flag: "--report",
          path,
          message: e._tag === "ReportWriteError" ? e.message : `cannot write --report ${path}: ${e.message}`
        })
      )
    )
}

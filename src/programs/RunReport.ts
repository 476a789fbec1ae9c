/**
 * The HTML report a run writes at its end (`run --report`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type * as Summary from "../scoring/Summary.ts"
import * as Report from "./Report.ts"
import type { RunConfig } from "./RunConfig.ts"
import { itemsOf } from "./RunInputs.ts"

// The report reads the file the run wrote, with the run's summary and its
// task source read again (synthetic tasks are the same on every read; stdin
// cannot be read twice). A report that cannot be written leaves the results
// as they are; the failure is its message, naming --report.
export const writeReport = (
  config: RunConfig,
  out: string,
  summary: Summary.Summary,
  say: (text: string) => Effect.Effect<void>
) =>
  Report.write({
    results: out,
    html: config.report!,
    flag: "--report",
    maxRows: Report.DEFAULT_MAX_ROWS,
    summary,
    tasks: config.tasks === "-" ? undefined : itemsOf(config)
  }).pipe(
    Effect.flatMap((written) => say(`report: ${written.html}`)),
    Effect.mapError((e) =>
      e instanceof Report.ReportWriteError ? e.message : `cannot write --report ${config.report}: ${e.message}`
    )
  )

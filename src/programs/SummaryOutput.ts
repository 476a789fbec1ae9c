/**
 * `--summary FILE`: the run's summary as JSON, its gates judged.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { writeOutput } from "../internal/outputs.ts"
import * as Written from "../summary/Written.ts"
import { type OutputFormat, OutputWriteError } from "./Output.ts"

/**
 * The output format.
 *
 * @category formats
 * @since 0.3.0
 */
export const format: OutputFormat = {
  flag: "summary",
  description: "Also write the summary as JSON to this file",
  doc: "The summary as JSON (the fields of [Progress and summary](#progress-and-summary)), gates included",
  afterInputError: true,
  write: (path, context) =>
    Effect.fromResult(Written.runSummary(context.gated)).pipe(
      Effect.mapError((problem) => `cannot write --summary ${path}: ${problem}`),
      Effect.flatMap((json) => writeOutput("--summary", path, json).pipe(Effect.mapError((e) => e.message))),
      Effect.mapError((message) => new OutputWriteError({ flag: "--summary", path, message }))
    )
}

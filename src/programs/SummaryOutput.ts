/**
 * `--summary FILE`: the run's summary as JSON, its gates judged.
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"
import { writeOutput } from "../internal/outputs.ts"
import * as Gates from "../summary/Gates.ts"
import type { OutputFormat } from "./Output.ts"

const encodeSummary = Schema.encodeEffect(Gates.GatedSummary)

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
    encodeSummary(context.gated).pipe(
      Effect.mapError((e) => `cannot write --summary ${path}: the summary does not fit its schema: ${e.message}`),
      Effect.flatMap((json) => writeOutput("--summary", path, JSON.stringify(json, null, 2) + "\n").pipe(Effect.mapError((e) => e.message)))
    )
}

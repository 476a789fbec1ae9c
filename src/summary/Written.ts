/**
 * The text of a `--summary FILE`, run's or score's, gates included: the
 * summary encoded by its Schema (`Gates.GatedSummary`,
 * `Gates.GatedScoreSummary`), its fields in the Schema's order. A field the
 * Schema does not know (a part added to the summary but not to its Schema)
 * fails, naming the field, rather than being dropped from the file.
 *
 * @since 0.7.0
 */
import { Result, Schema, SchemaIssue } from "effect"
import { schemaProblems } from "../domain/internal/failure.ts"
import { GatedScoreSummary, GatedSummary } from "./Gates.ts"

const strict = { onExcessProperty: "error" } as const
const encodeRun = Schema.encodeResult(GatedSummary, strict)
const encodeScore = Schema.encodeResult(GatedScoreSummary, strict)
const formatIssue = SchemaIssue.makeFormatterDefault()

// What does not fit, naming the field from the issue's path.
const unfit = (error: Schema.SchemaError): string => {
  const [first] = schemaProblems(error.issue)
  if (first === undefined) return "the summary does not fit its Schema"
  const field = first.path.map(String).join(".")
  return first.issue._tag === "UnexpectedKey"
    ? `the summary's field ${field} is not in its Schema`
    : `the summary's field ${field} does not fit its Schema: ${formatIssue(first.check ?? first.issue)}`
}

const text = (json: unknown) => JSON.stringify(json, null, 2) + "\n"

/**
 * The JSON `run --summary FILE` writes, or what in the summary does not fit
 * its Schema.
 *
 * @category encoding
 * @since 0.7.0
 */
export const runSummary = (summary: GatedSummary): Result.Result<string, string> =>
  Result.mapBoth(encodeRun(summary), { onFailure: unfit, onSuccess: text })

/**
 * The JSON `score --summary FILE` writes, or what in the summary does not
 * fit its Schema.
 *
 * @category encoding
 * @since 0.7.0
 */
export const scoreSummary = (summary: GatedScoreSummary): Result.Result<string, string> =>
  Result.mapBoth(encodeScore(summary), { onFailure: unfit, onSuccess: text })

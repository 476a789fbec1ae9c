/**
 * The part of a run's summary that `report --summary` reads back: decoded
 * with the summary's own Schemas, so a file that is not a run summary is
 * refused naming the field. Re-exported by `Summary.ts`.
 *
 * @since 0.7.0
 */
import { Result, Schema, SchemaAST } from "effect"
import { type SchemaProblem, schemaProblems } from "../domain/internal/failure.ts"
import { MAX_EPOCHS } from "../internal/limits.ts"
import { Counts, ScoringSummary, Summary, UsageSummary } from "./Model.ts"

const { completed, failed, partial, total } = Counts.fields
const { outcome, parallelism, peak_active_calls, peak_live_fibers, peak_outstanding, retries, run_id, throughput_per_s, wall_time_s } =
  Summary.fields
const PassAtKs = Schema.Struct({ ks: Schema.optionalKey(ScoringSummary.fields.pass_at_k.fields.ks) })

// The k of pass@k the page draws are of the run's epochs.
const ksOfEpochs = Schema.makeFilter((s: {
  readonly epochs: number
  readonly scoring?: { readonly pass_at_k?: { readonly ks?: ReadonlyArray<number> } }
  readonly pass_at_k?: { readonly ks?: ReadonlyArray<number> }
}) => {
  const wrong = (ks: ReadonlyArray<number> | undefined) =>
    ks !== undefined && !ks.every((k) => Number.isSafeInteger(k) && k >= 1 && k <= s.epochs)
  const issue = `Expected integers from 1 to the epochs (${s.epochs})`
  return [
    ...(wrong(s.scoring?.pass_at_k?.ks) ? [{ path: ["scoring", "pass_at_k", "ks"], issue }] : []),
    ...(wrong(s.pass_at_k?.ks) ? [{ path: ["pass_at_k", "ks"], issue }] : [])
  ]
})

/**
 * The part of a run's summary that `report --summary` reads, each field the
 * summary's own Schema (a `Summary` is a `Reported`): the run, its outcome
 * and its trials by status, wall time, throughput, parallelism, peaks,
 * retries and epochs, the scorers and pass rule, the k of pass@k, the
 * clustering, and the models not priced. The page draws pass@k at each k,
 * so here the epochs are an integer from 1 to `MAX_EPOCHS` and each k one
 * from 1 to the epochs.
 *
 * @category models
 * @since 0.7.0
 */
export const Reported = Schema.Struct({
  run_id,
  outcome,
  trials: Schema.Struct({ total: Schema.Struct({ total, completed, failed, partial }) }),
  wall_time_s,
  throughput_per_s,
  parallelism,
  peak_active_calls,
  peak_outstanding,
  peak_live_fibers,
  retries,
  epochs: Summary.fields.epochs.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_EPOCHS })),
  scoring: Schema.optionalKey(Schema.Struct({
    scorers: ScoringSummary.fields.scorers,
    pass_rule: ScoringSummary.fields.pass_rule,
    pass_at_k: Schema.optionalKey(PassAtKs),
    stderr_cluster: Schema.optionalKey(ScoringSummary.fields.stderr_cluster)
  })),
  pass_at_k: Schema.optionalKey(PassAtKs),
  usage: Schema.optionalKey(Schema.Struct({ unpriced_models: Schema.optionalKey(UsageSummary.fields.unpriced_models) }))
}).check(ksOfEpochs)
export type Reported = typeof Reported.Type

/**
 * A parsed summary file decoded as `Reported`, or what is wrong with it, in
 * words that name the field (from the Schema's issue path) for a message
 * after the file's name. Of several problems, the one a reader fixes first:
 * a field missing or of the wrong type, then the scoring's scorers and pass
 * rule, the epochs, the k of pass@k, the clustering.
 *
 * **Example** (A summary without its trials)
 *
 * ```ts
 * import { Summary } from "agent-trials"
 *
 * Summary.decodeReported({ run_id: "r", outcome: "finished" })
 * // Result.fail("not a run summary (run --summary FILE): field trials.total.total is missing")
 * ```
 *
 * @category decoding
 * @since 0.7.0
 */
export const decodeReported = (json: unknown): Result.Result<Reported, string> =>
  Result.mapError(decode(json), (error) => {
    const [first] = schemaProblems(error.issue).map((problem) => ({ problem, rank: rankOf(problem) }))
      .sort((a, b) => a.rank - b.rank)
    return first === undefined ? NOT_A_SUMMARY : problemText(first.problem, json)
  })

const decode = Schema.decodeUnknownResult(Reported, { errors: "all" })

const NOT_A_SUMMARY = "not a run summary (run --summary FILE)"
const KS = ["scoring.pass_at_k.ks", "pass_at_k.ks"]

const fieldOf = (problem: SchemaProblem) => problem.path.map(String).join(".")
const ksOf = (field: string) => KS.find((ks) => field === ks || field.startsWith(`${ks}.`))
const isScoringShape = (field: string) =>
  field === "scoring" || ["scoring.scorers", "scoring.pass_rule"].some((f) => field === f || field.startsWith(`${f}.`))

const rankOf = (problem: SchemaProblem): number => {
  const field = fieldOf(problem)
  const ks = ksOf(field)
  return isScoringShape(field) ? 1
    : field === "epochs" && problem.check !== undefined ? 2
    : ks !== undefined ? 3 + KS.indexOf(ks)
    : field === "scoring.stderr_cluster" ? 5
    : field.startsWith("usage") ? 6
    : 0
}

const valueAt = (json: unknown, field: string): unknown =>
  field.split(".").reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined), json)

const shown = (value: unknown) => String(JSON.stringify(value)).slice(0, 80)

const problemText = (problem: SchemaProblem, json: unknown): string => {
  const field = fieldOf(problem)
  const ks = ksOf(field)
  if (isScoringShape(field)) return `${NOT_A_SUMMARY}: field scoring needs scorers and pass_rule`
  if (ks !== undefined) {
    return `field ${ks} must be a list of integers from 1 to the epochs (${String(valueAt(json, "epochs"))}), got ${shown(valueAt(json, ks))}`
  }
  if (field === "scoring.stderr_cluster") return `field ${field} must be "task", a path or null, got ${shown(valueAt(json, field))}`
  if (field === "epochs" && problem.check !== undefined) {
    return `field epochs must be an integer from 1 to ${MAX_EPOCHS}, got ${String(valueAt(json, field))}`
  }
  // A field missing, or not an object, lacks the first field the report reads in it.
  const missing = problem.issue._tag === "MissingKey" || problem.expected?._tag === "Objects"
    ? firstRequired(problem.expected, field)
    : undefined
  return missing !== undefined
    ? `${NOT_A_SUMMARY}: field ${missing} is missing`
    : `${NOT_A_SUMMARY}: field ${field} is not ${expectedText(problem.expected)}`
}

const firstRequired = (ast: SchemaAST.AST | undefined, field: string): string | undefined => {
  if (ast?._tag !== "Objects") return field
  const first = ast.propertySignatures.find((p) => !SchemaAST.isOptional(p.type))
  return first === undefined ? undefined : firstRequired(first.type, `${field}.${String(first.name)}`)
}

const expectedText = (ast: SchemaAST.AST | undefined): string => {
  switch (ast?._tag) {
    case "String":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "a boolean"
    case "Null":
      return "null"
    case "Arrays":
      return "a list"
    case "Objects":
      return "an object"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Union":
      return ast.types.every((t) => t._tag === "Literal")
        ? `one of ${ast.types.map(expectedText).join(", ")}`
        : ast.types.map(expectedText).join(" or ")
    default:
      return "of the expected type"
  }
}

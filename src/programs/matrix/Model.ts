/**
 * The summary of a matrix run, as `--summary FILE` writes it: each cell's
 * ordinary run summary by its name (`cells`), and each cell compared with
 * the first (`comparisons`) by `compare`'s paired statistics, the p-values
 * adjusted by Holm over every cell and scorer compared.
 *
 * @since 0.8.0
 */
import { Schema } from "effect"
import { PassComparison, Verdict } from "../../report/compare/Model.ts"
import * as Statistics from "../../statistics/Statistics.ts"
import { GateResult } from "../../summary/Gates.ts"
import { Outcome, Summary } from "../../summary/Model.ts"

const Figure = Schema.NullOr(Schema.Number)

/**
 * One scorer's paired change from the first cell to another: over the `n`
 * tasks with a value in both, the means, `delta` (new - base) with its 95%
 * interval and the paired test's `p_value`; `p_holm` is that p adjusted by
 * Holm's step-down over every (cell, scorer) pair of the matrix with a
 * p-value, and `regressed` says `delta` < 0 with `p_holm` < 0.05.
 *
 * @category models
 * @since 0.8.0
 */
export const ScorerChange = Schema.Struct({
  scorer: Schema.String,
  n: Schema.Number,
  base_mean: Figure,
  new_mean: Figure,
  delta: Figure,
  ci95: Schema.NullOr(Statistics.Interval),
  p_value: Figure,
  p_holm: Figure,
  /** Per scorer, unadjusted: where the 95% interval lies (as `compare` says it). */
  verdict: Verdict,
  regressed: Schema.Boolean
})
export type ScorerChange = typeof ScorerChange.Type

/**
 * A cell compared with the first cell (`base`), task by task, as `compare
 * BASE.jsonl CELL.jsonl` compares them.
 *
 * @category models
 * @since 0.8.0
 */
export const CellComparison = Schema.Struct({
  cell: Schema.String,
  base: Schema.String,
  /** Tasks with trials in both cells' files. */
  paired_tasks: Schema.Number,
  /** `scores`, or `completion` when neither file carries a score. */
  measure: Schema.Literals(["scores", "completion"]),
  scorers: Schema.Array(ScorerChange),
  pass_at_1: PassComparison,
  notes: Schema.Array(Schema.String)
})
export type CellComparison = typeof CellComparison.Type

/**
 * A cell as `matrix.json` names it: its name, the values it varies, its
 * results file and run definition.
 *
 * @category models
 * @since 0.8.0
 */
export const CellEntry = Schema.Struct({
  name: Schema.String,
  values: Schema.Record(Schema.String, Schema.Unknown),
  results_file: Schema.String,
  definition_file: Schema.String
})
export type CellEntry = typeof CellEntry.Type

/**
 * `matrix.json` in the output folder: the matrix's id and its cells, in
 * order (the first is the baseline the others are compared with).
 *
 * @category models
 * @since 0.8.0
 */
export const MatrixFile = Schema.Struct({
  matrix_id: Schema.String,
  cells: Schema.Array(CellEntry)
})
export type MatrixFile = typeof MatrixFile.Type

/**
 * The summary of a matrix run.
 *
 * @category models
 * @since 0.8.0
 */
export const MatrixSummary = Schema.Struct({
  matrix_id: Schema.String,
  out_dir: Schema.String,
  outcome: Outcome,
  /** The first cell: the one every other cell is compared with. */
  baseline: Schema.String,
  /** Each cell's own run summary (as `run --summary` writes it), by cell name, in the matrix's order. */
  cells: Schema.Record(Schema.String, Summary),
  /** Each other cell against the baseline; empty with one cell, or when no file was written. */
  comparisons: Schema.Array(CellComparison),
  /** The (cell, scorer) pairs with a p-value: Holm's family. */
  judged: Schema.Number,
  /** Each cell's `--fail-under` gates, each `gate` named with its cell (`CELL: exact=0.9`). */
  gates: Schema.Array(GateResult),
  /** What a reader should know to read the comparisons. */
  notes: Schema.Array(Schema.String)
})
export type MatrixSummary = typeof MatrixSummary.Type

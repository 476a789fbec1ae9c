/**
 * A matrix run's end: each cell compared with the first by `compare`'s
 * paired statistics, read from the two cells' results files as `compare`
 * reads them, with Holm's adjustment over every (cell, scorer) pair; and the
 * text printed on stdout: a line per cell, then a table of cells by scorers
 * (mean with its 95% interval, pass rate, tokens, cost, p95 latency), then
 * the comparisons.
 *
 * @since 0.8.0
 */
import { Effect } from "effect"
import * as Compare from "../compare/Compare.ts"
import * as Significance from "../../statistics/Significance.ts"
import type { Summary } from "../../summary/Model.ts"
import type { CellComparison, MatrixSummary, ScorerChange } from "./Model.ts"

/**
 * Each cell after the first compared with the first; a cell whose file (or
 * the first's) holds nothing comparable is left out and named in `notes`.
 *
 * @category constructors
 * @since 0.8.0
 */
export const compareCells = Effect.fnUntraced(function*(cells: ReadonlyArray<{ readonly name: string; readonly file: string }>) {
  const notes: Array<string> = []
  const [base, ...rest] = cells
  const raw: Array<{ readonly cell: string; readonly comparison: Compare.Comparison }> = []
  for (const cell of base === undefined ? [] : rest) {
    const compared = yield* Effect.result(Compare.compare(base.file, cell.file))
    if (compared._tag === "Failure") {
      notes.push(`${cell.name} is not compared with ${base.name}: ${compared.failure.message}`)
      continue
    }
    raw.push({ cell: cell.name, comparison: compared.success })
  }
  // Holm's family: every (cell, scorer) pair with a p-value, over the whole matrix.
  const family: Array<number> = []
  for (const { comparison } of raw) for (const s of comparison.scorers) if (s.p_value !== null) family.push(s.p_value)
  const adjusted = Significance.holm(family)
  let next = 0
  const comparisons = raw.map(({ cell, comparison }): CellComparison => ({
    cell,
    base: base!.name,
    paired_tasks: comparison.tasks.paired,
    measure: comparison.measure,
    scorers: comparison.scorers.map((s): ScorerChange => {
      const p_holm = s.p_value === null ? null : adjusted[next++]
      return {
        scorer: s.name,
        n: s.n,
        base_mean: s.base_mean,
        new_mean: s.new_mean,
        delta: s.delta,
        ci95: s.ci95,
        p_value: s.p_value,
        p_holm,
        verdict: s.verdict,
        regressed: p_holm !== null && s.delta !== null && s.delta < 0 && p_holm < 0.05
      }
    }),
    pass_at_1: comparison.pass_at_1,
    notes: comparison.notes
  }))
  return { comparisons, judged: family.length, notes }
})

const fixed = (x: number | null | undefined, digits = 3): string => x === null || x === undefined ? "-" : x.toFixed(digits)

const interval = (ci: readonly [number, number] | null | undefined): string => ci === null || ci === undefined ? "" : ` [${fixed(ci[0])}, ${fixed(ci[1])}]`

const pad = (rows: ReadonlyArray<ReadonlyArray<string>>): Array<string> => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)))
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
}

/**
 * The scorers of the cells, in the order they are first met.
 *
 * @category getters
 * @since 0.8.0
 */
export const scorersOf = (cells: Readonly<Record<string, Summary>>): ReadonlyArray<string> => [
  ...new Set(Object.values(cells).flatMap((s) => Object.keys(s.scoring?.scorers ?? {})))
]

/**
 * One cell's figures as the table shows them: per scorer its mean with its
 * interval, then pass rate, tokens, cost and p95 latency.
 *
 * @category getters
 * @since 0.8.0
 */
export const rowOf = (summary: Summary, scorers: ReadonlyArray<string>): ReadonlyArray<string> => {
  const stats = summary.scoring?.scorers ?? {}
  return [
    ...scorers.map((name) => stats[name] === undefined ? "-" : `${fixed(stats[name].mean)}${interval(stats[name].ci95)}`),
    summary.scoring === undefined ? "-" : fixed(summary.scoring.pass_rate),
    summary.usage === undefined ? "-" : String(summary.usage.total_tokens),
    summary.usage?.cost_usd === null || summary.usage?.cost_usd === undefined ? "-" : `$${fixed(summary.usage.cost_usd, 4)}`,
    summary.latency_ms.p95 === null ? "-" : `${Math.round(summary.latency_ms.p95)}ms`
  ]
}

/**
 * The text of a matrix run's summary.
 *
 * @category formatting
 * @since 0.8.0
 */
export const format = (summary: MatrixSummary): string => {
  const names = Object.keys(summary.cells)
  const scorers = scorersOf(summary.cells)
  const lines = [`matrix ${summary.matrix_id}: ${summary.outcome}, ${names.length} cells in ${summary.out_dir}`]
  for (const name of names) {
    const s = summary.cells[name]
    const t = s.trials.total
    lines.push(
      `  ${name}: ${s.outcome}, ${t.total} trials (${t.completed} completed, ${t.failed} failed` +
        `${t.partial > 0 ? `, ${t.partial} partial` : ""})` +
        `${s.scoring === undefined ? "" : `, pass rate ${fixed(s.scoring.pass_rate)}`}` +
        (t.total === 0 ? "" : ` -> ${s.results_file}`)
    )
  }
  lines.push("")
  lines.push(...pad([
    ["cell", ...scorers.map((name) => `${name} mean [95% CI]`), "pass rate", "tokens", "cost", "p95 latency"],
    ...names.map((name) => [name, ...rowOf(summary.cells[name], scorers)])
  ]))
  if (summary.comparisons.length > 0) {
    lines.push("", `compared with ${summary.baseline} (paired by task; Holm over ${summary.judged} cell x scorer pairs):`)
    lines.push(...pad([
      ["cell", "scorer", "tasks", "base", "new", "delta [95% CI]", "p", "p (Holm)", "verdict"],
      ...summary.comparisons.flatMap((c) =>
        c.scorers.map((s) => [
          c.cell,
          s.scorer,
          String(s.n),
          fixed(s.base_mean),
          fixed(s.new_mean),
          `${fixed(s.delta)}${interval(s.ci95)}`,
          fixed(s.p_value, 4),
          fixed(s.p_holm, 4),
          s.regressed ? "regressed" : s.verdict
        ])
      )
    ]))
  }
  for (const note of summary.notes) lines.push(`note: ${note}`)
  return lines.join("\n")
}

/**
 * A matrix run as one self-contained HTML page (`--report FILE`; inline CSS
 * and SVG, no request): a table with a row per cell (its outcome, trials,
 * each scorer's mean with its 95% interval, pass rate, tokens, cost, p95
 * latency), one chart per scorer of its mean by cell with the interval, and
 * the table of each cell compared with the first.
 *
 * @since 0.8.0
 */
import * as Html from "../../report/Html.ts"
import * as Svg from "../../report/svg/Svg.ts"
import type { MatrixSummary, ScorerChange } from "./Model.ts"
import { rowOf, scorersOf } from "./Summary.ts"

const fixed = (x: number | null): string => (x === null ? "—" : x.toFixed(4))
const interval = (ci: readonly [number, number] | null): string => ci === null ? "—" : `[${fixed(ci[0])}, ${fixed(ci[1])}]`
const pValue = (p: number | null): string => (p === null ? "—" : p < 1e-4 ? p.toExponential(1) : p.toFixed(4))

const verdictOf = (s: ScorerChange): Html.Content =>
  s.regressed
    ? Html.badge("regressed", "fail")
    : s.verdict === "regressed"
    ? Html.badge("lower (not after Holm)", "warn")
    : s.verdict === "improved"
    ? Html.badge("improved", "ok")
    : s.verdict === "no_verdict"
    ? Html.badge("no verdict", "warn")
    : "no significant change"

// The axis holds every mean and interval, [0, 1] when they fit in it.
const domainOf = (ends: ReadonlyArray<number>): readonly [number, number] => {
  const lo = Math.min(0, ...ends)
  const hi = Math.max(1, ...ends)
  if (lo === 0 && hi === 1) return [0, 1]
  const ticks = Svg.linearTicks(lo, hi, 6)
  return [Math.min(lo, ticks[0]!), Math.max(hi, ticks.at(-1)!)]
}

/**
 * The page of a matrix run's summary.
 *
 * @category formatting
 * @since 0.8.0
 */
export const toHtml = (summary: MatrixSummary): string => {
  const names = Object.keys(summary.cells)
  const scorers = scorersOf(summary.cells)
  const cellsTable = Html.table(
    [
      { label: "cell" },
      { label: "outcome" },
      { label: "trials", numeric: true },
      { label: "failed", numeric: true },
      ...scorers.map((name) => ({ label: `${name} mean [95% CI]`, numeric: true })),
      { label: "pass rate", numeric: true },
      { label: "tokens", numeric: true },
      { label: "cost", numeric: true },
      { label: "p95 latency", numeric: true },
      { label: "results file" }
    ],
    names.map((name) => {
      const s = summary.cells[name]
      return [name, s.outcome, s.trials.total.total, s.trials.total.failed, ...rowOf(s, scorers), s.results_file]
    })
  )
  const charts = scorers.map((scorer) => {
    const rows = names.map((name) => {
      const stats = summary.cells[name].scoring?.scorers[scorer]
      const mean = stats?.mean ?? null
      const ci = stats?.ci95 ?? null
      return {
        label: name,
        value: mean,
        low: ci?.[0] ?? null,
        high: ci?.[1] ?? null,
        tooltip: name,
        note: mean === null ? "no value" : ci === null ? `${mean.toFixed(3)} (no interval)` : `${mean.toFixed(3)} [${ci[0].toFixed(3)}, ${ci[1].toFixed(3)}]`
      }
    })
    const ends = rows.flatMap((r) => [r.value, r.low, r.high]).filter((x): x is number => x !== null)
    return Html.section(
      `${scorer} by cell`,
      Svg.intervalChart({ title: `Mean ${scorer} by cell (95% interval)`, rows, width: 960, domain: domainOf(ends), bars: true }),
      { note: "Each cell's mean over its trials, with the interval its run summary reports." }
    )
  })
  const comparisons = Html.table(
    [
      { label: "cell" },
      { label: "scorer" },
      { label: "paired tasks", numeric: true },
      { label: "base mean", numeric: true },
      { label: "cell mean", numeric: true },
      { label: "delta", numeric: true },
      { label: "95% CI (t)", numeric: true },
      { label: "p", numeric: true },
      { label: "p Holm", numeric: true },
      { label: "verdict" }
    ],
    summary.comparisons.flatMap((c) =>
      c.scorers.map((s) => [c.cell, s.scorer, s.n, fixed(s.base_mean), fixed(s.new_mean), fixed(s.delta), interval(s.ci95), pValue(s.p_value), pValue(s.p_holm), verdictOf(s)])
    )
  )
  const body = [
    `<header class="top"><h1>Matrix ${Html.text(summary.matrix_id)}</h1><div class="sub">${Html.text(summary.out_dir)}</div></header>`,
    Html.stats([
      { label: "outcome", value: summary.outcome, ...(summary.outcome === "finished" ? {} : { tone: "warn" as const }) },
      { label: "cells", value: names.length },
      { label: "baseline", value: summary.baseline },
      {
        label: "regressed",
        value: summary.comparisons.flatMap((c) => c.scorers.filter((s) => s.regressed)).length,
        note: `of ${summary.judged} cell x scorer pairs`
      }
    ]),
    Html.section("Cells", cellsTable, { note: "One results file per cell: report, score, compare and run --resume read each alone." }),
    ...charts,
    Html.section(`Compared with ${summary.baseline}`, summary.comparisons.length === 0 ? `<p class="note">nothing to compare</p>` : comparisons, {
      note: "Paired by task as compare pairs them: the change of each scorer's mean with its 95% Student t interval and " +
        `the paired t test's p; p Holm is adjusted over the ${summary.judged} (cell, scorer) pairs of the matrix, and a ` +
        "pair regressed when its delta is below 0 with p Holm below 0.05."
    }),
    ...(summary.notes.length === 0 ? [] : [Html.section("Notes", summary.notes.map((n) => `<p class="note">${Html.text(n)}</p>`).join(""))])
  ]
  return Html.page({ title: `Matrix ${summary.matrix_id}`, body: body.join("\n") })
}

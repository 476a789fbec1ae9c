/**
 * The report's sections about scores: each scorer's statistics (a chart of
 * intervals and the table behind it) and pass@k by k.
 *
 * @internal
 */
import * as Summary from "../Summary.ts"
import type * as Aggregate from "./Aggregate.ts"
import * as Html from "./Html.ts"
import * as Svg from "./Svg.ts"

const num = (v: number | null | undefined, digits = 3) => (v === null || v === undefined ? "—" : Html.formatNumber(v, digits))
const ci = (i: readonly [number, number] | null | undefined) => (i === null || i === undefined ? "—" : `[${num(i[0])}, ${num(i[1])}]`)

export const scoresSection = (file: Summary.Summary, epochs: number): string => {
  const sc = file.scoring
  if (sc === undefined) {
    return Html.section("Scores", `<p class="note">Not scored: "completed" means the agent answered, not that the answer was right (run with --score).</p>`)
  }
  const rows = Object.entries(sc.scorers)
  const chart = Svg.intervalChart({
    rows: [
      ...rows.map(([name, s]) => ({
        label: `${name} pass rate`,
        value: s.pass_rate,
        low: s.pass_rate_ci95?.[0] ?? null,
        high: s.pass_rate_ci95?.[1] ?? null
      })),
      ...rows.filter(([, s]) => s.mean !== null && s.mean >= 0 && s.mean <= 1).map(([name, s]) => ({
        label: `${name} mean`,
        value: s.mean,
        low: s.ci95?.[0] ?? null,
        high: s.ci95?.[1] ?? null,
        color: "#6b7280"
      })),
      {
        label: `passed (${sc.pass_rule})`,
        value: sc.pass_rate,
        low: sc.pass_rate_ci95?.[0] ?? null,
        high: sc.pass_rate_ci95?.[1] ?? null,
        color: "#111827"
      }
    ]
  })
  const table = Html.table(
    [
      { label: "Scorer" },
      { label: "Trials", numeric: true },
      { label: "Scored", numeric: true },
      { label: "Scorer errors", numeric: true },
      { label: "Mean ± SE", numeric: true },
      { label: "Mean 95% CI", numeric: true },
      { label: "Pass rate", numeric: true },
      { label: "Wilson 95% CI", numeric: true }
    ],
    rows.map(([name, s]) => [
      name,
      s.trials,
      s.scored,
      s.errors,
      `${num(s.mean, 4)} ± ${num(s.standard_error, 4)}`,
      ci(s.ci95),
      num(s.pass_rate, 4),
      ci(s.pass_rate_ci95)
    ])
  )
  return Html.section(
    "Scores",
    chart + table,
    {
      note: `Pass rates with 95% Wilson intervals; means with normal 95% intervals (grey). A failed trial counts in a scorer's trials and never passes.` +
        (epochs <= 1 ? " One trial per task: pass@1 is the pass rate (run with --epochs K for pass@k)." : "") +
        (sc.not_scored > 0 ? ` ${sc.not_scored} completed trials carry no score of the deciding scorers and are left out.` : "")
    }
  )
}

// The k the pass@k chart shows: every k up to 64 epochs, beyond that 64
// points spread evenly on a log scale from 1 to K (each point costs a pass
// over the histogram, and a line of thousands of points says no more).
const chartKs = (epochs: number): ReadonlyArray<number> => {
  if (epochs <= 64) return Array.from({ length: epochs }, (_, i) => i + 1)
  const ks = new Set<number>([1, epochs])
  for (let i = 1; i < 63; i++) ks.add(Math.round(Math.exp((Math.log(epochs) * i) / 63)))
  return [...ks].sort((a, b) => a - b)
}

export const passAtKSection = (result: Aggregate.Result): string => {
  const epochs = result.acc.epochs
  const ks = chartKs(epochs)
  const series: Array<Svg.Series> = []
  const tally = result.acc.scoring
  if (tally !== undefined) {
    series.push({ name: "passed (scored)", points: ks.map((k) => ({ x: k, y: Summary.passAtK(tally.tasksByPasses, k, epochs) ?? Number.NaN })) })
  }
  series.push({
    name: "completed",
    color: "#9ca3af",
    dash: "5 4",
    points: ks.map((k) => ({ x: k, y: Summary.passAtK(result.acc.tasksByPasses, k, epochs) ?? Number.NaN }))
  })
  const chart = Svg.lineChart({
    x: { label: "k (trials drawn per task)", format: (v) => (Number.isInteger(v) ? String(v) : "") },
    y: { label: "pass@k", min: 0, max: 1 },
    series
  })
  const tasks = tally?.tasksByPasses ?? result.acc.tasksByPasses
  return Html.section("pass@k by k", chart, {
    note: `Unbiased estimator over ${Html.formatNumber(tasks.reduce((a, b) => a + b, 0))} tasks with all ${epochs} trials recorded` +
      ` (${Html.formatNumber(tally?.incompleteTasks ?? result.acc.incompleteTasks)} incomplete). "completed" counts answered trials, right or wrong.`
  })
}

/**
 * The report's sections about scores: each scorer's statistics (a chart of
 * intervals and the table behind it, with how the standard errors are
 * clustered) and pass@k and pass^k by k (a chart over every k, a table at
 * the k the summary reports). Every figure is the file's `Summary.make`
 * output, rounded as the run's `--summary` JSON rounds it (4 decimals), and
 * printed to those 4 decimals.
 *
 * @internal
 */
import * as PassAtK from "../../statistics/PassAtK.ts"
import * as Summary from "../../summary/Summary.ts"
import type * as Aggregate from "../Aggregate.ts"
import * as Html from "../Html.ts"
import * as Svg from "../svg/Svg.ts"

const num = (v: number | null | undefined, digits = 4) => (v === null || v === undefined ? "—" : Html.formatNumber(v, digits))
const ci = (i: readonly [number, number] | null | undefined) => (i === null || i === undefined ? "—" : `[${num(i[0])}, ${num(i[1])}]`)

/**
 * The line above the scorer table: how the standard errors are clustered,
 * in `Summary.format`'s words.
 *
 * @internal
 */
export const clusteringLine = (sc: Summary.ScoringSummary): string =>
  `<p class="note clustering" id="stderr-cluster">Standard errors: ${
    Html.text(Summary.clusterText(sc.stderr_cluster, sc.clusters))
  }.</p>`

export const scoresSection = (file: Summary.Summary, epochs: number): string => {
  const sc = file.scoring
  if (sc === undefined) {
    return Html.section("Scores", `<p class="note">Not scored: "completed" means the agent answered, not that the answer was right (run with --score).</p>`)
  }
  const rows = Object.entries(sc.scorers)
  const clustered = sc.stderr_cluster !== null
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
  // The cluster columns only when clustered: unclustered they are null throughout.
  const cluster = (...cells: ReadonlyArray<Html.Content>): ReadonlyArray<Html.Content> => (clustered ? cells : [])
  const table = Html.table(
    [
      { label: "Scorer" },
      { label: "Trials", numeric: true },
      { label: "Scored", numeric: true },
      { label: "Scorer errors", numeric: true },
      { label: "Mean ± SE", numeric: true },
      { label: "Mean 95% CI", numeric: true },
      ...(clustered ? [{ label: "Clusters", numeric: true }, { label: "Design effect", numeric: true }] : []),
      { label: "Pass rate", numeric: true },
      { label: "Wilson 95% CI", numeric: true },
      ...(clustered ? [{ label: "Pass design effect", numeric: true }] : [])
    ],
    [
      ...rows.map(([name, s]): ReadonlyArray<Html.Content> => [
        name,
        s.trials,
        s.scored,
        s.errors,
        `${num(s.mean)} ± ${num(s.standard_error)}`,
        ci(s.ci95),
        ...cluster(s.clusters, num(s.design_effect)),
        num(s.pass_rate),
        ci(s.pass_rate_ci95),
        ...cluster(num(s.pass_rate_design_effect))
      ]),
      [
        `passed (${sc.pass_rule})`,
        sc.trials,
        null,
        null,
        null,
        null,
        ...cluster(sc.clusters, null),
        num(sc.pass_rate),
        ci(sc.pass_rate_ci95),
        ...cluster(num(sc.pass_rate_design_effect))
      ]
    ]
  )
  return Html.section(
    "Scores",
    clusteringLine(sc) + chart + table,
    {
      note: `Pass rates with 95% Wilson intervals; means with Student t 95% intervals (grey). ` +
        (clustered
          ? "Clustered: the standard error is the cluster-robust (CR1) one, the mean's interval on t with clusters − 1 " +
            "degrees of freedom, and the Wilson interval on the effective sample size trials / design effect; a design " +
            "effect is (clustered SE / independent SE)², how many times more trials the clustering costs. "
          : "") +
        `A failed trial counts in a scorer's trials and never passes.` +
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

// pass^k over tasks of `epochs` trials each, from the tally's histogram (which
// holds only the counts seen: padded so its last index is the epochs).
const passHatK = (tasksByPasses: ReadonlyArray<number>, k: number, epochs: number): number => {
  const histogram = Array.from({ length: epochs + 1 }, (_, c) => tasksByPasses[c] ?? 0)
  return PassAtK.fromHistogram(histogram, k, "pass^k").estimate ?? Number.NaN
}

// The table at the summary's k: pass@k and pass^k with their t intervals over tasks.
const atKsTable = (p: Summary.PassAtKSummary<string>): string =>
  `<div id="pass-at-k">` +
  Html.table(
    [
      { label: "k", numeric: true },
      { label: "pass@k", numeric: true },
      { label: "pass@k 95% CI", numeric: true },
      { label: "pass^k", numeric: true },
      { label: "pass^k 95% CI", numeric: true }
    ],
    p.ks.map((k) => [
      k,
      num(p.estimates[`pass@${k}`]),
      ci(p.ci95[`pass@${k}`]),
      num(p.estimates[`pass^${k}`]),
      ci(p.ci95[`pass^${k}`])
    ])
  ) +
  `</div>`

export const passAtKSection = (result: Aggregate.Result, file: Summary.Summary): string => {
  const epochs = result.acc.epochs
  const ks = chartKs(epochs)
  const series: Array<Svg.Series> = []
  const tally = result.acc.scoring
  if (tally !== undefined) {
    series.push(
      { name: "pass@k, passed", points: ks.map((k) => ({ x: k, y: Summary.passAtK(tally.tasksByPasses, k, epochs) ?? Number.NaN })) },
      { name: "pass^k, passed", color: "#ea580c", points: ks.map((k) => ({ x: k, y: passHatK(tally.tasksByPasses, k, epochs) })) }
    )
  }
  const done = result.acc.tasksByPasses
  series.push(
    {
      name: "pass@k, completed",
      color: "#9ca3af",
      dash: "5 4",
      points: ks.map((k) => ({ x: k, y: Summary.passAtK(done, k, epochs) ?? Number.NaN }))
    },
    { name: "pass^k, completed", color: "#9ca3af", dash: "2 3", points: ks.map((k) => ({ x: k, y: passHatK(done, k, epochs) })) }
  )
  const chart = Svg.lineChart({
    x: { label: "k (trials drawn per task)", format: (v) => (Number.isInteger(v) ? String(v) : "") },
    y: { label: "share of tasks", min: 0, max: 1 },
    series
  })
  const tasks = tally?.tasksByPasses ?? done
  const atKs = file.scoring?.pass_at_k ?? file.pass_at_k
  return Html.section("pass@k and pass^k by k", chart + (atKs === undefined ? "" : atKsTable(atKs)), {
    note: `Unbiased estimators over ${Html.formatNumber(tasks.reduce((a, b) => a + b, 0))} tasks with all ${epochs} trials recorded` +
      ` (${Html.formatNumber(tally?.incompleteTasks ?? result.acc.incompleteTasks)} incomplete): pass@k, at least one of k trials` +
      ` drawn passes; pass^k, all k do. "completed" counts answered trials, right or wrong. The table: at the k the summary` +
      ` reports (--pass-k), counting ${atKs?.counts ?? "passed trials"}, each with its 95% Student t interval over tasks.`
  })
}

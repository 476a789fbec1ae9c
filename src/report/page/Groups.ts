/**
 * The report's breakdowns: a section for each `--group-by` PATH the trial
 * records carry, with a table (value, trials, and per scorer its mean with
 * the 95% t interval and its pass rate with the 95% Wilson interval, the
 * summary's `scoring.groups[PATH][VALUE][SCORER]`) and a chart of the pass
 * rates as bars with their interval whiskers. The largest groups come
 * first; at most `GROUPS_SHOWN` values are in the table and `CHART_ROWS`
 * rows in the chart, the rest counted and left to the run's `--summary`
 * JSON, so a PATH of 100,000 values makes a page of the same size as one of
 * 100. Values are user data: escaped like every other text of the page.
 *
 * @internal
 */
import type * as Clustered from "../../statistics/Clustered.ts"
import type * as Summary from "../../summary/Summary.ts"
import * as Html from "../Html.ts"
import * as Svg from "../svg/Svg.ts"

/**
 * Values of a PATH in its table at most.
 *
 * @internal
 */
export const GROUPS_SHOWN = 100

/**
 * Rows of a PATH's chart at most (values times the scorers charted).
 *
 * @internal
 */
export const CHART_ROWS = 40

// Characters of a value kept in a chart label (the full value in its tooltip and the table).
const LABEL = 34

const num = (v: number | null) => (v === null ? "—" : Html.formatNumber(v, 4))
const ci = (i: readonly [number, number] | null) => (i === null ? "—" : `[${num(i[0])}, ${num(i[1])}]`)
const withCi = (v: number | null, i: readonly [number, number] | null) => `${num(v)} ${ci(i)}`

// A group's trials: every scorer counts the same trials, but one that is not
// deciding may miss the scores of trials recorded by a run without it.
const trialsOf = (scorers: Readonly<Record<string, Clustered.ScorerStats>>): number =>
  Math.max(0, ...Object.values(scorers).map((s) => s.trials))

// Cut by code points, so a character outside the BMP is never split.
const cut = (text: string): string => {
  const chars = Array.from(text)
  return chars.length <= LABEL ? text : `${chars.slice(0, LABEL - 1).join("")}…`
}

/**
 * A section per group PATH of the scoring summary, in the summary's order.
 *
 * @internal
 */
export const groupSections = (sc: Summary.ScoringSummary): Array<string> =>
  Object.entries(sc.groups).map(([path, byValue]) => groupSection(sc, path, byValue))

const groupSection = (
  sc: Summary.ScoringSummary,
  path: string,
  byValue: Readonly<Record<string, Readonly<Record<string, Clustered.ScorerStats>>>>
): string => {
  const scorers = Object.keys(sc.scorers)
  // Largest first; equal sizes in the order the groups were first seen.
  const values = Object.entries(byValue).map(([value, stats], i) => ({ value, stats, trials: trialsOf(stats), i }))
    .sort((a, b) => b.trials - a.trials || a.i - b.i)
  const shown = values.slice(0, GROUPS_SHOWN)
  const table = Html.table(
    [
      { label: "Value" },
      { label: "Trials", numeric: true },
      ...scorers.flatMap((name) => [
        { label: `${name} mean [95% CI]`, numeric: true },
        { label: `${name} pass rate [95% CI]`, numeric: true }
      ])
    ],
    shown.map((g) => [
      g.value,
      g.trials,
      ...scorers.flatMap((name) => {
        const s = g.stats[name]
        return s === undefined ? [null, null] : [withCi(s.mean, s.ci95), withCi(s.pass_rate, s.pass_rate_ci95)]
      })
    ])
  )
  // The deciding scorer when --pass names one, else each scorer, a colour apiece.
  const charted = scorers.includes(sc.pass_rule) ? [sc.pass_rule] : scorers
  const inChart = shown.slice(0, Math.max(1, Math.floor(CHART_ROWS / Math.max(1, charted.length))))
  const chart = Svg.intervalChart({
    title: `Pass rate by ${path} (95% Wilson intervals)`,
    bars: true,
    rows: inChart.flatMap((g) =>
      charted.map((name) => {
        const s = g.stats[name]
        const label = charted.length === 1 ? g.value : `${g.value} · ${name}`
        return {
          label: cut(label),
          tooltip: `${label}: ${g.trials} trials`,
          value: s?.pass_rate ?? null,
          low: s?.pass_rate_ci95?.[0] ?? null,
          high: s?.pass_rate_ci95?.[1] ?? null,
          color: Svg.palette[scorers.indexOf(name) % Svg.palette.length]!
        }
      })
    )
  })
  const more = values.length - shown.length
  const chartMore = shown.length - inChart.length
  return Html.section(
    `By ${path} (${Html.formatNumber(values.length)} value${values.length === 1 ? "" : "s"})`,
    chart + `<div class="table-wrap">${table}</div>`,
    {
      id: `group-by-${path}`,
      note: `Per value of ${path} as recorded on each trial, by its JSON text (so 1 and "1" apart; (missing) where the task had none): ` +
        `its trials (a failed trial counts and never passes), each scorer's mean with its 95% t interval and pass rate ` +
        `with its 95% Wilson interval, standard errors clustered as above. The intervals are per group, not corrected ` +
        `for the many groups.` +
        (chartMore > 0 ? ` The chart shows the ${inChart.length} largest groups.` : "") +
        (more > 0
          ? ` ${Html.formatNumber(more)} more value${more === 1 ? "" : "s"} (smaller groups): see the --summary JSON (scoring.groups).`
          : "")
    }
  )
}

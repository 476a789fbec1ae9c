/**
 * A comparison's usage (tokens and cost per trial, before and after, and
 * their paired change) as text lines under the scorers' table and as a
 * section of the HTML page; nothing when neither file reports usage, one
 * line when only one does, and a line instead of the cost row when the two
 * are not both priced.
 *
 * @internal
 */
import { usdText, tokensText } from "../../summary/Usage.ts"
import { aligned, pValue } from "./Cells.ts"
import type { Comparison, UsageChange, UsageComparison } from "./Model.ts"
import * as Html from "../Html.ts"

// Tokens to a tenth, costs to a nano-dollar: a mean of differences of equal
// costs is float noise (1e-19), not a change worth a digit.
const tokens = (x: number): string => tokensText(Math.round(x * 10) / 10)
const usd = (x: number): string => usdText(Math.round(x * 1e9) / 1e9)
const signedWith = (show: (x: number) => string) => (x: number): string => {
  const text = show(Math.abs(x))
  return text === show(0) ? text : `${x < 0 ? "-" : "+"}${text}`
}

interface Measure {
  readonly label: string
  readonly change: UsageChange
  readonly show: (x: number) => string
}

const measures = (u: UsageComparison): Array<Measure> => [
  ...(u.tokens === null ? [] : [{ label: "tokens", change: u.tokens, show: tokens }]),
  ...(u.cost_usd === null ? [] : [{ label: "cost", change: u.cost_usd, show: usd }])
]

// The cells of a measure's row, `dash` for a figure that is not there.
const cells = (m: Measure, dash: string, clustered: boolean): Array<string> => {
  const { change: d, show } = m
  const signed = signedWith(show)
  const value = (x: number | null) => (x === null ? dash : show(x))
  return [
    m.label,
    String(d.n),
    value(d.base_mean),
    value(d.new_mean),
    d.delta === null ? dash : signed(d.delta),
    d.ci95 === null ? dash : `[${signed(d.ci95[0])}, ${signed(d.ci95[1])}]`,
    d.p_value === null ? dash : pValue(d.p_value),
    ...(clustered ? [d.clusters === null ? dash : String(d.clusters)] : [])
  ]
}

// Why a side is missing: only one file reports usage, or not both are priced.
const oneSided = (c: Comparison, u: UsageComparison): string | undefined => {
  const [has, lacks] = u.base.trials > 0 ? [c.base.file, c.new.file] : [c.new.file, c.base.file]
  const n = u.base.trials > 0 ? u.base.trials : u.new.trials
  return u.tokens === null
    ? `only ${has} reports token usage (${n} trial${n === 1 ? "" : "s"}), ${lacks} none: no change in tokens or cost`
    : undefined
}
const unpriced = (c: Comparison, u: UsageComparison): string | undefined =>
  u.tokens === null || u.cost_usd !== null
    ? undefined
    : u.base.priced_trials === 0 && u.new.priced_trials === 0
    ? "neither file is priced (run --pricing FILE): no change in cost"
    : `only ${u.base.priced_trials > 0 ? c.base.file : c.new.file} is priced (run --pricing FILE): no change in cost`

/**
 * The usage lines of the text: a blank line and a table of tokens and cost,
 * or the line that says why there is none; nothing without usage.
 *
 * @internal
 */
export const usageLines = (c: Comparison): Array<string> => {
  const u = c.usage
  if (u === undefined) return []
  const one = oneSided(c, u)
  if (one !== undefined) return ["", `  usage: ${one}`]
  const clustered = c.stderr_cluster !== null
  const header = ["measure", "paired", "base", "new", "delta", "95% CI", "p", ...(clustered ? ["clusters"] : [])]
  const cost = unpriced(c, u)
  return [
    "",
    `  usage per trial, agent + judges (a task's value: its trials' mean; shown, never gated):`,
    ...aligned([header, ...measures(u).map((m) => cells(m, "-", clustered))], "    "),
    ...(cost === undefined ? [] : [`    cost: ${cost}`]),
    ...cachedLines(u)
  ]
}

// Hits are shown as such: their usage is what the answers used when first asked.
const cachedLines = (u: UsageComparison): Array<string> =>
  u.base.cached_trials === undefined && u.new.cached_trials === undefined ? [] : [
    `    served from the response cache (run --cache): base ${u.base.cached_trials ?? 0} trials, new ${u.new.cached_trials ?? 0} ` +
    `(their usage is the answers' when first asked, not spent again)`
  ]

/**
 * The usage section of the HTML page: the table of tokens and cost, or a
 * note that says why there is none; no section without usage.
 *
 * @internal
 */
export const usageSection = (c: Comparison): Array<string> => {
  const u = c.usage
  if (u === undefined) return []
  const one = oneSided(c, u)
  if (one !== undefined) return [Html.section("Usage per trial", `<p class="note">${Html.text(`Only one side: ${one}.`)}</p>`)]
  const clustered = c.stderr_cluster !== null
  const cost = unpriced(c, u)
  const table = Html.table(
    [
      { label: "measure" },
      { label: "paired tasks", numeric: true },
      { label: "base mean", numeric: true },
      { label: "new mean", numeric: true },
      { label: "delta", numeric: true },
      { label: "95% CI (t)", numeric: true },
      { label: "p", numeric: true },
      ...(clustered ? [{ label: "clusters", numeric: true }] : [])
    ],
    measures(u).map((m) => cells(m, "—", clustered))
  )
  return [Html.section("Usage per trial", table, {
    note: "Tokens (total_tokens) and cost (cost_usd) per trial, the agent's and the judges' together. A task's value " +
      "is the mean over its trials that report it; the change is paired over the tasks with a value in both files, " +
      "with its 95% interval and p computed as the scorers' are" +
      (clustered ? ` (clustered by ${c.stderr_cluster})` : "") +
      ". Shown, never gated: the verdict and the exit code are the scorers'." +
      (cost === undefined ? "" : ` Cost: ${cost}.`)
  })]
}

/**
 * A comparison as one self-contained HTML page (inline CSS and SVG, no
 * request): the change of each scorer as a dot with its 95% interval around
 * 0, the table behind it, the usage per trial (when the files report it),
 * pass@1, a table per group path (at most `GROUPS_SHOWN` values, the largest
 * groups first), the flipped and unmatched tasks in full, and the
 * comparison's JSON in a data block.
 *
 * @internal
 */
import type { Comparison, ScorerComparison } from "./Model.ts"
import { usageSection } from "./Usage.ts"
import * as Html from "../Html.ts"
import * as Svg from "../svg/Svg.ts"

const fixed = (x: number | null): string => (x === null ? "—" : Math.abs(x) < 5e-5 ? "0.0000" : x.toFixed(4))
const signed = (x: number | null): string => (x === null ? "—" : x >= 5e-5 ? `+${fixed(x)}` : fixed(x))
const interval = (ci: readonly [number, number] | null): string =>
  ci === null ? "—" : `[${signed(ci[0])}, ${signed(ci[1])}]`
const pValue = (p: number | null): string => (p === null ? "—" : p < 1e-4 ? p.toExponential(1) : p.toFixed(4))

const GROUPS_SHOWN = 200

const COLOR = { regressed: "#dc2626", improved: "#16a34a", no_significant_change: "#4b5563", no_verdict: "#9ca3af" }

const verdictBadge = (s: ScorerComparison): Html.Content =>
  s.verdict === "regressed"
    ? Html.badge("regressed", "fail")
    : s.verdict === "improved"
    ? Html.badge("improved", "ok")
    : s.verdict === "no_verdict"
    ? Html.badge("no verdict", "warn")
    : "no significant change"

// The axis holds every interval and 0, with round ends.
const domainOf = (scorers: ReadonlyArray<ScorerComparison>): readonly [number, number] => {
  const ends = scorers.flatMap((s) => [s.delta, s.ci95?.[0] ?? null, s.ci95?.[1] ?? null]).filter((x) => x !== null)
  const lo = Math.min(0, ...ends)
  const hi = Math.max(0, ...ends)
  if (lo === hi) return [-0.1, 0.1]
  const ticks = Svg.linearTicks(lo, hi, 6)
  return [Math.min(0, ticks[0]!), Math.max(0, ticks.at(-1)!)]
}

// Each id a box of its own, so a line breaks between ids (at ", "), never
// inside one that fits on a line.
const idList = (ids: ReadonlyArray<string>): string =>
  ids.length === 0
    ? `<p class="note">none</p>`
    : `<p class="mono ids">${ids.map((id) => `<span class="id">${Html.text(id)}</span>`).join(", ")}</p>`

// The page's verdict: regressed when a scorer regressed, else improved when
// one improved, else no significant change (or no verdict when none has one).
const verdictStat = (c: Comparison): Html.Stat => {
  const improved = c.scorers.filter((s) => s.verdict === "improved").map((s) => s.name)
  if (c.regressed.length > 0) {
    const also = improved.length === 0 ? "" : `; improved: ${improved.join(", ")}`
    return { label: "verdict", value: "regressed", tone: "bad", note: `${c.regressed.join(", ")}${also}` }
  }
  if (improved.length > 0) return { label: "verdict", value: "improved", tone: "good", note: improved.join(", ") }
  return c.scorers.length > 0 && c.scorers.every((s) => s.verdict === "no_verdict")
    ? { label: "verdict", value: "no verdict", tone: "warn", note: "fewer than 2 paired tasks" }
    : { label: "verdict", value: "no significant change", note: "no scorer regressed or improved" }
}

/**
 * The comparison as a self-contained HTML page (`--html FILE`).
 *
 * @category formatting
 * @since 0.1.0
 */
export const toHtml = (c: Comparison): string => {
  const p = c.pass_at_1
  const clustered = c.stderr_cluster !== null
  const chart = Svg.intervalChart({
    title: c.measure === "completion" ? "Change in completion (new − base)" : "Change in mean score (new − base)",
    rows: c.scorers.map((s) => ({
      label: s.name,
      value: s.delta,
      low: s.ci95?.[0] ?? null,
      high: s.ci95?.[1] ?? null,
      color: COLOR[s.verdict],
      // Three decimals fit the chart's margin; the table below has four.
      note: s.delta === null
        ? "no value"
        : s.ci95 === null
        ? `${s.delta.toFixed(3)} (no interval)`
        : `${s.delta.toFixed(3)} [${s.ci95[0].toFixed(3)}, ${s.ci95[1].toFixed(3)}]`
    })),
    width: 960,
    domain: domainOf(c.scorers),
    format: (v) => String(Number(v.toFixed(3)))
  })
  const table = Html.table(
    [
      { label: "scorer" },
      { label: "paired tasks", numeric: true },
      { label: "base mean", numeric: true },
      { label: "new mean", numeric: true },
      { label: "delta", numeric: true },
      { label: "95% CI (t)", numeric: true },
      { label: "p", numeric: true },
      { label: "p Holm", numeric: true },
      { label: "MDE 80%", numeric: true },
      ...(clustered ? [{ label: "clusters", numeric: true }, { label: "design effect", numeric: true }] : []),
      { label: "verdict" }
    ],
    c.scorers.map((s) => [
      s.name,
      s.n,
      fixed(s.base_mean),
      fixed(s.new_mean),
      signed(s.delta),
      interval(s.ci95),
      pValue(s.p_value),
      pValue(s.p_holm),
      fixed(s.mde80),
      ...(clustered ? [s.clusters, s.design_effect === null ? "—" : s.design_effect.toFixed(2)] : []),
      verdictBadge(s)
    ])
  )
  const fileRow = (label: string, f: Comparison["base"], own: number | null): ReadonlyArray<Html.Content> => [
    label,
    f.file,
    f.trials,
    f.failed_trials,
    f.tasks,
    fixed(own),
    f.scorers.join(", ")
  ]
  const ruleOf = (rule: string) => rule === "every shared scorer"
    ? "every shared scorer passed it"
    : rule === "completed"
    ? "it completed"
    : `${rule} passed it`
  const rule = c.pass_rules === undefined
    ? ruleOf(c.pass_rule)
    : `its run's rule says so: in base when ${ruleOf(c.pass_rules.base)}, in new when ${ruleOf(c.pass_rules.new)}`
  const notes = [
    ...c.notes,
    ...(c.scorers_only_in_base.length > 0
      ? [`scorers only in base (not compared): ${c.scorers_only_in_base.join(", ")}`]
      : []),
    ...(c.scorers_only_in_new.length > 0 ? [`scorers only in new (not compared): ${c.scorers_only_in_new.join(", ")}`] : [])
  ]
  const body = [
    `<header class="top"><h1>Comparison</h1><div class="sub">base ${Html.text(c.base.file)} → new ${
      Html.text(c.new.file)
    }</div></header>`,
    Html.stats([
      verdictStat(c),
      { label: "paired tasks", value: c.tasks.paired },
      { label: "pass@1 base", value: Html.formatPercent(p.base) },
      {
        label: "pass@1 new",
        value: Html.formatPercent(p.new),
        note: `delta ${signed(p.delta)} ${interval(p.ci95)}`,
        ...(p.ci95 !== null && p.ci95[1] < 0 ? { tone: "bad" as const } : {})
      },
      {
        label: "passed → not passed",
        value: c.flips.pass_to_fail.length,
        ...(c.flips.pass_to_fail.length > 0 ? { tone: "warn" as const } : {})
      },
      { label: "not passed → passed", value: c.flips.fail_to_pass.length }
    ]),
    Html.section("Change per scorer", chart + table, {
      note: c.measure === "completion"
        ? "Neither file carries scores: this compares completion (a completed trial 1, any other 0), not correctness."
        : "Per task: the mean of its trials (epochs), a failed trial 0. The change is the mean of the per-task " +
          "differences with a 95% Student t interval and the paired t test's p; a scorer's verdict is where its " +
          "interval lies; the regression gate (--fail-on-regression) needs delta < 0 and a Holm-adjusted p < 0.05 " +
          `over the ${c.judged.length} judged scorer${c.judged.length === 1 ? "" : "s"}. MDE 80%: the smallest change ` +
          "detectable with 80% power." +
          (clustered
            ? ` Standard errors are clustered by ${c.stderr_cluster} (CR1 over the clusters of paired tasks; ` +
              "intervals, p and MDE on t with clusters − 1 degrees of freedom)."
            : "")
    }),
    ...usageSection(c),
    ...Object.entries(c.groups).map(([path, groups]) => groupSection(path, groups)),
    Html.section(
      "Files",
      Html.table(
        [
          { label: "" },
          { label: "file" },
          { label: "trials", numeric: true },
          { label: "failed trials", numeric: true },
          { label: "tasks", numeric: true },
          { label: "pass@1 (own tasks)", numeric: true },
          { label: "scorers" }
        ],
        [fileRow("base", c.base, p.base_all.pass_at_1), fileRow("new", c.new, p.new_all.pass_at_1)]
      ),
      { note: `A trial passes when ${rule}.` }
    ),
    Html.section(`Passed → not passed (${c.flips.pass_to_fail.length})`, idList(c.flips.pass_to_fail)),
    Html.section(`Not passed → passed (${c.flips.fail_to_pass.length})`, idList(c.flips.fail_to_pass)),
    ...(c.tasks.only_in_base.length + c.tasks.only_in_new.length > 0
      ? [Html.section(
        "Tasks in one file only (not matched)",
        `<h3>only in base (${c.tasks.only_in_base.length})</h3>${idList(c.tasks.only_in_base)}` +
          `<h3>only in new (${c.tasks.only_in_new.length})</h3>${idList(c.tasks.only_in_new)}`
      )]
      : []),
    ...(notes.length > 0
      ? [Html.section("Notes", `<ul>${notes.map((n) => `<li>${Html.text(n)}</li>`).join("")}</ul>`)]
      : []),
    `<script type="application/json" id="comparison">${Html.scriptJson(c)}</script>`
  ]
  return Html.page({
    title: `compare ${c.base.file} → ${c.new.file}`,
    body: body.join("\n"),
    css: "h3{font-size:13px;margin:10px 0 4px}.ids .id{display:inline-block;max-width:100%;overflow-wrap:anywhere}"
  })
}

// One path's groups: a row per measure and one for pass@1, the largest groups first.
const groupSection = (path: string, groups: Comparison["groups"][string]): string => {
  const values = Object.keys(groups)
  const order = values.map((v, i) => [v, i] as const)
    .sort(([a, i], [b, j]) => groups[b].tasks - groups[a].tasks || i - j)
    .map(([v]) => v)
  const rows: Array<ReadonlyArray<Html.Content>> = []
  for (const value of order.slice(0, GROUPS_SHOWN)) {
    const g = groups[value]
    const lead = (i: number): ReadonlyArray<Html.Content> => (i === 0 ? [value, g.tasks] : ["", ""])
    Object.entries(g.scorers).forEach(([name, s], i) => {
      rows.push([...lead(i), name, s.n, fixed(s.base_mean), fixed(s.new_mean), signed(s.delta), interval(s.ci95), pValue(s.p_value)])
    })
    const q = g.pass_at_1
    rows.push([...lead(-1), "pass@1", q.tasks, fixed(q.base), fixed(q.new), signed(q.delta), interval(q.ci95), pValue(q.p_value)])
  }
  const more = values.length - GROUPS_SHOWN
  return Html.section(
    `By ${path} (${values.length} value${values.length === 1 ? "" : "s"})`,
    Html.table(
      [
        { label: "value" },
        { label: "tasks", numeric: true },
        { label: "measure" },
        { label: "paired", numeric: true },
        { label: "base", numeric: true },
        { label: "new", numeric: true },
        { label: "delta", numeric: true },
        { label: "95% CI (t)", numeric: true },
        { label: "p", numeric: true }
      ],
      rows
    ),
    {
      note: `A task is in the group its first trial in the base file records. The p-values are per group, not ` +
        `corrected for the many groups, and gate nothing.${
          more > 0 ? ` ${more} more value${more === 1 ? "" : "s"} are in the JSON data block.` : ""
        }`
    }
  )
}

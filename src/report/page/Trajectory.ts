/**
 * The report's tools section: what the file's agents that act did, as the
 * file's own summary states it (`Summary.make` over the one pass's
 * accumulator, whose trajectory tally counts every record's trajectory as it
 * is read): trials with a trajectory, steps and tool calls per trial, tool
 * errors, and each tool's calls and errors, most called first. A file whose
 * records carry no trajectory has no section.
 *
 * @internal
 */
import type * as Summary from "../../summary/Summary.ts"
import * as Html from "../Html.ts"
import * as Svg from "../svg/Svg.ts"

/** Tools the chart and the table show at most; the rest are counted together. */
const SHOWN = 15

const perTrial = (p: Summary.PerTrialCount) => `p50 ${Html.formatNumber(p.p50)} · p95 ${Html.formatNumber(p.p95)} · max ${Html.formatNumber(p.max)}`

/**
 * The tools section of `file` (the file's summary), or nothing when its
 * records carry no trajectory.
 *
 * @internal
 */
export const trajectorySection = (file: Summary.Summary): string => {
  const t = file.trajectory
  if (t === undefined) return ""
  const c = t.tool_calls
  const stats: Array<Html.Stat> = [
    { label: "Trials with a trajectory", value: t.trials, note: `of ${Html.formatNumber(file.trials.this_run.total)}` },
    { label: "Steps per trial (mean)", value: Html.formatNumber(t.steps.mean, 2), note: perTrial(t.steps) },
    { label: "Tool calls per trial (mean)", value: Html.formatNumber(c.mean, 2), note: perTrial(c) },
    { label: "Tool calls", value: c.total },
    { label: "Tool errors", value: c.errors, note: Html.formatPercent(c.total === 0 ? null : c.errors / c.total), ...(c.errors > 0 ? { tone: "bad" as const } : {}) }
  ]
  const top = t.by_tool.slice(0, SHOWN)
  const rest = t.by_tool.slice(SHOWN)
  const restCalls = rest.reduce((n, x) => n + x.calls, 0)
  const restErrors = rest.reduce((n, x) => n + x.errors, 0)
  const chart = Svg.barChart({
    orientation: "horizontal",
    color: "#7c3aed",
    bars: [
      ...top.map((x) => ({ label: x.name === "" ? "(unnamed)" : x.name, value: x.calls, tooltip: `${x.name}: ${x.calls} calls, ${x.errors} errors` })),
      ...(rest.length > 0 ? [{ label: `${rest.length} other tools`, value: restCalls }] : [])
    ]
  })
  const row = (name: string, calls: number, errors: number) =>
    `<tr><td class="mono">${Html.text(name)}</td><td class="num">${Html.formatNumber(calls)}</td>` +
    `<td class="num">${Html.formatNumber(errors)}</td><td class="num">${Html.formatPercent(calls === 0 ? null : errors / calls)}</td></tr>`
  const table = `<table id="tools"><thead><tr><th>Tool</th><th class="num">Calls</th><th class="num">Errors</th><th class="num">Error rate</th></tr></thead><tbody>` +
    top.map((x) => row(x.name === "" ? "(unnamed)" : x.name, x.calls, x.errors)).join("") +
    (rest.length > 0 ? row(`${rest.length} other tools`, restCalls, restErrors) : "") +
    `</tbody></table>`
  return Html.section("Tools", Html.stats(stats) + chart + table, {
    id: "tools-used",
    note: `What the ${Html.formatNumber(t.trials)} trials whose records carry a trajectory did (a failed trial's kept trajectory ` +
      `included): a step is a model turn; a tool error is a tool result marked is_error, counted for the tool that was called. ` +
      `Click a row of the trials' table to read its transcript.`
  })
}

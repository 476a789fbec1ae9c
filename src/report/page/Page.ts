/**
 * A report's HTML from what one pass over its results file added up to
 * (`Aggregate.Result`) and, when there is one, the run's own summary: the
 * header, what the trials spent (when their records carry usage), what
 * agents that act did (when they carry trajectories), scores
 * with their (clustered) intervals, a breakdown per `--group-by` path,
 * pass@k and pass^k by k, the latency histogram, throughput and calls in
 * flight over time, failures by type, and the table of trials. The figures of the file come from `Summary.make` over the
 * pass's accumulator: the same code, so the same numbers, as the run's
 * summary.
 *
 * @since 0.1.0
 */
import { significant } from "../../internal/figures.ts"
import * as HtmlText from "../../internal/htmlText.ts"
import { MutableProbe } from "../../runner/internal/probe.ts"
import { tableCss, tableScript } from "../internal/table.ts"
import * as Summary from "../../summary/Summary.ts"
import type * as Aggregate from "../Aggregate.ts"
import * as Html from "../Html.ts"
import { groupSections } from "./Groups.ts"
import { passAtKSection, scoresSection } from "./Scores.ts"
import { trajectorySection } from "./Trajectory.ts"
import { usageSection } from "./Usage.ts"
import * as Svg from "../svg/Svg.ts"

/**
 * What a page shows.
 *
 * @category models
 * @since 0.1.0
 */
export interface PageInput {
  readonly resultsFile: string
  readonly result: Aggregate.Result
  /** The run's summary (`run --summary`, or the run itself with `run --report`). */
  readonly summary?: Summary.Reported | undefined
  /** Whether the rows carry input and reference (a task file was given). */
  readonly withTasks: boolean
}

/**
 * The figures of the file, as a run summary would state them: counts, error
 * types, latency percentiles, scorer statistics (clustered as the records
 * say, or as the summary's `stderr_cluster` says when it is given), groups,
 * and pass@k and pass^k at the summary's k (`pass_at_k.ks`, else
 * `Summary.defaultPassK`). Wall time and throughput span the records'
 * timestamps; the run-level values a file does not hold (peaks, parallelism)
 * are zero.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fileSummary = (resultsFile: string, result: Aggregate.Result, summary?: Summary.Reported): Summary.Summary => {
  const t = result.timeline
  return Summary.make({
    runId: summary?.run_id ?? "report",
    resultsFile,
    outcome: summary?.outcome ?? "finished",
    acc: result.acc,
    probe: new MutableProbe(),
    wallMs: t.count === 0 ? 0 : t.last - t.first,
    parallelism: summary?.parallelism ?? 0,
    passK: summary?.scoring?.pass_at_k?.ks ?? summary?.pass_at_k?.ks
  })
}

const seconds = (v: number) =>
  v === 0 ? "0" : Math.abs(v) < 120 ? `${Svg.compact(v)}s` : Math.abs(v) < 7200 ? `${Svg.compact(v / 60)}m` : `${Svg.compact(v / 3600)}h`

const ms = (v: number) =>
  v >= 1000 ? `${Svg.compact(Number((v / 1000).toPrecision(2)))}s` : `${Number(v.toPrecision(v < 1 ? 1 : 2))}ms`
// A latency figure: three significant digits (the percentiles are good to about ±2.5%).
const latency = (v: number | null) =>
  v === null ? "—" : v >= 1000 ? `${significant(v / 1000)} s` : `${significant(v)} ms`

// The failed trials among the scored ones: each scorer counts them all.
const failedScored = (sc: Summary.ScoringSummary): number => Object.values(sc.scorers)[0]?.failed_trials ?? 0

const header = (input: PageInput, file: Summary.Summary): string => {
  const run = input.summary
  const total = file.trials.this_run
  const sc = file.scoring
  const stats: Array<Html.Stat> = [
    { label: "Trials", value: total.total },
    { label: "Completed", value: total.completed, tone: "good", note: Html.formatPercent(total.total === 0 ? null : total.completed / total.total) },
    {
      label: "Failed trials",
      value: total.failed,
      note: "the agent call failed",
      ...(total.failed > 0 ? { tone: "bad" as const } : {})
    },
    ...(total.partial > 0 ? [{ label: "Partial", value: total.partial, tone: "warn" as const }] : []),
    ...(sc === undefined ? [] : [{
      label: "Passed",
      value: Html.formatPercent(sc.pass_rate),
      note: `${Html.formatNumber(sc.passed)} of ${Html.formatNumber(sc.trials)}, 95% CI ${
        sc.pass_rate_ci95 === null ? "—" : `${Html.formatPercent(sc.pass_rate_ci95[0])}–${Html.formatPercent(sc.pass_rate_ci95[1])}`
      }`
    }, {
      // Answered, and a scorer said no: apart from the failed trials, which never pass either.
      label: "Not passed",
      value: sc.trials - sc.passed - failedScored(sc),
      note: "answered; a scorer said no",
      ...(sc.trials - sc.passed - failedScored(sc) > 0 ? { tone: "warn" as const } : {})
    }]),
    {
      label: "Wall time",
      value: Html.formatDuration(run?.wall_time_s ?? file.wall_time_s),
      ...(run === undefined ? { note: "first start to last finish" } : {})
    },
    {
      label: "Throughput",
      value: `${Html.formatNumber(run?.throughput_per_s ?? file.throughput_per_s, 1)}/s`,
      ...(run === undefined ? { note: "trials over that span" } : {})
    },
    { label: "Latency p50", value: file.latency_ms.p50 === null ? null : latency(file.latency_ms.p50), note: `p95 ${latency(file.latency_ms.p95)} · p99 ${latency(file.latency_ms.p99)}` },
    // `--cache`: hits are in neither the latency nor the throughput above.
    ...(file.response_cache === undefined ? [] : [{
      label: "Served from cache",
      value: file.response_cache.hit,
      note: `hits, not in latency or throughput · ${file.response_cache.miss} misses · ${file.response_cache.partial} partial`
    }])
  ]
  if (run !== undefined) {
    stats.push(
      { label: "Parallelism", value: run.parallelism },
      { label: "Peak active calls", value: run.peak_active_calls },
      { label: "Peak outstanding", value: run.peak_outstanding, note: `peak live fibers ${Html.formatNumber(run.peak_live_fibers)}` }
    )
    if (run.retries > 0) stats.push({ label: "Retries", value: run.retries })
  }
  const outcome = run?.outcome
  const badge = outcome === undefined ? "" : Html.badge(outcome, outcome === "finished" ? "ok" : "fail").html
  const notes = [...input.result.notes]
  if (run !== undefined && run.trials.total.total !== total.total) {
    notes.push(
      `The summary counts ${Html.formatNumber(run.trials.total.total)} trials; the file holds ${Html.formatNumber(total.total)}: ` +
        `the counts, scores and charts here are the file's`
    )
  }
  if (run === undefined) notes.push("No run summary given (--summary FILE): parallelism and peaks are not shown.")
  return `<header class="top"><h1>agent-trials report ${badge}</h1>` +
    `<div class="sub">${Html.text(input.resultsFile)}${run === undefined ? "" : ` · run ${Html.text(run.run_id)}`}` +
    ` · ${file.epochs} epoch${file.epochs === 1 ? "" : "s"}</div></header>` +
    Html.stats(stats) +
    notes.map((n) => `<p class="note">${Html.text(n)}</p>`).join("")
}

const latencySection = (file: Summary.Summary, result: Aggregate.Result): string => {
  const h = result.acc.latency
  const counts = h.counts
  let lo = counts.findIndex((c) => c > 0)
  let hi = counts.length - 1
  while (hi > 0 && counts[hi] === 0) hi--
  const bars: Array<Svg.Bar> = []
  if (lo !== -1) {
    const group = Math.max(1, Math.ceil((hi - lo + 1) / 40))
    lo = Math.max(0, hi + 1 - Math.ceil((hi - lo + 1) / group) * group)
    for (let b = lo; b <= hi; b += group) {
      let n = 0
      for (let i = b; i < b + group; i++) n += counts[i]
      const [low] = h.bucketRange(b)
      const [, high] = h.bucketRange(b + group - 1)
      bars.push({ label: ms(low), value: n, tooltip: `${ms(low)} – ${ms(high)}: ${Html.formatNumber(n)} trials` })
    }
  }
  const l = file.latency_ms
  return Html.section(
    "Latency",
    Svg.barChart({ bars, xLabel: "latency (log buckets)", yLabel: "trials" }),
    { note: `p50 ${latency(l.p50)} · p95 ${latency(l.p95)} · p99 ${latency(l.p99)} · max ${latency(l.max)} (percentiles within ±2.5%)` }
  )
}

const timeSections = (result: Aggregate.Result): Array<string> => {
  const buckets = result.timeline.buckets()
  const t0 = buckets[0]?.start ?? 0
  const x = (start: number, width: number) => (start + width / 2 - t0) / 1000
  const axis = { label: "time since the first trial started", format: seconds, min: 0, max: x(buckets.at(-1)?.start ?? 0, buckets[0]?.width ?? 0) }
  const throughput = Svg.lineChart({
    x: axis,
    y: { label: "trials/s" },
    series: [
      { name: "finished", area: true, points: buckets.map((b) => ({ x: x(b.start, b.width), y: b.finished / (b.width / 1000) })) },
      { name: "failed", color: "#dc2626", points: buckets.map((b) => ({ x: x(b.start, b.width), y: b.failed / (b.width / 1000) })) }
    ]
  })
  const inFlight = Svg.lineChart({
    x: axis,
    y: { label: "calls in flight (mean)" },
    series: [{ name: "in flight", color: "#7c3aed", area: true, points: buckets.map((b) => ({ x: x(b.start, b.width), y: b.busyMs / b.width })) }]
  })
  const width = buckets[0]?.width ?? 0
  const peak = Math.max(0, ...buckets.map((b) => b.busyMs / b.width))
  const skipped = result.timeline.skipped > 0 ? ` ${result.timeline.skipped} trials without valid timestamps are left out.` : ""
  return [
    Html.section("Throughput over time", throughput, {
      note: `Trials finished per second, in ${buckets.length} buckets of ${Html.formatDuration(width / 1000)}.${skipped}`
    }),
    Html.section("Calls in flight over time", inFlight, {
      note: `Mean trials between start and finish per bucket (highest ${Html.formatNumber(peak, 1)}), from the records' timestamps.`
    })
  ]
}

const failuresSection = (file: Summary.Summary): string => {
  const types = Object.entries(file.error_types).sort((a, b) => b[1] - a[1])
  if (types.length === 0) return Html.section("Failed trials by error type", `<p class="note">No trial failed.</p>`)
  const top = types.slice(0, 15)
  const rest = types.slice(15).reduce((n, [, c]) => n + c, 0)
  return Html.section(
    "Failed trials by error type",
    Svg.barChart({
      orientation: "horizontal",
      color: "#dc2626",
      bars: [...top.map(([label, value]) => ({ label, value })), ...(rest > 0 ? [{ label: `${types.length - 15} other types`, value: rest }] : [])]
    })
  )
}

// The usage columns only when the file's records carry usage (the cost one when priced);
// the steps and path columns only when they carry trajectories.
const tableSection = (input: PageInput, scorers: ReadonlyArray<string>, file: Summary.Summary): string => {
  const r = input.result
  const usage = file.usage
  const acts = file.trajectory !== undefined
  const priced = usage !== undefined && usage.cost_usd !== null
  const selects = scorers.map((name) =>
    `<label>${Html.text(name)} <select data-scorer="${HtmlText.escapeValue(name)}"><option value="all">all</option>` +
    `<option value="passed">passed</option><option value="failed">not passed</option></select></label>`
  ).join("")
  const data = Html.scriptJson({
    rows: r.rows,
    leftOut: r.rowsLeftOut,
    ...(usage === undefined ? {} : { usage: { cost: priced } }),
    ...(acts ? { trajectory: true } : {})
  })
  return Html.section(
    "Trials",
    `<div class="controls"><input type="search" id="search" placeholder="Search ids, inputs, outputs, errors…" aria-label="Search">` +
      `<label><input type="checkbox" id="only-failures"> failed or not passed only</label>${selects}</div>` +
      `<div id="count"></div><div class="table-wrap"><table id="rows"><thead><tr>` +
      `<th>Trial</th><th>Status</th><th>Input</th><th>Reference</th><th>Output</th><th>Scores</th><th>Error</th><th class="num">ms</th>` +
      (usage === undefined ? "" : `<th class="num">Tokens</th>${priced ? `<th class="num">Cost</th>` : ""}`) +
      (acts ? `<th class="num">Steps</th><th>Path</th>` : "") +
      `</tr></thead><tbody></tbody></table></div><button type="button" class="more" id="prev" hidden>Previous 200</button> ` +
      `<button type="button" class="more" id="more" hidden>Next 200</button>` +
      `<script type="application/json" id="rows-data">${data}</script>`,
    {
      id: "trials",
      note: `${Html.formatNumber(r.rows.length)} of ${Html.formatNumber(r.trials)} trials (first the ${Html.formatNumber(r.failingTrials)} failed or not passed). ` +
        (input.withTasks ? "" : "Input and reference need the task file (--tasks FILE). ") +
        (usage === undefined
          ? ""
          : priced
          ? "Tokens and cost of a trial: its agent's and its judges' together (— where its record carries no usage, or no cost_usd). "
          : "Tokens of a trial: its agent's and its judges' together (— where its record carries no usage). ") +
        (acts
          ? "Steps: a trial's model turns; a click on its row or its path opens its transcript below it (model turns, tool calls with their arguments, " +
            "results, errors; each step cut at 1,000 characters, a transcript at 8,000). "
          : "") +
        "Click a row to see its texts in full (each cut at 2,000 characters)."
    }
  )
}

/**
 * The report page.
 *
 * @category constructors
 * @since 0.1.0
 */
export const render = (input: PageInput): string => {
  const file = fileSummary(input.resultsFile, input.result, input.summary)
  const scorers = Object.keys(file.scoring?.scorers ?? {})
  const body = [...sections(input, file), tableSection(input, scorers, file)].join("\n")
  return Html.page({ title: `agent-trials report: ${input.resultsFile}`, body, css: tableCss, script: tableScript })
}

/**
 * The report's sections but its table of trials: the header, usage, tools,
 * scores, groups, pass@k, latency, time and failures (the view's run page
 * shows them above its own table, paged on the server).
 *
 * @category constructors
 * @since 0.7.0
 */
export const sections = (input: PageInput, file = fileSummary(input.resultsFile, input.result, input.summary)): Array<string> =>
  [
    header(input, file),
    usageSection(file, input.summary),
    trajectorySection(file),
    scoresSection(file, input.result.acc.epochs),
    ...(file.scoring === undefined ? [] : groupSections(file.scoring)),
    `<div class="grid">` +
    (input.result.acc.epochs > 1 ? passAtKSection(input.result, file) : "") +
    latencySection(file, input.result) +
    timeSections(input.result).join("") +
    failuresSection(file) +
    `</div>`
  ]

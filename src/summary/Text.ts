/**
 * The summaries as text: `format` (run's), `formatScore` (score's) and the
 * words both share. Re-exported by `Summary.ts`.
 *
 * @since 0.1.0
 */
import { significant } from "../internal/figures.ts"
import { CONTROLS, mark } from "../internal/htmlText.ts"
import type * as Labels from "./Labels.ts"
import type * as Statistics from "../statistics/Statistics.ts"
import { trajectoryLines } from "./Trajectory.ts"
import { estimateLines, usageLines } from "./Usage.ts"
import type { DatasetRows, DatasetSummary, PassAtKSummary, ScoreSummary, ScoringSummary, Summary } from "./Model.ts"

/**
 * `score`'s summary as text.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatScore = (s: ScoreSummary): string => {
  const t = s.trials
  return [
    `score ${s.input_file} -> ${s.results_file}: ${s.outcome}`,
    `  trials written: ${t.this_run.total} (${t.this_run.completed + t.this_run.partial} scored, ` +
      `${t.this_run.failed} failed trials copied unscored)` +
      `; already scored: ${t.already_recorded.total}` +
      `; total in file: ${t.total.total}`,
    `  scorer calls ${s.scorer_calls}, wall time ${s.wall_time_s} s, ${s.throughput_per_s} trials scored/s` +
      (s.epochs > 1 ? `; ${s.epochs} epochs` : ""),
    ...formatScoring(s.scoring),
    ...(s.usage === undefined ? [] : usageLines(s.usage)),
    ...(s.trajectory === undefined ? [] : trajectoryLines(s.trajectory)),
    `  results: ${s.results_file}`
  ].join("\n")
}

/**
 * The summary as text.
 *
 * @category formatting
 * @since 0.1.0
 */
export const format = (s: Summary): string => {
  const t = s.trials
  const lines = [
    // Said before anything else: the figures below would read like a run.
    ...(t.this_run.total > 0 && t.this_run.failed === t.this_run.total
      ? [`every trial of this run failed (${t.this_run.failed} of ${t.this_run.total}): see failures by type below`]
      : []),
    `run ${s.run_id}: ${s.outcome}`,
    `  trials this run: ${t.this_run.total} (completed ${t.this_run.completed}, failed ${t.this_run.failed}, partial ${t.this_run.partial})`,
    `  already recorded: ${t.already_recorded.total}    total in file: ${t.total.total} (completed ${t.total.completed}, failed ${t.total.failed})`,
    ...(t.not_recorded.finished + t.not_recorded.interrupted > 0
      ? [
        `  not recorded (--resume runs them): finished ${t.not_recorded.finished}, interrupted ${t.not_recorded.interrupted}`
      ]
      : []),
    `  latency ms: p50 ${latency(s.latency_ms.p50)}  p95 ${latency(s.latency_ms.p95)}  p99 ${latency(s.latency_ms.p99)}  max ${latency(s.latency_ms.max)}`,
    `  wall time ${s.wall_time_s} s, throughput ${s.throughput_per_s} trials/s`,
    ...(s.response_cache === undefined ? [] : [
      `  response cache: ${s.response_cache.hit} hits (not in latency or throughput), ${s.response_cache.miss} misses, ` +
      `${s.response_cache.partial} partial`
    ]),
    `  parallelism ${s.parallelism}: peak active calls ${s.peak_active_calls}, peak outstanding ${s.peak_outstanding}, peak live fibers ${s.peak_live_fibers}`
  ]
  if (s.retries > 0 || s.concurrency_limit.min !== s.concurrency_limit.max) {
    lines.push(
      `  retries ${s.retries}, concurrency limit ${s.concurrency_limit.min}..${s.concurrency_limit.max}`
    )
  }
  lines.push(...failureLines(s))
  if (s.pass_at_k !== undefined) {
    const p = s.pass_at_k
    // With scorers, pass@k is the scored one (counting passed trials, below):
    // estimates over completed trials here would be a second pass@1 beside it.
    lines.push(
      `  ${s.epochs} epochs, counting completed trials: ${p.tasks_scored} tasks with every trial recorded ` +
        `(${p.tasks_incomplete} incomplete)` +
        (s.scoring === undefined ? `; ${estimatesText(p)}` : "; pass@k below counts passed trials")
    )
    // Only the counts some task has (c:n, n tasks with c completed trials): one entry per epoch would
    // fill the screen at large K.
    const counts = p.tasks_by_passes.flatMap((n, c) => (n > 0 ? [`${c}:${n}`] : []))
    lines.push(`  tasks by completed trials (completed:tasks, nonzero only): ${counts.length === 0 ? "none" : counts.join(" ")}`)
  }
  if (s.scoring === undefined) {
    lines.push(
      s.pass_at_k === undefined
        ? `  not scored (no --score): "completed" means the agent answered, not that the answer was right`
        : `  pass@k above counts completed trials, not correct answers: no scorer checked them (--score)`
    )
  } else {
    lines.push(...formatScoring(s.scoring))
  }
  if (s.usage !== undefined) lines.push(...usageLines(s.usage))
  if (s.trajectory !== undefined) lines.push(...trajectoryLines(s.trajectory))
  if (s.estimate !== undefined) lines.push(...estimateLines(s.estimate))
  if (s.dataset !== undefined) lines.push(`  dataset: ${datasetText(s.dataset)}`)
  lines.push(`  results: ${s.results_file}`)
  return lines.join("\n")
}

// At most this many error types get a line of their own; the JSON has every one.
const ERROR_LINES = 10

// The counts on one line, then, most frequent first, each type's first
// message (already one line, scrubbed and clipped by the accumulator).
const failureLines = (s: Summary): Array<string> => {
  const errors = Object.entries(s.error_types)
  if (errors.length === 0) return []
  const lines = [`  failures by type: ${errors.map(([k, v]) => `${terminalText(k)} ${v}`).join(", ")}`]
  const byCount = errors.sort((a, b) => b[1] - a[1])
  for (const [type, n] of byCount.slice(0, ERROR_LINES)) {
    const message = s.error_messages?.[type]
    if (message !== undefined) lines.push(`    ${terminalText(type)} (${n}), first: ${message}`)
  }
  if (byCount.length > ERROR_LINES) lines.push(`    ${byCount.length - ERROR_LINES} more types in --summary`)
  return lines
}

/**
 * The rows a run chose, as its flags: `every row`, `--sample 100 --seed 0`.
 *
 * @category formatting
 * @since 0.3.0
 */
export const rowsText = (rows: DatasetRows): string =>
  rows === "all"
    ? "every row"
    : [
      rows.ids === undefined ? undefined : `--ids ${rows.ids.file} (${rows.ids.count} ids)`,
      rows.sample === undefined ? undefined : `--sample ${rows.sample}`,
      rows.shuffle === true ? "--shuffle" : undefined,
      rows.seed === undefined ? undefined : `--seed ${rows.seed}`,
      rows.limit === undefined ? undefined : `--limit ${rows.limit}`
    ].filter((f) => f !== undefined).join(" ")

const datasetText = (d: DatasetSummary): string =>
  `${terminalText(d.source)} (${d.format}${d.map === null ? "" : `, --map ${terminalText(d.map)}`}` +
  `${d.json_path === null ? "" : `, --json-path ${terminalText(d.json_path)}`}), rows: ${rowsText(d.rows)}` +
  (d.revision === undefined ? "" : `, revision ${d.revision}`)

const num = (x: number | null) => (x === null ? "-" : String(x))
// Three significant digits: the percentiles are good to about ±2.5%.
const latency = (x: number | null) => (x === null ? "-" : significant(x))
const interval = (ci: Statistics.Interval | null) => (ci === null ? "-" : `[${ci[0]}, ${ci[1]}]`)

// Each measure once: pass@k for every k, then pass^k (but pass^1, which is
// pass@1), each with its interval.
const estimatesText = (p: PassAtKSummary<string>): string =>
  Object.entries(p.estimates).filter(([k]) => k !== "pass^1").map(([k, v]) =>
    `${k} ${num(v)}${p.ci95[k] == null ? "" : ` ${interval(p.ci95[k])}`}`
  ).join(", ")

/**
 * How the standard errors are clustered, in the words of the text summary
 * (and the report): `clustered by task (its epochs) over 40 clusters`,
 * `clustered by metadata.passage_id over 12 clusters`, `not clustered (each
 * trial independent)`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const clusterText = (by: Labels.ClusterBy, clusters: number | null): string =>
  by === null
    ? "not clustered (each trial independent)"
    : `clustered by ${by === "task" ? "task (its epochs)" : by} over ${clusters ?? 0} clusters`

// A task's value on a terminal: controls and bidi marks as their code
// points (`<U+202E>`), newlines and tabs too, so a value cannot reorder or
// break the summary's lines.
const terminalText = (text: string): string => text.replace(CONTROLS, mark).replace(/[\n\t]/g, mark)

// At most this many values of a --group-by PATH in the text; the JSON has every one.
const GROUP_LINES = 20

const formatScoring = (sc: ScoringSummary): Array<string> => {
  // Parallelism 0: no scoring stage ran in this process (a --cluster run's
  // workers score), so there are no scorer calls here to report.
  const lines = sc.parallelism === 0 ? [] : [
    `  scoring parallelism ${sc.parallelism}${
      sc.judge_parallelism === null ? "" : ` (judges ${sc.judge_parallelism})`
    }: peak active scorer calls ${sc.peak_active_scorer_calls}, peak outstanding ${sc.peak_outstanding}`
  ]
  lines.push(`  standard errors: ${clusterText(sc.stderr_cluster, sc.clusters)}`)
  for (const [name, st] of Object.entries(sc.scorers)) {
    lines.push(
      `  score ${name}: trials ${st.trials} (scored ${st.scored}, failed trials ${st.failed_trials}, scorer errors ${st.errors}), ` +
        `mean ${num(st.mean)} ± ${num(st.standard_error)} (95% CI ${interval(st.ci95)}` +
        `${st.design_effect === null ? "" : `, design effect ${st.design_effect}`}), ` +
        `pass rate ${num(st.pass_rate)} (95% Wilson CI ${interval(st.pass_rate_ci95)}` +
        `${st.pass_rate_design_effect === null ? "" : `, design effect ${st.pass_rate_design_effect}`})`
    )
  }
  lines.push(
    `  passed (${sc.pass_rule === "every scorer" ? "every scorer passed" : `--pass ${sc.pass_rule}`}): ` +
      `${sc.passed} of ${sc.trials} trials, pass rate ${num(sc.pass_rate)} (95% Wilson CI ${interval(sc.pass_rate_ci95)}` +
      `${sc.pass_rate_design_effect === null ? "" : `, design effect ${sc.pass_rate_design_effect}`})` +
      (sc.not_scored > 0 ? `; ${sc.not_scored} completed trials not scored` : "")
  )
  const p = sc.pass_at_k
  lines.push(
    `  pass@k counting passed trials: ${estimatesText(p)} ` +
      `(${p.tasks_scored} tasks, ${p.tasks_incomplete} incomplete; a failed trial counts and never passes)`
  )
  for (const [path, byValue] of Object.entries(sc.groups)) {
    const values = Object.entries(byValue)
    for (const [value, scorers] of values.slice(0, GROUP_LINES)) {
      lines.push(
        `  group ${path} = ${terminalText(value)}: ` +
          Object.entries(scorers).map(([name, st]) =>
            `${name} mean ${num(st.mean)} ${interval(st.ci95)}, pass rate ${num(st.pass_rate)} ${interval(st.pass_rate_ci95)} (${st.trials} trials)`
          ).join("; ")
      )
    }
    if (values.length > GROUP_LINES) lines.push(`  group ${path}: ${values.length - GROUP_LINES} more values in --summary`)
  }
  return lines
}

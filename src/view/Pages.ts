/**
 * The view's HTML pages, built from the report's own code (`report/Html.ts`
 * for the shell, escaping and blocks, `report/page/Page.ts` for a run's
 * sections): the index of runs, a run's page (the report's sections, then
 * its trials' table, paged and filtered on the server and live through the
 * run's events), a trial's page (the whole record, its transcript and its
 * scores). Every value is escaped as the report escapes it; the scripts put
 * text in the page with `textContent` only.
 *
 * @since 0.7.0
 */
import * as Trajectories from "../domain/Trajectory.ts"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import * as Html from "../report/Html.ts"
import * as Page from "../report/page/Page.ts"
import type { FileIndex } from "./Index.ts"
import type { RunEntry } from "./Runs.ts"
import { indexScript, runScript } from "./Scripts.ts"

const css = `
a{color:#1d4ed8;text-decoration:none}a:hover{text-decoration:underline}
.bar{display:flex;gap:8px;flex-wrap:wrap;align-items:center;margin:0 0 10px}
.bar input,.bar select,.bar button{font:inherit;padding:4px 8px;border:1px solid #d1d5db;border-radius:6px;background:#fff}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f9fafb;border:1px solid #eef0f3;border-radius:6px;padding:8px;margin:4px 0;font-size:12px}
.step{border-left:3px solid #c7d2fe;padding:2px 0 2px 10px;margin:8px 0}.step.tool_call{border-color:#ddd6fe}.step.tool_result{border-color:#bbf7d0}
.step.error{border-color:#fca5a5}.step .head{color:#4b5563;font-size:12px}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
`

const encodeKey = (key: string) => encodeURIComponent(key)
const link = (href: string, label: string) => `<a href="${Html.escape(href)}">${Html.text(label)}</a>`

const shell = (title: string, body: string, script?: string) =>
  Html.page({ title, body, css, connectSelf: true, ...(script === undefined ? {} : { script }) })

/**
 * A page that tells what went wrong (a missing run or trial, runs that
 * cannot be compared).
 *
 * @category pages
 * @since 0.7.0
 */
export const problem = (title: string, message: string): string =>
  shell(title, `<header class="top"><h1>${Html.text(title)}</h1><p class="sub">${link("/", "All runs")}</p></header>` +
    Html.section("What happened", `<p>${Html.text(message)}</p>`))

/**
 * `/`: every run under the folder, newest first, filterable by text; two
 * ticked runs open their comparison. A matrix's cells show as KEYs under
 * their run's folder.
 *
 * @category pages
 * @since 0.7.0
 */
export const index = (runs: ReadonlyArray<RunEntry>): string => {
  const rows = runs.map((r) => {
    const tone = r.status === "running" ? "warn" : r.status === "finished" ? "ok" : "fail"
    const ci = r.pass_rate_ci95 === null ? "" : ` [${Html.formatPercent(r.pass_rate_ci95[0])}, ${Html.formatPercent(r.pass_rate_ci95[1])}]`
    return `<tr data-key="${Html.escape(r.key)}">` +
      `<td><input type="checkbox" class="pick" value="${Html.escape(r.key)}" aria-label="select ${Html.escape(r.key)}"></td>` +
      `<td class="mono">${link(`/runs/${encodeKey(r.key)}`, r.key)}</td>` +
      `<td class="mono">${Html.render(r.run_id)}</td><td>${Html.render(r.started_at)}</td>` +
      `<td>${Html.render(r.agent)}${r.model === null ? "" : ` · ${Html.text(r.model)}`}</td><td>${Html.render(r.dataset)}</td>` +
      `<td class="num">${Html.formatNumber(r.trials)}${r.total === null ? "" : ` of ${Html.formatNumber(r.total)}`}</td>` +
      `<td class="num">${Html.formatPercent(r.pass_rate)}${ci}</td>` +
      `<td class="num">${r.cost_usd === null ? "—" : `$${Html.formatNumber(r.cost_usd, 4)}`}</td>` +
      `<td>${Html.badge(r.status, tone).html}${r.outcome === null || r.outcome === r.status ? "" : ` <span class="sub">${Html.text(r.outcome.replaceAll("_", " "))}</span>`}</td></tr>`
  }).join("")
  const table = `<div class="bar"><input id="filter" type="search" placeholder="Filter runs by text" aria-label="filter runs">` +
    `<button id="compare" disabled>Compare the two selected</button><span id="shown" class="sub"></span></div>` +
    `<table id="runs"><thead><tr><th></th><th>Run</th><th>Id</th><th>Started</th><th>Agent · model</th><th>Dataset</th>` +
    `<th class="num">Trials</th><th class="num">Pass rate [95% CI]</th><th class="num">Cost</th><th>Status</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>`
  return shell(
    "agent-trials: runs",
    `<header class="top"><h1>Runs</h1><p class="sub">${Html.formatNumber(runs.length)} results files, newest first</p></header>` +
      Html.section("Every run", runs.length === 0 ? "<p>No results file (*.jsonl) under this folder yet.</p>" : table, {
        note: "A run that ended says how beside its results (RESULTS.jsonl.end.json): finished, or stopped and why (interrupted, a budget reached ...). " +
          "One that left no such marker (killed, or made by an older version) is running while its file grows, then finished when it holds all its trials " +
          "(or its total is unknown), stopped otherwise."
      }),
    indexScript
  )
}

/**
 * `/runs/KEY`: the report's sections over every trial indexed, then the
 * trials' table (filled by the script from `/api/runs/KEY/trials`), which
 * the run's events keep up to date.
 *
 * @category pages
 * @since 0.7.0
 */
export const run = (key: string, index: FileIndex): string => {
  const result = index.report()
  const sections = Page.sections({ resultsFile: `${key}.jsonl`, result, withTasks: false })
  const scorers = index.scorers.map((s) =>
    `<option value="${Html.escape(`${s}:failed`)}">${Html.text(`${s} failed`)}</option>` +
    `<option value="${Html.escape(`${s}:passed`)}">${Html.text(`${s} passed`)}</option>`
  ).join("")
  const groups = [...index.groups()].flatMap(([path, values]) =>
    values.slice(0, 200).map((v) => `<option value="${Html.escape(`${path}=${v}`)}">${Html.text(`${path} = ${v}`)}</option>`)
  ).join("")
  const table = `<div class="bar">` +
    `<input id="q" type="search" placeholder="Text in the record" aria-label="text">` +
    `<select id="status" aria-label="status"><option value="">any status</option><option>completed</option><option>failed</option><option>partial</option></select>` +
    `<select id="scorer" aria-label="scorer verdict"><option value="">any verdict</option>${scorers}</select>` +
    `<select id="group" aria-label="group"><option value="">any group</option>${groups}</select>` +
    `<button id="prev">Previous</button><button id="next">Next</button><span id="count" class="sub"></span>` +
    `<span id="live" class="sub"></span></div><p id="progress" class="sub"></p>` +
    `<table id="trials"><thead><tr><th>Trial</th><th>Task</th><th>Status</th><th class="num">Latency</th><th>Scores</th><th>Output or error</th></tr></thead><tbody></tbody></table>`
  const body = `<p class="sub">${link("/", "All runs")}</p>` + sections.join("\n") +
    Html.section("Trials", table, { id: "trials-card", note: "Paged and filtered on the server; new trials arrive as the run writes them." })
  return shell(`agent-trials: ${key}`, body, runScript(`/api/runs/${encodeKey(key)}`, `/runs/${encodeKey(key)}/trials/`))
}

/** Characters of one transcript step shown (the record below holds it whole). */
const STEP_SHOWN = 20_000

const stepText = (v: unknown): string => {
  const t = v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? String(v)
  return t.length <= STEP_SHOWN ? t : `${t.slice(0, STEP_SHOWN)}… (${t.length - STEP_SHOWN} more characters in the record below)`
}

/**
 * A trial's transcript: model turns, tool calls with their arguments, tool
 * results (errors marked), each in order; nothing when the record has no
 * trajectory.
 *
 * @category pages
 * @since 0.7.0
 */
export const transcript = (trial: AgentEvalTrial): string => {
  const steps = Trajectories.ofTrial(trial)
  if (steps === undefined || steps.length === 0) return ""
  return steps.map((s, i) => {
    const kind = s.type === "model" ? "model turn" : s.type === "tool_call" ? "tool call" : "tool result"
    const error = s.is_error === true
    return `<div class="step ${s.type}${error ? " error" : ""}"><div class="head">${i + 1}. ${Html.text(kind)}` +
      `${s.name === undefined ? "" : ` <span class="mono">${Html.text(s.name)}</span>`}` +
      `${error ? ` ${Html.badge("error", "fail").html}` : ""} · ${Html.formatDuration(s.duration_ms / 1000)}</div>` +
      `<pre>${Html.text(stepText(s.type === "tool_call" ? s.arguments : s.content))}</pre></div>`
  }).join("")
}

/**
 * `/runs/KEY/trials/ID`: the trial's status, output or error, its scores
 * with their explanations and errors, its transcript, and the whole record.
 *
 * @category pages
 * @since 0.7.0
 */
export const trial = (key: string, record: unknown): string => {
  const t = record as AgentEvalTrial
  const scores = Object.entries(t.scores ?? {})
  const scoreTable = scores.length === 0 ? "<p>Not scored.</p>" : Html.table(
    [{ label: "Scorer" }, { label: "Value", numeric: true }, { label: "Verdict" }, { label: "Explanation or error" }],
    scores.map(([name, s]) => [
      name,
      s.value,
      Html.badge(s.error !== undefined ? "error" : s.passed ? "passed" : "failed", s.passed && s.error === undefined ? "ok" : "fail"),
      s.error !== undefined ? `${s.error.type}: ${s.error.message}` : s.explanation ?? null
    ])
  )
  const what = t.error !== undefined
    ? Html.section("Error", `<p class="mono">${Html.text(t.error.type)}</p><pre>${Html.text(t.error.message)}</pre>`)
    : Html.section("Output", `<pre>${Html.text(t.output?.output_text ?? "")}</pre>`)
  const steps = transcript(t)
  const body = `<header class="top"><h1 class="mono">${Html.text(t.id)}</h1><p class="sub">` +
    `${link("/", "All runs")} · ${link(`/runs/${encodeKey(key)}`, key)} · task <span class="mono">${Html.text(t.task_id)}</span> · ` +
    `${Html.badge(t.status, t.status === "completed" ? "ok" : "fail").html} · ${Html.formatDuration(t.metadata.latency_ms / 1000)}</p></header>` +
    what + Html.section("Scores", scoreTable) +
    (steps === "" ? "" : Html.section("Transcript", steps, { id: "transcript" })) +
    Html.section("Record", `<pre id="record">${Html.text(JSON.stringify(record, null, 2))}</pre>`)
  return shell(`agent-trials: ${t.id}`, body)
}

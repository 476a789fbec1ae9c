/**
 * `/compare?base=KEY&new=KEY`: `compare`'s own page of two runs (its paired
 * table with Holm verdicts, per-group and usage deltas; `Compare.compare`
 * and `Compare.toHtml`, the code of `compare --html`), then the tasks that
 * flipped, each with both runs' answers and transcripts side by side.
 *
 * @since 0.7.0
 */
import { Effect } from "effect"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import * as Compare from "../programs/compare/Compare.ts"
import * as Html from "../report/Html.ts"
import type { FileIndex } from "./Index.ts"
import { transcript } from "./Pages.ts"

/** Flipped tasks shown side by side at most, each way. */
export const FLIPS_SHOWN = 20

interface Side {
  readonly key: string
  readonly index: FileIndex
}

const answer = (key: string, trials: ReadonlyArray<AgentEvalTrial> | undefined): string =>
  `<div><h3 class="mono">${Html.text(key)}</h3>` +
  (trials === undefined || trials.length === 0 ? "<p>No trial of this task.</p>" : trials.map((t) => {
    const verdicts = Object.entries(t.scores ?? {}).map(([n, s]) => `${n} ${s.passed ? "passed" : "failed"}`).join(", ")
    return `<p><a class="mono" href="/runs/${encodeURIComponent(key)}/trials/${encodeURIComponent(t.id)}">${Html.text(t.id)}</a> · ` +
      `${Html.badge(t.status, t.status === "completed" ? "ok" : "fail").html} ${Html.text(verdicts)}</p>` +
      `<pre class="answer">${Html.text(t.error !== undefined ? `${t.error.type}: ${t.error.message}` : t.output?.output_text ?? "")}</pre>` +
      transcript(t)
  }).join("")) + `</div>`

/**
 * The comparison page of `base` and `new`; fails as `compare` does
 * (`CompareInputError`: no scorer or task in common, a bad line).
 *
 * @category pages
 * @since 0.7.0
 */
export const compareRuns = Effect.fn("View.compareRuns")(function*(runs: { readonly base: Side; readonly new: Side }) {
  const comparison = yield* Compare.compare(runs.base.index.file, runs.new.index.file)
  const flips = [
    ...comparison.flips.pass_to_fail.slice(0, FLIPS_SHOWN).map((task) => ({ task, way: "passed, then failed" })),
    ...comparison.flips.fail_to_pass.slice(0, FLIPS_SHOWN).map((task) => ({ task, way: "failed, then passed" }))
  ]
  const ids = new Set(flips.map((f) => f.task))
  const base = yield* runs.base.index.byTask(ids)
  const next = yield* runs.new.index.byTask(ids)
  const total = comparison.flips.pass_to_fail.length + comparison.flips.fail_to_pass.length
  const body = flips.length === 0 ? "<p>No task flipped.</p>" : flips.map((f) =>
    `<div class="flip" data-task="${Html.escape(f.task)}"><h3>Task <span class="mono">${Html.text(f.task)}</span>: ${Html.text(f.way)}</h3>` +
    `<div class="side">${answer(runs.base.key, base.get(f.task))}${answer(runs.new.key, next.get(f.task))}</div></div>`
  ).join("")
  const section = Html.section("Flipped tasks, side by side", body, {
    id: "flipped",
    note: total > flips.length ? `${flips.length} of ${total} flipped tasks shown (${FLIPS_SHOWN} each way at most).` : `${total} tasks flipped.`
  })
  const style = `<style>.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}pre.answer{white-space:pre-wrap;overflow-wrap:anywhere}` +
    `.step{border-left:3px solid #c7d2fe;padding:2px 0 2px 10px;margin:8px 0}.step pre{white-space:pre-wrap}</style>`
  const links = `<p class="sub"><a href="/">All runs</a> · <a href="/runs/${encodeURIComponent(runs.base.key)}">${Html.text(runs.base.key)}</a>` +
    ` · <a href="/runs/${encodeURIComponent(runs.new.key)}">${Html.text(runs.new.key)}</a></p>`
  const page = Compare.toHtml(comparison)
  // Functions, not strings: a `$&` in a task's text must stay text.
  return page.replace("<main>", () => `<main>${links}`).replace("</main>", () => `${style}${section}</main>`)
})

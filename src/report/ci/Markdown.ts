/**
 * A run (or a scoring) and a comparison as GitHub-flavoured Markdown, ready
 * to post as a pull-request comment or to append to a job's step summary:
 * the summary table (trials, completed and failed, each scorer's mean with
 * its 95% interval and pass rate, tokens, cost when priced, wall time), the
 * gates with PASS or FAIL, and for a comparison the paired table with its
 * Holm-adjusted verdicts and the tasks that flipped with both runs' answers.
 *
 * Every text from outside goes through `scrub`, then `cell`: truncated,
 * its newlines as `<br>`, and `|`, `\`, backticks, `<`, `>`, `&` and the
 * characters that start Markdown emphasis or links escaped, so it stays in
 * its table cell and renders as the text it is.
 *
 * @internal
 */
import type { GateResult } from "../../summary/Gates.ts"
import type { ScoringSummary, UsageSummary } from "../../summary/Summary.ts"
import { fixed, interval, pValue, signed } from "../compare/Cells.ts"
import type { Comparison } from "../compare/Model.ts"

/** Characters kept of an answer in a table cell. */
export const ANSWER_LENGTH = 200
/** Flipped tasks listed each way. */
export const FLIPS_SHOWN = 20

/**
 * `text` for a Markdown table cell, at most `max` characters of it.
 *
 * @internal
 */
export const cell = (text: string, max = ANSWER_LENGTH): string => {
  const chars = [...text]
  const cut = chars.length > max ? `${chars.slice(0, max).join("")}…` : text
  return cut
    .replace(/[\\`*_[\]{}#~|!]/g, (c) => `\\${c}`)
    .replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"))
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, (c) =>
      `&lt;U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}&gt;`)
    .replace(/\r?\n|\r/g, "<br>")
}

/**
 * What the summary table is made of: a run's summary and a scoring's alike.
 *
 * @internal
 */
export interface Facts {
  /** `run ID` or `score FILE`. */
  readonly title: string
  readonly outcome: string
  readonly trials: { readonly total: { readonly completed: number; readonly failed: number; readonly partial: number; readonly total: number } }
  readonly wall_time_s: number
  readonly scoring?: ScoringSummary | undefined
  readonly usage?: UsageSummary | undefined
  readonly gates?: ReadonlyArray<GateResult> | undefined
}

const percent = (x: number | null | undefined): string => (x === null || x === undefined ? "-" : `${(x * 100).toFixed(1)}%`)
const ci = (c: readonly [number, number] | null | undefined): string => (c === null || c === undefined ? "-" : `[${fixed(c[0])}, ${fixed(c[1])}]`)
const percentCi = (c: readonly [number, number] | null | undefined): string =>
  c === null || c === undefined ? "" : ` [${percent(c[0])}, ${percent(c[1])}]`

/**
 * The Markdown of a run's (or a scoring's) summary.
 *
 * @internal
 */
export const summary = (facts: Facts, scrub: (text: string) => string): string => {
  const t = facts.trials.total
  const lines = [
    `### agent-trials: ${cell(scrub(facts.title), 500)}`,
    "",
    "| | |",
    "| --- | --- |",
    `| outcome | ${cell(facts.outcome)} |`,
    `| trials | ${t.total} |`,
    `| completed / failed | ${t.completed} / ${t.failed}${t.partial > 0 ? ` (partial ${t.partial})` : ""} |`
  ]
  const sc = facts.scoring
  if (sc !== undefined) {
    lines.push(`| pass rate (${cell(scrub(sc.pass_rule))}) | ${percent(sc.pass_rate)}${percentCi(sc.pass_rate_ci95)} |`)
  }
  if (facts.usage !== undefined) {
    lines.push(`| tokens | ${facts.usage.total_tokens} |`)
    // Priced (--pricing): the cost, and the models it priced at $0.
    if (facts.usage.cost_usd !== null) {
      const unpriced = facts.usage.unpriced_models
      lines.push(
        `| cost | $${facts.usage.cost_usd.toFixed(4)}${
          unpriced.length === 0 ? "" : ` (not priced, counted $0: ${unpriced.map((m) => cell(scrub(m))).join(", ")})`
        } |`
      )
    }
  }
  lines.push(`| wall time | ${facts.wall_time_s} s |`)
  if (sc !== undefined && Object.keys(sc.scorers).length > 0) {
    lines.push("", "| scorer | mean | 95% CI | pass rate (95% CI) | scored |", "| --- | --- | --- | --- | --- |")
    for (const [name, s] of Object.entries(sc.scorers)) {
      lines.push(`| ${cell(scrub(name))} | ${fixed(s.mean)} | ${ci(s.ci95)} | ${percent(s.pass_rate)}${percentCi(s.pass_rate_ci95)} | ${s.scored} of ${s.trials} |`)
    }
  }
  lines.push(...gateLines(facts.gates ?? []))
  return lines.join("\n") + "\n"
}

const gateLines = (gates: ReadonlyArray<GateResult>): Array<string> =>
  gates.length === 0 ? [] : [
    "",
    "| gate | value | verdict | why |",
    "| --- | --- | --- | --- |",
    ...gates.map((g) =>
      `| --fail-under ${cell(g.gate)} | ${fixed(g.value)} | ${g.verdict === "pass" ? "PASS" : "**FAIL**"} | ${cell(g.reason)} |`
    )
  ]

/**
 * A flipped task's answers in each file (undefined: no answer there).
 *
 * @internal
 */
export interface Answers {
  readonly base: string | undefined
  readonly new: string | undefined
}

const VERDICT: Record<string, string> = {
  regressed: "**regressed**",
  improved: "improved",
  no_significant_change: "no significant change",
  no_verdict: "no verdict"
}

/**
 * The Markdown of a comparison: the files, the paired table, pass@1, the
 * verdict and the flipped tasks with their answers (`answers`, by task id).
 *
 * @internal
 */
export const comparison = (
  c: Comparison,
  answers: ReadonlyMap<string, Answers>,
  scrub: (text: string) => string
): string => {
  const text = (s: string, max?: number) => cell(scrub(s), max)
  const lines = [
    `### agent-trials compare`,
    "",
    `base ${text(c.base.file, 300)} (${c.base.trials} trials) → new ${text(c.new.file, 300)} (${c.new.trials} trials): ` +
    `${c.tasks.paired} paired tasks${c.measure === "completion" ? ", compared on completion (no scores in either file)" : ""}`,
    "",
    "| scorer | paired | base | new | delta | 95% CI | p | p Holm | verdict |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...c.scorers.map((s) =>
      `| ${text(s.name)} | ${s.n} | ${fixed(s.base_mean)} | ${fixed(s.new_mean)} | ${signed(s.delta)} | ${interval(s.ci95)} | ` +
      `${pValue(s.p_value)} | ${pValue(s.p_holm)} | ${VERDICT[s.verdict]}${s.reason === null ? "" : ` (${text(s.reason)})`} |`
    ),
    `| pass@1 (${text(c.pass_rule)}) | ${c.pass_at_1.tasks} | ${fixed(c.pass_at_1.base)} | ${fixed(c.pass_at_1.new)} | ` +
    `${signed(c.pass_at_1.delta)} | ${interval(c.pass_at_1.ci95)} | ${pValue(c.pass_at_1.p_value)} | | |`,
    ""
  ]
  const judged = `${c.judged.length} scorer${c.judged.length === 1 ? "" : "s"} judged, family-wise 5%`
  lines.push(
    c.regressed.length > 0
      ? `**Regressed** (delta < 0 and Holm-adjusted p < 0.05, ${judged}): ${c.regressed.map((n) => text(n)).join(", ")}`
      : `No scorer regressed (${judged}).`
  )
  const flips = [
    ...c.flips.pass_to_fail.slice(0, FLIPS_SHOWN).map((id) => [id, "pass → fail"] as const),
    ...c.flips.fail_to_pass.slice(0, FLIPS_SHOWN).map((id) => [id, "fail → pass"] as const)
  ]
  if (flips.length > 0) {
    lines.push(
      "",
      `Flipped tasks: ${c.flips.pass_to_fail.length} pass → fail, ${c.flips.fail_to_pass.length} fail → pass` +
        (flips.length < c.flips.pass_to_fail.length + c.flips.fail_to_pass.length ? ` (the first ${FLIPS_SHOWN} of each shown)` : ""),
      "",
      "| task | flip | base answer | new answer |",
      "| --- | --- | --- | --- |",
      ...flips.map(([id, flip]) => {
        const a = answers.get(id)
        const answer = (s: string | undefined) => (s === undefined ? "-" : text(s))
        return `| ${text(id)} | ${flip} | ${answer(a?.base)} | ${answer(a?.new)} |`
      })
    )
  }
  for (const note of c.notes) lines.push("", `Note: ${text(note, 1000)}`)
  return lines.join("\n") + "\n"
}

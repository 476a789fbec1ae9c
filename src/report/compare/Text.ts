/**
 * A comparison as text for a terminal or a CI log: a table of scorers, the
 * usage per trial (when the files report it), pass@1 before and after, flips
 * and unmatched tasks (at most `SHOWN` ids each, then "and N more"; `--json`
 * lists them all; a list longer than `WIDTH` columns goes on indented lines,
 * broken between ids, never inside one), a table per group path (at most
 * `GROUPS_SHOWN` values, the largest groups first), notes, the scorers that
 * improved, and the verdict line.
 *
 * @internal
 */
import { aligned, fixed, interval, pValue, signed } from "./Cells.ts"
import type { Comparison } from "./Model.ts"
import { usageLines } from "./Usage.ts"

const SHOWN = 10
const WIDTH = 100
const GROUPS_SHOWN = 50
const VALUE_WIDTH = 40

// `head` followed by the ids of `list`: wrapped at WIDTH between ids, the
// lines after the first indented; an id longer than a line keeps a line.
const withIds = (head: string, list: ReadonlyArray<string>): string => {
  if (list.length === 0) return head
  const shown = list.slice(0, SHOWN)
  const words = shown.map((id, i) => (i < shown.length - 1 ? `${id},` : id))
  if (list.length > SHOWN) words.push(`and ${list.length - SHOWN} more`)
  const lines: Array<string> = []
  let line = `${head}:`
  for (const word of words) {
    if (line.length + 1 + word.length > WIDTH) {
      lines.push(line)
      line = `    ${word}`
    } else {
      line += ` ${word}`
    }
  }
  lines.push(line)
  return lines.join("\n")
}

const tasks = (n: number) => `${n} task${n === 1 ? "" : "s"}`

const VERDICT = {
  regressed: "regressed",
  improved: "improved",
  no_significant_change: "no significant change",
  no_verdict: "no verdict"
} as const

/**
 * The comparison as text: a table of scorers, pass@1, flips, unmatched tasks
 * and notes.
 *
 * @category formatting
 * @since 0.1.0
 */
export const format = (c: Comparison): string => {
  const side = (label: string, f: Comparison["base"]) =>
    `  ${label} ${f.file}: ${f.trials} trials (${f.failed_trials} failed), ${tasks(f.tasks)}, ` +
    `scorers: ${f.scorers.length === 0 ? "none" : f.scorers.join(", ")}`
  const lines = [
    `compare ${c.base.file} -> ${c.new.file}`,
    side("base", c.base),
    side("new ", c.new),
    `  tasks: ${c.tasks.paired} paired (matched by task_id), ${c.tasks.only_in_base.length} only in base, ` +
    `${c.tasks.only_in_new.length} only in new`,
    c.measure === "completion"
      ? `  measure: completion (a completed trial 1, any other 0), NOT correctness: neither file carries scores`
      : `  a task's value: its mean over its trials (epochs); a failed trial counts 0`,
    ""
  ]
  const mcnemar = c.scorers.some((s) => s.mcnemar_p !== null)
  const header = ["scorer", "paired", "base", "new", "delta", "95% CI", "p", "p Holm", ...(mcnemar ? ["McNemar p"] : []), "verdict"]
  const rows = c.scorers.map((s) => [
    s.name,
    String(s.n),
    fixed(s.base_mean),
    fixed(s.new_mean),
    signed(s.delta),
    interval(s.ci95),
    pValue(s.p_value),
    pValue(s.p_holm),
    ...(mcnemar ? [pValue(s.mcnemar_p)] : []),
    s.verdict === "no_significant_change" && s.mde80 !== null
      ? `${VERDICT[s.verdict]} (detectable at 80% power: ±${fixed(s.mde80)})`
      : VERDICT[s.verdict]
  ])
  lines.push(...aligned([header, ...rows], "  "))
  if (c.stderr_cluster !== null) lines.push(clustering(c))
  lines.push(...usageLines(c))
  lines.push("")
  const p = c.pass_at_1
  const ruleOf = (rule: string) => rule === "every shared scorer"
    ? "every shared scorer passed"
    : rule === "completed"
    ? "the trial completed"
    : `--pass ${rule} passed`
  const rule = c.pass_rules === undefined
    ? ruleOf(c.pass_rule)
    : `its run's rule: in base ${ruleOf(c.pass_rules.base)}, in new ${ruleOf(c.pass_rules.new)}`
  lines.push(
    `  pass@1 (a trial passes when ${rule}): ${fixed(p.base)} -> ${fixed(p.new)} over ${p.tasks} paired task${p.tasks === 1 ? "" : "s"}, ` +
      `delta ${signed(p.delta)}, 95% CI ${interval(p.ci95)}, p ${pValue(p.p_value)}` +
      (p.mcnemar_p === null ? "" : `, McNemar exact p ${pValue(p.mcnemar_p)}`),
    `  pass@1 over each file's own tasks: base ${fixed(p.base_all.pass_at_1)} (${tasks(p.base_all.tasks)}), ` +
      `new ${fixed(p.new_all.pass_at_1)} (${tasks(p.new_all.tasks)})`,
    withIds(`  pass -> fail (every trial passed before, not after): ${tasks(c.flips.pass_to_fail.length)}`, c.flips.pass_to_fail),
    withIds(`  fail -> pass: ${tasks(c.flips.fail_to_pass.length)}`, c.flips.fail_to_pass)
  )
  if (c.tasks.only_in_base.length > 0) {
    lines.push(withIds(`  only in base (not matched): ${tasks(c.tasks.only_in_base.length)}`, c.tasks.only_in_base))
  }
  if (c.tasks.only_in_new.length > 0) {
    lines.push(withIds(`  only in new (not matched): ${tasks(c.tasks.only_in_new.length)}`, c.tasks.only_in_new))
  }
  if (c.scorers_only_in_base.length > 0) {
    lines.push(`  scorers only in base (not compared): ${c.scorers_only_in_base.join(", ")}`)
  }
  if (c.scorers_only_in_new.length > 0) {
    lines.push(`  scorers only in new (not compared): ${c.scorers_only_in_new.join(", ")}`)
  }
  for (const path in c.groups) lines.push(...groupTable(path, c.groups[path]))
  for (const note of c.notes) lines.push(`  note: ${note}`)
  const improved = c.scorers.filter((s) => s.verdict === "improved").map((s) => s.name)
  if (improved.length > 0) lines.push(`  improved (95% CI of the change wholly above 0): ${improved.join(", ")}`)
  const judged = `${c.judged.length} scorer${c.judged.length === 1 ? "" : "s"} judged`
  lines.push(
    c.regressed.length > 0
      ? `  regressed (delta < 0 and Holm-adjusted p < 0.05, ${judged}, family-wise 5%): ${c.regressed.join(", ")}`
      : `  no scorer regressed (${judged}; a regression needs delta < 0 and a Holm-adjusted p < 0.05, family-wise 5%)`
  )
  return lines.join("\n")
}

const clustering = (c: Comparison): string =>
  [
    `  standard errors clustered by ${c.stderr_cluster}: CR1 over the clusters of paired tasks; ` +
    `intervals, p and MDE on t with clusters - 1 df`,
    ...c.scorers.map((s) =>
      `    ${s.name}: ${s.clusters} cluster${s.clusters === 1 ? "" : "s"}` +
      (s.design_effect === null ? "" : `, design effect ${s.design_effect.toFixed(2)}`)
    )
  ].join("\n")

const cut = (value: string): string => value.length <= VALUE_WIDTH ? value : `${value.slice(0, VALUE_WIDTH - 3)}...`

// One path's groups: a row per measure and one for pass@1, the largest groups first.
const groupTable = (path: string, groups: Comparison["groups"][string]): Array<string> => {
  const values = Object.keys(groups)
  const order = values.map((v, i) => [v, i] as const)
    .sort(([a, i], [b, j]) => groups[b].tasks - groups[a].tasks || i - j)
    .map(([v]) => v)
  const rows: Array<Array<string>> = [["value", "tasks", "measure", "paired", "base", "new", "delta", "95% CI", "p"]]
  for (const value of order.slice(0, GROUPS_SHOWN)) {
    const g = groups[value]
    const first = [cut(value), String(g.tasks)]
    const blank = ["", ""]
    Object.entries(g.scorers).forEach(([name, s], i) => {
      rows.push([
        ...(i === 0 ? first : blank),
        name,
        String(s.n),
        fixed(s.base_mean),
        fixed(s.new_mean),
        signed(s.delta),
        interval(s.ci95),
        pValue(s.p_value)
      ])
    })
    const p = g.pass_at_1
    rows.push([...blank, "pass@1", String(p.tasks), fixed(p.base), fixed(p.new), signed(p.delta), interval(p.ci95), pValue(p.p_value)])
  }
  const more = values.length - GROUPS_SHOWN
  return [
    "",
    `  by ${path}: ${values.length} value${values.length === 1 ? "" : "s"} (a task in its group in base; ` +
    `per-group p not corrected for the many groups, and no gate)`,
    ...aligned(rows, "    "),
    ...(more > 0 ? [`    and ${more} more value${more === 1 ? "" : "s"} in --json`] : [])
  ]
}

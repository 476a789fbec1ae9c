/**
 * The comparison of two tallied results files: per shared scorer the paired
 * difference of per-task means with its verdict, on tasks or on the clusters
 * both files name, pass@1 and flips under the pass rule, the breakdown by
 * group, unmatched tasks and scorers, and the notes a reader needs (the rules
 * are in the module doc of `Compare`).
 *
 * @internal
 */
import { Effect } from "effect"
import * as Significance from "../../statistics/Significance.ts"
import type { CompareOptions, Comparison, FileInfo, PassComparison, RecordedPass, ScorerComparison, Verdict } from "../../report/compare/Model.ts"
import { groupsOf } from "./Groups.ts"
import { clusterKey, Paired, type PairedChange, type Unit, valueIn } from "./Paired.ts"
import { CompareInputError, type FileTally } from "./Tally.ts"
import { usageOf } from "./Usage.ts"

const collator = new Intl.Collator("en", { numeric: true })
const sorted = (ids: Array<string>): Array<string> => ids.sort(collator.compare)

/** @internal */
export const fromTallies = (
  base: FileTally,
  next: FileTally,
  options: CompareOptions,
  recorded: RecordedPass = { base: undefined, new: undefined }
): Effect.Effect<Comparison, CompareInputError> => {
  const bad = (message: string) => Effect.fail(new CompareInputError({ message }))
  const completion = base.scorers.length === 0 && next.scorers.length === 0
  const shared = base.scorers.filter((name) => next.scorers.includes(name))
  const list = (names: ReadonlyArray<string>) => (names.length === 0 ? "none" : names.join(", "))
  if (!completion && shared.length === 0) {
    return bad(
      `no scorer in common: ${base.file} has ${list(base.scorers)}, ${next.file} has ${list(next.scorers)}; ` +
        `score both with the same scorers (agent-trials score RESULTS --score SPEC --out FILE)`
    )
  }
  if (options.pass !== undefined) {
    if (completion) return bad(`--pass ${options.pass}: neither file carries scores (they compare completion only)`)
    for (const file of [base, next]) {
      if (!file.scorers.includes(options.pass)) {
        return bad(`--pass ${options.pass}: no such scorer in ${file.file} (its scorers: ${list(file.scorers)})`)
      }
    }
  }

  const paired: Array<string> = []
  const onlyInBase: Array<string> = []
  for (const id of base.tasks.keys()) (next.tasks.has(id) ? paired : onlyInBase).push(id)
  const onlyInNew = [...next.tasks.keys()].filter((id) => !base.tasks.has(id))
  if (paired.length === 0) {
    return bad(
      `no tasks in common: ${base.file} has ${base.tasks.size} tasks (${preview(base.tasks.keys())}), ` +
        `${next.file} has ${next.tasks.size} (${preview(next.tasks.keys())}); tasks are matched by task_id`
    )
  }

  const measures = completion ? ["completed"] : shared
  const { unit, notes: unitNotes } = unitOf(base, next, paired)
  const scorers = holmOf(measures.map((name) => scorerComparison(name, paired, base, next, completion, unit)))
  const judged = completion ? undefined : passRules(base, next, shared, options.pass, recorded)
  const rules = judged === undefined ? undefined : { base: judged.base, next: judged.next }
  const { flips, passAt1 } = passes(paired, base, next, rules, unit)
  const groups = groupsOf({ paired, base, next, measures, completion, rules, unit })
  const notes = [...notesOf(base, next, completion, scorers), ...(judged?.notes ?? []), ...unitNotes, ...groups.notes]
  const usage = usageOf({ paired, base, next, unit })
  return Effect.succeed({
    base: infoOf(base),
    new: infoOf(next),
    measure: completion ? "completion" : "scores",
    pass_rule: judged === undefined ? "completed" : judged.text ?? EACH_OWN,
    ...(judged === undefined || judged.text !== undefined ? {} : { pass_rules: judged.texts }),
    tasks: { paired: paired.length, only_in_base: sorted(onlyInBase), only_in_new: sorted(onlyInNew) },
    scorers,
    scorers_only_in_base: base.scorers.filter((name) => !shared.includes(name)),
    scorers_only_in_new: next.scorers.filter((name) => !shared.includes(name)),
    pass_at_1: passAt1,
    flips,
    judged: scorers.filter((s) => s.p_holm !== null).map((s) => s.name),
    regressed: scorers.filter((s) => s.delta! < 0 && s.p_holm !== null && s.p_holm < FAMILY_WISE).map((s) => s.name),
    notes,
    stderr_cluster: unit.path,
    groups: groups.groups,
    // Absent, not null, without usage: such a comparison stays as it was.
    ...(usage === undefined ? {} : { usage })
  })
}

const preview = (ids: Iterable<string>): string => {
  const first: Array<string> = []
  for (const id of ids) {
    if (first.length === 3) return `${first.join(", ")}, ...`
    first.push(id)
  }
  return first.join(", ")
}

const infoOf = (file: FileTally): FileInfo => ({
  file: file.file,
  trials: file.trials,
  failed_trials: file.failed,
  unscored_trials: file.unscored,
  invalid_lines: file.invalid,
  tasks: file.tasks.size,
  scorers: [...file.scorers],
  scoring: file.scoring()
})

// How a file's records cluster standard errors: "task" for tasks as the unit
// (`by: "task"`, null or absent alike), else the PATHs its records name.
const clusteringOf = (file: FileTally): ReadonlyArray<string> => {
  const by = [...file.clusterBy].filter((b) => b !== "task" && b !== "none")
  return by.length === 0 ? ["task"] : file.clusterBy.size === by.length ? by : [...file.clusterBy]
}

// The unit of the comparison: clusters when both files' records cluster by
// one and the same PATH; otherwise tasks, with a note when they disagree.
// A task's cluster is its first trial's value in the base file.
const unitOf = (
  base: FileTally,
  next: FileTally,
  paired: ReadonlyArray<string>
): { readonly unit: Unit; readonly notes: Array<string> } => {
  const a = clusteringOf(base)
  const b = clusteringOf(next)
  const tasks: Unit = { path: null, of: () => undefined }
  if (a.length === 1 && b.length === 1 && a[0] === "task" && b[0] === "task") return { unit: tasks, notes: [] }
  if (a.length !== 1 || b.length !== 1 || a[0] !== b[0]) {
    // "none": the records carry a null stderr_cluster or none at all.
    const says = (file: FileTally) => {
      const by = [...file.clusterBy]
      return `${file.file} by ${by.length === 1 ? by[0] : `${by.join(", ")} (its records disagree)`}`
    }
    return {
      unit: tasks,
      notes: [
        `standard errors not clustered: the files cluster them differently (metadata.stderr_cluster: ` +
        `${says(base)}, ${says(next)}); tasks are the unit`
      ]
    }
  }
  const path = a[0]
  let moved = 0
  for (const id of paired) {
    if ((base.tasks.get(id)!.cluster ?? null) !== (next.tasks.get(id)!.cluster ?? null)) moved++
  }
  const notes = moved === 0 ? [] : [
    `stderr_cluster by ${path}: ${moved} paired task${moved === 1 ? " has" : "s have"} another cluster value in ` +
    `${next.file} than in ${base.file}: the one in ${base.file} is used`
  ]
  return { unit: { path, of: (id) => clusterKey(id, base.tasks.get(id)!.cluster) }, notes }
}

const scorerComparison = (
  name: string,
  paired: ReadonlyArray<string>,
  base: FileTally,
  next: FileTally,
  completion: boolean,
  unit: Unit
): ScorerComparison => {
  const change = new Paired(unit.path !== null)
  const baseMask = completion ? undefined : base.maskOf([name])
  const nextMask = completion ? undefined : next.maskOf([name])
  const discordant = new Discordant()
  for (const id of paired) {
    const x = valueIn(base, id, name, completion)
    const y = valueIn(next, id, name, completion)
    if (x === undefined || y === undefined) continue
    change.add(x, y, unit.of(id))
    discordant.add(base.passesOf(base.tasks.get(id)!, baseMask), next.passesOf(next.tasks.get(id)!, nextMask))
  }
  const d = change.result()
  const { reason, verdict } = verdictOf(d, unit.path)
  // Holm's p comes once every scorer's p is known (`holmOf`).
  return { name, ...d, p_holm: null, mcnemar_p: d.n === 0 ? null : discordant.mcnemar(), verdict, reason }
}

// The family-wise error rate of `regressed` over the judged scorers (Holm).
const FAMILY_WISE = 0.05

// Holm's adjustment over the scorers with a p-value (the judged ones).
const holmOf = (scorers: Array<ScorerComparison>): Array<ScorerComparison> => {
  const judged = scorers.filter((s) => s.p_value !== null)
  const adjusted = Significance.holm(judged.map((s) => s.p_value!))
  return scorers.map((s) => {
    const i = judged.indexOf(s)
    return i < 0 ? s : { ...s, p_holm: adjusted[i] }
  })
}

// Tasks that passed in one file and not the other, while every task has one
// counted trial in each file (one epoch); with more, McNemar's test is off.
class Discordant {
  private passToFail = 0
  private failToPass = 0
  private oneEpoch = true

  add(x: { readonly counted: number; readonly passed: number }, y: { readonly counted: number; readonly passed: number }): void {
    if (x.counted !== 1 || y.counted !== 1) this.oneEpoch = false
    else if (x.passed === 1 && y.passed === 0) this.passToFail++
    else if (x.passed === 0 && y.passed === 1) this.failToPass++
  }

  mcnemar(): number | null {
    return this.oneEpoch ? Significance.mcnemar(this.passToFail, this.failToPass) : null
  }
}

const verdictOf = (d: PairedChange, clusteredBy: string | null): { verdict: Verdict; reason: string | null } => {
  const { ci95: ci, clusters: g, n } = d
  if (ci === null) {
    const tasks = `${n} paired task${n === 1 ? "" : "s"} with a value in both files`
    return {
      verdict: "no_verdict",
      reason: clusteredBy === null || n < 2
        ? `${tasks}: an interval needs at least 2`
        : `${tasks}, in ${g} cluster${g === 1 ? "" : "s"} of ${clusteredBy}: a clustered interval needs at least 2 clusters`
    }
  }
  if (ci[1] < 0) return { verdict: "regressed", reason: null }
  if (ci[0] > 0) return { verdict: "improved", reason: null }
  return { verdict: "no_significant_change", reason: null }
}

const SHARED = "every shared scorer"
const EACH_OWN = "each run's own"

const passFlag = (pass: string | null) => pass === null ? "no --pass (every scorer must pass)" : `--pass ${pass}`

// The scorers each file's trials must pass: `pass` for both when given;
// otherwise each as its run recorded it (`--pass NAME`: NAME, when its
// trials carry it), else every shared scorer. `text` is the one rule of
// both, undefined when they differ; the notes name runs that recorded
// different rules, and a recorded NAME a file's trials do not carry.
const passRules = (
  base: FileTally,
  next: FileTally,
  shared: ReadonlyArray<string>,
  pass: string | undefined,
  recorded: RecordedPass
) => {
  const notes: Array<string> = []
  const differ = recorded.base !== undefined && recorded.new !== undefined && recorded.base !== recorded.new
  if (differ) {
    notes.push(
      `the runs recorded different pass rules: ${base.file} was run with ${passFlag(recorded.base!)}, ` +
        `${next.file} with ${passFlag(recorded.new!)}: ` +
        (pass !== undefined
          ? `both are judged by --pass ${pass} here`
          : `each file's trials are judged passed by its own run's rule, so pass@1 and the flips compare ` +
            `different things; give --pass NAME to judge both by one scorer`)
    )
  }
  const ruleOf = (file: FileTally, own: string | null | undefined): string | undefined => {
    if (pass !== undefined) return pass
    if (typeof own !== "string") return undefined
    if (file.scorers.includes(own)) return own
    notes.push(`${file.file} was run with --pass ${own}, but its trials carry no ${own} score: judged by ${SHARED}`)
    return undefined
  }
  const a = ruleOf(base, recorded.base)
  const b = ruleOf(next, recorded.new)
  const texts = { base: a ?? SHARED, new: b ?? SHARED }
  return {
    base: a === undefined ? shared : [a],
    next: b === undefined ? shared : [b],
    text: texts.base === texts.new ? texts.base : undefined,
    texts,
    notes
  }
}

// pass@1 and flips under each file's rule (the scorers that must pass;
// undefined: a pass is a completed trial).
const passes = (
  paired: ReadonlyArray<string>,
  base: FileTally,
  next: FileTally,
  rules: { readonly base: ReadonlyArray<string>; readonly next: ReadonlyArray<string> } | undefined,
  unit: Unit
): { readonly passAt1: PassComparison; readonly flips: Comparison["flips"] } => {
  const baseMask = rules === undefined ? undefined : base.maskOf(rules.base)
  const nextMask = rules === undefined ? undefined : next.maskOf(rules.next)
  const change = new Paired(unit.path !== null)
  const passToFail: Array<string> = []
  const failToPass: Array<string> = []
  const discordant = new Discordant()
  for (const id of paired) {
    const x = base.passesOf(base.tasks.get(id)!, baseMask)
    const y = next.passesOf(next.tasks.get(id)!, nextMask)
    if (x.counted === 0 || y.counted === 0) continue
    discordant.add(x, y)
    change.add(x.passed / x.counted, y.passed / y.counted, unit.of(id))
    const before = x.passed === x.counted
    const after = y.passed === y.counted
    if (before && !after) passToFail.push(id)
    if (!before && after) failToPass.push(id)
  }
  const d = change.result()
  return {
    passAt1: {
      tasks: d.n,
      base: d.base_mean,
      new: d.new_mean,
      delta: d.delta,
      ci95: d.ci95,
      p_value: d.p_value,
      mcnemar_p: d.n === 0 ? null : discordant.mcnemar(),
      mde80: d.mde80,
      base_all: passAt1Of(base, baseMask),
      new_all: passAt1Of(next, nextMask)
    },
    flips: { pass_to_fail: sorted(passToFail), fail_to_pass: sorted(failToPass) }
  }
}

const passAt1Of = (file: FileTally, mask: number | undefined) => {
  let tasks = 0
  let sum = 0
  for (const task of file.tasks.values()) {
    const { counted, passed } = file.passesOf(task, mask)
    if (counted === 0) continue
    tasks++
    sum += passed / counted
  }
  return { tasks, pass_at_1: tasks === 0 ? null : sum / tasks }
}

const notesOf = (
  base: FileTally,
  next: FileTally,
  completion: boolean,
  scorers: ReadonlyArray<ScorerComparison>
): Array<string> => {
  const notes: Array<string> = []
  if (completion) {
    notes.push(
      "neither file carries scores: this compares completion (a completed trial 1, any other 0), not correctness; " +
        "score both files (agent-trials score) to compare answers"
    )
  } else {
    for (const file of [base, next]) {
      if (file.unscored > 0) {
        notes.push(`${file.file}: ${file.unscored} trials did not fail yet carry no score: left out of every scorer`)
      }
    }
  }
  for (const file of [base, next]) {
    if (file.invalid > 0) notes.push(`${file.file}: ${file.invalid} InvalidTask lines (bad dataset lines) left out`)
  }
  for (const s of scorers) {
    if (s.reason !== null) notes.push(`${s.name}: no verdict: ${s.reason}`)
  }
  return notes
}


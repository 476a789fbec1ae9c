/**
 * The comparison broken down by group (`metadata.groups`, one entry per
 * `run --group-by PATH`): per path and value, over the paired tasks whose
 * first trial in the base file has that value, the paired change of each
 * measure and of pass@1, on the comparison's unit (tasks, or clusters).
 * Per-group p-values are not corrected for the many groups and gate nothing.
 *
 * @internal
 */
import { type Comparison, type GroupComparison, type GroupPassComparison, GroupScorerComparison } from "../../report/compare/Model.ts"
import { Paired, type PairedChange, pick, type Unit, valueIn } from "./Paired.ts"
import type { FileTally } from "./Tally.ts"

/** The value shown for a task without one at a path. @internal */
export const MISSING = "(missing)"

const collator = new Intl.Collator("en", { numeric: true })

/** @internal */
export interface GroupsInput {
  readonly paired: ReadonlyArray<string>
  readonly base: FileTally
  readonly next: FileTally
  /** The scorers compared (or `completed`). */
  readonly measures: ReadonlyArray<string>
  readonly completion: boolean
  /** The scorers of each file's pass rule; undefined: a pass is a completed trial. */
  readonly rules: { readonly base: ReadonlyArray<string>; readonly next: ReadonlyArray<string> } | undefined
  readonly unit: Unit
}

/**
 * Per group path of the base file and per value, the group's comparison;
 * and the notes on tasks the two files group apart.
 *
 * @internal
 */
export const groupsOf = (input: GroupsInput): { readonly groups: Comparison["groups"]; readonly notes: Array<string> } => {
  const { base, next, paired } = input
  const groups: Record<string, Record<string, GroupComparison>> = {}
  const notes: Array<string> = []
  for (const path of base.groupPaths) {
    const members = new Map<string, Array<string>>()
    let moved = 0
    let absent = 0
    for (const id of paired) {
      const value = base.groupOf(base.tasks.get(id)!, path)
      if (value === undefined) absent++
      const label = value ?? MISSING
      let ids = members.get(label)
      if (ids === undefined) members.set(label, ids = [])
      ids.push(id)
      const there = next.groupOf(next.tasks.get(id)!, path)
      if (there !== undefined && (there ?? MISSING) !== label) moved++
    }
    const labels = [...members.keys()].sort((a, b) =>
      a === MISSING ? 1 : b === MISSING ? -1 : collator.compare(a, b)
    )
    const byValue: Record<string, GroupComparison> = {}
    for (const label of labels) byValue[label] = groupComparison(members.get(label)!, input)
    groups[path] = byValue
    if (absent > 0) {
      notes.push(
        `group by ${path}: ${absent} paired task${absent === 1 ? "'s" : "s'"} first trial in ${base.file} ` +
          `records no value for it (counted under ${MISSING})`
      )
    }
    if (moved > 0) {
      notes.push(
        `group by ${path}: ${moved} paired task${moved === 1 ? " is" : "s are"} in another group in ${next.file} ` +
          `than in ${base.file}: each is counted in its group in ${base.file} (its first trial there)`
      )
    }
  }
  const extra = next.groupPaths.filter((path) => !base.groupPaths.includes(path))
  if (extra.length > 0) {
    notes.push(
      `${next.file} groups by ${extra.join(", ")}, ${base.file} does not: a task's group is read from ${base.file}, ` +
        `so there is no breakdown by ${extra.length === 1 ? "it" : "them"}`
    )
  }
  return { groups, notes }
}

const groupComparison = (ids: ReadonlyArray<string>, input: GroupsInput): GroupComparison => {
  const { base, next, completion, unit } = input
  const scorers: Record<string, GroupScorerComparison> = {}
  for (const name of input.measures) {
    const change = new Paired(unit.path !== null)
    for (const id of ids) {
      const x = valueIn(base, id, name, completion)
      const y = valueIn(next, id, name, completion)
      if (x !== undefined && y !== undefined) change.add(x, y, unit.of(id))
    }
    scorers[name] = scorerOf(change.result())
  }
  const baseMask = input.rules === undefined ? undefined : base.maskOf(input.rules.base)
  const nextMask = input.rules === undefined ? undefined : next.maskOf(input.rules.next)
  const pass = new Paired(unit.path !== null)
  for (const id of ids) {
    const x = base.passesOf(base.tasks.get(id)!, baseMask)
    const y = next.passesOf(next.tasks.get(id)!, nextMask)
    if (x.counted > 0 && y.counted > 0) pass.add(x.passed / x.counted, y.passed / y.counted, unit.of(id))
  }
  return { tasks: ids.length, scorers, pass_at_1: passOf(pass.result()) }
}

const scorerOf = (d: PairedChange): GroupScorerComparison => pick(GroupScorerComparison.fields, d)

const passOf = (d: PairedChange): GroupPassComparison => ({
  tasks: d.n,
  base: d.base_mean,
  new: d.new_mean,
  delta: d.delta,
  standard_error: d.standard_error,
  ci95: d.ci95,
  p_value: d.p_value
})

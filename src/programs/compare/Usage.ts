/**
 * The change in what a trial spent, beside the scorers' changes: per paired
 * task its tokens per trial (agent and judges, `total_tokens`) and its cost
 * per trial (`cost_usd`), each the mean over the task's trials that report
 * it, paired as a scorer's values are (`Paired`, on the comparison's unit:
 * tasks, or the clusters both files name). Read from the tallies of the one
 * pass over each file (`CompareUsageTally`). Never judged: usage gates
 * nothing.
 *
 * @internal
 */
import { UsageChange, type UsageComparison } from "../../report/compare/Model.ts"
import { Paired, type PairedChange, pick, type Unit } from "./Paired.ts"
import type { FileTally } from "./Tally.ts"
import { COST, PRICED, TOKENS, TRIALS } from "./UsageTally.ts"

/**
 * The usage part of a comparison: undefined when neither file's trials
 * report usage; tokens null unless both do; cost null unless both are
 * priced.
 *
 * @internal
 */
export const usageOf = (input: {
  readonly paired: ReadonlyArray<string>
  readonly base: FileTally
  readonly next: FileTally
  readonly unit: Unit
}): UsageComparison | undefined => {
  const { base, next } = input
  if (base.usage.trials === 0 && next.usage.trials === 0) return undefined
  const tokens = base.usage.trials > 0 && next.usage.trials > 0 ? change(input, TRIALS, TOKENS) : null
  const cost = base.usage.priced > 0 && next.usage.priced > 0 ? change(input, PRICED, COST) : null
  return {
    base: { trials: base.usage.trials, priced_trials: base.usage.priced, ...cachedOf(base) },
    new: { trials: next.usage.trials, priced_trials: next.usage.priced, ...cachedOf(next) },
    tokens,
    cost_usd: cost
  }
}

// Said only when a file has hits (`run --cache`).
const cachedOf = (file: FileTally) => (file.usage.cached > 0 ? { cached_trials: file.usage.cached } : {})

// The paired change of sum / count over the paired tasks with a count in both files.
const change = (
  input: { readonly paired: ReadonlyArray<string>; readonly base: FileTally; readonly next: FileTally; readonly unit: Unit },
  count: number,
  sum: number
): UsageChange => {
  const { base, next, unit } = input
  const paired = new Paired(unit.path !== null)
  for (const id of input.paired) {
    const x = base.tasks.get(id)!.usage
    const y = next.tasks.get(id)!.usage
    // Empty sums: none of the task's trials reported usage.
    if (x.length === 0 || y.length === 0 || x[count] === 0 || y[count] === 0) continue
    paired.add(x[sum] / x[count], y[sum] / y[count], unit.of(id))
  }
  return changeOf(paired.result())
}

const changeOf = (d: PairedChange): UsageChange => pick(UsageChange.fields, d)

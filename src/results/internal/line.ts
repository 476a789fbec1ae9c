/**
 * A trial record as the line a results file holds: JSON that reads back as
 * the same `AgentEvalTrial`. The runner already refuses an agent's output
 * that JSON cannot write; this is the writer's last guard, for anything a
 * later stage added (a label, a score, a cost): a part that cannot be
 * written (a cycle, a BigInt, a `toJSON` that throws; a number the Schema
 * types, a cost or a score, that is not finite, which JSON would write as
 * `null` and `--resume` could not read back) is mended where it is
 * (`repair.ts`: the output and status kept, the part named); only what
 * cannot be mended (the output itself) makes the record a failed trial
 * naming the field. Never dropped, never written half.
 *
 * @internal
 */
import type { AgentEvalTrial, Trajectory, Usage } from "../../domain/Trial.ts"
import { describeUnwritable, writable } from "../../internal/writable.ts"
import { mend, type Problem } from "./repair.ts"

/**
 * The line for `trial` (without its newline), and the record it holds: the
 * trial itself, the trial with what cannot be written mended, or the failed
 * record that replaces one whose output JSON cannot write.
 *
 * **Example** (A cost that is not finite)
 *
 * ```ts
 * import * as Line from "./line.ts"
 *
 * const { trial } = Line.of({
 *   id: "t:trial", task_id: "t", status: "completed",
 *   output: { output_text: "x", usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, cost_usd: Infinity } },
 *   metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 }
 * })
 * trial.status // "completed": the cost dropped, metadata.unrecorded says why
 * ```
 *
 * @internal
 */
export const of = (trial: AgentEvalTrial): { readonly text: string; readonly trial: AgentEvalTrial } => {
  let current = trial
  // Each round mends one part a later stage added (a score, a cost, a label);
  // a record has a handful of them.
  for (let round = 0; round < 64; round++) {
    const checked = check(current)
    if (checked.problem === undefined) return { text: checked.text!, trial: current }
    const mended = mend(current, checked.problem)
    if (mended === undefined) {
      const replaced = unwritable(trial, `the trial's record cannot be written as JSON: ${describeUnwritable(checked.problem)}`)
      return { text: JSON.stringify(replaced), trial: replaced }
    }
    current = mended
  }
  const replaced = unwritable(trial, "the trial's record cannot be written as JSON: too many parts cannot be written")
  return { text: JSON.stringify(replaced), trial: replaced }
}

const check = (trial: AgentEvalTrial): { readonly text?: string; readonly problem?: Problem } => {
  let text: string | undefined
  try {
    text = JSON.stringify(trial)
  } catch {
    return { problem: walkProblem(trial) }
  }
  // JSON writes a number that is not finite as `null`: where the Schema
  // wants a number, that line would not read back.
  const problem = nonFinite(trial)
  return problem === undefined ? { text } : { problem }
}

// Why JSON.stringify threw, by the walk that names the field.
const walkProblem = (trial: AgentEvalTrial): { readonly at: string; readonly why: string } => {
  const checked = writable(trial, "record", (s) => s)
  return checked._tag === "Unwritable" ? checked : { at: "record", why: "cannot be written as JSON" }
}


// The first number a record's Schema types that is not finite: the latency,
// every usage's counts and cost, each score's value, each step's duration.
// Module-level functions, no closures: this runs for every line written.
const nonFinite = (trial: AgentEvalTrial): Problem | undefined => {
  const found = bad("record.metadata.latency_ms", trial.metadata?.latency_ms) ??
    usageProblem("record.output.usage", trial.output?.usage) ?? usageProblem("record.error.usage", trial.error?.usage) ??
    stepsProblem("record.output.trajectory", trial.output?.trajectory) ??
    stepsProblem("record.error.trajectory", trial.error?.trajectory)
  const { scores } = trial
  if (found !== undefined || scores === undefined) return found
  for (const name in scores) {
    const score = scores[name]!
    const inScore = bad(`record.scores.${name}.value`, score.value) ?? usageProblem(`record.scores.${name}.usage`, score.usage)
    if (inScore !== undefined) return inScore
  }
  return undefined
}

const bad = (at: string, n: unknown): Problem | undefined =>
  typeof n !== "number" || Number.isFinite(n) ? undefined : { at, why: `is ${n}, which JSON cannot hold (it would be written as null)` }

const usageProblem = (at: string, usage: Usage | undefined): Problem | undefined => {
  if (usage === undefined) return undefined
  for (const key in usage) {
    const n = usage[key as keyof Usage]
    if (typeof n === "number" && !Number.isFinite(n)) return bad(`${at}.${key}`, n)
  }
  return undefined
}

const stepsProblem = (at: string, steps: Trajectory | undefined): Problem | undefined => {
  if (steps === undefined) return undefined
  for (let i = 0; i < steps.length; i++) {
    const found = bad(`${at}[${i}].duration_ms`, steps[i]!.duration_ms) ?? usageProblem(`${at}[${i}].usage`, steps[i]!.usage)
    if (found !== undefined) return found
  }
  return undefined
}

const unwritable = (trial: AgentEvalTrial, message: string): AgentEvalTrial => {
  const { metadata } = trial
  const finite = (n: unknown) => typeof n === "number" && Number.isFinite(n) ? n : 0
  // Our runner always sets these; a record from elsewhere may not.
  const finished = typeof metadata?.finished_at === "string" ? metadata.finished_at : ""
  return {
    id: String(trial.id),
    task_id: String(trial.task_id),
    status: "failed",
    error: { type: "UnwritableRecord", message, occurred_at: finished },
    metadata: {
      started_at: typeof metadata?.started_at === "string" ? metadata.started_at : finished,
      finished_at: finished,
      latency_ms: finite(metadata?.latency_ms)
    }
  }
}

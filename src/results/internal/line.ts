/**
 * A trial record as the line a results file holds: JSON that reads back as
 * the same `AgentEvalTrial`. The runner already refuses an agent's output
 * that JSON cannot write; this is the writer's last guard, for anything a
 * later stage added (a label, a score, a cost): a record that cannot be
 * written (a cycle, a BigInt, a `toJSON` that throws, a number that is not
 * finite, which JSON would write as `null` and `--resume` could not read
 * back) is recorded as a failed trial naming the field, never dropped and
 * never written half.
 *
 * @internal
 */
import type { AgentEvalTrial } from "../../domain/Trial.ts"
import { describeUnwritable, writable } from "../../internal/writable.ts"

/**
 * The line for `trial` (without its newline), and the record it holds: the
 * trial itself, or the failed record that replaces one JSON cannot write.
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
 * trial.status // "failed": UnwritableRecord, record.output.usage.cost_usd is Infinity, ...
 * ```
 *
 * @internal
 */
export const of = (trial: AgentEvalTrial): { readonly text: string; readonly trial: AgentEvalTrial } => {
  let text: string | undefined
  try {
    text = JSON.stringify(trial)
  } catch {
    text = undefined
  }
  // A `null` may stand for a number that is not finite (or a function in an
  // array): only then is the record walked, so most lines cost one scan.
  if (text !== undefined && !text.includes("null")) return { text, trial }
  const checked = writable(trial, "record", (s) => s)
  if (checked._tag === "Writable") return { text: text ?? JSON.stringify(checked.value), trial }
  const replaced = unwritable(trial, `the trial's record cannot be written as JSON: ${describeUnwritable(checked)}`)
  return { text: JSON.stringify(replaced), trial: replaced }
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

/**
 * The summary's `trajectory` part, from a run's trajectory tally: steps and
 * tool calls per trial, the calls and tool errors of each tool, and, with a
 * simulated user, the conversations.
 * Re-exported by `Summary.ts`.
 *
 * @since 0.5.0
 */
import type { PerTrialCount, TrajectorySummary } from "./Model.ts"
import type { CountHistogram, TrajectoryTally } from "./TrajectoryTally.ts"

const perTrial = (h: CountHistogram): PerTrialCount => ({
  mean: Math.round((h.mean ?? 0) * 100) / 100,
  p50: h.quantile(0.5) ?? 0,
  p95: h.quantile(0.95) ?? 0,
  max: h.max
})

/**
 * The summary's `trajectory`: undefined when no trial recorded one.
 *
 * @category constructors
 * @since 0.5.0
 */
export const trajectorySummary = (tally: TrajectoryTally): TrajectorySummary | undefined => {
  if (tally.trials === 0) return undefined
  const tools = [...tally.byTool].sort(([a, x], [b, y]) => y.calls - x.calls || y.errors - x.errors || (a < b ? -1 : a > b ? 1 : 0))
  return {
    trials: tally.trials,
    steps: perTrial(tally.steps),
    tool_calls: { ...perTrial(tally.toolCalls), total: tally.toolCalls.sum, errors: tally.toolErrors },
    by_tool: tools.map(([name, counts]) => ({ name, calls: counts.calls, errors: counts.errors })),
    ...(tally.conversations === 0 ? undefined : {
      conversations: {
        trials: tally.conversations,
        user_messages: perTrial(tally.userMessages),
        ended_by_max_user_turns: tally.endedByMaxUserTurns
      }
    })
  }
}

/** Tools the text names at most; the JSON has them all. */
const SHOWN_TOOLS = 10

/**
 * The summary's trajectory lines.
 *
 * @category formatting
 * @since 0.5.0
 */
export const trajectoryLines = (t: TrajectorySummary): ReadonlyArray<string> => {
  const tool = (x: TrajectorySummary["by_tool"][number]) =>
    `${x.name === "" ? "(unnamed)" : x.name} ${x.calls}${x.errors === 0 ? "" : ` (${x.errors} error${x.errors === 1 ? "" : "s"})`}`
  const shown = t.by_tool.slice(0, SHOWN_TOOLS).map(tool)
  const more = t.by_tool.length - shown.length
  const c = t.tool_calls
  return [
    `  trajectories: ${t.trials} trial${t.trials === 1 ? "" : "s"}; steps per trial mean ${t.steps.mean}, p50 ${t.steps.p50}, ` +
    `p95 ${t.steps.p95}, max ${t.steps.max}; tool calls per trial mean ${c.mean}, p50 ${c.p50}, p95 ${c.p95}, max ${c.max}`,
    `  tool calls: ${c.total} (${c.errors} tool error${c.errors === 1 ? "" : "s"})` +
    (shown.length === 0 ? "" : `; by tool: ${shown.join(", ")}${more > 0 ? `, and ${more} more` : ""}`),
    ...conversationLines(t.conversations)
  ]
}

const conversationLines = (v: TrajectorySummary["conversations"]): ReadonlyArray<string> => {
  if (v === undefined) return []
  const m = v.user_messages
  return [
    `  conversations: ${v.trials} trial${v.trials === 1 ? "" : "s"}; user messages per trial mean ${m.mean}, p50 ${m.p50}, ` +
    `p95 ${m.p95}, max ${m.max}; ended by --max-user-turns: ${v.ended_by_max_user_turns}`
  ]
}

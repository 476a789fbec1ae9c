/**
 * The paths agents that act took, tallied in constant space as their trials
 * are recorded: trials with a trajectory, the histograms of steps (model
 * turns) and tool calls per trial, and the calls and tool errors of each
 * tool by name. Re-exported by `Summary.ts`.
 *
 * @since 0.5.0
 */
import * as Trajectories from "../domain/Trajectory.ts"
import type { AgentEvalTrial } from "../domain/Trial.ts"

/** Counts up to this are kept exactly; larger ones share the last bucket (their exact maximum is kept). */
const DENSE = 1024

/**
 * A histogram of whole counts (0, 1, 2, ...) in constant space: exact up to
 * 1,024, and the percentiles of larger counts reported as the largest seen.
 *
 * @category models
 * @since 0.5.0
 */
export class CountHistogram {
  readonly counts = new Float64Array(DENSE + 1)
  total = 0
  sum = 0
  max = 0

  record(n: number): void {
    this.counts[Math.min(n, DENSE)]++
    this.total++
    this.sum += n
    if (n > this.max) this.max = n
  }

  /** The q-quantile (0..1), the smallest count with at least q of the values at or below it; undefined when empty. */
  quantile(q: number): number | undefined {
    if (this.total === 0) return undefined
    const rank = Math.max(1, Math.ceil(q * this.total))
    let seen = 0
    for (let n = 0; n < DENSE; n++) {
      seen += this.counts[n]
      if (seen >= rank) return n
    }
    return this.max
  }

  get mean(): number | undefined {
    return this.total === 0 ? undefined : this.sum / this.total
  }
}

/**
 * One tool's figures: its calls, and the results of its calls that were
 * tool errors (`is_error`).
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolCounts {
  calls: number
  errors: number
}

/** Tools kept by name at most; the names met after them count together under `OTHER_TOOLS`. */
export const MAX_TOOLS = 1000

/** The name the tools beyond `MAX_TOOLS` are counted under. */
export const OTHER_TOOLS = "(other tools)"

/**
 * The tally of a run's records with trajectories (a completed trial's, or
 * the one a failed trial's error kept).
 *
 * @category models
 * @since 0.5.0
 */
export class TrajectoryTally {
  /** Trials with a trajectory. */
  trials = 0
  readonly steps = new CountHistogram()
  readonly toolCalls = new CountHistogram()
  readonly byTool = new Map<string, ToolCounts>()
  /** Tool results with `is_error` over all trials. */
  toolErrors = 0
  /** With a simulated user: the trials with a conversation, their user messages, and those `--max-user-turns` ended. */
  conversations = 0
  readonly userMessages = new CountHistogram()
  endedByMaxUserTurns = 0

  add(trial: AgentEvalTrial): void {
    const trajectory = Trajectories.ofTrial(trial)
    if (trajectory === undefined) return
    this.trials++
    let steps = 0
    let calls = 0
    let said = 0
    for (const step of trajectory) {
      if (step.type === "model") steps++
      else if (step.type === "user_message") said++
      else if (step.type === "tool_call") {
        calls++
        this.tool(step.name).calls++
      } else if (step.is_error === true) {
        this.toolErrors++
        this.tool(step.name).errors++
      }
    }
    this.steps.record(steps)
    this.toolCalls.record(calls)
    if (said > 0) {
      this.conversations++
      this.userMessages.record(said)
      const conversation = trial.output?.metadata?.["conversation"] as { readonly ended_by?: unknown } | undefined
      if (conversation?.ended_by === "max_user_turns") this.endedByMaxUserTurns++
    }
  }

  private tool(name: string | undefined): ToolCounts {
    const key = name ?? ""
    let counts = this.byTool.get(key)
    if (counts === undefined) {
      const kept = this.byTool.size < MAX_TOOLS ? key : OTHER_TOOLS
      counts = this.byTool.get(kept) ?? { calls: 0, errors: 0 }
      this.byTool.set(kept, counts)
    }
    return counts
  }
}

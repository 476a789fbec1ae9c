/**
 * A trial's record from its last attempt's exit: its timing and attempts,
 * its output or error, and what its failed attempts spent.
 *
 * @internal
 */
import type { Exit } from "effect"
import type { TrialContext } from "../../domain/Agent.ts"
import type { AgentEvalTask, AgentEvalTrial, AgentOutput, Usage } from "../../domain/Trial.ts"
import * as Usages from "../../domain/Usage.ts"
import { isoTime } from "./clock.ts"
import { tokenLimit, toTrialError } from "./failure.ts"
import { recordableError } from "./recordable.ts"
import type { Secrets } from "../Redactor.ts"

/** What of a trial's run its record is made from. @internal */
export interface Attempts {
  readonly context: TrialContext
  readonly task: AgentEvalTask
  readonly firstStartedMs: number
  readonly attempt: number
  readonly delays: ReadonlyArray<number> | undefined
  readonly spent: Usage | undefined
  /** Of `delays`, how many were rate limits' `Retry-After` waits (no retry used up), and their sum. */
  readonly rateLimitWaits: number
  readonly rateLimitWaitedMs: number
  /** The run's: what its failure's message and steps lose. */
  readonly config: { readonly redactor: Secrets }
}

/** @internal */
export const toTrial = (
  run: Attempts,
  exit: Exit.Exit<AgentOutput, unknown>,
  durationMs: number,
  finishedMs: number,
  overLimit: number | undefined
): AgentEvalTrial => {
  const { context, task } = run
  const finishedAt = isoTime(finishedMs)
  const startedAt = isoTime(run.firstStartedMs)
  const { delays } = run
  // The common shape as one literal (no spreads on the hot path); keys in
  // the same order either way, so records read the same.
  const metadata: AgentEvalTrial["metadata"] = context.epoch === undefined && delays === undefined
    ? { started_at: startedAt, finished_at: finishedAt, latency_ms: durationMs, attempts: run.attempt }
    : {
      started_at: startedAt,
      finished_at: finishedAt,
      latency_ms: durationMs,
      ...(context.epoch === undefined ? undefined : { epoch: context.epoch }),
      attempts: run.attempt,
      ...(delays === undefined ? undefined : { retry_delays_ms: delays }),
      ...(run.rateLimitWaits === 0
        ? undefined
        : { rate_limit_waits: run.rateLimitWaits, rate_limit_wait_ms: run.rateLimitWaitedMs })
    }
  const { spent } = run
  if (exit._tag === "Failure") {
    // Failed attempts that spent past the limit end the trial as over it.
    const error = overLimit === undefined
      ? recordableError(toTrialError(exit.cause, finishedAt), run.config.redactor)
      : tokenLimit(spent, overLimit, finishedAt)
    return {
      id: context.id,
      task_id: task.id,
      status: "failed",
      error: spent === undefined ? error : { ...error, usage: spent },
      metadata
    }
  }
  // The usage of the attempts before this one counts too.
  const output = spent === undefined
    ? exit.value
    : { ...exit.value, usage: exit.value.usage === undefined ? spent : Usages.add(spent, exit.value.usage) }
  if (overLimit === undefined) return { id: context.id, task_id: task.id, status: "completed", output, metadata }
  // Over the limit: failed, its output (which carries what it spent) kept.
  const { usage: _, ...error } = tokenLimit(output.usage, overLimit, finishedAt)
  return { id: context.id, task_id: task.id, status: "failed", output, error, metadata }
}

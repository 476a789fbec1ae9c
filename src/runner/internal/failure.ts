/**
 * How a call's failure is classified: the timeout that bounds a call and the
 * error it fails with, the first typed failure of a cause (what the retry
 * and the adaptive limit judge), and the `TrialError` a failed trial records.
 *
 * @internal
 */
import { Cause, Clock, Duration, Effect } from "effect"
import { describe } from "../../domain/internal/agent.ts"
import type { TrialError, Usage } from "../../domain/Trial.ts"
import * as Trajectories from "../../domain/Trajectory.ts"
import * as Policy from "../Policy.ts"

/**
 * Bounds one attempt by `timeoutMs`; the `Timeout` keeps the steps and usage
 * an agent reported through `Trajectory.CurrentProgress` (a fresh one per
 * attempt) up to then.
 *
 * @internal
 */
export const withTimeout = <A, E, R>(self: Effect.Effect<A, E, R>, timeoutMs: number) =>
  Effect.suspend(() => {
    const progress: Trajectories.Progress = { current: undefined, usage: undefined }
    return Effect.timeoutOrElse(Effect.provideService(self, Trajectories.CurrentProgress, progress), {
      duration: timeoutMs,
      orElse: () =>
        Effect.flatMap(Clock.currentTimeMillis, (nowMs) => {
          const current = progress.current?.(nowMs)
          const within = `the agent call did not finish within ${Duration.format(Duration.millis(timeoutMs))}`
          return Effect.fail(
            new Policy.Timeout({
              message: current?.doing === undefined ? within : `${within} (${current.doing})`,
              timeout_ms: timeoutMs,
              ...(current === undefined || current.steps.length === 0 ? undefined : { trajectory: [...current.steps] }),
              ...(progress.usage === undefined ? undefined : { usage: progress.usage })
            })
          )
        })
    })
  })

export const firstError = (cause: Cause.Cause<unknown>): { readonly value: unknown } | undefined => {
  const reason = cause.reasons[0]
  return reason !== undefined && Cause.isFailReason(reason) ? { value: reason.error } : undefined
}

/**
 * The first failure of a cause as a `TrialError`: a tagged error's `_tag`, an
 * Error's `name`, or `Defect` / `Interrupted`.
 *
 * @internal
 */
export const toTrialError = (cause: Cause.Cause<unknown>, occurredAt: string): TrialError => {
  const reason = cause.reasons[0]
  if (reason === undefined) return { type: "Unknown", message: "empty cause", occurred_at: occurredAt }
  if (Cause.isInterruptReason(reason)) {
    return { type: "Interrupted", message: "the agent call was interrupted", occurred_at: occurredAt }
  }
  const error = Cause.isFailReason(reason) ? reason.error : reason.defect
  const type = errorType(error, Cause.isFailReason(reason))
  // A loop that failed (`MaxTurns`) keeps the steps it took; an output that
  // failed the schema elsewhere keeps its text.
  const trajectory = Trajectories.ofError(error)
  const text = outputTextOf(error)
  return {
    type,
    message: describe(error),
    occurred_at: occurredAt,
    ...(trajectory === undefined ? undefined : { trajectory }),
    ...(text === undefined ? undefined : { output_text: text })
  }
}

const outputTextOf = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null || (error as { readonly _tag?: unknown })._tag !== "InvalidAgentOutput") {
    return undefined
  }
  const text = (error as { readonly output_text?: unknown }).output_text
  return typeof text === "string" ? text : undefined
}

const errorType = (error: unknown, typed: boolean): string => {
  if (typeof error === "object" && error !== null) {
    const tag = (error as { readonly _tag?: unknown })._tag
    if (typeof tag === "string" && tag.length > 0) return tag
    if (error instanceof Error) return error.name
  }
  return typed ? "AgentError" : "Defect"
}

/**
 * The error of a trial that spent more than `--trial-max-tokens`.
 *
 * @internal
 */
export const tokenLimit = (usage: Usage | undefined, limit: number, occurredAt: string): TrialError => ({
  type: "TokenLimit",
  message: `the trial used ${usage?.total_tokens ?? 0} tokens, more than the limit of ${limit} tokens per trial`,
  occurred_at: occurredAt,
  ...(usage === undefined ? undefined : { usage })
})

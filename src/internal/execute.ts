/**
 * One trial: take an active-call permit, call the agent, turn whatever happens
 * into an `AgentEvalTrial`. Shared by the bounded and the eager runner so the
 * two differ only in how they admit work.
 *
 * @internal
 */
import { Cause, Clock, Effect, Exit, type Semaphore } from "effect"
import type { Agent, TrialContext } from "../Agent.ts"
import { describe } from "../Agent.ts"
import type { Probe } from "../Probe.ts"
import type { AgentEvalTask, AgentEvalTrial, AgentOutput, TrialError } from "../Trial.ts"
import { trialId } from "../Trial.ts"

/** @internal */
export interface ExecuteConfig {
  readonly semaphore: Semaphore.Semaphore
  readonly probe: Probe
}

/**
 * Never fails: agent failures and defects become a `failed` trial. The
 * outstanding unit spans the wait for a permit and the call; the active call
 * spans only the call itself.
 *
 * @internal
 */
export const executeTrial = <AE, AR>(
  task: AgentEvalTask,
  epoch: number | undefined,
  agent: Agent<AE, AR>,
  config: ExecuteConfig
): Effect.Effect<AgentEvalTrial, never, AR> => {
  const { probe, semaphore } = config
  return Effect.suspend(() => {
    probe.unitStarted()
    const id = trialId(task.id, epoch)
    let failed = true
    return Effect.clockWith((clock) =>
      semaphore.withPermit(
        Effect.suspend(() => {
          const startedMs = clock.currentTimeMillisUnsafe()
          const startedNs = clock.currentTimeNanosUnsafe()
          probe.callStarted()
          return callAgent(agent, task, { id, epoch }).pipe(
            Effect.ensuring(Effect.sync(() => probe.callEnded())),
            Effect.exit,
            Effect.map((exit) => {
              const trial = toTrial(task, id, epoch, exit, startedMs, startedNs, clock)
              failed = trial.status === "failed"
              return trial
            })
          )
        })
      )
    ).pipe(Effect.ensuring(Effect.sync(() => probe.unitEnded(failed))))
  })
}

// A callable that throws before returning an Effect must fail its trial, not
// the fiber that drives the stream (a concurrent Stream.mapEffect is reported
// to hang on that), so the call happens inside a suspend with its own catch.
const callAgent = <AE, AR>(
  agent: Agent<AE, AR>,
  task: AgentEvalTask,
  trial: TrialContext
): Effect.Effect<AgentOutput, AE, AR> =>
  Effect.suspend(() => {
    try {
      return agent(task, trial)
    } catch (defect) {
      return Effect.die(defect)
    }
  })

const toTrial = (
  task: AgentEvalTask,
  id: string,
  epoch: number | undefined,
  exit: Exit.Exit<AgentOutput, unknown>,
  startedMs: number,
  startedNs: bigint,
  clock: Clock.Clock
): AgentEvalTrial => {
  const finishedMs = clock.currentTimeMillisUnsafe()
  const metadata: AgentEvalTrial["metadata"] = {
    started_at: new Date(startedMs).toISOString(),
    finished_at: new Date(finishedMs).toISOString(),
    latency_ms: Number(clock.currentTimeNanosUnsafe() - startedNs) / 1e6,
    ...(epoch === undefined ? undefined : { epoch })
  }
  return Exit.isSuccess(exit)
    ? { id, task_id: task.id, status: "completed", output: exit.value, metadata }
    : { id, task_id: task.id, status: "failed", error: toTrialError(exit.cause, metadata.finished_at), metadata }
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
  return { type: errorType(error, Cause.isFailReason(reason)), message: describe(error), occurred_at: occurredAt }
}

const errorType = (error: unknown, typed: boolean): string => {
  if (typeof error === "object" && error !== null) {
    const tag = (error as { readonly _tag?: unknown })._tag
    if (typeof tag === "string" && tag.length > 0) return tag
    if (error instanceof Error) return error.name
  }
  return typed ? "AgentError" : "Defect"
}

/**
 * One trial: for each attempt take an active-call permit (and a rate slot),
 * call the agent under the timeout, and turn whatever happens into an
 * `AgentEvalTrial`. Shared by the bounded and the eager runner so the two
 * differ only in how they admit work.
 *
 * @internal
 */
import { Cause, type Clock, Duration, Effect, Exit, type Semaphore } from "effect"
import type { Agent, TrialContext } from "../Agent.ts"
import { describe } from "../Agent.ts"
import * as Policy from "../Policy.ts"
import type { Probe } from "../Probe.ts"
import type { AgentEvalTask, AgentEvalTrial, AgentOutput, TrialError } from "../Trial.ts"
import { trialId } from "../Trial.ts"

/** @internal */
export interface ExecuteConfig {
  readonly semaphore: Semaphore.Semaphore
  readonly probe: Probe
  readonly timeoutMs?: number | undefined
  readonly retry?: Policy.RetryPolicy | undefined
  readonly rate?: Policy.RateLimiter | undefined
  readonly adaptive?: Policy.AdaptiveLimit | undefined
}

interface Attempted {
  readonly exit: Exit.Exit<AgentOutput, unknown>
  readonly startedMs: number
  readonly durationMs: number
}

/**
 * Never fails: agent failures and defects become a `failed` trial. The
 * outstanding unit spans every attempt and every backoff wait; an active call
 * (and its permit) spans only one attempt, so a trial waiting to retry keeps
 * its place without holding a permit.
 *
 * @internal
 */
export const executeTrial = <AE, AR>(
  task: AgentEvalTask,
  epoch: number | undefined,
  agent: Agent<AE, AR>,
  config: ExecuteConfig
): Effect.Effect<AgentEvalTrial, never, AR> =>
  Effect.suspend(() => {
    const { probe } = config
    probe.unitStarted()
    const context: TrialContext = { id: trialId(task.id, epoch), epoch }
    let failed = true
    return Effect.clockWith((clock) => {
      const firstStartedMs = clock.currentTimeMillisUnsafe()
      const delays: Array<number> = []
      const loop = (attempt: number): Effect.Effect<AgentEvalTrial, never, AR> =>
        Effect.flatMap(attemptOnce(task, context, agent, config, clock), (result) => {
          const error = Exit.isFailure(result.exit) ? firstError(result.exit.cause) : undefined
          const retry = config.retry
          if (
            error === undefined || retry === undefined || attempt > retry.retries || !Policy.isRetryable(error.value)
          ) {
            const trial = toTrial(task, context, result, firstStartedMs, attempt, delays, clock)
            failed = trial.status === "failed"
            return Effect.succeed(trial)
          }
          return Effect.flatMap(Policy.jitter, (j) => {
            const delay = Policy.retryDelayMs(retry, attempt, error.value, j)
            delays.push(delay)
            probe.retries++
            return Effect.andThen(Effect.sleep(delay), loop(attempt + 1))
          })
        })
      return loop(1)
    }).pipe(Effect.ensuring(Effect.sync(() => probe.unitEnded(failed))))
  })

const attemptOnce = <AE, AR>(
  task: AgentEvalTask,
  context: TrialContext,
  agent: Agent<AE, AR>,
  config: ExecuteConfig,
  clock: Clock.Clock
): Effect.Effect<Attempted, never, AR> => {
  const { probe, rate, adaptive } = config
  const call = Effect.suspend(() => {
    const startedMs = clock.currentTimeMillisUnsafe()
    const startedNs = clock.currentTimeNanosUnsafe()
    const ticket = adaptive?.start() ?? 0
    probe.callStarted()
    return withTimeout(callAgent(agent, task, context), config.timeoutMs).pipe(
      Effect.ensuring(Effect.sync(() => probe.callEnded())),
      Effect.exit,
      Effect.tap((exit) =>
        adaptive === undefined
          ? Effect.void
          : adaptive.onOutcome(ticket, Exit.isFailure(exit) && Policy.isThrottled(firstError(exit.cause)?.value))
      ),
      Effect.map((exit): Attempted => ({
        exit,
        startedMs,
        durationMs: Number(clock.currentTimeNanosUnsafe() - startedNs) / 1e6
      }))
    )
  })
  return config.semaphore.withPermit(rate === undefined ? call : Effect.andThen(rate.acquire, call))
}

const withTimeout = <A, E, R>(self: Effect.Effect<A, E, R>, timeoutMs: number | undefined) =>
  timeoutMs === undefined ? self : Effect.timeoutOrElse(self, {
    duration: timeoutMs,
    orElse: () =>
      Effect.fail(
        new Policy.Timeout({
          message: `the agent call did not finish within ${Duration.format(Duration.millis(timeoutMs))}`,
          timeout_ms: timeoutMs
        })
      )
  })

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

const firstError = (cause: Cause.Cause<unknown>): { readonly value: unknown } | undefined => {
  const reason = cause.reasons[0]
  return reason !== undefined && Cause.isFailReason(reason) ? { value: reason.error } : undefined
}

const toTrial = (
  task: AgentEvalTask,
  context: TrialContext,
  last: Attempted,
  firstStartedMs: number,
  attempts: number,
  delays: ReadonlyArray<number>,
  clock: Clock.Clock
): AgentEvalTrial => {
  const finishedAt = new Date(clock.currentTimeMillisUnsafe()).toISOString()
  const metadata: AgentEvalTrial["metadata"] = {
    started_at: new Date(firstStartedMs).toISOString(),
    finished_at: finishedAt,
    latency_ms: last.durationMs,
    ...(context.epoch === undefined ? undefined : { epoch: context.epoch }),
    attempts,
    ...(delays.length === 0 ? undefined : { retry_delays_ms: delays })
  }
  const exit = last.exit
  return Exit.isSuccess(exit)
    ? { id: context.id, task_id: task.id, status: "completed", output: exit.value, metadata }
    : { id: context.id, task_id: task.id, status: "failed", error: toTrialError(exit.cause, finishedAt), metadata }
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

/**
 * One trial: for each attempt take an active-call permit (and a rate slot),
 * call the agent under the timeout, and turn whatever happens into an
 * `AgentEvalTrial`. Shared by the bounded and the eager runner so the two
 * differ only in how they admit work. Spans and metric counts come from the
 * run's config (`telemetry.ts`): a run without a tracer pays a few field
 * checks and increments per trial.
 *
 * @internal
 */
import { Effect } from "effect"
import type { Agent } from "../../domain/Agent.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../../domain/Trial.ts"
import { type ExecuteConfig, TrialRun } from "./trialRun.ts"

export type { ExecuteConfig } from "./trialRun.ts"

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
): Effect.Effect<AgentEvalTrial, never, AR> => Effect.suspend(() => startTrial(task, epoch, agent, config))

/**
 * `executeTrial` without its `Effect.suspend`: the trial is admitted (counted
 * as outstanding) when this is called, so call it only where the effect is
 * built by the fiber that runs it, once. `Stream.mapEffect` calls its
 * function that way (inside the trial's own fiber), so the bounded runner
 * spares a suspension per trial.
 *
 * @internal
 */
export const startTrial = <AE, AR>(
  task: AgentEvalTask,
  epoch: number | undefined,
  agent: Agent<AE, AR>,
  config: ExecuteConfig
): Effect.Effect<AgentEvalTrial, never, AR> => {
  const trial = new TrialRun(task, epoch, agent, config)
  // The run's clock when it has one (read once, where the run starts):
  // the same clock its trial fibers would read, without a lookup per trial.
  // `onExitPrimitive`: the counts are settled in place and no finalizer
  // effect is run (the stable low-level form of `onExit`). Its third
  // argument (no uninterruptible region) stays off: an interrupted fiber
  // unwinds past every continuation met while it is still interruptible
  // (`exitFailCause`), so with it an interrupted trial's counts were left
  // unsettled (the gate, failure and policy tests catch it).
  const run = Effect.onExitPrimitive(
    config.clock === undefined ? Effect.clockWith((clock) => trial.start(clock)) : trial.start(config.clock),
    trial.end
  )
  return config.traced === undefined ? run : trial.traced(run)
}

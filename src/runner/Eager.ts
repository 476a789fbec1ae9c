/**
 * A faithful port of the buggy shape, kept for the reproduction and the tests:
 * the whole input is read, then one fiber per trial is forked at once
 * (`asyncio.gather` over `create_task`), and a Semaphore of `parallelism`
 * guards only the agent call. Active calls stay bounded; admitted work does not.
 *
 * Do not use it to run evaluations. In effect 4.1.0 the many-waiters semaphore
 * also makes it quadratic (about 14 s at 40,000 trials).
 *
 * @since 0.1.0
 */
import { Effect, Semaphore, Stream } from "effect"
import type { Agent } from "../domain/Agent.ts"
import { checkParallelism, type InvalidParallelism } from "../domain/Errors.ts"
import { executeTrial } from "./internal/execute.ts"
import * as Probe from "./internal/probe.ts"
import { Starvation } from "./internal/starvation.ts"
import * as Redactor from "./Redactor.ts"
import type { RunOptions } from "./Runner.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"

/**
 * Same signature as `runTrials`; emits trials in input order once all are done.
 *
 * @category runners
 * @since 0.1.0
 */
export const runTrialsEager = <E, R, AE, AR>(
  tasks: Stream.Stream<AgentEvalTask, E, R>,
  agent: Agent<AE, AR>,
  options: RunOptions
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism, R | AR> =>
  Stream.unwrap(Effect.gen(function*() {
    const invalid = checkParallelism(options.parallelism)
    if (invalid) return yield* invalid
    const probe = Probe.toMutable(options.probe)
    const semaphore = yield* Semaphore.make(options.parallelism)
    const all = yield* Stream.runCollect(tasks)
    const starvation = new Starvation()
    const redactor = yield* Redactor.currentOrNew
    const trials = yield* Effect.forEach(
      all,
      (task) => executeTrial(task, undefined, agent, { semaphore, probe, starvation, redactor }),
      { concurrency: "unbounded" }
    ).pipe(Probe.trackFibers(probe), Effect.provideService(Redactor.Redactor, redactor))
    return Stream.fromIterable(trials)
  }))

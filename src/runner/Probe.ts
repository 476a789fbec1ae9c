/**
 * The counts the runner's guarantees speak of, as first-class values: tests,
 * the reproduction script, the CLI summary and the benchmark all read the same
 * probe.
 *
 * - `active`: agent calls in flight (inside the semaphore).
 * - `outstanding`: per-trial units started and not finished. In the bounded
 *   runner a unit starts when `Stream.mapEffect` admits a task; in the eager
 *   runner, when its fiber is forked.
 * - `liveFibers`: fibers forked under the run and not yet ended, counted through
 *   `Metric.FiberRuntimeMetrics` (Effect 4 has no Supervisor).
 *
 * A probe is read-only to its users: the runner that is given one keeps its
 * counts, and `snapshot()` copies them at one instant.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { MutableProbe, type TypeId } from "./internal/probe.ts"

/**
 * A run's counts, read live: each field is the current value. Pass one to
 * `Runner.runTrials` (`options.probe`) to read it during and after the run;
 * `Runner.Runner` has one for the life of its layer.
 *
 * **Example** (Reading the peaks of a run)
 *
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Agent, Probe, Runner } from "agent-trials"
 *
 * const program = Effect.gen(function*() {
 *   const probe = yield* Probe.make
 *   const tasks = Stream.range(1, 100).pipe(Stream.map((i) => ({ id: `t${i}`, inputs: { i } })))
 *   const agent = Agent.fromPromise(async (task) => `echo ${task.id}`)
 *   yield* Stream.runDrain(Runner.runTrials(tasks, agent, { parallelism: 8, probe }))
 *   const { peakActive, peakOutstanding, completed } = probe.snapshot()
 *   return { peakActive, peakOutstanding, completed } // peaks at most 8, completed 100
 * })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Probe extends ProbeSnapshot {
  readonly [TypeId]: typeof TypeId
  /** The counts at this instant, as a plain object that does not change afterwards. */
  snapshot(): ProbeSnapshot
}

/**
 * A point-in-time copy of a probe's counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProbeSnapshot {
  /** Agent calls in flight. */
  readonly active: number
  readonly peakActive: number
  /** Per-trial units started and not finished. */
  readonly outstanding: number
  readonly peakOutstanding: number
  /** Fibers forked under the run and not yet ended. */
  readonly liveFibers: number
  readonly peakLiveFibers: number
  /** Agent calls started (every attempt counts). */
  readonly started: number
  /** Units that finished with a trial (completed or failed). */
  readonly completed: number
  /** Of those, the failed trials. */
  readonly failed: number
  /** Units interrupted before they finished (a stop, a failure budget): no trial. */
  readonly interrupted: number
  /** Attempts after the first, over all trials. */
  readonly retries: number
  /** The concurrency limit in force (it moves only with `adaptive`), and its range. */
  readonly limit: number
  readonly lowestLimit: number
  readonly highestLimit: number
}

/**
 * A fresh probe, all counts 0.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<Probe> = Effect.sync(() => new MutableProbe())

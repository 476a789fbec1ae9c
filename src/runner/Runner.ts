/**
 * The bounded trial runner.
 *
 * Trials form an Effect `Stream`, processed by
 * `Stream.mapEffect(trial, { concurrency: parallelism })` under a Semaphore of
 * `parallelism` permits. `Stream.mapEffect` forks a fiber per trial only when a
 * slot is free and pulls the next task only then, so per-trial work in flight
 * stays bounded by `parallelism` however long the input is, and the input is
 * read lazily.
 *
 * Order: by default trials are emitted as they finish (`ordered: false`), so one
 * slow trial never holds back the others. `ordered: true` emits in input order;
 * it keeps at most `parallelism` trials in flight too, but a slow head trial
 * stalls admission behind it (head-of-line blocking).
 *
 * @since 0.1.0
 */
import { Effect, Semaphore, Stream } from "effect"
import type { Agent } from "../domain/Agent.ts"
import { checkEpochs, checkParallelism, InvalidParallelism, InvalidTask } from "../domain/Errors.ts"
import {
  bounded,
  type BoundedConfig,
  policyConfig,
  type PolicyOptions,
  stopOnFailures,
  unwrapAtStart,
  withRunSpan,
  withTelemetry
} from "./internal/bounded.ts"
import { Runner as RunnerService } from "./RunnerService.ts"
import { startTrial } from "./internal/execute.ts"
import { toMutable } from "./internal/probe.ts"
import type { MaxFailuresExceeded } from "./Policy.ts"
import type * as Probe from "./Probe.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"

export type { PolicyOptions } from "./internal/bounded.ts"

/**
 * Options of a run.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunOptions extends PolicyOptions {
  /** Upper bound on agent calls in flight and on per-trial units started and not finished. */
  readonly parallelism: number
  /** Emit trials in input order (head-of-line blocking) instead of as they finish. Default false. */
  readonly ordered?: boolean | undefined
  /** Where the run's counts go; a fresh probe when omitted. */
  readonly probe?: Probe.Probe | undefined
  /**
   * Trials per task. When set, task `t` gives trials `t:1` ... `t:K` (adjacent
   * in admission order); when omitted, one trial `t:trial`.
   */
  readonly epochs?: number | undefined
}

/**
 * The fibers a run keeps besides one per admitted trial: `Stream.mapEffect`'s
 * loop that pulls the next task when a slot frees (unordered), plus, in
 * ordered mode, the fiber that hands results on in input order. With a
 * `timeout`, each active call also runs in a race of two fibers.
 *
 * @category constants
 * @since 0.1.0
 */
export const helperFibers = (ordered: boolean): number => (ordered ? 2 : 1)

/**
 * One unit of work: a task, and which of its epochs this trial is.
 *
 * @category models
 * @since 0.1.0
 */
export interface TrialUnit {
  readonly task: AgentEvalTask
  readonly epoch?: number | undefined
  /**
   * Set for a bad dataset row's stand-in task (`--on-invalid skip`): its
   * trial fails with `InvalidTask` and this message, the agent not called.
   */
  readonly invalid?: string | undefined
}

/**
 * A finished trial with the unit it was run for: what the stages after the
 * runner (scoring, labels) read the task from.
 *
 * @category models
 * @since 0.3.0
 */
export interface Paired {
  readonly unit: TrialUnit
  readonly trial: AgentEvalTrial
}

/**
 * Runs every task through `agent`, at most `parallelism` at a time, and emits
 * one `AgentEvalTrial` per task. Agent failures become `failed` trials; the
 * stream fails only with the source's error `E`, or `InvalidParallelism`
 * before any agent call.
 *
 * **Example** (A thousand tasks, at most 8 agent calls at a time)
 *
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Agent, Runner } from "agent-trials"
 *
 * const agent = Agent.fromPromise(async (task) => `echo ${task.id}`)
 * const tasks = Stream.range(1, 1000).pipe(Stream.map((i) => ({ id: `task-${i}`, inputs: { i } })))
 *
 * const program = Effect.gen(function*() {
 *   const trials = yield* Stream.runCollect(Runner.runTrials(tasks, agent, { parallelism: 8 }))
 *   return trials.filter((trial) => trial.status === "completed").length // 1000
 * })
 * ```
 *
 * @category runners
 * @since 0.1.0
 */
export const runTrials = <E, R, AE, AR>(
  tasks: Stream.Stream<AgentEvalTask, E, R>,
  agent: Agent<AE, AR>,
  options: RunOptions
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism | MaxFailuresExceeded, R | AR> => {
  const epochs = options.epochs
  if (epochs === undefined) {
    return withRunConfig(options, (config) => bounded(tasks, (task) => startTrial(task, undefined, agent, config), config))
  }
  return runUnits(Stream.mapArray(tasks, (chunk) => expandEpochs(chunk, epochs)), agent, options)
}

/**
 * Like `runTrials`, over explicit units (a task and an epoch): what a resumed
 * run feeds once it has dropped the units already recorded.
 *
 * @category runners
 * @since 0.1.0
 */
export const runUnits = <E, R, AE, AR>(
  units: Stream.Stream<TrialUnit, E, R>,
  agent: Agent<AE, AR>,
  options: Omit<RunOptions, "epochs">
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism | MaxFailuresExceeded, R | AR> =>
  withRunConfig(options, (config) => bounded(units, (unit) => startUnit(unit, agent, config), config))

/**
 * Like `runUnits`, each trial emitted with its unit, so the task travels on
 * with its trial (to the scorers, into the record's labels) without a table
 * to look it up again.
 *
 * @category runners
 * @since 0.3.0
 */
export const runPaired = <E, R, AE, AR>(
  units: Stream.Stream<TrialUnit, E, R>,
  agent: Agent<AE, AR>,
  options: Omit<RunOptions, "epochs"> & {
    /**
     * Run in the trial's fiber when it is admitted, before its first call:
     * the trial's workspace (`--workspace`), which its agent gets in its
     * context. A failure fails that trial with it, the agent not called.
     */
    readonly admit?: ((unit: TrialUnit) => Effect.Effect<string, unknown>) | undefined
  }
): Stream.Stream<Paired, E | InvalidParallelism | MaxFailuresExceeded, R | AR> =>
  withRunConfig(
    options,
    (config) => {
      const admit = options.admit
      const start = (unit: TrialUnit) =>
        admit === undefined || unit.invalid !== undefined
          ? startUnit(unit, agent, config)
          : Effect.matchEffect(admit(unit), {
            onFailure: (error) => startTrial(unit.task, unit.epoch, failing(error), config),
            onSuccess: (workspace) => startTrial(unit.task, unit.epoch, inWorkspace(agent, workspace), config)
          })
      return bounded(units, (unit) => Effect.map(start(unit), (trial): Paired => ({ unit, trial })), config)
    },
    (paired) => paired.trial
  )

const failing = (error: unknown): Agent<unknown> => () => Effect.fail(error)

const inWorkspace = <AE, AR>(agent: Agent<AE, AR>, workspace: string): Agent<AE, AR> => (task, trial) =>
  agent(task, trial === undefined ? { id: task.id, epoch: undefined, workspace } : { ...trial, workspace })

/**
 * A unit of one cell of a matrix run: `cell` is the index of its cell.
 *
 * @category models
 * @since 0.8.0
 */
export interface CellUnit extends TrialUnit {
  readonly cell: number
}

/**
 * One cell of `runCells`: its agent and its own failure handling per call
 * (`timeout`, `retry`, `trialMaxTokens`); the run's bound, rate limit,
 * adaptive limit and failure budget are shared by every cell.
 *
 * @category models
 * @since 0.8.0
 */
export interface CellAgent<AE, AR> {
  readonly agent: Agent<AE, AR>
  readonly policy: Pick<PolicyOptions, "timeout" | "retry" | "trialMaxTokens">
}

/**
 * Like `runPaired`, over the units of several cells in one bounded run: each
 * unit is run by its cell's agent under its cell's policy (`cells[unit.cell]`),
 * while one Semaphore of `parallelism` permits and one probe bound and count
 * the calls and outstanding trials of every cell together.
 *
 * **Example** (Two agents, one bound)
 *
 * ```ts
 * import { Stream } from "effect"
 * import { Agent, Runner } from "agent-trials"
 *
 * const a = Agent.fromPromise(async () => "a")
 * const b = Agent.fromPromise(async () => "b")
 * const units = Stream.make({ task: { id: "t1", inputs: {} }, cell: 0 }, { task: { id: "t1", inputs: {} }, cell: 1 })
 * const trials = Runner.runCells(units, [{ agent: a, policy: {} }, { agent: b, policy: {} }], { parallelism: 4 })
 * ```
 *
 * @category runners
 * @since 0.8.0
 */
export const runCells = <U extends CellUnit, E, R, AE, AR>(
  units: Stream.Stream<U, E, R>,
  cells: ReadonlyArray<CellAgent<AE, AR>>,
  options: Omit<RunOptions, "epochs" | "timeout" | "retry" | "trialMaxTokens"> & {
    /** Told of each unit as its trial is admitted (counted outstanding), in the trial's fiber. */
    readonly onStart?: ((unit: U) => void) | undefined
  }
): Stream.Stream<{ readonly unit: U; readonly trial: AgentEvalTrial }, E | InvalidParallelism | MaxFailuresExceeded, R | AR> =>
  withRunConfig(
    options,
    (config) => {
      const configs = cells.map((cell): BoundedConfig => ({
        ...config,
        ...policyConfig({ ...cell.policy, parallelism: options.parallelism }, config.semaphore, config.probe),
        // The run's own: one rate limiter and one adaptive limit for every cell.
        rate: config.rate,
        adaptive: config.adaptive
      }))
      const onStart = options.onStart
      return bounded(units, (unit) => {
        onStart?.(unit)
        return Effect.map(startUnit(unit, cells[unit.cell].agent, configs[unit.cell]), (trial) => ({ unit, trial }))
      }, config)
    },
    (paired) => paired.trial
  )

// A bad row's stand-in fails as every failed call does (its record, the
// failure budget), without a call.
const startUnit = <AE, AR>(unit: TrialUnit, agent: Agent<AE, AR>, config: BoundedConfig) =>
  unit.invalid === undefined
    ? startTrial(unit.task, unit.epoch, agent, config)
    : startTrial(unit.task, unit.epoch, invalidAgent(unit.task.id, unit.invalid), config)

const invalidAgent = (taskId: string, problem: string): Agent<InvalidTask> => () =>
  Effect.fail(new InvalidTask({ task_id: taskId, problem }))

/**
 * Appends to `out` the units of `task`, one per epoch from 1: the one place
 * epochs are expanded.
 *
 * @category constructors
 * @since 0.3.0
 */
export const pushEpochs = (out: Array<TrialUnit>, task: AgentEvalTask, epochs: number): void => {
  for (let epoch = 1; epoch <= epochs; epoch++) out.push({ task, epoch })
}

const expandEpochs = (
  tasks: ReadonlyArray<AgentEvalTask>,
  epochs: number
): [TrialUnit, ...Array<TrialUnit>] => {
  const out: Array<TrialUnit> = []
  for (const task of tasks) pushEpochs(out, task, epochs)
  return out as [TrialUnit, ...Array<TrialUnit>]
}

// Checks the options before anything is read or called, then makes the run's
// Semaphore (and rate limiter, adaptive limit).
const withRunConfig = <E, R, A = AgentEvalTrial>(
  options: RunOptions,
  f: (config: BoundedConfig) => Stream.Stream<A, E, R>,
  trialOf?: (item: A) => AgentEvalTrial
): Stream.Stream<A, E | InvalidParallelism | MaxFailuresExceeded, R> =>
  unwrapAtStart(Effect.gen(function*() {
    const invalid = checkParallelism(options.parallelism) ??
      (options.epochs === undefined ? undefined : checkEpochs(options.epochs)) ??
      // A token limit is checked like a bound: an integer >= 1.
      (options.trialMaxTokens === undefined ? undefined : checkParallelism(options.trialMaxTokens, "trialMaxTokens"))
    if (invalid) return yield* invalid
    const semaphore = yield* Semaphore.make(options.parallelism)
    const probe = toMutable(options.probe)
    const config: BoundedConfig = yield* withTelemetry({
      ...policyConfig(options, semaphore, probe),
      ordered: options.ordered ?? false
    })
    const stream = f(config)
    const maxFailures = options.maxFailures
    return withRunSpan(maxFailures === undefined ? stream : stopOnFailures(stream, maxFailures, trialOf), config)
  }))

export { InvalidRunnerConfig, make, Runner } from "./RunnerService.ts"

/**
 * The `Runner` service read from `Config` (`AGENT_TRIALS_PARALLELISM`,
 * default 8, and the failure-handling variables): the same layer as
 * `Runner.Runner.layer`, named as programs write it, `Runner.layer`. One
 * Semaphore for the layer's lifetime, shared by every run inside it.
 *
 * **Example** (Two runs through one layer)
 *
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Agent, Runner } from "agent-trials"
 *
 * const agent = Agent.fromPromise(async (task) => `echo ${task.id}`)
 * const tasks = Stream.range(1, 100).pipe(Stream.map((i) => ({ id: `t-${i}`, inputs: { i } })))
 *
 * export const program = Effect.gen(function*() {
 *   const runner = yield* Runner.Runner
 *   const first = yield* Stream.runCount(runner.run(tasks, agent))
 *   const second = yield* Stream.runCount(runner.run(tasks, agent))
 *   return [first, second]
 * }).pipe(Effect.provide(Runner.layer))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = RunnerService.layer

/**
 * The `Runner` service with explicit options: `Runner.Runner.layerWith`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerWith = RunnerService.layerWith

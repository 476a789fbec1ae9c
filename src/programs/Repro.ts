/**
 * The reproduction of the original bug: both runners on the same controlled
 * tasks, with a local agent held on a gate (no network), read through the
 * probe while every call is held.
 *
 * @since 0.1.0
 */
import { Effect, Fiber, Latch, Stream } from "effect"
import type { Agent } from "../domain/Agent.ts"
import { runTrialsEager } from "../runner/Eager.ts"
import type { InvalidParallelism } from "../domain/Errors.ts"
import { MutableProbe } from "../runner/internal/probe.ts"
import type { MaxFailuresExceeded } from "../runner/Policy.ts"
import type { Probe } from "../runner/Probe.ts"
import { helperFibers, runTrials } from "../runner/Runner.ts"
import type { AgentEvalTask } from "../domain/Trial.ts"

/**
 * What one runner did.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunnerReport {
  readonly peak_active_calls: number
  readonly pending_before_release: number
  readonly live_fibers_before_release: number
  readonly completed: number
  readonly failed: number
}

/**
 * The JSON printed by `npm run repro -- --json`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReproReport {
  readonly input_tasks: number
  readonly parallelism: number
  readonly external_service_contacted: false
  readonly runners: { readonly eager: RunnerReport; readonly bounded: RunnerReport }
  /** The fixed helper fibers the bounded runner may add to `parallelism`. */
  readonly bounded_helper_fibers: number
  readonly bounds_held: boolean
}

/** Unordered `Stream.mapEffect` runs one helper fiber beside the trial fibers. */
export const BOUNDED_HELPER_FIBERS = helperFibers(false)

/** Controlled tasks: `repro-0`, `repro-1`, ... generated on demand. */
export const controlledTasks = (n: number): Stream.Stream<AgentEvalTask> =>
  Stream.fromIterable({
    *[Symbol.iterator]() {
      for (let i = 0; i < n; i++) yield { id: `repro-${i}`, inputs: { prompt: `task ${i}` } }
    }
  })

type RunnerFn = typeof runTrials

const measure = (runner: RunnerFn, tasks: number, parallelism: number) =>
  Effect.gen(function*() {
    const gate = yield* Latch.make(false)
    const probe = new MutableProbe()
    const agent: Agent = (task) => Effect.as(gate.await, { output_text: `done ${task.id}` })
    const fiber = yield* runner(controlledTasks(tasks), agent, { parallelism, probe }).pipe(
      Stream.runDrain,
      Effect.forkChild
    )
    // Every call is held, so the counts stop moving once admission is over.
    yield* settle(probe, Math.min(tasks, parallelism))
    const held = probe.snapshot()
    yield* gate.open
    yield* Fiber.join(fiber)
    return {
      peak_active_calls: probe.peakActive,
      pending_before_release: held.outstanding,
      live_fibers_before_release: held.liveFibers,
      completed: probe.completed,
      failed: probe.failed
    } satisfies RunnerReport
  })

const settle = (probe: Probe, expectedActive: number) =>
  Effect.gen(function*() {
    let previous = ""
    for (;;) {
      yield* Effect.sleep("2 millis")
      const now = JSON.stringify(probe.snapshot())
      if (now === previous && probe.active === expectedActive) return
      previous = now
    }
  })

/**
 * Runs the eager and the bounded runner on `tasks` controlled tasks and reports
 * the counts each reached while every agent call was held.
 *
 * @category reproduction
 * @since 0.1.0
 */
export const reproduce = (options: {
  readonly tasks: number
  readonly parallelism: number
}): Effect.Effect<ReproReport, InvalidParallelism | MaxFailuresExceeded> =>
  Effect.gen(function*() {
    const eager = yield* measure(runTrialsEager, options.tasks, options.parallelism)
    const bounded = yield* measure(runTrials, options.tasks, options.parallelism)
    const p = options.parallelism
    const bounds_held = bounded.peak_active_calls <= p &&
      bounded.pending_before_release <= p &&
      bounded.live_fibers_before_release <= p + BOUNDED_HELPER_FIBERS &&
      bounded.completed === options.tasks &&
      eager.completed === options.tasks
    return {
      input_tasks: options.tasks,
      parallelism: p,
      external_service_contacted: false,
      runners: { eager, bounded },
      bounded_helper_fibers: BOUNDED_HELPER_FIBERS,
      bounds_held
    } satisfies ReproReport
  })

/**
 * The report as the text the script prints.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatReport = (report: ReproReport): string => {
  const rows: Array<[string, (r: RunnerReport) => string | number]> = [
    ["peak active agent calls", (r) => r.peak_active_calls],
    ["pending child tasks before release", (r) => r.pending_before_release],
    ["live fibers before release", (r) => r.live_fibers_before_release],
    ["completed", (r) => r.completed]
  ]
  const lines = [
    `input tasks: ${report.input_tasks}`,
    `configured parallelism: ${report.parallelism}`,
    ""
  ]
  for (const [name, runner] of [["eager (original shape)", report.runners.eager], ["bounded (agent-trials)", report.runners.bounded]] as const) {
    lines.push(name)
    lines.push(`  input tasks: ${report.input_tasks}`)
    lines.push(`  configured parallelism: ${report.parallelism}`)
    for (const [label, get] of rows) lines.push(`  ${label}: ${get(runner)}`)
    lines.push(`  external service contacted: no`)
  }
  lines.push("")
  lines.push(
    report.bounds_held
      ? `bounded runner held its bounds: active <= ${report.parallelism}, pending <= ${report.parallelism}, fibers <= ${report.parallelism} + ${report.bounded_helper_fibers}`
      : "BOUNDS VIOLATED or tasks incomplete"
  )
  return lines.join("\n")
}

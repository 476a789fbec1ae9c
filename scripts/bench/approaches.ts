/**
 * The approaches under comparison. Each one runs the same lazy tasks through
 * the same user agent with at most `parallelism` calls in flight, and returns
 * how many trials completed (plus the probe's counts for agent-trials).
 */
import { Effect, Semaphore, Stream } from "effect"
import pLimit from "p-limit"
import pMap from "p-map"
import * as Agent from "../../src/domain/Agent.ts"
import { runTrialsEager } from "../../src/runner/Eager.ts"
import { MutableProbe } from "../../src/runner/internal/probe.ts"
import type { ProbeSnapshot } from "../../src/runner/Probe.ts"
import { runTrials } from "../../src/runner/Runner.ts"
import * as Match from "../../src/scoring/Match.ts"
import * as Stage from "../../src/scoring/Stage.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../../src/domain/Trial.ts"
import { tasks, type UserAgent } from "./agents.ts"
import type { ApproachName } from "./catalog.ts"

export interface RunInput {
  readonly agent: UserAgent
  readonly trials: number
  readonly parallelism: number
}

export interface RunOutput {
  readonly completed: number
  readonly probe?: ProbeSnapshot
}

export type Run = (input: RunInput) => Promise<RunOutput>

// A fold with constant state: results are counted, never collected.
const countCompleted = Stream.runFold(() => 0, (n: number, trial: AgentEvalTrial) => trial.status === "completed" ? n + 1 : n)

type TrialsRunner = typeof runTrials

const viaAgentTrials = (runner: TrialsRunner, ordered: boolean) => async (input: RunInput): Promise<RunOutput> => {
  const probe = new MutableProbe()
  const trials = runner(Stream.fromIterable(tasks(input.trials)), Agent.fromPromise(input.agent), {
    parallelism: input.parallelism,
    ordered,
    probe
  })
  const completed = await Effect.runPromise(countCompleted(trials))
  return { completed, probe: probe.snapshot() }
}

// `unordered` with its trials piped through the scoring stage (`exact`, P
// trials scored at a time), as the CLI wires it: the task of each trial waits
// in a map between the source and the stage (the runner emits trials, `exact`
// reads the task's reference). The map is filled by the source generator, not
// by wrapping the agent, so the agent stage runs exactly as in `unordered`.
const scoredWithExact = async (input: RunInput): Promise<RunOutput> => {
  const probe = new MutableProbe()
  const pending = new Map<string, AgentEvalTask>()
  function* remembered(source: Iterable<AgentEvalTask>): Generator<AgentEvalTask> {
    for (const task of source) {
      pending.set(task.id, task)
      yield task
    }
  }
  const trials = runTrials(Stream.fromIterable(remembered(tasks(input.trials))), Agent.fromPromise(input.agent), {
    parallelism: input.parallelism,
    ordered: false,
    probe
  })
  const scored = Stage.scoreTrials(
    Stream.map(trials, (trial): Stage.Finished => {
      const task = pending.get(trial.task_id)!
      pending.delete(trial.task_id)
      return { task, trial }
    }),
    { scorers: [Match.exact()], parallelism: input.parallelism }
  )
  const completed = await Effect.runPromise(countCompleted(scored))
  return { completed, probe: probe.snapshot() }
}

// The floor of the fiber-per-trial shape: the operator runTrials is built on,
// with nothing of ours around it (no probe, no trial record), over the same
// source as `unordered` (same chunking) and drained by a fold of the same kind.
// With an already-resolved agent it retains memory and starves timers (about
// 1.3 GB at 1e6, see the README): that is a measurement of the operator, kept.
const bareOperator = async ({ agent, trials, parallelism }: RunInput): Promise<RunOutput> => {
  const program = Effect.flatMap(Semaphore.make(parallelism), (sem) =>
    Stream.fromIterable(tasks(trials)).pipe(
      Stream.mapEffect((task) => sem.withPermit(Effect.promise((signal) => agent(task, { signal }))), {
        concurrency: parallelism,
        unordered: true
      }),
      Stream.runFold(() => 0, (n: number, _output: string) => n + 1)
    ))
  return { completed: await Effect.runPromise(program) }
}

// P async loops pulling from one shared iterator: no library, the floor.
const rawPool = async ({ agent, trials, parallelism }: RunInput): Promise<RunOutput> => {
  const source = tasks(trials)
  const { signal } = new AbortController()
  let completed = 0
  const worker = async (): Promise<void> => {
    for (let next = source.next(); !next.done; next = source.next()) {
      try {
        await agent(next.value, { signal })
        completed++
      } catch {
        // A failed trial is counted by its absence.
      }
    }
  }
  await Promise.all(Array.from({ length: parallelism }, worker))
  return { completed }
}

// p-map reads the iterable lazily but keeps a result array of length T
// (and stops at the first rejection, `stopOnError: true` by default).
const viaPMap = async ({ agent, trials, parallelism }: RunInput): Promise<RunOutput> => {
  const { signal } = new AbortController()
  const results = await pMap(tasks(trials), (task) => agent(task, { signal }), { concurrency: parallelism })
  return { completed: results.length }
}

// The common eager shape: one limited promise per input, all created up front.
const viaPLimitAll = async ({ agent, trials, parallelism }: RunInput): Promise<RunOutput> => {
  const { signal } = new AbortController()
  const limit = pLimit(parallelism)
  const results = await Promise.all(Array.from(tasks(trials), (task) => limit(() => agent(task, { signal }))))
  return { completed: results.length }
}

export const approaches: Record<ApproachName, Run> = {
  unordered: viaAgentTrials(runTrials, false),
  ordered: viaAgentTrials(runTrials, true),
  bare: bareOperator,
  scored: scoredWithExact,
  raw: rawPool,
  pmap: viaPMap,
  plimit: viaPLimitAll,
  eager: viaAgentTrials(runTrialsEager, false)
}

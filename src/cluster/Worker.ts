/**
 * The worker's side of the trial entity: each "run trial" message is run as
 * a local run runs it (the same `executeTrial`: attempts, timeout, retries
 * with backoff, then the same scorers), at most `parallelism` agent calls at
 * a time on this worker, whatever the number of messages it holds.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Semaphore } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../domain/Agent.ts"
import type { ExecuteConfig } from "../runner/internal/execute.ts"
import { executeTrial } from "../runner/internal/execute.ts"
import { MutableProbe } from "../runner/internal/probe.ts"
import { Starvation } from "../runner/internal/starvation.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as Policy from "../runner/Policy.ts"
import type * as Probe from "../runner/Probe.ts"
import { InvalidTask } from "../runner/Remote.ts"
import type { Scorer } from "../domain/Scorer.ts"
import * as Scorers from "../scoring/Scorers.ts"
import type { ScorerKind } from "../scoring/Kind.ts"
import { isJudge } from "../scoring/Stage.ts"
import { type AgentEvalTask, type AgentEvalTrial, type Score, trialId } from "../domain/Trial.ts"
import { type Settings, TrialEntity } from "./TrialEntity.ts"

/**
 * What a worker runs trials with.
 *
 * @category models
 * @since 0.1.0
 */
export interface WorkerOptions {
  readonly agent: Agent<unknown, HttpClient.HttpClient>
  /** Agent calls in flight at most on this worker (an integer >= 1). */
  readonly parallelism: number
  /** Where `module:` scorer paths are resolved. */
  readonly cwd: string
  /** The kinds the runs' `--score` specs are read with (the worker's); `ScorerKinds.builtIn` when undefined. */
  readonly scorerKinds?: ReadonlyArray<ScorerKind> | undefined
  /** The worker's counts: `active` calls, `outstanding` trials it is running. */
  readonly probe?: Probe.Probe | undefined
}

interface Prepared {
  readonly execute: ExecuteConfig
  readonly scorers: ReadonlyArray<Scorer<HttpClient.HttpClient>>
}

/**
 * The trial entity's handlers, registered with the worker's `Sharding`.
 * Messages are handled concurrently; the worker's Semaphore bounds the agent
 * calls, and a judge scorer's calls share a second one of the same size.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: WorkerOptions) =>
  Layer.unwrap(Effect.gen(function*() {
    // Made once per worker, not in the entity's build (run once per entity
    // id): the bound is the process's, across all the entities it holds.
    const semaphore = yield* Semaphore.make(options.parallelism)
    const judges = yield* Semaphore.make(options.parallelism)
    const probe = (options.probe as MutableProbe | undefined) ?? new MutableProbe()
    probe.limit = probe.lowestLimit = probe.highestLimit = options.parallelism
    // The worker's secrets (its command line's, its agent's): every run it
    // serves calls the same agent, so they are the worker's, not a run's.
    const redactor = yield* Redactor.currentOrNew
    // One per distinct settings (a run's): its scorers are built once.
    const prepared = new Map<string, Effect.Effect<Prepared, string>>()
    const prepare = (settings: Settings) => {
      const key = JSON.stringify(settings)
      let entry = prepared.get(key)
      if (entry === undefined) {
        entry = Effect.runSync(Effect.cached(build(settings, semaphore, probe, redactor, options.cwd, options.scorerKinds)))
        prepared.set(key, entry)
      }
      return entry
    }
    const handlers = TrialEntity.of({
      RunTrial: ({ payload }) =>
        Effect.flatMap(Effect.result(prepare(payload.settings)), (result) => {
          if (result._tag === "Failure") {
            return Effect.map(Clock.currentTimeMillis, (ms) =>
              failedTrial(payload.task, payload.epoch, "InvalidSettings", result.failure, new Date(ms).toISOString()))
          }
          const { execute, scorers } = result.success
          const agent: Agent<unknown, HttpClient.HttpClient> = payload.invalid === undefined
            ? options.agent
            : () => Effect.fail(new InvalidTask({ task_id: payload.task.id, problem: payload.invalid! }))
          return Effect.flatMap(
            executeTrial(payload.task, payload.epoch, agent, execute),
            (trial) => score(payload.task, trial, scorers, judges)
          ).pipe(Effect.provideService(Redactor.Redactor, redactor))
        })
    })
    return TrialEntity.toLayer(handlers, { concurrency: "unbounded", maxIdleTime: Duration.minutes(1) })
  }))

const build = (
  settings: Settings,
  semaphore: Semaphore.Semaphore,
  probe: MutableProbe,
  redactor: Redactor.Secrets,
  cwd: string,
  kinds: ReadonlyArray<ScorerKind> | undefined
): Effect.Effect<Prepared, string, never> => {
  // The run's retry flags, as its messages carry them: one policy for the agent and the judge.
  const retry = Policy.retryOf({
    retries: settings.retries,
    backoff: Duration.millis(settings.backoffMs),
    backoffMax: Duration.millis(settings.backoffMaxMs),
    retryAfterMax: Duration.millis(settings.retryAfterMaxMs),
    rateLimitWaitMax: settings.rateLimitWaitMaxMs === undefined ? undefined : Duration.millis(settings.rateLimitWaitMaxMs)
  })
  return Effect.map(
    Scorers.fromSpecs(settings.score, {
      cwd,
      judgeModel: settings.judgeModel,
      expectedTools: settings.expectedTools,
      retry,
      kinds
    }).pipe(Effect.mapError((e) => e.message)),
    (scorers): Prepared => ({
      scorers,
      execute: {
        semaphore,
        probe,
        timeoutMs: settings.timeoutMs,
        // Even with no retries: a rate limit's wait uses up no retry.
        retry,
        // The run's own: another run's trials on this worker do not share it.
        starvation: new Starvation(),
        redactor
      }
    })
  )
}

// As the scoring stage scores one trial: a failed trial is not scored. A
// scorer spec this worker cannot build (a module: path missing here) fails
// each trial with InvalidSettings, naming the spec.
const score = (
  task: AgentEvalTask,
  trial: AgentEvalTrial,
  scorers: ReadonlyArray<Scorer<HttpClient.HttpClient>>,
  judges: Semaphore.Semaphore
): Effect.Effect<AgentEvalTrial, never, HttpClient.HttpClient> => {
  if (scorers.length === 0 || trial.status === "failed" || trial.output === undefined) return Effect.succeed(trial)
  return Effect.map(
    Effect.forEach(scorers, (scorer) =>
      isJudge(scorer) ? judges.withPermit(scorer.score(task, trial)) : scorer.score(task, trial)),
    (scores) => {
      const byName: Record<string, Score> = {}
      for (let i = 0; i < scores.length; i++) byName[scorers[i]!.name] = scores[i]!
      return { ...trial, scores: byName }
    }
  )
}

const failedTrial = (task: AgentEvalTask, epoch: number, type: string, message: string, now: string): AgentEvalTrial => {
  return {
    id: trialId(task.id, epoch),
    task_id: task.id,
    status: "failed",
    error: { type, message, occurred_at: now },
    metadata: { started_at: now, finished_at: now, latency_ms: 0, epoch }
  }
}

/**
 * Each trial's record told what the response cache gave it (`--cache`):
 * `metadata.cache` is `hit` when every call of the trial (its agent's and
 * its judges') was served from the cache, `miss` when none was, `partial`
 * otherwise. A trial none of whose calls went through the cache (a module
 * agent) says nothing.
 *
 * @since 0.8.0
 */
import { Effect, Function, type Scope, Stream } from "effect"
import * as ResponseCache from "../../../cache/ResponseCache.ts"
import * as SqliteCache from "../../../cache/Sqlite.ts"
import type { Agent } from "../../../domain/Agent.ts"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"
import { RateLimiter } from "../../../runner/internal/policy.ts"
import { cacheDir } from "../../Cache.ts"
import type { RunConfig } from "../Config.ts"

/**
 * The run's response cache (`--cache`), opened in the run's scope: in
 * `--cache-dir` (the default folder of `hf:` downloads when not given);
 * undefined when the cache is off.
 *
 * @category constructors
 * @since 0.8.0
 */
export const open = (
  config: Pick<RunConfig, "cache" | "cacheDir">
): Effect.Effect<ResponseCache.Shape | undefined, ResponseCache.CacheError, Scope.Scope> => {
  const setting = config.cache
  if (setting === undefined || setting === null) return Effect.succeed(undefined)
  return Effect.flatMap(
    cacheDir(config.cacheDir),
    (dir) => SqliteCache.make({ dir, lifetimeMs: setting.lifetimeMs, refresh: setting.refresh, countTrials: true })
  )
}

/**
 * Each trial with its `metadata.cache`; the stream as it is without a cache.
 *
 * @category combinators
 * @since 0.8.0
 */
export const mark: {
  (tallies: ResponseCache.Tallies | undefined): <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>) => Stream.Stream<AgentEvalTrial, E, R>
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, tallies: ResponseCache.Tallies | undefined): Stream.Stream<AgentEvalTrial, E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, tallies: ResponseCache.Tallies | undefined): Stream.Stream<AgentEvalTrial, E, R> =>
  tallies === undefined ? self : Stream.map(self, (trial) => {
    const outcome = tallies.take(trial.id)
    return outcome === undefined ? trial : { ...trial, metadata: { ...trial.metadata, cache: outcome } }
  }))

/**
 * `--rate` with the cache on: an agent whose calls go through the cache
 * (`openai:`, `http(s)://`) takes its rate slot as a call is sent, so a hit takes none, and
 * the runner paces nothing; any other agent is paced by the runner as
 * without the cache. The slot's wait is then part of the call's latency.
 *
 * @category pacing
 * @since 0.8.0
 */
export const paceMisses = <E, R>(
  agent: Agent<E, R>,
  config: Pick<RunConfig, "rate" | "agent">,
  cache: ResponseCache.Shape | undefined
): { readonly agent: Agent<E, R>; readonly rate: RunConfig["rate"] } => {
  const rate = config.rate
  // The kinds whose calls go through the cache (`ResponseCache.call`).
  const cached = cache !== undefined && (config.agent._tag === "OpenAi" || config.agent._tag === "Http")
  if (rate === undefined || !cached) return { agent, rate }
  const slot = new RateLimiter(rate.limit, rate.per).acquire
  return { agent: (task, trial) => Effect.provideService(agent(task, trial), ResponseCache.Pacer, slot), rate: undefined }
}

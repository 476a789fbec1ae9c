/**
 * Each trial's record told what the response cache gave it (`--cache`):
 * `metadata.cache` is `hit` when every call of the trial (its agent's and
 * its judges') was served from the cache, `miss` when none was, `partial`
 * otherwise. A trial none of whose calls went through the cache (a module
 * agent) says nothing.
 *
 * @since 0.8.0
 */
import { Function, Stream } from "effect"
import type { Tallies } from "../../../cache/ResponseCache.ts"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"

/**
 * Each trial with its `metadata.cache`; the stream as it is without a cache.
 *
 * @category combinators
 * @since 0.8.0
 */
export const mark: {
  (tallies: Tallies | undefined): <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>) => Stream.Stream<AgentEvalTrial, E, R>
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, tallies: Tallies | undefined): Stream.Stream<AgentEvalTrial, E, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, tallies: Tallies | undefined): Stream.Stream<AgentEvalTrial, E, R> =>
  tallies === undefined ? self : Stream.map(self, (trial) => {
    const outcome = tallies.take(trial.id)
    return outcome === undefined ? trial : { ...trial, metadata: { ...trial.metadata, cache: outcome } }
  }))

/**
 * The run's last stage: each trial appended to the results store, and the
 * `results: FILE` line said once the file has its first line.
 *
 * @since 0.7.0
 */
import { Effect, Function, Stream } from "effect"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"
import type * as Results from "../../../results/Results.ts"

/**
 * Options of `record`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options {
  readonly sink: Results.Writer
  /** Run after each append (says the results line once the file exists). */
  readonly announce: Effect.Effect<void>
}

/**
 * Runs the stream, recording each trial.
 *
 * @category sinks
 * @since 0.7.0
 */
export const record: {
  (options: Options): <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>) => Effect.Effect<void, E | Results.ResultsWriteError, R>
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, options: Options): Effect.Effect<void, E | Results.ResultsWriteError, R>
} = Function.dual(2, <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, options: Options) => {
  const { announce, sink } = options
  return Stream.runForEach(self, (trial) => Effect.andThen(sink.append(trial), announce))
})

/**
 * The stage that runs the trials: the bounded runner calling the agent, or,
 * for a `--cluster` run, the remote executor; each trial comes out with the
 * unit it was run for.
 *
 * @since 0.7.0
 */
import { type Effect, Function, type Stream } from "effect"
import type { InvalidParallelism } from "../../../domain/Errors.ts"
import type { MaxFailuresExceeded } from "../../../runner/Policy.ts"
import type { Agent } from "../../../domain/Agent.ts"
import type { MutableProbe } from "../../../runner/internal/probe.ts"
import type { Remote, RemoteConfig, RunInputError } from "../../../runner/Remote.ts"
import { type Paired, runPaired, type RunOptions, type TrialUnit } from "../../../runner/Runner.ts"

/**
 * Options of `execute`.
 *
 * @category models
 * @since 0.7.0
 */
export interface Options<AE, AR> {
  readonly agent: Agent<AE, AR>
  /** The runner's bound and failure handling. */
  readonly runner: Omit<RunOptions, "epochs" | "probe">
  /** Run at each trial's admission: its workspace (`--workspace`). */
  readonly admit?: ((unit: TrialUnit) => Effect.Effect<string, unknown>) | undefined
  /** The agent stage's counts. */
  readonly probe: MutableProbe
  /** Where a `--cluster` run's trials run instead (the agent is then never called). */
  readonly remote?: {
    readonly run: Remote
    readonly config: RemoteConfig
    readonly out: string
    readonly scoreSpecs: ReadonlyArray<string>
  } | undefined
}

/**
 * Each unit's trial, with its unit.
 *
 * @category combinators
 * @since 0.7.0
 */
export const execute: {
  <AE, AR>(options: Options<AE, AR>): <E, R>(self: Stream.Stream<TrialUnit, E, R>) => Executed<E, R | AR>
  <E, R, AE, AR>(self: Stream.Stream<TrialUnit, E, R>, options: Options<AE, AR>): Executed<E, R | AR>
} = Function.dual(2, <E, R, AE, AR>(self: Stream.Stream<TrialUnit, E, R>, options: Options<AE, AR>): Executed<E, R | AR> => {
  const { probe, remote } = options
  return remote !== undefined
    ? remote.run(self, { config: remote.config, out: remote.out, scoreSpecs: remote.scoreSpecs, probe })
    : runPaired(self, options.agent, { ...options.runner, probe, admit: options.admit })
})

/**
 * The trials of `execute`, each with its unit; it fails with the source's
 * error, a bad bound, a failure budget exceeded, or a remote's bad input.
 *
 * @category models
 * @since 0.7.0
 */
export type Executed<E, R> = Stream.Stream<Paired, E | InvalidParallelism | MaxFailuresExceeded | RunInputError, R>

/**
 * The port a remote executor implements (`run --cluster`): the run's units
 * go in, finished and scored trials come out, and the run's writer records
 * them as it records the trials it ran itself.
 *
 * @since 0.1.0
 */
import { type Duration, Schema, type Stream } from "effect"
import { whereFields, whereOf } from "../domain/internal/where.ts"
import type { MutableProbe } from "./internal/probe.ts"
import type * as Policy from "./Policy.ts"
import type { Paired, TrialUnit } from "./Runner.ts"

/**
 * What of the run's configuration a remote executor reads: how it reports,
 * whether the run is fresh, its bound, and the failure-handling flags each
 * trial carries to the worker that runs it.
 *
 * @category models
 * @since 0.1.0
 */
export interface RemoteConfig {
  readonly parallelism: number
  readonly resume: boolean
  readonly retryFailed: boolean
  readonly progress: boolean
  readonly tty: boolean
  readonly cwd: string
  /** Per attempt; no timeout when undefined. */
  readonly timeout: Duration.Duration | undefined
  readonly retries: number
  readonly backoff: Duration.Duration
  readonly backoffMax: Duration.Duration
  readonly retryAfterMax: Duration.Duration
  /** `--rate-limit-wait-max`: a trial's rate-limit waits in all; `Policy.defaultRetry`'s when undefined. */
  readonly rateLimitWaitMax?: Duration.Duration | undefined
  readonly maxFailures: Policy.MaxFailures | undefined
  readonly judgeModel?: string | undefined
  /** `--expected-tools`: where a `tool-calls` scorer reads a task's expected calls. */
  readonly expectedTools?: string | undefined
}

/**
 * Where a `--cluster` run's trials are run: given the run's units (a bad
 * line's with its message, `TrialUnit.invalid`), emits each finished and
 * scored trial once with its unit, at most `parallelism` trials outstanding.
 *
 * @category models
 * @since 0.1.0
 */
export type Remote = <E, R>(
  units: Stream.Stream<TrialUnit, E, R>,
  options: {
    readonly config: RemoteConfig
    readonly out: string
    readonly scoreSpecs: ReadonlyArray<string>
    readonly probe: MutableProbe
  }
) => Stream.Stream<Paired, E | RunInputError | Policy.MaxFailuresExceeded, R>

/**
 * A flag or input the run cannot use (exit code 2). Beside its message, it
 * names what to fix where it knows: the `flag` at fault (`--resume`,
 * `--score`), the `file` (a `--tasks` file, the `--out` file), and the
 * `line` of that file (1-based).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunInputError extends Schema.TaggedError<RunInputError>()("RunInputError", {
  message: Schema.String,
  ...whereFields
}) {
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  /**
   * The run's bad input from another error: its message, and the flag, the
   * file (its `file` or `path`) and the line it names.
   */
  static from(error: { readonly message: string }): RunInputError {
    return new RunInputError({ message: error.message, ...whereOf(error) })
  }
}

export { InvalidTask } from "../domain/Errors.ts"

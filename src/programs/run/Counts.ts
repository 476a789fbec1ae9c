/**
 * What a run counts as its trials go by, in one place: the units skipped as
 * already recorded, the bad dataset lines, the run's size, the results
 * writer, the outputs left unwritten, a gate that failed, the models the
 * pricing file lacks, and the probes of the agent and scoring stages. The
 * run owns one; its stages write it, the progress line and the end of the
 * run read it.
 *
 * A `Counts` is read-only to its users: `snapshot()` copies it at one
 * instant.
 *
 * @since 0.7.0
 */
import type { ResultsWriteError } from "../../results/Results.ts"
import type { ProbeSnapshot } from "../../runner/Probe.ts"
import type { GatesFailed } from "../../summary/Gates.ts"
import type { TypeId } from "./internal/counts.ts"

/**
 * A run's counts, read live: each field is the current value.
 *
 * @category models
 * @since 0.7.0
 */
export interface Counts extends CountsSnapshot {
  readonly [TypeId]: typeof TypeId
  /** The counts at this instant, as a plain object that does not change afterwards. */
  snapshot(): CountsSnapshot
}

/**
 * A point-in-time copy of a run's counts.
 *
 * @category models
 * @since 0.7.0
 */
export interface CountsSnapshot {
  /** Units not run because their trial is already recorded (a resume). */
  readonly skipped: number
  /** Bad dataset lines met (each is one record, whatever the epochs). */
  readonly invalidLines: number
  /** Trials the run has in all, once known (at once for synthetic tasks, else when the file is counted). */
  readonly total: number | undefined
  /** Lines the results writer has on disk. */
  readonly written: number
  /** The write failure that stopped the writer, if any. */
  readonly writeFailure: ResultsWriteError | undefined
  /** Outputs that could not be written, each its message. */
  readonly unwritten: ReadonlyArray<string>
  /** The `--fail-under` gates that failed, once the summary is made. */
  readonly gateFailure: GatesFailed | undefined
  /** Models the pricing file lacks, met and not yet warned of. */
  readonly unpricedPending: ReadonlyArray<string>
  /** The agent stage's probe. */
  readonly probe: ProbeSnapshot
  /** The scoring stage's probe. */
  readonly scoreProbe: ProbeSnapshot
}

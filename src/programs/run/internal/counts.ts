/**
 * A run's counts as its stages update them: plain mutable fields, changed
 * synchronously by the stage that sees the event, cheap enough for the
 * per-trial path. Users get the same object typed as the read-only `Counts`
 * of `../Counts.ts`.
 *
 * @internal
 */
import type { ResultsWriteError, Writer } from "../../../results/Results.ts"
import type { OutputWriteError } from "../../Output.ts"
import { MutableProbe } from "../../../runner/internal/probe.ts"
import type { GatesFailed } from "../../../summary/Gates.ts"
import type { Counts, CountsSnapshot } from "../Counts.ts"
import type { Pool } from "../../../workspace/Pool.ts"

/**
 * Brands the public `Counts` type: every value typed `Counts` was made here.
 *
 * @internal
 */
export const TypeId: unique symbol = Symbol.for("agent-trials/run/Counts")

/** @internal */
export class MutableCounts implements Counts {
  readonly [TypeId]: typeof TypeId = TypeId
  skipped = 0
  invalidLines = 0
  total: number | undefined
  /** The results writer, once the run has opened it. */
  writer: Writer | undefined = undefined
  // After a run that ended well the last is its error (exit 1); after any
  // other end each is one line on stderr beside the run's own error.
  readonly unwritten: Array<string> = []
  // The errors behind those messages, with the flag and path of each output.
  readonly unwrittenOutputs: Array<OutputWriteError> = []
  gateFailure: GatesFailed | undefined = undefined
  // Pushed by the pricing as it meets a model, drained by each warning.
  readonly unpricedPending: Array<string> = []
  readonly probe: MutableProbe = new MutableProbe()
  readonly scoreProbe: MutableProbe = new MutableProbe()
  /** The run's workspaces (`--workspace`): live, peak, kept. */
  workspaces: Pool | undefined = undefined
  /** Workspaces an earlier process of this run left, removed at its start. */
  staleWorkspaces = 0

  constructor(total: number | undefined) {
    this.total = total
  }

  get written(): number {
    return this.writer?.written() ?? 0
  }
  get writeFailure(): ResultsWriteError | undefined {
    return this.writer?.failure()
  }

  snapshot(): CountsSnapshot {
    return {
      skipped: this.skipped,
      invalidLines: this.invalidLines,
      total: this.total,
      written: this.written,
      writeFailure: this.writeFailure,
      unwritten: [...this.unwritten],
      gateFailure: this.gateFailure,
      unpricedPending: [...this.unpricedPending],
      probe: this.probe.snapshot(),
      scoreProbe: this.scoreProbe.snapshot()
    }
  }
}

/**
 * The results-store port: where a run's trials go and how a resume reads
 * them back. The registry (`ResultsStores`) chooses a store by the `--out`
 * it is given; the JSONL file is the store for any other name.
 *
 * @since 0.3.0
 */
import type { Effect, FileSystem, Path, Scope, Stream } from "effect"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import type { Recorded, ResultsError, Writer } from "./Results.ts"

/**
 * How a store is made ready for a run.
 *
 * @category models
 * @since 0.3.0
 */
export interface PrepareOptions {
  readonly resume: boolean
  readonly retryFailed: boolean
  /** Sees each trial already recorded (for the summary of a resumed run). */
  readonly onPrior?: ((trial: AgentEvalTrial) => void) | undefined
}

/**
 * A results store.
 *
 * @category models
 * @since 0.3.0
 */
export interface ResultsStore {
  readonly name: string
  /** What it keeps, one line, for the README's table. */
  readonly doc: string
  /** Whether `--out` names one of its stores (the last store of a list takes any). */
  readonly matches: (out: string) => boolean
  /**
   * Gets `out` ready for appending: an existing store is refused without
   * `resume`; with it, what is recorded is kept (and handed to `onPrior`).
   */
  readonly prepare: (
    out: string,
    options: PrepareOptions
  ) => Effect.Effect<Recorded, ResultsError, FileSystem.FileSystem | Path.Path>
  /** An append-only writer; `onWritten` sees each trial once it is stored. */
  readonly writer: (
    out: string,
    options: { readonly onWritten?: ((trial: AgentEvalTrial) => void) | undefined }
  ) => Effect.Effect<Writer, never, Scope.Scope | FileSystem.FileSystem>
  /** The stored trials with the line (or row) each came from. */
  readonly read: (
    out: string
  ) => Stream.Stream<{ readonly trial: AgentEvalTrial; readonly line: number }, ResultsError, FileSystem.FileSystem>
}

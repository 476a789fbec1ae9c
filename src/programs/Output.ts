/**
 * The port an output format implements: a file `run` writes at its end from
 * the run's summary and results (`--summary FILE`, `--report FILE`), and,
 * when the format says how, `score` from its scoring (`writeScore`) and
 * `compare` from its comparison (`writeComparison`). The registry
 * (`OutputFormats`) lists them; the commands' flags, their help and the
 * README's table of outputs are derived from it, so a new output is one file
 * and one entry there.
 *
 * @since 0.3.0
 */
import { type Effect, type FileSystem, type Path, Schema, type Stream } from "effect"
import type * as Dataset from "../datasets/Dataset.ts"
import type { Comparison } from "../report/compare/Model.ts"
import type * as Gates from "../summary/Gates.ts"
import type * as Summary from "../summary/Summary.ts"
import type { Registry } from "./internal/kinds.ts"

/**
 * An output could not be written (a full disk, a folder where the file
 * should be): `flag` and `path` are the output asked for, and the message
 * names them with the reason. After a run that ended well it is the run's
 * error (exit 1); after any other end, one line on stderr beside it.
 *
 * @category errors
 * @since 0.7.0
 */
export class OutputWriteError extends Schema.TaggedError<OutputWriteError>()("OutputWriteError", {
  /** The output's flag, `--summary`. */
  flag: Schema.String,
  path: Schema.String,
  message: Schema.String
}) {
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/**
 * What an output is made from.
 *
 * @category models
 * @since 0.3.0
 */
export interface Context {
  /** The results file the run wrote (`--out`). */
  readonly out: string
  /** The run's summary. */
  readonly summary: Summary.Summary
  /** The summary with its `--fail-under` gates judged (what `--summary` writes). */
  readonly gated: Gates.GatedSummary
  /** The run's tasks, read again; undefined when they cannot be (stdin). */
  readonly tasks: Stream.Stream<Dataset.Item, Dataset.DatasetError, Dataset.Services> | undefined
  /** A line for the user (on stderr when the results go to stdout). */
  readonly say: (text: string) => Effect.Effect<void>
  /** `--task-pass`: the fraction of a task's trials that must pass for the task to pass (1 when undefined). */
  readonly taskPass?: number | undefined
}

/**
 * What an output is made from after `score`: the scored file and the
 * scoring's summary.
 *
 * @category models
 * @since 0.9.0
 */
export interface ScoreContext {
  /** The scored results file (`score --out`). */
  readonly out: string
  readonly summary: Summary.ScoreSummary
  /** The summary with its `--fail-under` gates judged. */
  readonly gated: Gates.GatedScoreSummary
  /** `--task-pass` (1 when undefined). */
  readonly taskPass?: number | undefined
}

/**
 * What an output is made from after `compare`: the comparison and the two
 * results files it read.
 *
 * @category models
 * @since 0.9.0
 */
export interface CompareContext {
  readonly comparison: Comparison
  readonly base: string
  readonly new: string
}

/**
 * What writing an output may use.
 *
 * @category models
 * @since 0.3.0
 */
export type Services = FileSystem.FileSystem | Path.Path | Dataset.Services | Registry

/**
 * An output format.
 *
 * @category models
 * @since 0.3.0
 */
export interface OutputFormat {
  /** `--FLAG FILE` asks for it. */
  readonly flag: string
  /** The flag's help. */
  readonly description: string
  /** What it writes, one line, for the README's table. */
  readonly doc: string
  /** It reads the results file back, so it cannot follow `--out -` (stdout). */
  readonly readsResults?: boolean | undefined
  /** Written also when bad input stopped the run (a summary says so; a report would be of a run that never ran). */
  readonly afterInputError?: boolean | undefined
  /** Writes `path`; a failure is `OutputWriteError`, its message naming the flag and the file. */
  readonly write: (path: string, context: Context) => Effect.Effect<void, OutputWriteError, Services>
  /** Writes `path` after `score`; `score` has the flag only when this is defined. */
  readonly writeScore?: ((path: string, context: ScoreContext) => Effect.Effect<void, OutputWriteError, Services>) | undefined
  /** Writes `path` after `compare`; `compare` has the flag only when this is defined. */
  readonly writeComparison?:
    | ((path: string, context: CompareContext) => Effect.Effect<void, OutputWriteError, Services>)
    | undefined
}

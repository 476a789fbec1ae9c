/**
 * The task-source port: what a dataset format gives (a Stream of items, each a
 * task or, with `onInvalid: "skip"`, a row that is not one, named by where it
 * was), what it may fail with, and what reading needs.
 *
 * @since 0.3.0
 */
import { type Duration, type Effect, type FileSystem, Schema, type Stdio, type Stream } from "effect"
import type { AgentEvalTask } from "../domain/Trial.ts"
import type { Mapping } from "./Mapping.ts"

/**
 * A dataset could not be read, or a line of it is invalid (`--on-invalid fail`).
 *
 * @category errors
 * @since 0.1.0
 */
export class DatasetError extends Schema.TaggedError<DatasetError>()("DatasetError", {
  path: Schema.String,
  line: Schema.optionalKey(Schema.Number),
  message: Schema.String,
  /**
   * The source failed on the way, not the input: a download stalled, too
   * slow, cut or larger than it may be. Running again may read it (exit 1, not 2).
   */
  transient: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * An item of a dataset: a task, or (with `onInvalid: "skip"`) a line that is
 * not one.
 *
 * @category models
 * @since 0.1.0
 */
export type Item =
  | { readonly _tag: "Task"; readonly task: AgentEvalTask }
  | { readonly _tag: "Invalid"; readonly taskId: string; readonly message: string }

/**
 * What reading a dataset needs.
 *
 * @category models
 * @since 0.1.0
 */
export type Services = FileSystem.FileSystem | Stdio.Stdio

/**
 * How bad lines are handled.
 *
 * @category models
 * @since 0.1.0
 */
export type OnInvalid = "fail" | "skip"

/**
 * How a dataset is read.
 *
 * @category models
 * @since 0.3.0
 */
export interface ReadOptions extends DatasetFlags {
  readonly onInvalid: OnInvalid
  /**
   * Told what was read when it is known before the first task: the
   * revision (commit) of a Hub dataset, for the summary and the records.
   */
  readonly onSource?: ((read: SourceRead) => void) | undefined
}

/**
 * The flags of how a dataset is read, as `run`, `score` and `report` take
 * them: declared once here, for their configs and the readers alike.
 *
 * @category models
 * @since 0.6.0
 */
export interface DatasetFlags {
  /** `--map`: how a row becomes a task; the default rules when undefined (`Mapping`). */
  readonly map?: Mapping | undefined
  /** `--json-path`: the dotted key of a JSON file's array of records; the top level when undefined. */
  readonly jsonPath?: string | undefined
  /** `--cache-dir`: where downloaded datasets are kept; the user's cache directory when undefined. */
  readonly cacheDir?: string | undefined
  /** `--hub-timeout`: the longest wait on the Hub for an answer's headers or a byte of its body; 60 s when undefined. */
  readonly hubTimeout?: Duration.Duration | undefined
  /** `--max-download`: the most bytes a downloaded file without a declared size may be; 10 GB when undefined. */
  readonly maxDownload?: number | undefined
}

/**
 * What a source says of what it read, once it knows.
 *
 * @category models
 * @since 0.3.0
 */
export interface SourceRead {
  /** The revision (commit sha) read, for a versioned source. */
  readonly revision?: string | undefined
  /** The files read, as the source names them. */
  readonly files?: ReadonlyArray<string> | undefined
}

/**
 * A dataset format: the port a reader implements. The registry
 * (`DatasetFormats`) chooses one by `--format` or by the file's extension;
 * the help and the README's table of formats are derived from it.
 *
 * @category models
 * @since 0.3.0
 */
export interface DatasetFormat {
  /** `--format NAME`. */
  readonly name: string
  /** The file names it is chosen for without `--format` (`.jsonl`), lower case. */
  readonly extensions: ReadonlyArray<string>
  /** The `--tasks` prefix it is chosen for (`hf:`), before any extension. */
  readonly prefix?: string | undefined
  /** What it reads, one line, for the README's table. */
  readonly doc: string
  /**
   * The items of the file at `path`, read lazily: a bad row is an error (or,
   * with `skip`, an `Invalid` item) naming the file and where in it.
   */
  readonly read: (path: string, options: ReadOptions) => Stream.Stream<Item, DatasetError, Services>
  /**
   * The tasks the file holds, counted without holding it (the progress total);
   * undefined when unknown. `options`: how the file is read (`--json-path`).
   */
  readonly count?:
    | ((path: string, options?: Pick<ReadOptions, "jsonPath">) => Effect.Effect<number | undefined, never, FileSystem.FileSystem>)
    | undefined
}

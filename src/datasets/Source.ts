/**
 * The task-source port: what a dataset format gives (a Stream of items, each a
 * task or, with `onInvalid: "skip"`, a row that is not one, named by where it
 * was), what it may fail with, and what reading needs.
 *
 * @since 0.3.0
 */
import { type FileSystem, Schema, type Stdio } from "effect"
import type { AgentEvalTask } from "../domain/Trial.ts"

/**
 * A dataset could not be read, or a line of it is invalid (`--on-invalid fail`).
 *
 * @category errors
 * @since 0.1.0
 */
export class DatasetError extends Schema.TaggedError<DatasetError>()("DatasetError", {
  path: Schema.String,
  line: Schema.optionalKey(Schema.Number),
  message: Schema.String
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

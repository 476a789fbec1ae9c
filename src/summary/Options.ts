/**
 * The options of the statistics a summary reports, as Schemas from their
 * text (`--group-by`, `--stderr-cluster`, `--pass-k`), refused in the words
 * of every other option.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { MAX_EPOCHS } from "../internal/limits.ts"
import { fromString, quote } from "../internal/options.ts"
import * as Labels from "./Labels.ts"

/**
 * A dotted path into a task (`metadata.subject`, `inputs.lang`), as
 * `--group-by PATH` takes it: the first segment is one of the task's fields.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TaskPath = fromString(Schema.String, Labels.parsePath, String)

/**
 * What `--stderr-cluster` takes: a dotted path into the task, or `none`
 * (decoded to `null`: no clustering).
 *
 * **Example** (A path and none)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.StderrCluster)("metadata.passage_id") // "metadata.passage_id"
 * Schema.decodeUnknownSync(Options.StderrCluster)("none") // null
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const StderrCluster = fromString(
  Schema.NullOr(Schema.String),
  (text): Result.Result<string | null, string> =>
    text === "none"
      ? Result.succeed(null)
      : Result.mapError(Labels.parsePath(text), (message) => `${message.replace(/^Expected /, "Expected none or ")}`),
  (value) => value ?? "none"
)

/**
 * The k of pass@k a summary reports: integers from 1 to the epochs' cap,
 * comma-separated (`1,2,10`), sorted and without repeats.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PassK = fromString(
  Schema.Array(Schema.Number),
  (text): Result.Result<ReadonlyArray<number>, string> => {
    const parts = text.split(",").map((part) => part.trim())
    const ks = parts.map((part) => /^\d+$/.test(part) ? Number(part) : Number.NaN)
    const bad = parts.find((_, i) => !(Number.isSafeInteger(ks[i]) && ks[i] >= 1 && ks[i] <= MAX_EPOCHS))
    if (bad !== undefined) {
      return Result.fail(
        `Expected integers from 1 to ${MAX_EPOCHS} separated by commas, like 1,2,10, got ${quote(text)} (${quote(bad)} is not one)`
      )
    }
    return Result.succeed([...new Set(ks)].sort((a, b) => a - b))
  },
  (ks) => ks.join(",")
)

/**
 * The fraction of a task's trials that must pass for the task to pass
 * (`--task-pass`): a number above 0 and at most 1 (1: every epoch).
 *
 * @category schemas
 * @since 0.9.0
 */
export const TaskPass = fromString(
  Schema.Number,
  (text): Result.Result<number, string> => {
    const n = /^\s*(?:\d+(?:\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : Number.NaN
    return n > 0 && n <= 1
      ? Result.succeed(n)
      : Result.fail(`Expected a fraction above 0 and at most 1, like 0.5 (1: every epoch), got ${quote(text)}`)
  },
  String
)

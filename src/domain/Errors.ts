/**
 * Typed errors of agent-trials. Each carries a message a user can act on.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { MAX_EPOCHS } from "../internal/limits.ts"
import { Usage } from "./Trial.ts"

export { MAX_EPOCHS } from "../internal/limits.ts"

/**
 * The exit code a command ends with when it stops on an error: 2 for bad
 * input (a flag, a file or a line at fault: fix it and run again), 1 for a
 * stop on the way (a failure budget, a write that failed, a gate). An error
 * class says which by its `exitCode`.
 *
 * @category exit codes
 * @since 0.7.0
 */
export type ExitCode = 1 | 2

/**
 * The exit code `error` carries (its class's `exitCode`); 1 when it carries
 * none, as for any stop that is not bad input.
 *
 * **Example** (Bad input exits 2)
 *
 * ```ts
 * import { Errors, Rescore } from "agent-trials"
 *
 * Errors.exitCodeOf(new Rescore.ScoreInputError({ message: "--tasks x.jsonl: not found" })) // 2
 * Errors.exitCodeOf(new Error("boom")) // 1
 * ```
 *
 * @category exit codes
 * @since 0.7.0
 */
export const exitCodeOf = (error: unknown): ExitCode =>
  typeof error === "object" && error !== null && (error as { readonly exitCode?: unknown }).exitCode === 2 ? 2 : 1

/**
 * `parallelism` was not an integer >= 1. Raised before any agent call.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidParallelism extends Schema.TaggedError<InvalidParallelism>()("InvalidParallelism", {
  value: Schema.Unknown,
  source: Schema.String,
  /** The largest value allowed, when there is one (epochs: {@link MAX_EPOCHS}). */
  maximum: Schema.optionalKey(Schema.Number)
}) {
  override get message(): string {
    const range = this.maximum === undefined ? "from 1 and up" : `from 1 to ${this.maximum}`
    return `Expected ${this.source} to be an integer ${range}, got ${formatValue(this.value)}`
  }
}

/**
 * A foreign agent (a Promise function, a module export) threw or rejected.
 *
 * @category errors
 * @since 0.1.0
 */
export class AgentError extends Schema.TaggedError<AgentError>()("AgentError", {
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Unknown)
}) {}

/**
 * An agent returned something that is neither a string nor an `AgentOutput`.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidAgentOutput extends Schema.TaggedError<InvalidAgentOutput>()("InvalidAgentOutput", {
  message: Schema.String,
  /** What the call spent before its answer proved unusable (a chat completion without content). */
  usage: Schema.optionalKey(Usage),
  /**
   * The answer's text, when it had one and something else was wrong (a
   * trajectory step without `started_at`): kept whole for reading.
   */
  output_text: Schema.optionalKey(Schema.String),
  /** Another attempt may mend it: a chat completion that is an overloaded or rate-limited error (`Policy.isRetryable`). */
  retryable: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * Checks a parallelism bound at the boundary: an integer >= 1 and a safe
 * integer, so `Number.MAX_SAFE_INTEGER` is the largest accepted value.
 *
 * @category validation
 * @since 0.1.0
 */
export const checkParallelism = (value: unknown, source = "parallelism"): InvalidParallelism | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1
    ? undefined
    : new InvalidParallelism({ value, source })


/**
 * Checks an epochs count at the boundary: an integer from 1 to
 * {@link MAX_EPOCHS}.
 *
 * @category validation
 * @since 0.1.0
 */
export const checkEpochs = (value: unknown, source = "epochs"): InvalidParallelism | undefined =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= MAX_EPOCHS
    ? undefined
    : new InvalidParallelism({ value, source, maximum: MAX_EPOCHS })

const formatValue = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value)
  if (value === undefined) return "undefined"
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * A bad dataset line with `--on-invalid skip`: recorded as a failed trial, its
 * agent never called (`TrialUnit.invalid`). `task_id` is the stand-in task's
 * id (the line's own id, or `FILE:LINE`) and `problem` the dataset's words
 * for the line (`tasks.jsonl:3: not JSON`), which are the message.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidTask extends Schema.TaggedError<InvalidTask>()("InvalidTask", {
  task_id: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return this.problem
  }
}

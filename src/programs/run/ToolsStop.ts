/**
 * A run stops when a tool server is gone for good: an MCP server that died
 * again after its one restart fails the trial that needed it with
 * `McpServerFailed`; that trial is recorded, admission stops, the trials in
 * flight are interrupted (a `--resume` runs them once the server is fixed),
 * and the run fails with `ToolServerFailed` naming the server (exit 1,
 * outcome `tool_server_failed`), rather than failing every later trial.
 *
 * @since 0.5.0
 */
import { Schema, type Stream } from "effect"
import type { AgentEvalTrial } from "../../domain/Trial.ts"
import { stopAfter } from "../../internal/stopAfter.ts"
import { placedFields, placedMessage } from "../../domain/internal/where.ts"

/**
 * A tool server the run needs is gone: the run stopped (exit code 1).
 * `where` is the server's flag and spec (`--tools mcp:npx server`), known
 * when it failed before the first trial; `problem` is what it did, as its
 * `McpServerFailed` says it (after `where`; the whole of a trial's recorded
 * error, which keeps only the words); `trial_id` the trial that met it and
 * was recorded, absent when the run stopped before its first trial.
 *
 * @category errors
 * @since 0.5.0
 */
export class ToolServerFailed extends Schema.TaggedError<ToolServerFailed>()("ToolServerFailed", {
  ...placedFields,
  trial_id: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    const server = placedMessage(this)
    return this.trial_id === undefined
      ? `${server}; the run stopped before its first trial`
      : `${server}; the run stopped (trial recorded; --resume runs the rest once the server works)`
  }
  /** A stop on the way, not bad input: the command exits 1. */
  get exitCode(): 1 {
    return 1
  }
}

/** The trial error of a tool server gone for good. */
const FATAL = "McpServerFailed"

/**
 * The trials of `stream` up to and including the first whose error says a
 * tool server is gone for good; then the stream fails with `ToolServerFailed`.
 * `trialOf` reads the trial of an element that carries more than its trial.
 *
 * @category combinators
 * @since 0.5.0
 */
export const stopOnDeadServer = <E, R, A = AgentEvalTrial>(
  stream: Stream.Stream<A, E, R>,
  trialOf: (item: A) => AgentEvalTrial = (item) => item as AgentEvalTrial
): Stream.Stream<A, E | ToolServerFailed, R> =>
  stopAfter(stream, (item) => {
    const trial = trialOf(item)
    return trial.error?.type === FATAL
      ? new ToolServerFailed({ problem: trial.error.message, trial_id: trial.id })
      : undefined
  })

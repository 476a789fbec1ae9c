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

/**
 * A tool server the run needs is gone: the run stopped (exit code 1).
 *
 * @category errors
 * @since 0.5.0
 */
export class ToolServerFailed extends Schema.TaggedError<ToolServerFailed>()("ToolServerFailed", {
  message: Schema.String
}) {
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
 *
 * @category combinators
 * @since 0.5.0
 */
export const stopOnDeadServer = <E, R>(
  stream: Stream.Stream<AgentEvalTrial, E, R>
): Stream.Stream<AgentEvalTrial, E | ToolServerFailed, R> =>
  stopAfter(stream, (trial) =>
    trial.error?.type === FATAL
      ? new ToolServerFailed({
        message: `${trial.error.message}; the run stopped (trial recorded; --resume runs the rest once the server works)`
      })
      : undefined)

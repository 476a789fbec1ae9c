/**
 * The port a tool source implements: how its `--tools` spec is recognized,
 * parsed, shown and connected. The registry (`ToolSources`) lists the
 * sources; `--tools` parsing, its help and the README's table of tool
 * sources are derived from it, so a new source is one file and one entry.
 *
 * @since 0.5.0
 */
import { type Duration, type Effect, Schema, type Scope } from "effect"
import type { HttpClient } from "effect/http"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import type { Setting } from "../../sandbox/Setting.ts"
import type { Tools } from "./Loop.ts"
import { placedFields, placedMessage } from "../../domain/internal/where.ts"

/**
 * A parsed `--tools` spec: its source's tag and the source's own fields.
 *
 * @category models
 * @since 0.5.0
 */
export type Spec = { readonly _tag: string } & { readonly [field: string]: unknown }

/**
 * What connecting may need: a source's resources (an MCP server's process)
 * live as long as the scope it is connected in (the run, or one trial with
 * `--mcp-per-trial`).
 *
 * @category models
 * @since 0.5.0
 */
export type Requirements = Scope.Scope | ChildProcessSpawner | HttpClient.HttpClient

/**
 * A tool server the trials need is gone: it did not answer `initialize` or
 * `tools/list` within `--mcp-timeout`, or it died again after its one
 * restart. The trial fails with it (never a tool error the model sees) and
 * the run stops (exit 1). The message names the server, the step, and ends
 * with the last lines of the server's stderr.
 *
 * @category errors
 * @since 0.5.0
 */
export class McpServerFailed extends Schema.TaggedError<McpServerFailed>()("McpServerFailed", {
  /** The flag and spec of the server (`--tools mcp:npx server`). */
  where: Schema.String,
  /** What the server did or failed to do (`did not answer tools/list within 30s (--mcp-timeout)`). */
  problem: Schema.String,
  /** The end of the server's stderr as the message shows it (`; the server's stderr: ...`), empty when it wrote none. */
  stderr: Schema.String
}) {
  override get message(): string {
    return `${this.where}: the MCP server ${this.problem}${this.stderr}`
  }
}

/**
 * A `--tools` source that cannot be connected: a module without tools, a
 * tool whose schema gives no JSON Schema, an MCP server that cannot be
 * started, two sources with a tool of one name (bad input: exit 2). `where`
 * is the flag and spec at fault (`--tools module:tools.ts`) when there is
 * one, and `problem` what is wrong there; the message is the two joined.
 *
 * @category errors
 * @since 0.7.0
 */
export class ToolConnectError extends Schema.TaggedError<ToolConnectError>()("ToolConnectError", {
  ...placedFields
}) {
  override get message(): string {
    return placedMessage(this)
  }
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
}

/**
 * How a source connects: paths in the spec are resolved from `cwd`; an MCP
 * server must answer `initialize` and `tools/list` within `mcpTimeout`
 * (default 30 seconds). On a `--workspace` run, `sandbox` is the run's
 * setting the processes a trial starts run under (`exec`'s commands, a
 * per-trial MCP stdio server), `workspace` the trial's folder when the
 * source is connected for one trial, and `execTimeout` `--exec-timeout`.
 *
 * @category models
 * @since 0.5.0
 */
export interface ConnectOptions {
  readonly cwd: string
  readonly mcpTimeout?: Duration.Duration | undefined
  readonly sandbox?: Setting | undefined
  readonly workspace?: string | undefined
  readonly execTimeout?: Duration.Duration | undefined
}

/**
 * A tool source.
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolSource<S extends Spec = any> {
  readonly tag: S["_tag"]
  readonly matches: (text: string) => boolean
  /** The spec's shape, for messages and the docs. */
  readonly usage: string
  /** What the source is, one line, for the README's table. */
  readonly doc: string
  /** The spec of a text it matches; a string is the problem, worded for `--tools`. */
  readonly parse: (text: string) => S | string
  /** The spec as text again (what a run's definition records). */
  readonly format: (spec: S) => string
  /** Whether it holds state a trial may change (an MCP server): `--mcp-per-trial` connects it per trial. */
  readonly stateful: boolean
  /**
   * Its tools with their handlers; a failure is `ToolConnectError`, worded
   * for `--tools`, or `McpServerFailed` for a server that did not answer in time.
   */
  readonly connect: (spec: S, options: ConnectOptions) => Effect.Effect<Tools, ToolConnectError | McpServerFailed, Requirements>
}

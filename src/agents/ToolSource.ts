/**
 * The port a tool source implements: how its `--tools` spec is recognized,
 * parsed, shown and connected. The registry (`ToolSources`) lists the
 * sources; `--tools` parsing, its help and the README's table of tool
 * sources are derived from it, so a new source is one file and one entry.
 *
 * @since 0.5.0
 */
import type { Effect, Scope } from "effect"
import type { HttpClient } from "effect/http"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import type { Tools } from "./ToolLoop.ts"

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
  /** Its tools with their handlers; a failure is the problem, worded for `--tools`. */
  readonly connect: (spec: S, options: { readonly cwd: string }) => Effect.Effect<Tools, string, Requirements>
}

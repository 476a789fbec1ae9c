/**
 * The port an agent kind implements: how its `--agent` spec is recognized,
 * parsed, shown, recorded and built. The registry (`AgentKinds`) lists the
 * kinds; the CLI's help, `--agent` parsing and the README's table of agent
 * kinds are derived from it, so a new kind is one file and one entry there.
 *
 * @since 0.3.0
 */
import { type Duration, type Effect, type Redacted, Schema } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../domain/Agent.ts"
import type * as Request from "../domain/Request.ts"
import type { RetryPolicy } from "../runner/Policy.ts"
import type { Setting } from "../sandbox/Setting.ts"
import type { McpServerFailed, Requirements, Spec as ToolSpec, ToolConnectError } from "./tools/Source.ts"
import { placedFields, placedMessage } from "../domain/internal/where.ts"

/**
 * A parsed `--agent` spec: its kind's tag and the kind's own fields.
 *
 * @category models
 * @since 0.3.0
 */
export type Spec = { readonly _tag: string } & { readonly [field: string]: unknown }

/**
 * An `--agent` spec that cannot be built: a module without the export, a
 * kind that needs `--model`, `--tools` with an agent that runs no tool loop,
 * a model layer that failed (bad input: exit 2). `where` is the flag and
 * spec at fault (`--agent module:agent.ts`) when the problem is worded
 * under it, and `problem` what is wrong; the message is the two joined.
 *
 * @category errors
 * @since 0.7.0
 */
export class AgentBuildError extends Schema.TaggedError<AgentBuildError>()("AgentBuildError", {
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
 * What building an agent may need besides its spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface BuildOptions {
  /** `--model`, for kinds that name a model. */
  readonly model: string | undefined
  /** The key of kinds that send one (`OPENAI_API_KEY`). */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Where a path in the spec is resolved from. */
  readonly cwd: string
  /** `--system`, `--temperature`, `--max-output-tokens`, `--model-seed`, `--header`, `--request`, for kinds that ask a model. */
  readonly request?: Request.Options | undefined
  /** `--tools`: the sources of the tools an agent that acts may call. */
  readonly tools?: ReadonlyArray<ToolSpec> | undefined
  /** `--max-turns`: a tool loop's model turns at most (default 10). */
  readonly maxTurns?: number | undefined
  /** `--tool-parallelism`: a turn's tool calls run at once at most (default 4). */
  readonly toolParallelism?: number | undefined
  /** `--mcp-per-trial`: connect the tools once per trial instead of once per run. */
  readonly mcpPerTrial?: boolean | undefined
  /** `--mcp-timeout`: how long an MCP server may take to answer `initialize`, then `tools/list` (default 30s). */
  readonly mcpTimeout?: Duration.Duration | undefined
  /** The run's retry policy, for the model calls inside a tool loop. */
  readonly retry?: RetryPolicy | undefined
  /** A `--workspace` run's sandbox setting: the processes a trial's tools start run under it. */
  readonly sandboxSetting?: Setting | undefined
  /** `--exec-timeout`: how long one command of the `exec` tool may run (default 60s). */
  readonly execTimeout?: Duration.Duration | undefined
}

/**
 * An agent kind.
 *
 * @category models
 * @since 0.3.0
 */
export interface AgentKind<S extends Spec = any> {
  /** The `_tag` of the specs it parses. */
  readonly tag: S["_tag"]
  /** Whether a spec's text is of this kind (`sim`, `module:...`, `http://...`). */
  readonly matches: (text: string) => boolean
  /** The spec's shape where the kinds are listed in a message: `module:PATH[#export]`. */
  readonly usage: string
  /** The spec's shape in `--agent`'s help, with its defaults when it has options. */
  readonly help: string
  /** What the kind is, one line, for the README's table. */
  readonly doc: string
  /** The spec of a text it matches; a string is the problem, worded for `--agent`. */
  readonly parse: (text: string) => S | string
  /** The spec as text again, every default written out. */
  readonly format: (spec: S) => string
  /**
   * The spec as a run's definition records it (`--resume` compares it): no
   * secret, paths resolved by `resolve`, only what changes the results.
   */
  readonly recorded: (spec: S, resolve: (file: string) => string) => string
  /** A file the spec reads (an output may not replace it). */
  readonly input?: ((spec: S) => string | undefined) | undefined
  /** Whether `--model` is the model it asks (recorded beside the agent). */
  readonly usesModel?: boolean | undefined
  /** Whether it runs `--tools` (a tool loop); `--tools` is refused for the other kinds. */
  readonly usesTools?: boolean | undefined
  /**
   * Whether it answers a conversation (`trial.conversation`), so it can talk
   * with a simulated user; `--user` is refused for the other kinds.
   */
  readonly usesConversation?: boolean | undefined
  /**
   * The agent, built in the run's scope (which its resources, an MCP
   * server's process, live as long as); a failure is `AgentBuildError`,
   * worded for `--agent`, `ToolConnectError` for `--tools` that cannot be
   * connected, or `McpServerFailed` for a tool server that did not answer
   * in time (not bad input: the run stops with exit 1).
   */
  readonly build: (
    spec: S,
    options: BuildOptions
  ) => Effect.Effect<Agent<unknown, HttpClient.HttpClient>, AgentBuildError | ToolConnectError | McpServerFailed, Requirements>
}

/**
 * An agent that acts: the tool loop (`ToolLoop`) over a `LanguageModel` and
 * the tools of `--tools` sources. The model is built once per run; the tools
 * are connected once per run (an MCP stdio server started at the run's start
 * and stopped at its end), or once per trial with `mcpPerTrial`, for
 * servers that keep state.
 *
 * @since 0.5.0
 */
import { Context, type Duration, Effect, Layer, Schema } from "effect"
import type { LanguageModel } from "effect/ai"
import type { Agent, TrialContext } from "../../domain/Agent.ts"
import { AgentBuildError, type BuildOptions } from "../Kind.ts"
import type { RetryPolicy } from "../../runner/Policy.ts"
import type { Setting } from "../../sandbox/Setting.ts"
import { DEFAULT_TIMEOUT } from "./internal/mcp.ts"
import * as ToolLoop from "./Loop.ts"
import * as ResponseCache from "../../cache/ResponseCache.ts"
import * as PerTrial from "./PerTrial.ts"
import * as ToolSources from "./Sources.ts"
import { placedFields, placedMessage } from "../../domain/internal/where.ts"

/**
 * A trial's tools could not be connected (`--mcp-per-trial`): `where` and
 * `problem` are the `ToolConnectError`'s (the flag and spec at fault, and
 * what is wrong there); the message is the two joined.
 *
 * @category errors
 * @since 0.5.0
 */
export class ToolSourceError extends Schema.TaggedError<ToolSourceError>()("ToolSourceError", {
  ...placedFields
}) {
  override get message(): string {
    return placedMessage(this)
  }
}

/**
 * How the agent runs its loop.
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  readonly tools: ReadonlyArray<ToolSources.Spec>
  readonly maxTurns: number
  readonly toolParallelism: number
  /** Connect the tools once per trial instead of once per run. */
  readonly mcpPerTrial?: boolean | undefined
  /** How long an MCP server may take to answer `initialize`, then `tools/list` (default 30 seconds). */
  readonly mcpTimeout?: Duration.Duration | undefined
  readonly retry?: RetryPolicy | undefined
  /** The model the usage is priced as. */
  readonly model?: string | undefined
  readonly cwd: string
  readonly sources?: ReadonlyArray<ToolSources.ToolSource> | undefined
  /** The run's sandbox setting (a `--workspace` run): `exec`'s commands and per-trial MCP stdio servers run under it. */
  readonly sandbox?: Setting | undefined
  /** `--exec-timeout`: how long one `run_command` may run (default 60 seconds). */
  readonly execTimeout?: Duration.Duration | undefined
}

/**
 * The loop's defaults: 10 turns, 4 tool calls at once, 30 seconds for an
 * MCP server to answer `initialize` (then `tools/list`).
 *
 * @category defaults
 * @since 0.5.0
 */
export const defaults = { maxTurns: 10, toolParallelism: 4, mcpTimeout: DEFAULT_TIMEOUT } as const

/**
 * The loop's options from an agent kind's build options (its flags), the
 * defaults where they are silent; `model` is the model the usage is priced as.
 *
 * @category constructors
 * @since 0.10.0
 */
export const optionsOf = (build: BuildOptions, model: string | undefined): Options => ({
  tools: build.tools ?? [],
  maxTurns: build.maxTurns ?? defaults.maxTurns,
  toolParallelism: build.toolParallelism ?? defaults.toolParallelism,
  mcpPerTrial: build.mcpPerTrial,
  mcpTimeout: build.mcpTimeout,
  sandbox: build.sandboxSetting,
  execTimeout: build.execTimeout,
  retry: build.retry,
  model,
  cwd: build.cwd
})

/**
 * The agent, built in the current scope (the run's): the model's layer built
 * once, the tools connected once unless `mcpPerTrial`. A failure is
 * `AgentBuildError` (the model's layer failed), `ToolConnectError` (a
 * `--tools` source cannot be connected), or `McpServerFailed` for an MCP
 * server that did not answer within `mcpTimeout` (per trial with
 * `mcpPerTrial`: the trial fails with it, and the run stops).
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = <E>(
  model: Layer.Layer<LanguageModel.LanguageModel, E, ToolSources.Requirements>,
  options: Options
): Effect.Effect<
  Agent<ToolLoop.MaxTurns | ToolLoop.ModelError | ToolSourceError | ToolSources.McpServerFailed>,
  AgentBuildError | ToolSources.ToolConnectError | ToolSources.McpServerFailed,
  ToolSources.Requirements
> =>
  Effect.gen(function*() {
    const services = yield* Effect.context<ToolSources.Requirements>()
    const modelContext = yield* Layer.build(model).pipe(
      Effect.mapError((e) => new AgentBuildError({ problem: `the model's layer failed: ${String((e as { message?: unknown })?.message ?? e)}` }))
    )
    const connectOptions: ToolSources.ConnectOptions = {
      cwd: options.cwd,
      mcpTimeout: options.mcpTimeout,
      sandbox: options.sandbox,
      execTimeout: options.execTimeout
    }
    // A spec with a placeholder (`{workspace}`) is started once per trial,
    // inside it, whatever `mcpPerTrial` says: it is each trial's own.
    const { fixed, templated } = PerTrial.split(options.tools, options.sources)
    const perTrial = options.mcpPerTrial === true
    const connect = (connectWith: ToolSources.ConnectOptions) => ToolSources.connectAll(fixed, connectWith, options.sources)
    const shared = perTrial ? undefined : yield* connect(connectOptions)
    // Per trial, the stateless sources (module tools) are still connected once
    // here first, so a bad one stops the run at its start, not every trial.
    if (shared === undefined) {
      const stateless = fixed.filter((spec) => !ToolSources.sourceOf(spec, options.sources).stateful)
      if (stateless.length > 0) yield* ToolSources.connectAll(stateless, connectOptions, options.sources)
    }
    const loopOptions = (tools: ToolLoop.Tools, trial: TrialContext | undefined): ToolLoop.Options => ({
      tools,
      maxTurns: options.maxTurns,
      toolParallelism: options.toolParallelism,
      retry: options.retry,
      model: options.model,
      conversation: trial?.conversation,
      history: trial?.history
    })
    const sourceError = (e: ToolSources.ToolConnectError) =>
      Effect.fail(new ToolSourceError({ ...(e.where === undefined ? undefined : { where: e.where }), problem: e.problem }))
    const agent: Agent<ToolLoop.MaxTurns | ToolLoop.ModelError | ToolSourceError | ToolSources.McpServerFailed> = (task, trial) =>
      (shared !== undefined && templated.length === 0
        ? ToolLoop.run(task, loopOptions(shared, trial))
        : Effect.scoped(
          Effect.gen(function*() {
            // The trial's own servers start in its workspace (in the run's sandbox, when there is one).
            const trialOptions: ToolSources.ConnectOptions = { ...connectOptions, workspace: trial?.workspace }
            const base = shared ?? (yield* connect(trialOptions))
            if (templated.length === 0) return base
            const own = yield* PerTrial.connect(templated, task, trial, trialOptions, options.sources)
            const tools = fixed.length === 0 ? own : ToolSources.combine(base, own)
            return typeof tools === "string" ? yield* new ToolSources.ToolConnectError({ where: "--tools", problem: tools }) : tools
          }).pipe(
            Effect.catchTag("ToolConnectError", sourceError),
            Effect.flatMap((tools) => ToolLoop.run(task, loopOptions(tools, trial)))
          )
        )).pipe(
          Effect.provideContext(Context.merge(services, modelContext)),
          // Each model turn's key has the trial's epoch, and counts for its record (`--cache`).
          Effect.provideService(ResponseCache.CurrentTrial, trial)
        )
    return agent
  })

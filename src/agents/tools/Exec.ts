/**
 * `exec` as a tool source: the model gets one tool, `run_command`
 * (`{ command: string }`), that runs `sh -c COMMAND` in the trial's
 * workspace under the run's sandbox setting (bubblewrap with
 * `--sandbox bwrap`, under the watchdog otherwise), bounded by
 * `--exec-timeout` (default 60 seconds, never beyond `--sandbox-timeout`).
 * The tool's result is the exit code and the last lines of stdout and
 * stderr, scrubbed of secrets; a command past its timeout has its process
 * group killed, and the result says so (the model sees it, the trial goes
 * on). A run refuses `--tools exec` without `--workspace`.
 *
 * @since 0.9.0
 */
import { Duration, Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import * as ResponseCache from "../../cache/ResponseCache.ts"
import * as Setting from "../../sandbox/Setting.ts"
import { parametersOf } from "./internal/parameters.ts"
import type { Tools } from "./Loop.ts"
import { ToolConnectError, type ToolSource } from "./Source.ts"

type ExecSpec = { readonly _tag: "Exec" }

/**
 * The tool's name, as the model calls it.
 *
 * @category constants
 * @since 0.9.0
 */
export const TOOL_NAME = "run_command"

/**
 * How long a command may run when `--exec-timeout` is not given.
 *
 * @category constants
 * @since 0.9.0
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.seconds(60)

/**
 * Of each stream, the last lines the result keeps, and at most this many
 * characters of them (the end).
 *
 * @category constants
 * @since 0.9.0
 */
export const LAST_LINES = 50
const MAX_CHARS = 8000

const PARAMETERS = {
  type: "object",
  properties: {
    command: { type: "string", description: "A shell command, run with sh -c in the workspace" }
  },
  required: ["command"],
  additionalProperties: false
} as const

const DESCRIPTION = "Run a shell command (sh -c) in your workspace folder; the result is its exit code and the last lines of its " +
  "stdout and stderr. A command that runs too long is killed."

/**
 * What a command gave the model: its exit code (null when a signal or the
 * timeout ended it), the signal, whether the timeout killed it, and the
 * last lines of its output.
 *
 * @category models
 * @since 0.9.0
 */
export interface Result {
  readonly exit_code: number | null
  readonly signal?: string | undefined
  readonly timed_out?: string | undefined
  readonly stdout: string
  readonly stderr: string
}

const capped = (text: string): string => text.length <= MAX_CHARS ? text : `[...]${text.slice(-MAX_CHARS)}`

/**
 * Runs one command as the tool does: in `workspace` under `setting`,
 * bounded by `timeout` (and the setting's own). A failure is the tool error
 * the model sees (the command could not be started).
 *
 * @category running
 * @since 0.9.0
 */
export const runCommand = (
  setting: Setting.Setting,
  command: string,
  workspace: string,
  timeout: Duration.Duration
): Effect.Effect<Result, string> =>
  Setting.run(setting, command, workspace, { timeout, tailLines: LAST_LINES }).pipe(
    Effect.map((outcome): Result => ({
      exit_code: outcome.exitCode,
      ...(outcome.signal === null ? undefined : { signal: outcome.signal }),
      stdout: capped(outcome.stdout),
      stderr: capped(outcome.stderr)
    })),
    Effect.catchTags({
      SandboxTimeout: (e) =>
        Effect.succeed<Result>({
          exit_code: null,
          timed_out: `killed after ${Duration.format(Duration.millis(e.timeoutMs))}: the command did not finish in time`,
          stdout: capped(e.stdout),
          stderr: capped(e.stderr)
        }),
      SandboxSpawnFailed: (e) => Effect.fail(e.message)
    })
  )

/**
 * The source.
 *
 * @category sources
 * @since 0.9.0
 */
export const source: ToolSource<ExecSpec> = {
  tag: "Exec",
  matches: (text) => text === "exec" || text.startsWith("exec:"),
  usage: "exec",
  doc: "`run_command` (`{command}`): runs `sh -c COMMAND` in the trial's workspace (needs `--workspace`), in the " +
    "`--sandbox`, bounded by `--exec-timeout` (default 60s); the result is the exit code and the last " +
    `${LAST_LINES} lines of stdout and stderr`,
  parse: (text) => text === "exec" ? { _tag: "Exec" } : `--tools ${text}: expected exec (it takes no options)`,
  format: () => "exec",
  stateful: false,
  connect: (_spec, options) =>
    Effect.gen(function*() {
      const where = "--tools exec"
      const setting = options.sandbox ?? Setting.fromFlags({})
      const timeout = options.execTimeout ?? DEFAULT_TIMEOUT
      const parameters = yield* Effect.mapError(
        parametersOf({ parameters: PARAMETERS }, TOOL_NAME),
        (problem) => new ToolConnectError({ where, problem })
      )
      const tool = Tool.dynamic(TOOL_NAME, {
        description: DESCRIPTION,
        parameters: parameters.jsonSchema as never,
        success: Schema.Unknown,
        failure: Schema.String
      })
      const handler = (params: unknown) =>
        parameters.check(params).pipe(
          Effect.flatMap((args) =>
            Effect.flatMap(Effect.service(ResponseCache.CurrentTrial), (trial) =>
              trial?.workspace === undefined
                ? Effect.fail(`${TOOL_NAME}: this trial has no workspace (${where} needs --workspace)`)
                : runCommand(setting, (args as { readonly command: string }).command, trial.workspace, timeout))
          )
        )
      const toolkit = Toolkit.make(tool)
      return yield* (Effect.provide(toolkit, toolkit.toLayer({ [TOOL_NAME]: handler } as never)) as unknown as Effect.Effect<Tools>)
    })
}

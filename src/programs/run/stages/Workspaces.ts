/**
 * The workspace stage (`--workspace`): the pool of the run's workspaces,
 * opened for the run (killed runs' stale ones removed first), each
 * trial's workspace made at its admission (`admit`, given to the runner) and
 * removed, or kept, once it is scored (`release`, after the scoring stage).
 *
 * @since 0.9.0
 */
import { Console, Duration, Effect, Function, Stream } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import type { AgentEvalTrial } from "../../../domain/Trial.ts"
import type { TrialUnit } from "../../../runner/Runner.ts"
import * as Setting from "../../../sandbox/Setting.ts"
import type { World } from "../../../scoring/Kind.ts"
import * as Pool from "../../../workspace/Pool.ts"
import * as Setup from "../../../workspace/Setup.ts"
import * as Workspace from "../../../workspace/Workspace.ts"
import { redactText } from "../../../internal/redact.ts"
import type { RunConfig } from "../Config.ts"
import type { MutableCounts } from "../internal/counts.ts"

/**
 * The folder the run's workspaces go under (`--workspace-dir`, default the
 * system temp folder), absolute.
 *
 * @category constructors
 * @since 0.9.0
 */
export const rootOf = (config: RunConfig): string => path.resolve(config.workspaceDir ?? os.tmpdir())

/**
 * The trials' worlds a `check:` scorer runs in, with `--workspace`: the
 * run's sandbox setting, and each trial's workspace,
 * `<root>/<run-id>/<trial-id>`, as the pool makes it. `runId` is read when
 * a trial is scored: the scorers are built before the resume check says
 * which run this is. Undefined without `--workspace`.
 *
 * @category constructors
 * @since 0.9.0
 */
export const world = (config: RunConfig, sandbox: Setting.Setting, runId: () => string | undefined): World | undefined => {
  if (config.workspace !== true) return undefined
  const root = rootOf(config)
  return {
    sandbox,
    workspaceOf: (_task, trial) => {
      const id = runId()
      return id === undefined ? undefined : Workspace.trialDir(root, id, trial.id)
    }
  }
}

/**
 * The run's pool in the current scope, or undefined without `--workspace`.
 * The stale workspaces of killed runs under the same folder (a kill -9
 * skips every finalizer) are removed first, and their count said on stderr.
 * `--setup` runs under the run's sandbox `setting`.
 *
 * @category constructors
 * @since 0.9.0
 */
export const open = (config: RunConfig, runId: string, counts: MutableCounts, setting: Setting.Setting) =>
  Effect.gen(function*() {
    if (config.workspace !== true) return undefined
    const root = rootOf(config)
    for (const { dir, workspaces } of yield* Workspace.removeStale(root)) {
      counts.staleWorkspaces += workspaces
      yield* Console.error(`workspaces: removed ${workspaces} stale workspace${workspaces === 1 ? "" : "s"} of a killed run: ${dir}`)
    }
    const pool = yield* Pool.make({
      root,
      runId,
      parallelism: config.parallelism,
      from: config.workspaceFrom === undefined ? undefined : path.resolve(config.workspaceFrom),
      setup: config.setup,
      keep: config.keepWorkspaces ?? "none",
      ops: Pool.nodeOps(setup(setting))
    })
    counts.workspaces = pool
    return pool
  })

const linesOf = (text: string): ReadonlyArray<string> => text === "" ? [] : text.split("\n")

/**
 * `--setup` under the run's sandbox setting: the command (placeholders
 * expanded) run with `sh -c` in the workspace, bounded by the setting's
 * timeout (or `timeout`, when shorter); exit 0 passes, anything else is
 * `SetupFailed` with its last lines (stdout and stderr as they came),
 * scrubbed.
 *
 * @category running
 * @since 0.9.0
 */
export const setup = (setting: Setting.Setting): Pool.Ops["setup"] => (command, dir, timeout) => {
  const shown = redactText(command)
  return Setting.run(setting, command, dir, { ...(timeout === undefined ? undefined : { timeout }), tailLines: Setup.LAST_LINES, merge: true }).pipe(
    Effect.catchTags({
      SandboxTimeout: (e) =>
        Effect.fail(
          new Setup.SetupFailed({
            command: shown,
            exit_code: null,
            reason: `did not finish within ${Duration.format(Duration.millis(e.timeoutMs))} (killed)`,
            last_lines: linesOf(e.stdout)
          })
        ),
      SandboxSpawnFailed: (e) =>
        Effect.fail(new Setup.SetupFailed({ command: shown, exit_code: null, reason: `could not start: ${e.message}`, last_lines: [] }))
    }),
    Effect.flatMap((outcome) =>
      outcome.exitCode === 0 ? Effect.void : Effect.fail(
        new Setup.SetupFailed({
          command: shown,
          exit_code: outcome.exitCode,
          reason: outcome.exitCode === null ? `ended by ${outcome.signal ?? "a signal"}` : `exit code ${outcome.exitCode}`,
          last_lines: linesOf(outcome.stdout)
        })
      )
    )
  )
}

/**
 * The runner's `admit` of a pool: the unit's workspace.
 *
 * @category combinators
 * @since 0.9.0
 */
export const admit = (pool: Pool.Pool | undefined) =>
  pool === undefined ? undefined : (unit: TrialUnit) => pool.admit(unit.task, unit.epoch)

/**
 * Each trial passed on once its workspace is removed (or kept).
 *
 * @category combinators
 * @since 0.9.0
 */
export const release: {
  (pool: Pool.Pool | undefined): <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>) => Stream.Stream<AgentEvalTrial, E | Workspace.WorkspaceError, R>
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, pool: Pool.Pool | undefined): Stream.Stream<AgentEvalTrial, E | Workspace.WorkspaceError, R>
} = Function.dual(
  2,
  <E, R>(self: Stream.Stream<AgentEvalTrial, E, R>, pool: Pool.Pool | undefined) =>
    pool === undefined ? self : Stream.tap(self, (trial) => pool.release(trial))
)

/**
 * The summary's lines about workspaces: those kept, and how many were made.
 *
 * @category formatting
 * @since 0.9.0
 */
export const summaryLines = (counts: MutableCounts): ReadonlyArray<string> => {
  const pool = counts.workspaces
  if (pool === undefined) return []
  const kept = pool.kept()
  return [
    `workspaces: ${pool.made()} made, ${pool.removed()} removed, peak ${pool.peak()} live` +
    (counts.staleWorkspaces > 0 ? `, ${counts.staleWorkspaces} stale removed at the start` : "") +
    (kept.length > 0 ? `, ${kept.length} kept:` : ""),
    ...kept.map((dir) => `  ${dir}`)
  ]
}

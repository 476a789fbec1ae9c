/**
 * A run's sandbox setting: the implementation its trials' processes start
 * in (`--sandbox`), what they may reach of the network
 * (`--sandbox-network`), how long each command may run (`--sandbox-timeout`)
 * and the cap on its address space (`--sandbox-memory`). Every process a
 * trial starts (`--setup`, a `check:` command, the `exec` tool, a per-trial
 * MCP stdio server) goes through the one setting the run made, so they are
 * bounded and confined alike.
 *
 * @since 0.9.0
 */
import { Duration, Effect } from "effect"
import * as Run from "./Run.ts"
import type { Command, Env, Implementation, Kind, Network, SandboxUnavailable } from "./Sandbox.ts"
import { sandboxes } from "./Sandboxes.ts"

/**
 * How long a sandboxed command may run when `--sandbox-timeout` is not given.
 *
 * @category constants
 * @since 0.9.0
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.minutes(10)

/**
 * A run's setting.
 *
 * @category models
 * @since 0.9.0
 */
export interface Setting {
  readonly implementation: Implementation
  readonly network: Network
  /** Each command's bound (a command may ask for a shorter one). */
  readonly timeout: Duration.Duration
  readonly memoryBytes?: number | undefined
}

/**
 * What the flags give: each may be absent (`none`, `none`, 10 minutes, no cap).
 *
 * @category models
 * @since 0.9.0
 */
export interface Flags {
  readonly sandbox?: Kind | undefined
  readonly sandboxNetwork?: Network | undefined
  readonly sandboxTimeout?: Duration.Duration | undefined
  readonly sandboxMemory?: number | undefined
}

/**
 * The setting the flags ask for, unchecked.
 *
 * @category constructors
 * @since 0.9.0
 */
export const fromFlags = (flags: Flags): Setting => ({
  implementation: sandboxes[flags.sandbox ?? "none"],
  network: flags.sandboxNetwork ?? "none",
  timeout: flags.sandboxTimeout ?? DEFAULT_TIMEOUT,
  memoryBytes: flags.sandboxMemory
})

/**
 * The setting the flags ask for, once its implementation proved it works
 * here: bubblewrap missing or unusable fails with `SandboxUnavailable`
 * (exit 2), before any trial.
 *
 * @category constructors
 * @since 0.9.0
 */
export const make = (flags: Flags, env?: Env): Effect.Effect<Setting, SandboxUnavailable> => {
  const setting = fromFlags(flags)
  return setting.implementation.check(env).pipe(Effect.as(setting))
}

/**
 * Runs `command` in `workspace` under the setting: its network, its memory
 * cap, and the setting's timeout (or `timeout`, when shorter). A non-zero
 * exit is an outcome; the timeout is `SandboxTimeout` naming the command.
 *
 * @category running
 * @since 0.9.0
 */
export const run = (
  setting: Setting,
  command: Command,
  workspace: string,
  bounds?: Partial<Run.Bounds>
): Effect.Effect<Run.Outcome, Run.SandboxTimeout | Run.SandboxSpawnFailed> => {
  const own = bounds?.timeout === undefined ? setting.timeout : Duration.fromInputUnsafe(bounds.timeout)
  return Run.run(setting.implementation, command, {
    ...bounds,
    workspace,
    network: setting.network,
    memoryBytes: setting.memoryBytes,
    timeout: Duration.min(own, setting.timeout)
  })
}

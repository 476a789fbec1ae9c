/**
 * The flags that make each trial's world, as a run's definition records
 * them: `--workspace`, what seeds it, its setup and the sandbox its
 * commands run in. Another world is another run, so `--resume` refuses it;
 * where the workspaces go, which are kept and how long a command may run
 * only change how trials are run, and may differ.
 *
 * @internal
 */
import { redactText } from "../../../internal/redact.ts"
import type { Kind, Network } from "../../../sandbox/Sandbox.ts"
import { shellQuote } from "../../../workspace/Placeholders.ts"

/**
 * The run's flags the world is read from.
 *
 * @internal
 */
export interface WorldInput {
  readonly workspace?: boolean | undefined
  readonly workspaceFrom?: string | undefined
  readonly setup?: string | undefined
  readonly sandbox?: Kind | undefined
  readonly sandboxNetwork?: Network | undefined
  readonly sandboxMemory?: number | undefined
}

/**
 * The world's flags, in order (none without `--workspace`): the seed
 * folder resolved, the setup command scrubbed of secrets.
 *
 * @internal
 */
export const worldOf = (input: WorldInput, resolve: (file: string) => string): ReadonlyArray<string> =>
  input.workspace !== true ? [] : [
    "--workspace",
    ...(input.workspaceFrom === undefined ? [] : [`--workspace-from ${shellQuote(resolve(input.workspaceFrom))}`]),
    ...(input.setup === undefined ? [] : [`--setup ${shellQuote(redactText(input.setup))}`]),
    `--sandbox ${input.sandbox ?? "none"}`,
    ...(input.sandboxNetwork === undefined || input.sandboxNetwork === "none" ? [] : [`--sandbox-network ${input.sandboxNetwork}`]),
    ...(input.sandboxMemory === undefined ? [] : [`--sandbox-memory ${input.sandboxMemory}B`])
  ]

/**
 * The world's flags as one text, for a resume's refusal.
 *
 * @internal
 */
export const worldText = (flags: ReadonlyArray<string>): string => flags.length === 0 ? "no --workspace" : flags.join(" ")

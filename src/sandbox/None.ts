/**
 * No sandbox: the command runs as it is, in its workspace, with the
 * process's file system and network. Its memory cap still applies. The
 * default.
 *
 * @since 0.9.0
 */
import { Effect } from "effect"
import { argv, type Implementation, limited } from "./Sandbox.ts"

/**
 * The `none` sandbox.
 *
 * @category implementations
 * @since 0.9.0
 */
export const none: Implementation = {
  kind: "none",
  wrap: (command, options) => {
    const [program, ...args] = limited(argv(command), options.memoryBytes)
    return { command: program, args, cwd: options.cwd ?? options.workspace ?? process.cwd() }
  },
  check: () => Effect.void
}

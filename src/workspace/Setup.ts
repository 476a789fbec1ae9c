/**
 * `--setup COMMAND`: a shell command run inside a trial's fresh workspace
 * before the agent's first call. A non-zero exit (or a signal, or no exit
 * within the timeout) fails the trial with `SetupFailed`, which carries the
 * command's last lines, scrubbed of secrets. The command runs under the
 * run's sandbox setting, like every process a trial starts: the run's
 * workspace stage (programs/run/stages/Workspaces.ts) gives the pool that
 * way of running it.
 *
 * @since 0.9.0
 */
import { Schema } from "effect"

/**
 * Lines of the command's output a `SetupFailed` keeps (its last).
 *
 * @category constants
 * @since 0.9.0
 */
export const LAST_LINES = 20

/**
 * The setup command of a trial failed: `exit_code` is its exit code (null
 * when a signal or the timeout ended it), `last_lines` its last lines of
 * output (stdout and stderr as they came).
 *
 * @category errors
 * @since 0.9.0
 */
export class SetupFailed extends Schema.TaggedError<SetupFailed>()("SetupFailed", {
  command: Schema.String,
  exit_code: Schema.NullOr(Schema.Number),
  reason: Schema.String,
  last_lines: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const tail = this.last_lines.length === 0 ? " (no output)" : `; its last lines:\n${this.last_lines.join("\n")}`
    return `--setup ${this.command}: ${this.reason}${tail}`
  }
}

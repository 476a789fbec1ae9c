/**
 * A stdio MCP server dies with the run, even after a SIGKILL of the run and
 * even when it ignores its stdin's end and SIGTERM: it is started through a
 * tiny watchdog, `node -e WATCHDOG -- RUN_PID stderr COMMAND ARGS...`. The spawner
 * starts the watchdog as the leader of a process group of its own; the
 * server (and whatever it starts) is in that group and talks to the run
 * over the inherited stdin and stdout, so nothing is copied on the way.
 *
 * The watchdog itself, and what it does when the server or the run ends,
 * is sandbox/Watchdog.ts.
 *
 * @internal
 */
import { ChildProcess } from "effect/process"
import * as Watchdog from "../../../sandbox/Watchdog.ts"

/**
 * The command that starts `command args` under the watchdog, in its own
 * process group; on Windows (no process groups to kill) the command itself.
 *
 * @internal
 */
export const command = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string }
): ChildProcess.Command =>
  process.platform === "win32"
    ? ChildProcess.make(command, [...args], { cwd: options.cwd })
    : ChildProcess.make(process.execPath, [...Watchdog.args("stderr", command, args)], {
      cwd: options.cwd,
      detached: true
    })

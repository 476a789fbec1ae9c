/**
 * A process the run starts dies with the run, even after a SIGKILL of the
 * run and even when it ignores its stdin's end and SIGTERM: it is started
 * through a tiny watchdog, `node -e WATCHDOG -- RUN_PID REPORT COMMAND
 * ARGS...`. The spawner starts the watchdog as the leader of a process group
 * of its own; the command (a stdio MCP server, and whatever it starts) is
 * in that group and talks to the run
 * over the inherited stdin, stdout and stderr, so nothing is copied on the
 * way.
 *
 * - While the run lives, the run stops the command as before: for a server,
 *   stdin closed, then SIGTERM to the group, then SIGKILL to the group (the
 *   watchdog ignores SIGTERM).
 * - Whenever the command exits (on its own too, while the run lives), the
 *   watchdog SIGKILLs the group, itself included, so what the command
 *   started cannot outlive it with no watchdog left (a SIGKILL of the run
 *   before its scope closes). The watchdog's own exit is then that SIGKILL,
 *   so the command's exit is reported first, as `REPORT` says: `stderr`
 *   writes an exit code other than 0 to stderr, where the run's messages
 *   quote it. (A `--setup`, `check:` or `exec` command under the `none`
 *   sandbox is not started this way: one reaper per run holds those,
 *   `Reaper.ts`.)
 * - When the run is gone (the watchdog's parent is no longer `RUN_PID`,
 *   polled every 200 ms; stdin has closed already), the watchdog sends
 *   SIGTERM to the group, then, 2 seconds later, SIGKILL to the group,
 *   itself included. No native code (`prctl(PR_SET_PDEATHSIG)` would need
 *   it), so it works wherever Node runs with process groups (Linux, macOS).
 *
 * @since 0.9.0
 */

/**
 * The watchdog's source: plain JavaScript for `node -e`, started as
 * `node -e script -- RUN_PID REPORT COMMAND ARGS...` (`REPORT`: `stderr`).
 *
 * @category watchdog
 * @since 0.9.0
 */
export const script = [
  `"use strict"`,
  `const { spawn } = require("node:child_process")`,
  `const [runPid, report, command, ...args] = process.argv.slice(1)`,
  `const signal = (sig) => { try { process.kill(-process.pid, sig) } catch { try { server.kill(sig) } catch {} } }`,
  `let orphaned = false`,
  `const orphan = () => {`,
  `  if (orphaned) return`,
  `  orphaned = true`,
  `  signal("SIGTERM")`,
  `  setTimeout(() => signal("SIGKILL"), 2000)`,
  `}`,
  `process.on("SIGTERM", () => {})`,
  `process.on("SIGINT", () => {})`,
  `process.on("SIGHUP", () => {})`,
  `const server = spawn(command, args, { stdio: "inherit" })`,
  `server.on("error", (e) => {`,
  `  process.stderr.write("cannot start " + command + ": " + e.message + "\\n")`,
  `  process.exit(127)`,
  `})`,
  `server.on("exit", (code, sig) => {`,
  `  if (report === "stderr" && code !== 0) process.stderr.write(command + " exited with " + (code === null ? "signal " + sig : "code " + code) + "\\n")`,
  `  signal("SIGKILL")`,
  `  process.exit(code ?? 128 + (require("node:os").constants.signals[sig] ?? 0))`,
  `})`,
  `setInterval(() => { if (process.ppid !== Number(runPid)) orphan() }, 200)`
].join("\n")

/**
 * How the watchdog reports the command's exit: `stderr` (an exit code
 * other than 0, as a line).
 *
 * @category watchdog
 * @since 0.9.0
 */
export type Report = "stderr"

/**
 * The arguments of `node` that start `command args` under the watchdog.
 *
 * @category watchdog
 * @since 0.9.0
 */
export const args = (report: Report, command: string, commandArgs: ReadonlyArray<string>): ReadonlyArray<string> =>
  ["-e", script, "--", String(process.pid), report, command, ...commandArgs]

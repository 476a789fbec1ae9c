/**
 * One reaper per run for the commands that do not die with the run by
 * themselves (the `none` sandbox's `--setup`, `check:` and `exec`
 * commands): a small Node process, started once, at the first such
 * command, that holds the process groups of the commands running now. The
 * run tells it each group as it starts the command (`+PGID`, written at
 * once after the spawn) and when the command has ended (`-PGID`). When the
 * run is gone, even by SIGKILL (its end of the reaper's stdin closes, or
 * the reaper's parent changes), the reaper sends SIGTERM to every group it
 * holds, then SIGKILL two seconds later, and exits.
 *
 * One Node start per run instead of one per command (a watchdog per
 * command costs a Node start, 40 to 100 ms, each time). What it gives up:
 * a SIGKILL of the run in the few microseconds between a spawn and the
 * write of its group leaves that one command running.
 *
 * @since 0.9.0
 */
import { type ChildProcess, spawn } from "node:child_process"

/**
 * The reaper's source: plain JavaScript for `node -e`, started as
 * `node -e script -- RUN_PID`.
 *
 * @category reaper
 * @since 0.9.0
 */
export const script = [
  `"use strict"`,
  `const runPid = Number(process.argv[1])`,
  `const groups = new Set()`,
  `const signal = (sig) => { for (const g of groups) { try { process.kill(-g, sig) } catch {} } }`,
  `let ending = false`,
  `const end = () => {`,
  `  if (ending) return`,
  `  ending = true`,
  `  if (groups.size === 0) process.exit(0)`,
  `  signal("SIGTERM")`,
  `  setTimeout(() => { signal("SIGKILL"); process.exit(0) }, 2000)`,
  `}`,
  `process.on("SIGTERM", () => {})`,
  `process.on("SIGINT", () => {})`,
  `process.on("SIGHUP", () => {})`,
  `let rest = ""`,
  `process.stdin.setEncoding("utf8")`,
  `process.stdin.on("data", (chunk) => {`,
  `  const lines = (rest + chunk).split("\\n")`,
  `  rest = lines.pop()`,
  `  for (const line of lines) {`,
  `    const group = Number(line.slice(1))`,
  `    if (!Number.isInteger(group) || group <= 0) continue`,
  `    if (line[0] === "+") groups.add(group)`,
  `    else groups.delete(group)`,
  `  }`,
  `})`,
  `process.stdin.on("end", end)`,
  `process.stdin.on("error", end)`,
  `setInterval(() => { if (process.ppid !== runPid) end() }, 200)`
].join("\n")

let reaper: ChildProcess | undefined

const started = (): ChildProcess | undefined => {
  if (reaper !== undefined && reaper.exitCode === null && reaper.signalCode === null && reaper.stdin?.writable === true) return reaper
  const child = spawn(process.execPath, ["-e", script, "--", String(process.pid)], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"]
  })
  // It must not keep the run alive, nor crash it when it is gone.
  child.on("error", () => undefined)
  child.stdin!.on("error", () => undefined)
  child.unref()
  ;(child.stdin as unknown as { unref?: () => void }).unref?.()
  reaper = child
  return child
}

/**
 * Puts the process group `pgid` (a command just started as the leader of
 * its own group) in the reaper's hands: it is killed if the run dies
 * before `release`.
 *
 * @category reaper
 * @since 0.9.0
 */
export const hold = (pgid: number | undefined): void => {
  if (pgid === undefined) return
  started()?.stdin?.write(`+${pgid}\n`)
}

/**
 * Takes the process group `pgid` back from the reaper: its command has
 * ended and its group is killed by the run.
 *
 * @category reaper
 * @since 0.9.0
 */
export const release = (pgid: number | undefined): void => {
  if (pgid === undefined || reaper === undefined) return
  if (reaper.stdin?.writable === true) reaper.stdin.write(`-${pgid}\n`)
}

/**
 * The reaper's pid, when one runs (for tests).
 *
 * @category reaper
 * @since 0.9.0
 */
export const pid = (): number | undefined => reaper?.pid

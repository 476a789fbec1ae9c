/**
 * Whether a process is still running, by pid, for the tests that check what
 * a kill left behind.
 */
import * as fs from "node:fs"

/** Alive and not a zombie (a zombie has ended; only its exit status is left). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0] !== "Z"
  } catch {
    return false
  }
}

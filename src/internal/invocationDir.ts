/**
 * The directory a command was run in. `npm run trials` and `npm start` run
 * the script in the package's root and pass the directory npm was started
 * in as `INIT_CWD`: paths in flags are meant from there, as typed.
 *
 * @internal
 */
import * as fs from "node:fs"

const real = (dir: string): string | undefined => {
  try {
    return fs.realpathSync(dir)
  } catch {
    return undefined
  }
}

/**
 * Where relative paths resolve from: `INIT_CWD` when this process is npm's
 * `trials` or `start` script of this package (`npm_lifecycle_event`, and the
 * current directory is the package root `root`), otherwise undefined (stay
 * where the process was started). A test child started by `npm test`, or
 * anything npm started for another script, keeps its own directory.
 *
 * @internal
 */
export const invocationDir = (env: NodeJS.ProcessEnv, cwd: string, root: string): string | undefined => {
  const init = env["INIT_CWD"]
  const event = env["npm_lifecycle_event"]
  if (init === undefined || init === "" || (event !== "trials" && event !== "start")) return undefined
  if (real(cwd) !== real(root)) return undefined
  const dir = real(init)
  return dir === undefined || dir === real(cwd) ? undefined : dir
}

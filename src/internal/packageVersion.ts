/**
 * The version `--version` prints: package.json's own, so a release changes
 * it in one place. It is the nearest package.json named `agent-trials` in
 * the folders above this file: two up from `src/internal/` and from
 * `dist/internal/` in a package, further from a build placed elsewhere (the
 * benchmark's `.bench/cli-HASH/`).
 *
 * @internal
 */
import * as fs from "node:fs"

/**
 * The `version` of the package.json at `url`; a file without one is an
 * error naming it.
 *
 * @internal
 */
export const versionOf = (url: URL): string => {
  const json = JSON.parse(fs.readFileSync(url, "utf8")) as { readonly version?: unknown }
  if (typeof json.version !== "string" || json.version === "") {
    throw new Error(`${url.pathname} has no version`)
  }
  return json.version
}

/**
 * This package's version: that of the nearest package.json named
 * `agent-trials` in the folders above `from` (this module).
 *
 * @internal
 */
export const packageVersion = (from: string = import.meta.url): string => {
  let dir = new URL(".", from)
  for (;;) {
    const file = new URL("package.json", dir)
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, "utf8")) as { readonly name?: unknown }).name === "agent-trials") {
      return versionOf(file)
    }
    const parent = new URL("..", dir)
    if (parent.href === dir.href) throw new Error(`no package.json of agent-trials above ${from}`)
    dir = parent
  }
}

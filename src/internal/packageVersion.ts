/**
 * The version `--version` prints: package.json's own, read beside the code
 * (two folders up from this file, in `src/internal/` and in
 * `dist/internal/` alike), so a release changes it in one place.
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
 * This package's version.
 *
 * @internal
 */
export const packageVersion = (): string => versionOf(new URL("../../package.json", import.meta.url))

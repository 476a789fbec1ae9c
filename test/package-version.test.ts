/**
 * `--version` prints package.json's version, read beside the code, not a
 * copy of it (issue 22, rule 7).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { packageVersion, versionOf } from "../src/internal/packageVersion.ts"
import { removeTempDirs, repoRoot, run, tempDir } from "./cli-helpers.ts"

afterAll(() => removeTempDirs())

describe("the version", () => {
  it("is the version of the package.json it is given; one without a version is an error naming it", () => {
    const dir = tempDir()
    const file = path.join(dir, "package.json")
    fs.writeFileSync(file, JSON.stringify({ name: "x", version: "9.8.7-test" }))
    assert.strictEqual(versionOf(pathToFileURL(file)), "9.8.7-test")
    fs.writeFileSync(file, JSON.stringify({ name: "x" }))
    assert.throws(() => versionOf(pathToFileURL(file)), `${file} has no version`)
  })

  it("is found in the folders above the code, skipping other packages' package.json (a build placed in .bench/cli-HASH/)", () => {
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "agent-trials", version: "1.2.3" }))
    const build = path.join(dir, ".bench", "cli-abc")
    fs.mkdirSync(path.join(build, "internal"), { recursive: true })
    fs.writeFileSync(path.join(dir, ".bench", "package.json"), JSON.stringify({ name: "other", version: "0.0.1" }))
    const module = pathToFileURL(path.join(build, "internal", "packageVersion.js")).href
    assert.strictEqual(packageVersion(module), "1.2.3")
    assert.throws(() => packageVersion(pathToFileURL("/packageVersion.js").href), "no package.json of agent-trials above")
  })

  it("packageVersion is this repository's package.json version, and --version prints it", async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
    assert.strictEqual(packageVersion(), pkg.version)
    const result = await run([], { command: "--version" })
    assert.include(result.stdout, pkg.version)
  })
})

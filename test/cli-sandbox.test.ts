/**
 * `run --sandbox` at the command line: the flags checked before anything
 * starts. `--sandbox bwrap` on a machine without bubblewrap exits 2 before
 * any trial, saying how to install it, and writes no result; the sandbox
 * flags without `--workspace`, and `--sandbox-network` without a sandbox,
 * are bad input naming the flag.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, removeTempDirs, run, tempDir } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const bin = path.resolve("node_modules", ".bin")

describe("run --sandbox: checked before any trial", () => {
  it("bwrap not on PATH: exit 2 before any trial, saying how to install it, and no result written", { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    // Only Node and tsx on PATH: no bwrap.
    const r = await run(
      ["--synthetic", "3", "--agent", "sim", "--out", out, "--no-progress", "--workspace", "--workspace-dir", dir, "--sandbox", "bwrap"],
      { env: { PATH: bin } }
    )
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, "--sandbox bwrap needs bubblewrap, and bwrap is not on PATH: install it with `apt-get install -y bubblewrap`")
    assert.isFalse(fs.existsSync(out), "a results file was written")
  })

  it("the sandbox flags need --workspace, and --sandbox-network needs --sandbox bwrap (exit 2, naming the flag)", { timeout: 60_000 }, async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--sandbox", "bwrap"], "--sandbox needs --workspace (it is about each trial's workspace)"],
      [["--sandbox-timeout", "5s"], "--sandbox-timeout needs --workspace (it is about each trial's workspace)"],
      [["--sandbox-memory", "1GB"], "--sandbox-memory needs --workspace (it is about each trial's workspace)"],
      [["--workspace", "--sandbox-network", "full"], "--sandbox-network needs --sandbox bwrap (without a sandbox, commands have the host's network)"],
      [["--workspace", "--sandbox", "chroot"], "Expected --sandbox to be none or bwrap, got \"chroot\""]
    ]
    for (const [flags, message] of cases) {
      const r = await run(["--synthetic", "2", "--agent", "sim", "--out", path.join(tempDir(), "o.jsonl"), "--no-progress", ...flags])
      assert.strictEqual(r.code, 2, `${flags.join(" ")}: ${describeResult(r)}`)
      assert.include(r.stderr, message, flags.join(" "))
    }
  })
})

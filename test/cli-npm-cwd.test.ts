/**
 * Paths in flags resolve from the directory the command was run in, also
 * through `npm run trials` (npm runs the script in the package root and
 * passes the directory it was started in as INIT_CWD): the real npm, run
 * from a temporary folder with `--prefix` pointing at this package.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { invocationDir } from "../src/internal/invocationDir.ts"
import { assertExactlyOnce, readTrials, removeTempDirs, repoRoot, syntheticIds, tempDir } from "./cli-helpers.ts"

afterAll(() => removeTempDirs())

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {}
    // Nothing of the npm that runs the tests (its INIT_CWD, its lifecycle event) reaches the child.
    for (const [key, value] of Object.entries(process.env)) {
      if (key.startsWith("AGENT_TRIALS_") || key === "OPENAI_API_KEY" || key === "INIT_CWD" || key.startsWith("npm_")) continue
      env[key] = value
    }
    const child = spawn("npm", ["--prefix", repoRoot, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
    child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("paths in flags", () => {
  it("npm run trials from another folder: --out, --summary and a module: agent resolve from that folder", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "agents"))
    fs.writeFileSync(path.join(dir, "agents", "echo.mjs"), "export default (task) => ({ output_text: `here:${task.id}` })\n")
    const result = await npm([
      "run", "trials", "--", "run", "--synthetic", "5", "--agent", "module:agents/echo.mjs", "--score", "none",
      "--out", "rel/out.jsonl", "--summary", "rel/summary.json", "--no-progress"
    ], dir)
    assert.strictEqual(result.code, 0, `${result.stdout}\n${result.stderr}`)
    const out = path.join(dir, "rel", "out.jsonl")
    const trials = readTrials(out)
    assertExactlyOnce(trials, syntheticIds(5))
    assert.deepStrictEqual(trials.map((t) => t.output?.output_text).sort(), [0, 1, 2, 3, 4].map((i) => `here:synthetic-${i}`))
    assert.isTrue(fs.existsSync(path.join(dir, "rel", "summary.json")))
    assert.isFalse(fs.existsSync(path.join(repoRoot, "rel")), "nothing written in the package root")
  }, 120_000)

  it("INIT_CWD is honoured only for this package's own trials and start scripts, run from its root", () => {
    const dir = tempDir()
    const env = (event: string) => ({ INIT_CWD: dir, npm_lifecycle_event: event })
    assert.strictEqual(invocationDir(env("trials"), repoRoot, repoRoot), fs.realpathSync(dir))
    assert.strictEqual(invocationDir(env("start"), repoRoot, repoRoot), fs.realpathSync(dir))
    // A test child under `npm test`, another script, another package's folder, no INIT_CWD.
    assert.isUndefined(invocationDir(env("test"), repoRoot, repoRoot))
    assert.isUndefined(invocationDir(env("bench"), repoRoot, repoRoot))
    assert.isUndefined(invocationDir(env("trials"), dir, repoRoot))
    assert.isUndefined(invocationDir({ npm_lifecycle_event: "trials" }, repoRoot, repoRoot))
  })
})

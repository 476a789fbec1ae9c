/**
 * A world per trial with a real MCP server: the published
 * `@modelcontextprotocol/server-filesystem`, started once per trial over
 * its own workspace (`{workspace}` in the `--tools` spec). 24 trials at
 * parallelism 8 each write a file through it and list the folder: each
 * sees its own file and no other trial's, and no workspace is left.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const SERVER = "node node_modules/@modelcontextprotocol/server-filesystem/dist/index.js {workspace}"

describe("run --workspace with the real filesystem MCP server per trial", () => {
  it("24 trials at parallelism 8: each trial's server sees only the file its trial wrote", { timeout: 180_000 }, async () => {
    const dir = tempDir()
    const root = path.join(dir, "ws")
    const out = path.join(dir, "out.jsonl")
    const names = Array.from({ length: 24 }, (_, i) => `n${i}`)
    const file = writeJsonl(path.join(dir, "tasks.jsonl"), names.map((name) => ({ id: name, inputs: { name, note: `note of ${name}` } })))
    const r = await run([
      "--tasks", file, "--agent", "effect-ai:test/fixtures/model-layer-files.ts#layer", "--out", out, "--no-progress",
      "--parallelism", "8", "--workspace", "--workspace-dir", root, "--tools", `mcp:stdio:${SERVER}`
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const trials = readTrials(out)
    assert.strictEqual(trials.length, 24)
    for (const trial of trials) {
      assert.strictEqual(trial.status, "completed", JSON.stringify(trial.error))
      const listing = trial.output?.output_text ?? ""
      assert.include(listing, `[FILE] note-${trial.task_id}.txt`)
      assert.strictEqual(listing.match(/note-/g)?.length, 1, `trial ${trial.task_id} saw: ${listing}`)
      const calls = trial.output?.trajectory?.filter((s) => s.type === "tool_call").map((s) => (s as { name?: string }).name)
      assert.deepStrictEqual(calls, ["list_allowed_directories", "write_file", "list_directory"])
    }
    assert.include(r.stdout, "workspaces: 24 made, 24 removed, peak 8 live")
    assert.deepStrictEqual(fs.readdirSync(root), [])
  })
})

/**
 * `run --workspace` end to end: each trial's workspace seeded from
 * `--workspace-from` and the task's `files`, `--setup` run inside it, a path
 * that leaves it an `InvalidTask` of that trial, a failing setup a
 * `SetupFailed` with its last lines; the workspaces removed after the run,
 * or the failed ones kept and named.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, readTrials, removeTempDirs, run, start, tempDir, waitFor, writeJsonl } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const AGENT = "module:test/fixtures/agent-workspace.ts"

const tasks = (dir: string) =>
  writeJsonl(path.join(dir, "tasks.jsonl"), [
    { id: "a", inputs: {}, files: { "in.txt": "alpha", "sub/deep.txt": "x" } },
    { id: "b", inputs: {}, files: { "in.txt": "beta" } },
    { id: "escape", inputs: {}, files: { "../evil.txt": "x" } },
    { id: "bad-setup", inputs: {}, files: { "in.txt": "fail" } }
  ])

describe("run --workspace", () => {
  it("seeds each trial's workspace, runs --setup in it, and removes it after the run", { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const seed = path.join(dir, "seed")
    fs.mkdirSync(seed)
    fs.writeFileSync(path.join(seed, "README.seed"), "from the seed folder")
    const root = path.join(dir, "ws")
    const out = path.join(dir, "out.jsonl")
    const setup = `if [ "$(cat in.txt)" = fail ]; then echo setting up {task_id}; echo it broke >&2; exit 4; fi; ` +
      `printf '%s:%s\\n' "$(cat in.txt)" {trial_id} > answer.txt`
    const r = await run([
      "--tasks", tasks(dir), "--agent", AGENT, "--out", out, "--no-progress", "--parallelism", "2",
      "--workspace", "--workspace-dir", root, "--workspace-from", seed, "--setup", setup
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const byTask = new Map(readTrials(out).map((t) => [t.task_id, t]))
    assert.strictEqual(byTask.get("a")!.output?.output_text, "alpha:a:1|README.seed,answer.txt,in.txt,sub")
    assert.strictEqual(byTask.get("b")!.output?.output_text, "beta:b:1|README.seed,answer.txt,in.txt")
    const escape = byTask.get("escape")!
    assert.strictEqual(escape.status, "failed")
    assert.strictEqual(escape.error?.type, "InvalidTask")
    assert.strictEqual(escape.error?.message, `files: "../evil.txt" has ..: it would leave the workspace`)
    const bad = byTask.get("bad-setup")!
    assert.strictEqual(bad.error?.type, "SetupFailed")
    assert.strictEqual(bad.error?.message, `--setup ${setup.replace("{task_id}", "bad-setup").replace("{trial_id}", "bad-setup:1")}: exit code 4; its last lines:\nsetting up bad-setup\nit broke`)
    // Every workspace removed, and the run's folder with them; nothing escaped.
    assert.deepStrictEqual(fs.readdirSync(root), [])
    assert.isFalse(fs.existsSync(path.join(dir, "evil.txt")))
    assert.include(r.stdout, "workspaces: 4 made, 4 removed, peak 2 live")
  })

  it("--keep-workspaces=failed keeps the failed trials' workspaces and names them", { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const root = path.join(dir, "ws")
    const out = path.join(dir, "out.jsonl")
    const r = await run([
      "--tasks", tasks(dir), "--agent", AGENT, "--out", out, "--no-progress",
      "--workspace", "--workspace-dir", root, "--setup", `test "$(cat in.txt)" != fail`, "--keep-workspaces=failed"
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const [runDir] = fs.readdirSync(root)
    assert.deepStrictEqual(fs.readdirSync(path.join(root, runDir!)).sort(), ["bad-setup:1", "escape:1"])
    assert.strictEqual(fs.readFileSync(path.join(root, runDir!, "bad-setup:1", "in.txt"), "utf8"), "fail")
    assert.include(r.stdout, "workspaces: 4 made, 2 removed, peak 4 live, 2 kept:")
    assert.include(r.stdout, `  ${path.join(root, runDir!, "escape:1")}`)
    assert.include(r.stdout, `  ${path.join(root, runDir!, "bad-setup:1")}`)
  })

  it("--setup without --workspace is bad input naming the flag", { timeout: 60_000 }, async () => {
    const r = await run(["--synthetic", "2", "--agent", AGENT, "--setup", "true", "--no-progress"])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, "--setup needs --workspace")
  })
})

describe("run --workspace with a per-trial --tools server ({workspace} in its spec)", () => {
  it("24 trials at parallelism 8: each trial's server keeps its state in its own workspace and sees only its own note", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const root = path.join(dir, "ws")
    const out = path.join(dir, "out.jsonl")
    const ids = Array.from({ length: 24 }, (_, i) => `n${i}`)
    const file = writeJsonl(path.join(dir, "tasks.jsonl"), ids.map((id) => ({ id, inputs: { note: `note of ${id}` } })))
    const r = await run([
      "--tasks", file, "--agent", "effect-ai:test/fixtures/model-layer-notes.ts#layer", "--out", out, "--no-progress",
      "--parallelism", "8", "--workspace", "--workspace-dir", root,
      "--tools", "mcp:stdio:env STATE_FILE={workspace}/state.json node test/fixtures/mcp-state-server.mjs"
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const trials = readTrials(out)
    assert.strictEqual(trials.length, 24)
    for (const trial of trials) {
      assert.strictEqual(trial.status, "completed", JSON.stringify(trial.error))
      // The `notes` tool's result, as the model saw it: this trial's note only.
      assert.strictEqual(trial.output?.output_text, JSON.stringify(JSON.stringify([`note of ${trial.task_id}`])))
    }
    assert.include(r.stdout, "workspaces: 24 made, 24 removed, peak 8 live")
    assert.deepStrictEqual(fs.readdirSync(root), [])
  })
})

describe("run --tools with {workspace} but no --workspace", () => {
  it("is bad input naming --tools", { timeout: 60_000 }, async () => {
    const r = await run([
      "--synthetic", "2", "--agent", "effect-ai:test/fixtures/model-layer-notes.ts#layer", "--no-progress",
      "--tools", "mcp:stdio:env STATE_FILE={workspace}/state.json node test/fixtures/mcp-state-server.mjs"
    ])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, "--tools mcp:stdio:env STATE_FILE={workspace}/state.json node test/fixtures/mcp-state-server.mjs: {workspace} needs --workspace")
  })
})

describe("run --workspace after a kill -9", () => {
  it("the next run removes the killed run's stale workspaces and says how many", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const root = path.join(dir, "ws")
    const out = path.join(dir, "out.jsonl")
    const args = [
      "--synthetic", "6", "--agent", AGENT, "--no-progress", "--parallelism", "3",
      "--workspace", "--workspace-dir", root
    ]
    // The setup holds every admitted trial: 3 workspaces exist when the run is killed.
    const child = start([...args, "--out", out, "--setup", "sleep 60"])
    const live = () => fs.existsSync(root) ? fs.readdirSync(root).flatMap((run) => fs.readdirSync(path.join(root, run)).filter((n) => n !== ".agent-trials-owner")) : []
    await waitFor("3 live workspaces", () => child.exited() || live().length === 3)
    child.killGroup("SIGKILL")
    const killed = await child.result
    assert.strictEqual(killed.signal, "SIGKILL", describeResult(killed))
    assert.strictEqual(live().length, 3)
    const [killedRun] = fs.readdirSync(root)
    const r = await run([...args, "--out", path.join(dir, "next.jsonl")])
    assert.strictEqual(r.code, 0, describeResult(r))
    assert.include(r.stderr, `workspaces: removed 3 stale workspaces of a killed run: ${path.join(root, killedRun!)}`)
    assert.include(r.stdout, "workspaces: 6 made, 6 removed, peak 3 live, 3 stale removed at the start")
    assert.deepStrictEqual(live(), [])
    assert.strictEqual(readTrials(path.join(dir, "next.jsonl")).length, 6)
  })
})

describe("run --workspace-dir that cannot hold workspaces", () => {
  it("is bad input (exit 2) naming --workspace-dir and the path", { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const file = path.join(dir, "a-file")
    fs.writeFileSync(file, "not a folder")
    const r = await run(["--synthetic", "2", "--agent", AGENT, "--no-progress", "--out", path.join(dir, "o.jsonl"), "--workspace", "--workspace-dir", file])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, `--workspace-dir: workspace ${file}: ENOTDIR`)
  })
})

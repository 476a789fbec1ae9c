/**
 * The processes a trial starts, through the real command, in the run's
 * sandbox: after a kill -9 of the run while an `exec` or `--setup` command
 * runs, none of its processes remains (checked by pid), under `none` (the
 * run's reaper, which exits once it has killed them) and `bwrap`
 * (`--die-with-parent`); `--sandbox-timeout` kills a
 * slow `--setup`; a per-trial MCP stdio server runs in bubblewrap with the
 * trial's workspace (its write outside it refused), and a server shared by
 * the run's trials runs there too, with nothing writable but its private /tmp.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, start, tempDir, waitFor, writeJsonl } from "./cli-helpers.ts"
import { alive } from "./pids.ts"
import { answer, callTools, firstUser, modelServer } from "./tool-model-server.ts"

const made: Array<string> = []
const left: Array<number> = []
afterAll(() => {
  killAll()
  for (const pid of left) if (alive(pid)) process.kill(pid, "SIGKILL")
  removeTempDirs()
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

/** The pids of the processes whose command line has `marker` (the run's own left out). */
const withMarker = (marker: string, except: number): Array<number> =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && Number(entry) !== except && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker)
      } catch {
        return false
      }
    })
    .map(Number)
    .filter(alive)

/** The parent pid of `pid`, from /proc. */
const parentOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

describe("after a kill -9 of the run, no process a trial started remains", () => {
  const cases = [
    { sandbox: "none", what: "exec", seconds: 3101 },
    { sandbox: "bwrap", what: "exec", seconds: 3102 },
    { sandbox: "none", what: "setup", seconds: 3103 },
    { sandbox: "bwrap", what: "setup", seconds: 3104 }
  ] as const
  for (const { sandbox, what, seconds } of cases) {
    it.live(`--sandbox ${sandbox}, a ${what} command`, () =>
      Effect.gen(function*() {
        const model = yield* modelServer((turn, body) =>
          turn === 1 ? callTools([{ id: "c1", name: "run_command", args: { command: firstUser(body) } }]) : answer("done")
        )
        const dir = tempDir()
        const root = path.join(dir, "ws")
        const command = `echo $$ > pid; sleep ${seconds}`
        const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "t", inputs: { instruction: what === "exec" ? command : "hi" } }])
        const child = start([
          "--agent", `openai:${model.base}/v1`, "--model", "m", "--tools", "exec", "--tasks", tasks, "--out", path.join(dir, "out.jsonl"),
          "--no-progress", "--score", "none", "--workspace", "--workspace-dir", root, "--sandbox", sandbox,
          ...(what === "setup" ? ["--setup", command] : [])
        ], { env: { OPENAI_API_KEY: "k" } })
        const marker = `sleep ${seconds}`
        const pidFile = () => {
          const [runDir] = fs.existsSync(root) ? fs.readdirSync(root) : []
          return runDir === undefined ? undefined : path.join(root, runDir, "t:1", "pid")
        }
        yield* Effect.promise(() =>
          waitFor(`the ${what} command to run`, () => child.exited() || (withMarker(marker, child.child.pid!).some((pid) => fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "sleep") && fs.existsSync(pidFile() ?? "/nonexistent") && fs.readFileSync(pidFile()!, "utf8").trim() !== ""))
        )
        assert.isFalse(child.exited(), describeResult({ code: null, signal: null, stdout: child.stdout(), stderr: child.stderr() }))
        const started = withMarker(marker, child.child.pid!)
        // Under none the run's reaper holds the command's group: one process, started by the run, whose source names it.
        const reaper = sandbox === "none" ? withMarker("const runPid", child.child.pid!).filter((pid) => parentOf(pid) === child.child.pid) : []
        if (sandbox === "none") assert.strictEqual(reaper.length, 1, `one reaper started by the run, not ${reaper.length}`)
        const pids = [...started, ...reaper]
        // Under none the shell's own pid (the pid file) is among them; in bwrap's pid namespace `$$` is not a host pid.
        if (sandbox === "none") assert.include(pids, Number(fs.readFileSync(pidFile()!, "utf8").trim()))
        const names = pids.map((pid) => fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim())
        assert.include(names, "sleep")
        if (sandbox === "bwrap") assert.include(names, "bwrap")
        left.push(...pids)
        child.child.kill("SIGKILL")
        const killed = yield* Effect.promise(() => child.result)
        assert.strictEqual(killed.signal, "SIGKILL")
        yield* Effect.promise(() =>
          waitFor(`the processes ${pids.join(", ")} (${names.join(", ")}) to be gone`, () => pids.every((pid) => !alive(pid)), { timeoutMs: 20_000 })
        )
        for (const pid of pids) assert.isFalse(alive(pid), `process ${pid} is gone`)
      }).pipe(Effect.scoped), { timeout: 120_000 })
  }
})

describe("--sandbox-timeout", () => {
  it("kills a slow --setup: the trial fails as SetupFailed with what it wrote", { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const r = await run([
      "--synthetic", "1", "--agent", "sim", "--out", out, "--no-progress", "--workspace", "--workspace-dir", path.join(dir, "ws"),
      "--sandbox-timeout", "1s", "--setup", "echo started; sleep 30"
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const [trial] = readTrials(out)
    assert.strictEqual(trial!.status, "failed")
    assert.strictEqual(trial!.error?.type, "SetupFailed")
    assert.strictEqual(trial!.error?.message, "--setup echo started; sleep 30: did not finish within 1s (killed); its last lines:\nstarted")
  })
})

describe("MCP stdio servers under --sandbox bwrap", () => {
  const notes = "effect-ai:test/fixtures/model-layer-notes.ts#layer"
  const notesTasks = (dir: string, n: number) =>
    writeJsonl(path.join(dir, "tasks.jsonl"), Array.from({ length: n }, (_, i) => ({ id: `n${i}`, inputs: { note: `note of n${i}` } })))

  it("a per-trial server runs in the sandbox with the trial's workspace: each sees its own state", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const r = await run([
      "--tasks", notesTasks(dir, 6), "--agent", notes, "--out", out, "--no-progress", "--parallelism", "3",
      "--workspace", "--workspace-dir", path.join(dir, "ws"), "--sandbox", "bwrap",
      "--tools", "mcp:stdio:env STATE_FILE={workspace}/state.json node test/fixtures/mcp-state-server.mjs"
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const trials = readTrials(out)
    assert.strictEqual(trials.length, 6)
    for (const trial of trials) {
      assert.strictEqual(trial.status, "completed", JSON.stringify(trial.error))
      assert.strictEqual(trial.output?.output_text, JSON.stringify(JSON.stringify([`note of ${trial.task_id}`])))
    }
  })

  it("a per-trial server cannot write outside its workspace (read-only file system); under none it can", { timeout: 120_000 }, async () => {
    const outside = fs.mkdtempSync(path.join(repoRoot, ".sandbox-mcp-test-"))
    made.push(outside)
    const spec = `mcp:stdio:env STATE_FILE=${outside}/{trial_id}.json node test/fixtures/mcp-state-server.mjs`
    for (const sandbox of ["bwrap", "none"] as const) {
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const r = await run([
        "--tasks", notesTasks(dir, 1), "--agent", notes, "--out", out, "--no-progress",
        "--workspace", "--workspace-dir", path.join(dir, "ws"), "--sandbox", sandbox, "--tools", spec
      ])
      const written = path.join(outside, "n0:1.json")
      if (sandbox === "none") {
        assert.strictEqual(r.code, 0, describeResult(r))
        assert.strictEqual(fs.readFileSync(written, "utf8"), JSON.stringify(["note of n0"]))
      } else {
        // The server dies on its refused write, again after its restart: the run stops, naming the server.
        assert.strictEqual(r.code, 1, describeResult(r))
        assert.include(r.stderr, "the MCP server died again after its one restart", r.stderr)
        assert.include(r.stderr, "code: 'EROFS'", r.stderr)
        assert.include(r.stderr, "bwrap exited with code 1", r.stderr)
        assert.isFalse(fs.existsSync(written))
      }
    }
  })

  it("a server shared by the run's trials runs in the sandbox too, with no workspace: it writes only its private /tmp", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const state = `/tmp/agent-trials-shared-${path.basename(dir)}.json`
    const r = await run([
      "--tasks", notesTasks(dir, 2), "--agent", notes, "--out", out, "--no-progress", "--parallelism", "1",
      "--workspace", "--workspace-dir", path.join(dir, "ws"), "--sandbox", "bwrap",
      "--tools", `mcp:stdio:env STATE_FILE=${state} node test/fixtures/mcp-state-server.mjs`
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const byTask = new Map(readTrials(out).map((t) => [t.task_id, t]))
    // One server for the run: the second trial sees the first one's note too.
    assert.strictEqual(byTask.get("n0")!.output?.output_text, JSON.stringify(JSON.stringify(["note of n0"])))
    assert.strictEqual(byTask.get("n1")!.output?.output_text, JSON.stringify(JSON.stringify(["note of n0", "note of n1"])))
    // Its /tmp was its own: nothing of it on the host's.
    assert.isFalse(fs.existsSync(state))
  })
})

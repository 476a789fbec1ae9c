/**
 * Workspaces (`--workspace`): seeding from a folder and the task's files,
 * path escapes as `InvalidTask`, `--setup` and `SetupFailed`, stale
 * cleanup, placeholders; and the gate: at most `parallelism` workspaces live
 * while every trial is held, before its call or before its release.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Latch, Stream } from "effect"
import { TestClock } from "effect/testing"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import * as ResponseCache from "../src/cache/ResponseCache.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runPaired, type TrialUnit } from "../src/runner/Runner.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import * as Placeholders from "../src/workspace/Placeholders.ts"
import * as Pool from "../src/workspace/Pool.ts"
import * as Setup from "../src/workspace/Setup.ts"
import * as Setting from "../src/sandbox/Setting.ts"
import * as Workspaces from "../src/programs/run/stages/Workspaces.ts"
import * as Workspace from "../src/workspace/Workspace.ts"
import { gatedAgent } from "./fixtures.ts"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "ws-test-"))

describe("Workspace.make: seeded from a folder and the task's files", () => {
  it.live("copies the folder, then writes the files (nested folders made), over a stale directory", () =>
    Effect.gen(function*() {
      const root = tmp()
      const from = path.join(root, "seed")
      fs.mkdirSync(path.join(from, "lib"), { recursive: true })
      fs.writeFileSync(path.join(from, "lib", "a.txt"), "from seed")
      fs.writeFileSync(path.join(from, "b.txt"), "seed b")
      const dir = Workspace.trialDir(root, "run-1", "t/1:2")
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, "stale.txt"), "old")
      yield* Workspace.make(dir, { from, task: { id: "t/1", inputs: {}, files: { "b.txt": "task b", "src/x/y.py": "print(1)" } } })
      assert.strictEqual(path.basename(dir), "t%2f1:2")
      assert.deepStrictEqual(fs.readdirSync(dir).sort(), ["b.txt", "lib", "src"])
      assert.strictEqual(fs.readFileSync(path.join(dir, "lib", "a.txt"), "utf8"), "from seed")
      assert.strictEqual(fs.readFileSync(path.join(dir, "b.txt"), "utf8"), "task b")
      assert.strictEqual(fs.readFileSync(path.join(dir, "src/x/y.py"), "utf8"), "print(1)")
      yield* Workspace.remove(dir)
      assert.isFalse(fs.existsSync(dir))
    }))

  it.live("a path that leaves the workspace is InvalidTask of that trial, naming the path", () =>
    Effect.gen(function*() {
      const root = tmp()
      const outside = path.join(root, "outside")
      fs.mkdirSync(outside)
      const from = path.join(root, "seed")
      fs.mkdirSync(from)
      fs.symlinkSync(outside, path.join(from, "link"))
      const problem = (files: unknown, withFrom = false) =>
        Workspace.make(path.join(root, "w"), { ...(withFrom ? { from } : {}), task: { id: "t", inputs: {}, files } }).pipe(
          Effect.flip,
          Effect.map((e) => `${e._tag}: ${e.message}`)
        )
      assert.strictEqual(yield* problem({ "../x": "a" }), `InvalidTask: files: "../x" has ..: it would leave the workspace`)
      assert.strictEqual(yield* problem({ "a/../../x": "a" }), `InvalidTask: files: "a/../../x" has ..: it would leave the workspace`)
      assert.strictEqual(yield* problem({ "/etc/x": "a" }), `InvalidTask: files: "/etc/x" is absolute: it would leave the workspace`)
      assert.strictEqual(yield* problem({ "link/x": "a" }, true), `InvalidTask: files: "link/x" goes through a link: it would leave the workspace`)
      assert.strictEqual(yield* problem({ "x": 1 }), `InvalidTask: files: "x": expected text content, got number`)
      assert.strictEqual(yield* problem(["x"]), `InvalidTask: files: expected an object of relative paths to text ({"relative/path": "content"})`)
      assert.deepStrictEqual(fs.readdirSync(outside), [])
    }))

  it.live("removeStale removes the folders of runs whose process is gone, and nothing else", () =>
    Effect.gen(function*() {
      const root = tmp()
      assert.deepStrictEqual(yield* Workspace.removeStale(path.join(root, "none")), [])
      // A killed run: marked by a pid that no longer exists.
      const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout
      for (const id of ["a:1", "b:1", "c:1"]) fs.mkdirSync(Workspace.trialDir(root, "killed", id), { recursive: true })
      fs.writeFileSync(path.join(Workspace.trialDir(root, "killed", "a:1"), "f"), "x")
      fs.writeFileSync(path.join(Workspace.runDir(root, "killed"), ".agent-trials-owner"), `agent-trials pid ${dead}\n`)
      // A live run (this process), kept workspaces of an ended run (no mark), another program's folder.
      yield* Workspace.claim(root, "live")
      fs.mkdirSync(Workspace.trialDir(root, "live", "z:1"))
      fs.mkdirSync(Workspace.trialDir(root, "ended", "k:1"), { recursive: true })
      fs.mkdirSync(path.join(root, "other"))
      fs.writeFileSync(path.join(root, "other", ".agent-trials-owner"), dead)
      assert.deepStrictEqual(yield* Workspace.removeStale(root), [{ dir: Workspace.runDir(root, "killed"), workspaces: 3 }])
      assert.deepStrictEqual(fs.readdirSync(root).sort(), ["ended", "live", "other"])
      assert.deepStrictEqual(fs.readdirSync(Workspace.runDir(root, "live")).sort(), [".agent-trials-owner", "z:1"])
      yield* Workspace.remove(Workspace.trialDir(root, "live", "z:1"))
      yield* Workspace.unclaim(root, "live")
      assert.deepStrictEqual(fs.readdirSync(root).sort(), ["ended", "other"])
    }))
})

// `--setup` as a run runs it: under the run's sandbox setting (none here).
const runSetup = (command: string, dir: string, options?: { readonly timeout?: Duration.Duration }) =>
  Workspaces.setup(Setting.fromFlags({}))(command, dir, options?.timeout)

describe("--setup inside the workspace (under the run's sandbox setting)", () => {
  it.live("runs in the workspace; a non-zero exit is SetupFailed with the last lines, secrets scrubbed", () =>
    Effect.gen(function*() {
      const dir = tmp()
      // The run's secrets (its command line's keys): every scrubber of the process removes them.
      Redactor.make(["sk-abcdefghijklmnopqrstuvwx"])
      yield* runSetup("echo ready > made.txt", dir)
      assert.strictEqual(fs.readFileSync(path.join(dir, "made.txt"), "utf8"), "ready\n")
      const failed = yield* runSetup("for i in $(seq 1 30); do echo line $i; done; echo sk-abcdefghijklmnopqrstuvwx >&2; exit 3", dir).pipe(Effect.flip)
      assert.strictEqual(failed._tag, "SetupFailed")
      assert.strictEqual(failed.exit_code, 3)
      assert.strictEqual(failed.last_lines.length, Setup.LAST_LINES)
      assert.strictEqual(failed.last_lines[0], "line 12")
      assert.notInclude(failed.message, "sk-abcdefghijklmnopqrstuvwx")
      assert.isTrue(failed.message.startsWith("--setup for i in"))
      assert.include(failed.message, ": exit code 3; its last lines:\nline 12\n")
    }))

  it.live("a command past its timeout is killed and fails naming the command", () =>
    Effect.gen(function*() {
      const failed = yield* runSetup("echo started; sleep 30", tmp(), { timeout: Duration.millis(300) }).pipe(Effect.flip)
      assert.strictEqual(failed.exit_code, null)
      assert.strictEqual(failed.message, "--setup echo started; sleep 30: did not finish within 300ms (killed); its last lines:\nstarted")
    }))
})

describe("Placeholders.expand", () => {
  it("replaces each placeholder by its value, shell-quoted; a missing value is the problem", () => {
    const values = { workspace: "/tmp/r/t 1", trial_id: "t:1", task_id: "t", epoch: 1, task: { metadata: { repo: "a'b" }, inputs: { n: 2 } } }
    assert.deepStrictEqual(Placeholders.expand("env STATE={workspace}/s.json node s.js {trial_id} {epoch}", values), {
      text: "env STATE='/tmp/r/t 1'/s.json node s.js t:1 1"
    })
    assert.deepStrictEqual(Placeholders.expand("git clone {task.metadata.repo} {task.inputs.n} {task_id}", values), {
      text: "git clone 'a'\\''b' 2 t"
    })
    assert.deepStrictEqual(Placeholders.expand("x {task.metadata.none}", values), { problem: "{task.metadata.none} has no value" })
    assert.deepStrictEqual(Placeholders.expand("x {workspace}", { ...values, workspace: undefined }), {
      problem: "{workspace} has no value (it needs --workspace)"
    })
    assert.isTrue(Placeholders.has("mcp:stdio:env S={workspace}/s node s.js"))
    assert.isFalse(Placeholders.has("mcp:stdio:node s.js {not_one}"))
  })
})

// In memory: the pool's counts without touching disk, so the gate test is
// about the bound only.
const memoryOps = (dirs: Set<string>): Pool.Ops => ({
  make: (dir) => Effect.sync(() => void dirs.add(dir)),
  setup: () => Effect.void,
  remove: (dir) => Effect.sync(() => void dirs.delete(dir))
})

const units = (n: number): Stream.Stream<TrialUnit> =>
  Stream.fromIterable(Array.from({ length: n }, (_, i) => ({ task: { id: `t${i}`, inputs: {} }, epoch: 1 })))

describe("gate: at most --parallelism workspaces live", () => {
  it.effect("every agent call held: 8 live, peak 8; all 64 made and removed, peak never above 8", () =>
    Effect.scoped(Effect.gen(function*() {
      const dirs = new Set<string>()
      const pool = yield* Pool.make({ root: "/ws", runId: "r", parallelism: 8, ops: memoryOps(dirs) })
      const probe = new MutableProbe()
      const { agent, gate } = yield* gatedAgent()
      const seen: Array<string | undefined> = []
      const fiber = yield* runPaired(units(64), (task, trial) => {
        seen.push(trial?.workspace)
        return agent(task)
      }, { parallelism: 8, probe, admit: (unit) => pool.admit(unit.task, unit.epoch) }).pipe(
        Stream.tap(({ trial }) => pool.release(trial)),
        Stream.runDrain,
        Effect.forkChild
      )
      yield* TestClock.adjust(0)
      assert.strictEqual(pool.live(), 8)
      assert.strictEqual(pool.peak(), 8)
      assert.strictEqual(dirs.size, 8)
      assert.deepStrictEqual(seen.slice(0, 2), ["/ws/r/t0:1", "/ws/r/t1:1"])
      yield* gate.open
      yield* TestClock.adjust("16 seconds")
      yield* Fiber.join(fiber)
      assert.strictEqual(pool.made(), 64)
      assert.strictEqual(pool.removed(), 64)
      assert.strictEqual(pool.peak(), 8)
      assert.strictEqual(pool.live(), 0)
      assert.strictEqual(dirs.size, 0)
      assert.strictEqual(probe.completed, 64)
    })))

  it.effect("every release held (scoring lags): admission waits, live stays 8 though the calls are done", () =>
    Effect.scoped(Effect.gen(function*() {
      const dirs = new Set<string>()
      const pool = yield* Pool.make({ root: "/ws", runId: "r", parallelism: 8, ops: memoryOps(dirs) })
      const probe = new MutableProbe()
      const scoring = yield* Latch.make(false)
      const fiber = yield* runPaired(units(64), () => Effect.succeed({ output_text: "ok" }), {
        parallelism: 8,
        probe,
        admit: (unit) => pool.admit(unit.task, unit.epoch)
      }).pipe(
        Stream.mapEffect(({ trial }) => scoring.await.pipe(Effect.andThen(pool.release(trial))), { concurrency: 32 }),
        Stream.runDrain,
        Effect.forkChild
      )
      yield* TestClock.adjust(0)
      assert.strictEqual(pool.live(), 8)
      assert.strictEqual(pool.peak(), 8)
      assert.strictEqual(probe.started, 8)
      yield* scoring.open
      yield* Fiber.join(fiber)
      assert.strictEqual(pool.made(), 64)
      assert.strictEqual(pool.peak(), 8)
      assert.strictEqual(pool.live(), 0)
    })))

  it.effect("for parallelism 1, 3 and 8, agent and scoring latencies that vary: peak live within the bound, every workspace removed", () =>
    Effect.gen(function*() {
      for (const parallelism of [1, 3, 8]) {
        const dirs = new Set<string>()
        let maxDirs = 0
        const ops = memoryOps(dirs)
        const counted: Pool.Ops = { ...ops, make: (dir, o) => Effect.tap(ops.make(dir, o), () => Effect.sync(() => void (maxDirs = Math.max(maxDirs, dirs.size)))) }
        const pool = yield* Effect.scoped(Effect.gen(function*() {
          const pool = yield* Pool.make({ root: "/ws", runId: "r", parallelism, ops: counted })
          const fiber = yield* runPaired(units(40), (task) => Effect.sleep(`${(Number(task.id.slice(1)) * 7) % 5} seconds`).pipe(Effect.as({ output_text: "ok" })), {
            parallelism,
            admit: (unit) => pool.admit(unit.task, unit.epoch)
          }).pipe(
            // Scoring lags by a varying time, with more room than the runner.
            Stream.mapEffect(({ trial }) => Effect.sleep(`${(Number(trial.task_id.slice(1)) * 3) % 4} seconds`).pipe(Effect.andThen(pool.release(trial))), {
              concurrency: 16,
              unordered: true
            }),
            Stream.runDrain,
            Effect.forkChild
          )
          yield* TestClock.adjust("1000 seconds")
          yield* Fiber.join(fiber)
          return pool
        }))
        assert.strictEqual(pool.peak(), parallelism, `parallelism ${parallelism}`)
        assert.isAtMost(maxDirs, parallelism)
        assert.strictEqual(pool.made(), 40)
        assert.strictEqual(pool.removed(), 40)
        assert.strictEqual(dirs.size, 0)
      }
    }))

  it.effect("a failed make fails that trial (InvalidTask), the agent not called; keep failed keeps its workspace", () =>
    Effect.gen(function*() {
      const dirs = new Set<string>()
      const calls: Array<string> = []
      const trials = yield* Effect.scoped(Effect.gen(function*() {
        const pool = yield* Pool.make({ root: "/ws", runId: "r", parallelism: 2, ops: { ...memoryOps(dirs), make: (dir, { task }) => task.id === "t1" ? Workspace.make(dir, { task: { ...task, files: { "../x": "" } } }) : Effect.sync(() => void dirs.add(dir)) }, keep: "failed" })
        const out = yield* runPaired(units(3), (task) => Effect.sync(() => calls.push(task.id)).pipe(Effect.as({ output_text: "ok" })), {
          parallelism: 2,
          admit: (unit) => pool.admit(unit.task, unit.epoch)
        }).pipe(Stream.tap(({ trial }) => pool.release(trial)), Stream.runCollect)
        assert.deepStrictEqual(pool.kept(), ["/ws/r/t1:1"])
        return out
      }))
      const t1 = trials.find(({ trial }) => trial.task_id === "t1")!.trial
      assert.strictEqual(t1.status, "failed")
      assert.strictEqual(t1.error?.type, "InvalidTask")
      assert.deepStrictEqual(calls.sort(), ["t0", "t2"])
    }))
})

describe("module tools on a --workspace run", () => {
  it.effect("a module tool's execute gets the trial and its workspace in its context", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const tools = yield* ModuleTools.fromExport({
        where: {
          description: "Says where it runs",
          parameters: { type: "object", properties: {} },
          execute: (_args: unknown, context: { readonly workspace?: string; readonly trial?: { readonly id: string } }) => {
            seen.push([context.workspace, context.trial?.id])
            return "ok"
          }
        }
      }, "--tools test")
      const handle = tools.handle as unknown as (name: string, params: unknown) => Effect.Effect<Stream.Stream<unknown, unknown>, unknown>
      // As the tool loop runs a call: the handler's stream, drained in the trial's fiber.
      yield* handle("where", {}).pipe(
        Effect.flatMap(Stream.runLast),
        Effect.provideService(ResponseCache.CurrentTrial, { id: "t:1", epoch: 1, workspace: "/ws/r/t:1" }),
        Effect.scoped,
        Effect.orDie
      )
      assert.deepStrictEqual(seen, [["/ws/r/t:1", "t:1"]])
    }))
})

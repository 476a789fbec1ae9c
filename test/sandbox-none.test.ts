/**
 * The `none` sandbox (src/sandbox/None.ts) through `Run.run`, with real
 * processes: the command starts under the watchdog, which reports its exit
 * to the run (an exit code, a signal, a program that cannot start), and
 * kills what the command left running in the background once it exits, so
 * nothing it started outlives it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { none } from "../src/sandbox/None.ts"
import { run } from "../src/sandbox/Run.ts"
import { waitFor } from "./cli-helpers.ts"
import { alive } from "./pids.ts"

const made: Array<string> = []
const left: Array<number> = []
afterAll(() => {
  for (const pid of left) if (alive(pid)) process.kill(pid, "SIGKILL")
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const folder = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), ".sandbox-none-test-"))
  made.push(dir)
  return dir
}

const inNone = (command: string | readonly [string, ...Array<string>], workspace = folder()) =>
  run(none, command, { workspace, network: "none", timeout: "60 seconds" })

describe("the none sandbox: the command's exit, as the watchdog reports it", () => {
  it.live("an exit code, a signal, and output as it came; the command runs in its workspace", () =>
    Effect.gen(function*() {
      const workspace = folder()
      const ok = yield* inNone("pwd; echo err >&2", workspace)
      assert.deepStrictEqual(ok, { exitCode: 0, signal: null, stdout: workspace, stderr: "err" })
      const three = yield* inNone("echo before; exit 3")
      assert.deepStrictEqual(three, { exitCode: 3, signal: null, stdout: "before", stderr: "" })
      const killed = yield* inNone("kill -TERM $$")
      assert.deepStrictEqual(killed, { exitCode: null, signal: "SIGTERM", stdout: "", stderr: "" })
    }), 60_000)

  it.live("a program that cannot start is SandboxSpawnFailed with the system's code", () =>
    Effect.gen(function*() {
      const error = yield* inNone(["no-such-program-here", "x"]).pipe(Effect.flip)
      assert.strictEqual(error._tag, "SandboxSpawnFailed")
      if (error._tag !== "SandboxSpawnFailed") return
      assert.strictEqual(error.code, "ENOENT")
      assert.include(error.message, "Cannot start no-such-program-here x: spawn no-such-program-here ENOENT")
    }), 60_000)

  it.live("what the command left running in the background is killed when it exits", () =>
    Effect.gen(function*() {
      const workspace = folder()
      const done = yield* inNone("sleep 3201 > /dev/null 2>&1 & echo $! > bg; echo started", workspace)
      assert.deepStrictEqual(done, { exitCode: 0, signal: null, stdout: "started", stderr: "" })
      const pid = Number(fs.readFileSync(path.join(workspace, "bg"), "utf8").trim())
      left.push(pid)
      yield* Effect.promise(() => waitFor(`the background sleep ${pid} to be gone`, () => !alive(pid), { timeoutMs: 20_000 }))
      assert.isFalse(alive(pid))
    }), 60_000)
})

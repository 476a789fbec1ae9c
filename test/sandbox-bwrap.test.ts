/**
 * The `bwrap` sandbox (src/sandbox/), with real processes under real
 * bubblewrap (`.ci/run` installs it): the workspace is the only place a
 * command can write, the host's 127.0.0.1 is out of reach without
 * `network: full`, the memory cap refuses a big allocation, the timeout
 * kills the command and names it, and a SIGKILL of the process that started
 * the sandbox leaves none of its processes behind.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { bwrap } from "../src/sandbox/Bwrap.ts"
import { run } from "../src/sandbox/Run.ts"
import type { Network } from "../src/sandbox/Sandbox.ts"
import { waitFor } from "./cli-helpers.ts"
import { alive } from "./pids.ts"

const repo = path.resolve(import.meta.dirname, "..")
const made: Array<string> = []
const left: Array<number> = []
afterAll(() => {
  for (const pid of left) if (alive(pid)) process.kill(pid, "SIGKILL")
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

/** A fresh folder under `parent` (the system temp folder, or the repository: outside the private /tmp). */
const folder = (parent = os.tmpdir()): string => {
  const dir = fs.mkdtempSync(path.join(parent, ".sandbox-test-"))
  made.push(dir)
  return dir
}

const inBwrap = (command: string | readonly [string, ...Array<string>], workspace: string, network: Network = "none", memoryBytes?: number) =>
  run(bwrap, command, { workspace, network, memoryBytes, timeout: "60 seconds" })

describe("the bwrap sandbox: files", () => {
  it.live("a command writes inside its workspace; a write outside it fails and the file does not appear", () =>
    Effect.gen(function*() {
      const workspace = folder()
      const inside = yield* inBwrap("echo hi > made.txt && cat made.txt", workspace)
      assert.strictEqual(inside.exitCode, 0)
      assert.strictEqual(fs.readFileSync(path.join(workspace, "made.txt"), "utf8"), "hi\n")

      // Outside the temp folder, the read-only root refuses the write.
      const outside = folder(repo)
      const target = path.join(outside, "escaped.txt")
      const refused = yield* inBwrap(`echo hi > '${target}'`, workspace)
      assert.notStrictEqual(refused.exitCode, 0)
      assert.include(refused.stderr, "Read-only file system")
      assert.isFalse(fs.existsSync(target))

      // Beside the workspace in the temp folder, the write lands in the private /tmp and vanishes with it.
      const sibling = path.join(path.dirname(workspace), `${path.basename(workspace)}-sibling.txt`)
      const hidden = yield* inBwrap(`echo hi > '${sibling}' && cat '${sibling}'`, workspace)
      assert.strictEqual(hidden.stdout, "hi")
      assert.isFalse(fs.existsSync(sibling))
    }), 120_000)
})

describe("the bwrap sandbox: network", () => {
  const fetchCode = (port: number) =>
    `require("node:http").get("http://127.0.0.1:${port}/", (r) => { console.log("status " + r.statusCode); process.exit(0) })` +
    `.on("error", (e) => { console.log("error " + e.code); process.exit(3) })`

  const withServer = <A, E>(use: (port: number) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.callback<http.Server>((resume) => {
        const server = http.createServer((_, response) => response.end("ok"))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) => use((server.address() as AddressInfo).port),
      (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
    )

  it.live("a command cannot reach a server on the host's 127.0.0.1 without network; with full it can", () =>
    withServer((port) =>
      Effect.gen(function*() {
        const workspace = folder()
        for (const network of ["none", "loopback"] as const) {
          const refused = yield* inBwrap([process.execPath, "-e", fetchCode(port)], workspace, network)
          assert.strictEqual(refused.exitCode, 3, `${network}: ${refused.stdout} ${refused.stderr}`)
          assert.match(refused.stdout, /^error E/)
        }
        const reached = yield* inBwrap([process.execPath, "-e", fetchCode(port)], workspace, "full")
        assert.strictEqual(reached.exitCode, 0, reached.stderr)
        assert.strictEqual(reached.stdout, "status 200")
      })
    ), 120_000)

  it.live("loopback: the sandbox's processes reach each other on its own 127.0.0.1", () =>
    Effect.gen(function*() {
      // A server and its client in one sandboxed process, on the sandbox's loopback.
      const code = `const s = require("node:http").createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1", () => {` +
        `require("node:http").get("http://127.0.0.1:" + s.address().port + "/", (r) => { console.log("status " + r.statusCode); process.exit(0) })` +
        `.on("error", (e) => { console.log("error " + e.code); process.exit(3) }) })`
      const served = yield* inBwrap([process.execPath, "-e", code], folder(), "loopback")
      assert.strictEqual(served.exitCode, 0, served.stderr)
      assert.strictEqual(served.stdout, "status 200")
    }), 120_000)
})

describe("the bwrap sandbox: bounds", () => {
  // 30 MB in a shell variable: dash allocates it, and fails (a signal or a non-zero exit) when it cannot.
  const allocate = `v=$(head -c 30000000 /dev/zero | tr '\\0' a) && echo \${#v}`

  it.live("a memory cap refuses a big allocation that runs without it", () =>
    Effect.gen(function*() {
      const workspace = folder()
      const roomy = yield* inBwrap(allocate, workspace, "none", 512 * 2 ** 20)
      assert.strictEqual(roomy.exitCode, 0, roomy.stderr)
      assert.strictEqual(roomy.stdout, "30000000")
      const capped = yield* inBwrap(allocate, workspace, "none", 16 * 2 ** 20)
      assert.notStrictEqual(capped.exitCode, 0)
      assert.notInclude(capped.stdout, "30000000")
    }), 120_000)

  it.live("the timeout kills the command and names it", () =>
    Effect.gen(function*() {
      const exit = yield* run(bwrap, ["sleep", "300"], { workspace: folder(), network: "none", timeout: "500 millis" })
        .pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isSuccess(exit)) return
      const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
      assert.strictEqual(error?._tag === "Fail" ? error.error._tag : undefined, "SandboxTimeout")
      if (error?._tag !== "Fail") return
      assert.strictEqual(error.error.message, "sleep 300 did not finish within 500ms: its process group was killed")
    }), 120_000)

  it("after a SIGKILL of the process that started it, no process of the sandbox remains", async () => {
    const workspace = folder()
    const bin = path.join(repo, "node_modules", ".bin")
    const parent = spawn(path.join(bin, "node"), ["--import", "tsx", "test/fixtures/sandbox-parent.ts", workspace], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    parent.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
    left.push(parent.pid!)
    await waitFor("the sandboxed command to start", () => fs.existsSync(path.join(workspace, "started")) || parent.exitCode !== null)
    assert.strictEqual(parent.exitCode, null, `the run is waiting on its command: ${stderr}`)
    // The bwrap the run started, and every process below it (not the loader's helpers beside it).
    const bwraps = descendants(parent.pid!).filter((pid) => command(pid) === "bwrap" && command(parentOf(pid)) !== "bwrap")
    const sandboxed = bwraps.flatMap((pid) => [pid, ...descendants(pid)])
    left.push(...sandboxed)
    // bwrap, its init in the new pid namespace, and the command's sleep.
    assert.isTrue(sandboxed.some((pid) => command(pid) === "bwrap"), `bwrap among ${sandboxed.map(command)}`)
    assert.isTrue(sandboxed.some((pid) => command(pid) === "sleep"), `sleep among ${sandboxed.map(command)}`)
    parent.kill("SIGKILL")
    await waitFor(`the sandbox's processes ${sandboxed.join(", ")} to be gone`, () => sandboxed.every((pid) => !alive(pid)), {
      timeoutMs: 20_000
    })
    for (const pid of sandboxed) assert.isFalse(alive(pid), `process ${pid} is gone`)
  }, 120_000)
})

/** The name of a process, from /proc. */
const command = (pid: number): string => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim()
  } catch {
    return "gone"
  }
}

/** The parent pid of `pid`, from /proc (0 when gone). */
const parentOf = (pid: number): number => {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[1])
  } catch {
    return 0
  }
}

/** Every process below `root`, by the parent pids /proc gives. */
const descendants = (root: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      parents.set(Number(entry), Number(stat.replace(/^.*\) /s, "").split(" ")[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const found: Array<number> = []
  const visit = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child)
        visit(child)
      }
    }
  }
  visit(root)
  return found
}

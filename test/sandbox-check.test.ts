/**
 * The sandbox port's edges (src/sandbox/), with real processes: `check`
 * refuses a bwrap that is missing (a PATH without it) or that cannot make a
 * sandbox, with exit code 2 and how to fix it; the option Schemas accept
 * their words and refuse others; `run` keeps the last lines of a command's
 * output, scrubbed, and a timeout kills the command's whole process group.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { scrubber } from "../src/internal/redact.ts"
import { bwrap, hiddenByTmp } from "../src/sandbox/Bwrap.ts"
import { none } from "../src/sandbox/None.ts"
import { run } from "../src/sandbox/Run.ts"
import { display, KindOption, NetworkOption, Sandbox } from "../src/sandbox/Sandbox.ts"
import * as Sandboxes from "../src/sandbox/Sandboxes.ts"
import { waitFor } from "./cli-helpers.ts"
import { alive } from "./pids.ts"

const made: Array<string> = []
const left: Array<number> = []
afterAll(() => {
  for (const pid of left) if (alive(pid)) process.kill(pid, "SIGKILL")
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const folder = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), ".sandbox-test-"))
  made.push(dir)
  return dir
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
  return reason?._tag === "Fail" ? reason.error : undefined
}

describe("the bwrap check", () => {
  it.live("bwrap installed and usable: the check passes, and the layer provides it", () =>
    Effect.gen(function*() {
      yield* bwrap.check()
      const sandbox = yield* Effect.service(Sandbox).pipe(Effect.provide(Sandboxes.layer("bwrap")))
      assert.strictEqual(sandbox.kind, "bwrap")
    }), 60_000)

  it.live("bwrap not on PATH: SandboxUnavailable, exit code 2, saying how to install it", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* bwrap.check({ ...process.env, PATH: folder() }).pipe(Effect.exit))
      assert.strictEqual(error?._tag, "SandboxUnavailable")
      assert.strictEqual(error?.exitCode, 2)
      assert.strictEqual(
        error?.message,
        "--sandbox bwrap needs bubblewrap, and bwrap is not on PATH: install it with `apt-get install -y bubblewrap` " +
          "(Debian, Ubuntu; `dnf install bubblewrap` on Fedora)"
      )
    }), 60_000)

  it.live("a bwrap that cannot make a sandbox (no user namespaces): its words, and how to turn them on", () =>
    Effect.gen(function*() {
      // A stand-in answering as bwrap does where user namespaces are off.
      const bin = folder()
      fs.writeFileSync(
        path.join(bin, "bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
        { mode: 0o755 }
      )
      const error = failureOf(yield* bwrap.check({ ...process.env, PATH: `${bin}:/usr/bin:/bin` }).pipe(Effect.exit))
      assert.strictEqual(error?._tag, "SandboxUnavailable")
      assert.strictEqual(error?.exitCode, 2)
      assert.include(error?.message, "bwrap cannot make a sandbox here (exit code 1: bwrap: No permissions to creating new namespace")
      assert.include(error?.message, "sysctl -w kernel.unprivileged_userns_clone=1")
    }), 60_000)

  it.live("the none sandbox needs nothing: its check passes with an empty PATH", () =>
    Effect.gen(function*() {
      yield* none.check({ PATH: "" })
      const sandbox = yield* Effect.service(Sandbox).pipe(Effect.provide(Sandboxes.layer("none")))
      assert.strictEqual(sandbox.kind, "none")
    }))
})

describe("the sandbox options", () => {
  it("--sandbox: none or bwrap", () => {
    assert.strictEqual(Schema.decodeUnknownSync(KindOption)("bwrap"), "bwrap")
    assert.strictEqual(Schema.decodeUnknownSync(KindOption)(" None "), "none")
    assert.throws(() => Schema.decodeUnknownSync(KindOption)("docker"), `Expected none or bwrap, got "docker"`)
  })

  it("--sandbox-network: none, loopback or full", () => {
    assert.strictEqual(Schema.decodeUnknownSync(NetworkOption)("loopback"), "loopback")
    assert.strictEqual(Schema.decodeUnknownSync(NetworkOption)("full"), "full")
    assert.throws(() => Schema.decodeUnknownSync(NetworkOption)("host"), `Expected none, loopback or full, got "host"`)
  })

  it("what a private /tmp would hide is bound back read-only: paths under /tmp, not /tmp itself nor paths elsewhere", () => {
    assert.deepStrictEqual(hiddenByTmp(["/tmp/ci/repo", "/tmp/ci/repo", "/tmp", "/home/u/repo", "/tmpfoo/x", "/tmp/ci/node/bin"]), [
      "/tmp/ci/repo",
      "/tmp/ci/node/bin"
    ])
  })

  it("commands are shown shell-quoted", () => {
    assert.strictEqual(display("sleep 30"), "sh -c 'sleep 30'")
    assert.strictEqual(display(["node", "server.js", "it's"]), `node server.js 'it'\\''s'`)
  })

  it("the bwrap command line: read-only root, private /tmp, the workspace bound and the working directory", () => {
    const spawn = bwrap.wrap(["true"], { workspace: "/w s", network: "none", memoryBytes: 2 ** 20 })
    assert.strictEqual(spawn.command, "bwrap")
    // A checkout under /tmp (and its Node) is bound back read-only over the private /tmp.
    const kept = hiddenByTmp([process.cwd(), path.dirname(process.execPath)]).flatMap((p) => ["--ro-bind", p, p])
    assert.deepStrictEqual(spawn.args, [
      "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-pid", "--die-with-parent",
      "--unshare-net", ...kept, "--bind", "/w s", "/w s", "--chdir", "/w s", "--",
      "sh", "-c", `ulimit -v 1024 && exec "$0" "$@"`, "true"
    ])
    assert.notInclude(bwrap.wrap(["true"], { workspace: "/w", network: "full" }).args, "--unshare-net")
    // A relative workspace is made absolute: bwrap binds absolute paths only.
    assert.strictEqual(bwrap.wrap(["true"], { workspace: "ws", network: "full" }).cwd, path.resolve("ws"))
  })
})

describe("running a command", () => {
  it.live("the last lines of stdout and stderr, scrubbed of secrets; a non-zero exit is an outcome", () =>
    Effect.gen(function*() {
      const scrub = scrubber(["sk-sandbox-12345678"])
      const outcome = yield* run(
        none,
        "for i in $(seq 1 100); do echo line $i; done; echo key sk-sandbox-12345678 >&2; exit 7",
        { workspace: folder(), network: "full", timeout: "60 seconds", tailLines: 3, scrub }
      )
      assert.strictEqual(outcome.exitCode, 7)
      assert.strictEqual(outcome.stdout, "line 98\nline 99\nline 100")
      assert.strictEqual(outcome.stderr, "key <redacted>")
    }), 60_000)

  it.live("a long output (1.3 MB) keeps whole last lines", () =>
    Effect.gen(function*() {
      const outcome = yield* run(none, "seq 1 200000", { workspace: folder(), network: "full", timeout: "60 seconds", tailLines: 2 })
      assert.strictEqual(outcome.exitCode, 0)
      assert.strictEqual(outcome.stdout, "199999\n200000")
      const all = yield* run(none, "seq 1 200000", { workspace: folder(), network: "full", timeout: "60 seconds", tailLines: 1e6 })
      // At most 64 KiB is kept, and the first line kept is whole.
      const lines = all.stdout.split("\n")
      assert.isAtMost(all.stdout.length, 64 * 1024)
      assert.strictEqual(Number(lines.at(-1)) - Number(lines[0]) + 1, lines.length)
      assert.strictEqual(lines[0], String(200001 - lines.length))
    }), 60_000)

  it.live("a timeout kills the whole process group, not only the command", () =>
    Effect.gen(function*() {
      const workspace = folder()
      const exit = yield* run(none, "sleep 300 & echo $! > child && wait", {
        workspace,
        network: "full",
        timeout: "5 seconds"
      }).pipe(Effect.exit)
      const error = failureOf(exit)
      assert.strictEqual(error?._tag, "SandboxTimeout")
      assert.strictEqual(error?.message, "sh -c 'sleep 300 & echo $! > child && wait' did not finish within 5000ms: its process group was killed")
      const child = Number(fs.readFileSync(path.join(workspace, "child"), "utf8"))
      left.push(child)
      yield* Effect.promise(() => waitFor(`the background sleep ${child} to be gone`, () => !alive(child), { timeoutMs: 20_000 }))
    }), 60_000)

  it.live("a program that is not there: SandboxSpawnFailed naming it", () =>
    Effect.gen(function*() {
      const error = failureOf(yield* run(none, ["no-such-program-here"], { workspace: folder(), network: "full", timeout: "60 seconds" }).pipe(Effect.exit))
      assert.strictEqual(error?._tag, "SandboxSpawnFailed")
      assert.include(error?.message, "Cannot start no-such-program-here")
    }), 60_000)
})


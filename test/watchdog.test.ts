/**
 * The watchdog of stdio MCP servers (src/agents/tools/internal/watchdog.ts), with
 * real processes: a server that starts a long-lived child and then exits on
 * its own, while the run (this test process) lives, takes that child with
 * it. Otherwise a SIGKILL of the run before its scope closes the dead
 * server's group would leave the child running with no watchdog left.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { spawn } from "node:child_process"
import * as Watchdog from "../src/agents/tools/internal/watchdog.ts"
import { waitFor } from "./cli-helpers.ts"
import { alive } from "./pids.ts"

const left: Array<number> = []
afterAll(() => {
  for (const pid of left) if (alive(pid)) process.kill(pid, "SIGKILL")
})

// A server that starts a child ignoring SIGTERM, prints the child's pid,
// and exits with code 3 a little later.
const server = [
  `const { spawn } = require("node:child_process")`,
  `const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" })`,
  `process.stdout.write(child.pid + "\\n")`,
  `setTimeout(() => process.exit(3), 200)`
].join("\n")

describe("the stdio MCP server's watchdog", () => {
  it("a server that exits on its own while the run lives: its child is gone too, and its exit code is on stderr", async () => {
    const command = Watchdog.command(process.execPath, ["-e", server], { cwd: process.cwd() })
    assert.strictEqual(command._tag, "StandardCommand")
    if (command._tag !== "StandardCommand") return
    const args = command.args.map((word) => typeof word === "string" ? word : Redacted.value(word))
    const watchdog = spawn(command.command, args, { detached: true, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    watchdog.stdout.on("data", (chunk) => stdout += String(chunk))
    watchdog.stderr.on("data", (chunk) => stderr += String(chunk))
    const exited = new Promise<void>((resolve) => watchdog.on("exit", () => resolve()))
    await waitFor("the server's child's pid", () => stdout.includes("\n"), { timeoutMs: 60_000 })
    const child = Number(stdout.trim())
    left.push(child)
    assert.isTrue(alive(child), `the server's child ${child} is running`)
    await exited
    await waitFor(`the server's child ${child} to be gone`, () => !alive(child), { timeoutMs: 20_000 })
    assert.include(stderr, "exited with code 3")
  }, 120_000)
})

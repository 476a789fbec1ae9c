/**
 * The process around the command, through both entrypoints (scripts/trials.ts
 * under tsx, as `npm run trials` runs it, and the bin on Node 24 alone): it
 * exits once its summary is out even when an agent leaves a timer and a
 * socket open, and on an old Node it says which Node it needs.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as path from "node:path"
import {
  describeResult,
  entries,
  killAll,
  oldNode,
  parseSummary,
  readTrials,
  removeTempDirs,
  repoRoot,
  run,
  tempDir
} from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

describe.concurrent("agent-trials: the process exits when the command is done", () => {
  for (const entry of entries) {
    it(`${entry}: an agent module that leaves a timer and a listening socket open; exit 0 after the summary`, async () => {
      const out = path.join(tempDir(), "out.jsonl")
      // Without the explicit exit the child never ends: the test times out.
      const result = await run(
        ["--synthetic", "20", "--agent", "module:test/fixtures/agent-open-handles.ts", "--out", out, "--no-progress"],
        { entry }
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const summary = parseSummary(result.stdout)
      assert.strictEqual(summary.outcome, "finished")
      assert.strictEqual(summary.total, 20)
      assert.isTrue(result.stdout.endsWith(`  results: ${out}\n`), describeResult(result))
      assert.strictEqual(readTrials(out).length, 20)
    }, 30_000)

    it(`${entry}: a failed command with the same open handles exits with its own code (2)`, async () => {
      const result = await run(
        ["--tasks", path.join(tempDir(), "missing.jsonl"), "--agent", "module:test/fixtures/agent-open-handles.ts", "--no-progress"],
        { entry }
      )
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, "missing.jsonl")
    }, 30_000)
  }
})

describe("agent-trials on a Node older than 24", () => {
  const node = oldNode()
  it.skipIf(node === undefined)(
    `scripts/trials.ts under tsx on ${node?.version ?? "(no Node < 24 on this machine)"}: one line naming the Node it needs, exit 2`,
    async () => {
      // tsx's own launcher on the old Node, as a PATH without node_modules/.bin would start it.
      const child = spawn(node!.path, [path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/trials.ts", "run", "--synthetic", "5"], {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
      child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
      assert.strictEqual(stderr, `agent-trials needs Node 24 or newer (this is ${node!.version})\n`, stdout)
      assert.strictEqual(code, 2)
      assert.strictEqual(stdout, "")
    },
    30_000
  )
  if (node === undefined) it.skip("no Node older than 24 on PATH: the old-Node check is not run here", () => {})
})

/**
 * The process around the command, through both entrypoints (scripts/trials.ts
 * under tsx, as `npm run trials` runs it, and the bin on Node 24 alone): it
 * exits once its summary is out even when an agent leaves a timer and a
 * socket open, Ctrl-C keeps every finished trial even when the agent
 * computes on the main thread, and on an old Node it says which Node it needs.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  describeResult,
  entries,
  killAll,
  lineCount,
  oldNode,
  parseSummary,
  readTrials,
  removeTempDirs,
  repoRoot,
  run,
  start,
  tempDir,
  waitFor,
  writeJsonl
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

// An agent that blocks the main thread for 200 ms a call, over a task file
// (no scorers: the writer takes each trial as the runner emits it).
const blocking = (n: number) => {
  const dir = tempDir()
  const seenFile = path.join(dir, "seen")
  const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), Array.from({ length: n }, (_, i) => ({ id: `t${i}`, inputs: {} })))
  const out = path.join(dir, "out.jsonl")
  const seen = () => {
    try {
      return Number(fs.readFileSync(seenFile, "utf8") || "0")
    } catch {
      return 0
    }
  }
  const parallelism = 4
  const args = ["--tasks", tasks, "--agent", "module:test/fixtures/agent-blocking.ts", "--parallelism", String(parallelism), "--out", out, "--no-progress"]
  return { args, env: { AGENT_SEEN_FILE: seenFile, AGENT_BLOCK_MS: "200" }, out, seen, parallelism }
}

describe.concurrent("agent-trials: Ctrl-C with an agent that computes on the main thread", () => {
  for (const entry of entries) {
    it(`${entry}: SIGINT is handled once the calls running end; the summary, every finished trial on disk, exit 130`, async () => {
      const b = blocking(300)
      const child = start(b.args, { env: b.env, entry })
      await waitFor("10 finished calls", () => child.exited() || b.seen() >= 10)
      assert.isFalse(child.exited(), "the run ended before it was signalled")
      const atSignal = b.seen()
      child.killGroup("SIGINT")
      const result = await child.result
      // Counts, not times: the calls that were running (at most the
      // parallelism, and the one that ended as the test read the count)
      // end, and no call starts after the signal is handled. Before, the
      // signal waited until a full batch of 64 made the loop turn, and
      // tsx's launcher killed its child with SIGKILL 60 ms after relaying it.
      assert.strictEqual(result.code, 130, describeResult(result))
      assert.isAtMost(b.seen(), atSignal + b.parallelism + 1, describeResult(result))
      const summary = parseSummary(result.stdout)
      assert.strictEqual(summary.outcome, "interrupted")
      const trials = readTrials(b.out)
      assert.strictEqual(summary.total, trials.length)
      // Every call that returned is a trial in the file.
      assert.strictEqual(trials.length, b.seen(), describeResult(result))
      assert.strictEqual(summary.notRecorded.finished, 0, describeResult(result))
    }, 60_000)
  }

  it("SIGKILL: the file holds every finished trial but the last batch (64) and those in flight", async () => {
    const b = blocking(300)
    const child = start(b.args, { env: b.env, entry: "bin" })
    // Past the first batch, so that the count-triggered flush is what wrote.
    await waitFor("80 finished calls", () => child.exited() || b.seen() >= 80, { timeoutMs: 90_000 })
    child.killGroup("SIGKILL")
    const result = await child.result
    assert.strictEqual(result.signal, "SIGKILL", describeResult(result))
    assert.isAtLeast(lineCount(b.out), b.seen() - 64 - b.parallelism)
    readTrials(b.out)
  }, 120_000)
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
})

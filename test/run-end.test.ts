/**
 * How a run ended, beside its results (`RESULTS.jsonl.end.json`), through
 * the real command: a finished run says `finished` with its run id and the
 * trials it wrote; a run stopped by --max-failures and one stopped by
 * SIGINT say why; a run that starts writing the file (a --resume) removes
 * an earlier marker first, so a resume killed with kill -9 leaves none (a
 * reader then sees a run that did not end, not the earlier one's end).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, lineCount, readTrials, removeTempDirs, run, start, tempDir, waitFor } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const endOf = (out: string) => JSON.parse(fs.readFileSync(`${out}.end.json`, "utf8"))
const runIdOf = (out: string) => JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")).run_id

describe("the end marker beside a run's results", () => {
  it("a finished run: finished, its run id, the trials it wrote, when; nothing else left beside the results", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const r = await run(["--synthetic", "12", "--agent", "sim:latency=1ms,jitter=0ms", "--out", out, "--no-progress"])
    assert.strictEqual(r.code, 0, describeResult(r))
    const end = endOf(out)
    assert.deepStrictEqual(Object.keys(end).sort(), ["ended_at", "outcome", "run_id", "written"])
    assert.strictEqual(end.outcome, "finished")
    assert.strictEqual(end.run_id, runIdOf(out))
    assert.strictEqual(end.written, 12)
    assert.isFalse(Number.isNaN(Date.parse(end.ended_at)))
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ["out.jsonl", "out.jsonl.end.json", "out.jsonl.run.json"])
  }, 60_000)

  it("a run stopped by --max-failures says too_many_failures", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const r = await run(["--synthetic", "50", "--agent", "sim:latency=1ms,jitter=0ms,fail=1", "--max-failures", "3", "--out", out, "--no-progress"])
    assert.strictEqual(r.code, 1, describeResult(r))
    const end = endOf(out)
    assert.strictEqual(end.outcome, "too_many_failures")
    assert.strictEqual(end.written, readTrials(out).length)
  }, 60_000)

  it("a run stopped by SIGINT says interrupted; its --resume removes the marker when it starts, and a kill -9 of it leaves none", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const args = ["--synthetic", "200", "--parallelism", "4", "--out", out, "--no-progress"]
    const first = start([...args, "--agent", "sim:latency=50ms,jitter=0ms"])
    await waitFor("some recorded trials", () => first.exited() || lineCount(out) >= 8)
    assert.isFalse(first.exited(), "the run ended before it was signalled")
    first.child.kill("SIGINT")
    const stopped = await first.result
    assert.strictEqual(stopped.code, 130, describeResult(stopped))
    const end = endOf(out)
    assert.strictEqual(end.outcome, "interrupted")
    assert.strictEqual(end.written, readTrials(out).length)

    // The resume's trials take long: it is killed while it runs.
    const resumed = start([...args, "--agent", "sim:latency=20s,jitter=0ms", "--resume"])
    await waitFor("the resume to remove the marker", () => resumed.exited() || !fs.existsSync(`${out}.end.json`))
    assert.isFalse(resumed.exited(), describeResult({ code: null, signal: null, stdout: resumed.stdout(), stderr: resumed.stderr() }))
    resumed.child.kill("SIGKILL")
    const killed = await resumed.result
    assert.strictEqual(killed.signal, "SIGKILL")
    assert.isFalse(fs.existsSync(`${out}.end.json`), "no marker after a kill -9")
  }, 120_000)
})

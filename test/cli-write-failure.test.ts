/**
 * The real command when its results file cannot be written: the run stops
 * with exit 1 (not 2: the input was fine), the message names the file and the
 * operating system's reason, and the summary counts only what the file holds.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, parseSummary, removeTempDirs, run, tempDir } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

describe("agent-trials run: a results file that cannot be written", () => {
  it("--out /dev/full: exit 1, ENOSPC named with the file, the summary records nothing", async () => {
    const dir = tempDir()
    const summaryFile = path.join(dir, "summary.json")
    const result = await run([
      "--synthetic", "300", "--agent", "sim:latency=1ms", "--out", "/dev/full", "--no-progress", "--summary", summaryFile
    ])
    assert.strictEqual(result.code, 1, describeResult(result))
    assert.include(result.stderr, "agent-trials: cannot write /dev/full: ENOSPC: no space left on device", describeResult(result))
    const summary = parseSummary(result.stdout)
    assert.strictEqual(summary.outcome, "write_error")
    assert.strictEqual(summary.total, 0)
    // The trials that finished are reported as not recorded, not as done.
    assert.isAbove(summary.notRecorded.finished, 0)
    const json = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.strictEqual(json.outcome, "write_error")
    assert.strictEqual(json.trials.this_run.total, 0)
    assert.isBelow(json.trials.not_recorded.finished + json.trials.not_recorded.interrupted, 301)
  })
})

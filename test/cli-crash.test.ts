/**
 * Kills, signals and resumes of the real command: after any number of
 * SIGKILLs and `--resume`s each trial is in the results file exactly once and
 * every line is valid JSON; SIGINT and SIGTERM stop with exit 130, a clean
 * file and a summary.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Sim from "../src/agents/Sim.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import {
  assertExactlyOnce,
  describeResult,
  entries,
  killAll,
  lineCount,
  parseSummary,
  readTrials,
  removeTempDirs,
  run,
  start,
  syntheticIds,
  tempDir,
  waitFor
} from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

/** Which synthetic trials the sim agent fails for `fail` and `seed` (its draw does not depend on latency). */
const simFailures = (ids: ReadonlyArray<string>, failRate: number, seed: number): Set<string> => {
  const agent = Sim.make({ latencyMs: 0, jitterMs: 0, failRate, seed })
  const failed = new Set<string>()
  for (const id of ids) {
    const taskId = id.slice(0, id.lastIndexOf(":"))
    const i = Number(taskId.slice("synthetic-".length))
    const exit = Effect.runSyncExit(agent({ id: taskId, inputs: {}, reference: String(i + i) }, { id, epoch: 1 }))
    if (Exit.isFailure(exit)) failed.add(id)
  }
  return failed
}

const assertStatusesMatchSim = (trials: ReadonlyArray<AgentEvalTrial>, failed: Set<string>) => {
  const wrong = trials.filter((t) => (t.status === "failed") !== failed.has(t.id)).map((t) => `${t.id} ${t.status}`)
  assert.deepStrictEqual(wrong.slice(0, 10), [], "trials whose status differs from the deterministic sim")
}

describe("agent-trials run: SIGKILL and --resume", () => {
  it("three kills mid-run, three resumes, a final resume: 3000 trials, each exactly once", async () => {
    const total = 3000
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const args = [
      "--synthetic", String(total), "--agent", "sim:latency=10ms,jitter=0ms,fail=0.1", "--parallelism", "16",
      "--out", out, "--no-progress"
    ]
    const linesAtKill: Array<number> = []
    for (let round = 0; round < 4; round++) {
      const before = lineCount(out)
      const child = start(round === 0 ? args : [...args, "--resume"])
      await waitFor(`round ${round} to record 100 more trials`, () => child.exited() || lineCount(out) >= before + 100, {
        everyMs: 10
      })
      child.killGroup("SIGKILL")
      const result = await child.result
      assert.strictEqual(result.signal, "SIGKILL", `round ${round} ended before it was killed: ${describeResult(result)}`)
      linesAtKill.push(lineCount(out))
      assert.isBelow(lineCount(out), total, `round ${round} was not killed mid-way`)
      if (round > 0) assert.match(result.stdout, /resuming: \d+ trials already recorded/)
    }
    // Every kill left more behind, and the file never holds a duplicate so far.
    for (let i = 1; i < linesAtKill.length; i++) assert.isAbove(linesAtKill[i], linesAtKill[i - 1])

    const final = await run([...args, "--resume"])
    assert.strictEqual(final.code, 0, describeResult(final))
    const summary = parseSummary(final.stdout)
    assert.strictEqual(summary.outcome, "finished")
    assert.strictEqual(summary.alreadyRecorded + summary.total, total)
    assert.isAtLeast(summary.alreadyRecorded, linesAtKill[3] - 1)
    assert.strictEqual(summary.totalInFile, total)

    const trials = readTrials(out)
    assertExactlyOnce(trials, syntheticIds(total))
    assertStatusesMatchSim(trials, simFailures(syntheticIds(total), 0.1, 1))
  }, 180_000)
})

describe.concurrent("agent-trials run: resume repairs and retries", () => {
  it("--resume cuts a torn last line, keeps the whole lines byte for byte, and completes the run", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const line = (i: number) =>
      JSON.stringify({
        id: `synthetic-${i}:1`,
        task_id: `synthetic-${i}`,
        status: "completed",
        output: { output_text: "recorded before the crash" },
        metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000, epoch: 1 }
      }) + "\n"
    const whole = [0, 1, 2, 3, 4].map(line).join("")
    const torn = line(5).slice(0, 57)
    fs.writeFileSync(out, whole + torn)

    const result = await run(["--synthetic", "10", "--agent", "sim:latency=1ms", "--out", out, "--resume", "--no-progress"])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.include(result.stdout, `resuming: 5 trials already recorded, ${Buffer.byteLength(torn)} bytes of a torn last line removed`)
    const text = fs.readFileSync(out, "utf8")
    assert.isTrue(text.startsWith(whole), "the whole lines are kept as they were")
    const trials = readTrials(out)
    assertExactlyOnce(trials, syntheticIds(10))
    assert.strictEqual(trials.filter((t) => t.output?.output_text === "recorded before the crash").length, 5)
    const summary = parseSummary(result.stdout)
    assert.deepStrictEqual([summary.alreadyRecorded, summary.total, summary.totalInFile], [5, 5, 10])
  })

  it("--resume --retry-failed runs the failed trials again, and only them", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const n = 200
    const ids = syntheticIds(n)
    // One agent spec, whose failures differ between the runs (SIM_SEED), as a flaky agent's do.
    const agent = ["--agent", "module:test/fixtures/seeded-sim.ts"]
    const first = await run(["--synthetic", String(n), ...agent, "--out", out, "--no-progress"], { env: { SIM_SEED: "1" } })
    assert.strictEqual(first.code, 0, describeResult(first))
    const before = readTrials(out)
    const failedBefore = simFailures(ids, 0.3, 1)
    assert.isAbove(failedBefore.size, 20)
    assertStatusesMatchSim(before, failedBefore)
    const completedLines = fs.readFileSync(out, "utf8").split("\n").filter((l) => l.includes(`"status":"completed"`))

    // Another seed: the retried trials fail again only where seed 2 fails them too.
    const retry = await run(
      ["--synthetic", String(n), ...agent, "--out", out, "--resume", "--retry-failed", "--no-progress"],
      { env: { SIM_SEED: "2" } }
    )
    assert.strictEqual(retry.code, 0, describeResult(retry))
    assert.include(retry.stdout, `resuming: ${n - failedBefore.size} trials already recorded, ${failedBefore.size} failed ones to run again`)
    const summary = parseSummary(retry.stdout)
    assert.deepStrictEqual([summary.total, summary.alreadyRecorded, summary.totalInFile], [failedBefore.size, n - failedBefore.size, n])

    const after = readTrials(out)
    assertExactlyOnce(after, ids)
    const failedSeed2 = simFailures(ids, 0.3, 2)
    const stillFailed = new Set([...failedBefore].filter((id) => failedSeed2.has(id)))
    assert.isBelow(stillFailed.size, failedBefore.size)
    assertStatusesMatchSim(after, stillFailed)
    assert.strictEqual(summary.failed, stillFailed.size)
    // The completed lines of the first run are kept as they were, in order.
    const text = fs.readFileSync(out, "utf8")
    assert.isTrue(text.startsWith(completedLines.join("\n") + "\n"))
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ["out.jsonl", "out.jsonl.end.json", "out.jsonl.run.json"], "no temporary file left behind")
  })
})

describe.concurrent("agent-trials run: SIGINT and SIGTERM", () => {
  const interrupted = (signal: "SIGINT" | "SIGTERM", send: "group" | "process", entry: "tsx" | "bin") => async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const n = 400
    const args = ["--synthetic", String(n), "--parallelism", "8", "--out", out, "--no-progress"]
    // The SIGINT run shows progress, whose last line must agree with the summary and the file.
    const progress = signal === "SIGINT"
    const child = start(
      [...(progress ? args.filter((a) => a !== "--no-progress") : args), "--agent", "sim:latency=50ms,jitter=0ms"],
      { env: { AGENT_TRIALS_PROGRESS_INTERVAL_MS: "100" }, entry }
    )
    await waitFor("some recorded trials", () => child.exited() || lineCount(out) >= 20)
    assert.isFalse(child.exited(), "the run ended before it was signalled")
    // Ctrl-C reaches the whole process group; `kill PID` only the command's process.
    if (send === "group") child.killGroup(signal)
    else child.child.kill(signal)
    const result = await child.result
    assert.strictEqual(result.code, 130, describeResult(result))

    const trials = readTrials(out)
    assert.isAbove(trials.length, 0)
    assert.isBelow(trials.length, n)
    assertExactlyOnce(trials, trials.map((t) => t.id).filter((id) => syntheticIds(n).includes(id)))
    // In-flight calls are interrupted, not recorded: a resume runs them.
    assert.deepStrictEqual(trials.filter((t) => t.status === "failed" && t.error?.type !== "SimulatedFailure"), [])
    const summary = parseSummary(result.stdout)
    assert.strictEqual(summary.outcome, "interrupted")
    assert.strictEqual(summary.total, trials.length)
    const failedInFile = trials.filter((t) => t.status === "failed").length
    assert.strictEqual(summary.failed, failedInFile)
    // The calls in flight at the signal (8, unless the signal fell between two
    // waves of trials): interrupted, shown as such, never as failed.
    assert.isAtMost(summary.notRecorded.interrupted, 8)
    if (progress) {
      const lines = result.stderr.split("\n").filter((l) => l.startsWith("progress: "))
      const last = /^progress: (\d+)\/(\d+) .* failed (\d+)(?: {2}interrupted (\d+))?$/.exec(lines.at(-1) ?? "")
      assert.isNotNull(last, result.stderr)
      assert.deepStrictEqual(
        { done: Number(last![1]), failed: Number(last![3]), interrupted: Number(last![4] ?? 0) },
        { done: trials.length, failed: failedInFile, interrupted: summary.notRecorded.interrupted },
        result.stderr
      )
    }

    const resumed = await run([...args, "--agent", "sim:latency=1ms", "--resume"])
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    assert.include(resumed.stdout, `resuming: ${trials.length} trials already recorded`)
    assertExactlyOnce(readTrials(out), syntheticIds(n))
  }

  for (const entry of entries) {
    it(`${entry}: SIGINT (Ctrl-C to the process group): exit 130, whole lines, the summary; --resume completes`, interrupted("SIGINT", "group", entry))
    it(`${entry}: SIGINT to the process alone: exit 130, whole lines, the summary; --resume completes`, interrupted("SIGINT", "process", entry))
    it(`${entry}: SIGTERM to the process alone: exit 130, whole lines, the summary; --resume completes`, interrupted("SIGTERM", "process", entry))
  }
})

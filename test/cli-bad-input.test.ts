/**
 * Bad input and bad flags: exit 2 with a message naming the file, line and
 * field or the flag; what was recorded before a bad line stays, and nothing
 * after it is started. With `--on-invalid skip` bad lines become failed
 * trials of type `InvalidTask`.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  assertExactlyOnce,
  type CliResult,
  describeResult,
  killAll,
  parseSummary,
  readTrials,
  removeTempDirs,
  run,
  tempDir,
  writeJsonl
} from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const task = (id: string) => ({ id, inputs: { instruction: `do ${id}` } })

const assertUsageError = (result: CliResult, ...mentions: ReadonlyArray<string>) => {
  assert.strictEqual(result.code, 2, describeResult(result))
  for (const text of mentions) assert.include(result.stderr, text, describeResult(result))
}

/** A dataset of good lines around one bad line; runs it with --on-invalid fail. */
const badLineRun = async (bad: string, badLineNumber: number) => {
  const dir = tempDir()
  const file = path.join(dir, "tasks.jsonl")
  const out = path.join(dir, "out.jsonl")
  const before = Array.from({ length: badLineNumber - 1 }, (_, i) => task(`before-${i}`))
  const after = Array.from({ length: 5 }, (_, i) => task(`after-${i}`))
  writeJsonl(file, [...before, bad, ...after])
  const result = await run(["--tasks", file, "--agent", "sim:latency=1ms,fail=0", "--out", out, "--no-progress"])
  // Whatever was recorded is whole and valid, and nothing after the bad line was started.
  const trials = fs.existsSync(out) ? readTrials(out) : []
  const recorded = trials.map((t) => t.task_id)
  assert.deepStrictEqual(recorded.filter((id) => !id.startsWith("before-")), [], "trials after the bad line")
  assert.strictEqual(new Set(recorded).size, recorded.length)
  if (result.stdout.includes("trials this run")) {
    const summary = parseSummary(result.stdout)
    assert.strictEqual(summary.outcome, "input_error")
    assert.strictEqual(summary.total, trials.length)
  }
  return { result, file, trials }
}

describe.concurrent("agent-trials run: bad dataset lines (--on-invalid fail)", () => {
  it("a malformed JSON line: exit 2 naming file and line", async () => {
    const { file, result } = await badLineRun(`{"id": "x", "inputs": {`, 3)
    assertUsageError(result, `${file}:3:`, "not valid JSON")
  })

  it("a line failing the schema (inputs is an array): exit 2 naming file, line and field", async () => {
    const { file, result } = await badLineRun(`{"id":"x","inputs":[1,2]}`, 4)
    assertUsageError(result, `${file}:4:`, "inputs")
  })

  it("a line without an id: exit 2 naming the id field", async () => {
    const { file, result } = await badLineRun(`{"inputs":{}}`, 2)
    assertUsageError(result, `${file}:2:`, "field id")
  })

  it("a duplicate task id: exit 2 naming the line and the id", async () => {
    const { file, result } = await badLineRun(JSON.stringify(task("before-0")), 3)
    assertUsageError(result, `${file}:3:`, "duplicate task id", `"before-0"`)
  })

  it("a line that is not valid UTF-8: exit 2 naming file, line and byte offset, nothing after it started", async () => {
    const dir = tempDir()
    const file = path.join(dir, "tasks.jsonl")
    const out = path.join(dir, "out.jsonl")
    const good = Buffer.from([task("a"), task("b")].map((t) => JSON.stringify(t) + "\n").join(""))
    const bad = Buffer.from(JSON.stringify(task("c-X")) + "\n")
    bad[bad.indexOf("X")] = 0xff
    fs.writeFileSync(file, Buffer.concat([good, bad, Buffer.from(JSON.stringify(task("d")) + "\n")]))
    const result = await run(["--tasks", file, "--agent", "sim:latency=1ms,fail=0", "--out", out, "--no-progress"])
    assertUsageError(result, `${file}:3: not valid UTF-8 (byte offset ${good.length + bad.indexOf(0xff)})`)
    const recorded = fs.existsSync(out) ? readTrials(out).map((t) => t.task_id) : []
    assert.deepStrictEqual(recorded.filter((id) => id !== "a" && id !== "b"), [])
  })

  it("an empty file, a file of blank lines, a missing file: exit 2 naming the file", async () => {
    const dir = tempDir()
    const empty = path.join(dir, "empty.jsonl")
    const blank = path.join(dir, "blank.jsonl")
    const missing = path.join(dir, "missing.jsonl")
    fs.writeFileSync(empty, "")
    fs.writeFileSync(blank, "\n   \r\n\t\n\n")
    const [a, b, c] = await Promise.all(
      [empty, blank, missing].map((file, i) => run(["--tasks", file, "--out", path.join(dir, `out-${i}.jsonl`), "--no-progress"]))
    )
    assertUsageError(a, empty, "empty")
    assertUsageError(b, blank, "empty")
    assertUsageError(c, missing, "not found")
    // No results file is left behind, so the same --out is usable once the input is fixed.
    for (let i = 0; i < 3; i++) assert.isFalse(fs.existsSync(path.join(dir, `out-${i}.jsonl`)), `out-${i}.jsonl was created`)
    writeJsonl(missing, [{ id: "q-1", inputs: { instruction: "2+2?" } }])
    const fixed = await run(["--tasks", missing, "--out", path.join(dir, "out-2.jsonl"), "--no-progress"])
    assert.strictEqual(fixed.code, 0, describeResult(fixed))
    assert.deepStrictEqual(readTrials(path.join(dir, "out-2.jsonl")).map((t) => t.id), ["q-1:1"])
  })
})

describe.concurrent("agent-trials run: bad flags", () => {
  const flagCase = (name: string, args: ReadonlyArray<string>, ...mentions: ReadonlyArray<string>) =>
    it(`${name}: exit 2 naming it, no results file`, async () => {
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const result = await run([...args.map((a) => a.replace("$OUT", out)), "--no-progress"])
      assertUsageError(result, ...mentions)
      assert.isFalse(fs.existsSync(out), "a results file was created")
    })

  flagCase("--parallelism 0", ["--synthetic", "3", "--parallelism", "0", "--out", "$OUT"], "--parallelism", "got 0")
  flagCase("--parallelism abc", ["--synthetic", "3", "--parallelism", "abc", "--out", "$OUT"], "--parallelism", "abc")
  flagCase("--epochs 0", ["--synthetic", "3", "--epochs", "0", "--out", "$OUT"], "--epochs")
  flagCase("an unknown agent scheme", ["--synthetic", "3", "--agent", "ftp://x", "--out", "$OUT"], "--agent ftp://x", `"ftp:"`)
  flagCase(
    "--tasks with --synthetic",
    ["--tasks", "test/fixtures/agent-module.ts", "--synthetic", "3", "--out", "$OUT"],
    "--tasks",
    "--synthetic"
  )
  flagCase("--resume without --out", ["--synthetic", "3", "--resume"], "--resume", "--out")
  flagCase("--retry-failed without --resume", ["--synthetic", "3", "--retry-failed", "--out", "$OUT"], "--retry-failed")

  it("an existing non-empty --out without --resume: exit 2, the file untouched", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const content = "{\"not\":\"even a trial\"}\nsomething else\n"
    fs.writeFileSync(out, content)
    const result = await run(["--synthetic", "3", "--out", out, "--no-progress"])
    assertUsageError(result, out, "--resume")
    assert.strictEqual(fs.readFileSync(out, "utf8"), content)
  })
})

describe.concurrent("agent-trials run: option values, from a flag or its variable", () => {
  /** Exit 2 with exactly one line on stderr, nothing on stdout, and no results file. */
  const refusedCase = (
    name: string,
    args: ReadonlyArray<string>,
    env: Record<string, string>,
    message: string
  ) =>
    it(`${name}: exit 2, one line naming it`, async () => {
      const out = path.join(tempDir(), "out.jsonl")
      const result = await run([...args, "--synthetic", "3", "--out", out, "--no-progress"], { env })
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.strictEqual(result.stderr.trim(), `agent-trials: ${message}`, describeResult(result))
      assert.strictEqual(result.stdout, "", describeResult(result))
      assert.isFalse(fs.existsSync(out), "a results file was created")
    })

  const duration = (source: string, value: string, hint = "") =>
    `Expected ${source} to be a duration with a unit, like 5s, 500ms or 2m, got "${value}"${hint}`

  // 1e9 epochs used to abort V8 after 16 s, before the first trial.
  refusedCase("--epochs 1000000000", ["--epochs", "1000000000"], {}, "Expected --epochs to be an integer from 1 to 10000, got 1000000000")
  refusedCase(
    "AGENT_TRIALS_EPOCHS=10001",
    [],
    { AGENT_TRIALS_EPOCHS: "10001" },
    "Expected AGENT_TRIALS_EPOCHS to be an integer from 1 to 10000, got 10001"
  )
  refusedCase("--timeout 5 (no unit)", ["--timeout", "5"], {}, duration("--timeout", "5", " (did you mean 5s?)"))
  refusedCase(
    "AGENT_TRIALS_TIMEOUT=5 (no unit)",
    [],
    { AGENT_TRIALS_TIMEOUT: "5" },
    duration("AGENT_TRIALS_TIMEOUT", "5", " (did you mean 5s?)")
  )
  refusedCase("--backoff-max 30 (no unit)", ["--backoff-max", "30"], {}, duration("--backoff-max", "30", " (did you mean 30s?)"))
  refusedCase(
    "AGENT_TRIALS_RETRY_AFTER_MAX=1 minute",
    [],
    { AGENT_TRIALS_RETRY_AFTER_MAX: "1 minute" },
    duration("AGENT_TRIALS_RETRY_AFTER_MAX", "1 minute")
  )
  refusedCase(
    "--rate fast",
    ["--rate", "fast"],
    {},
    `Expected --rate to be a rate above 0 per s, m (or min) or h, like 10/s or 600/min, got "fast"`
  )
  refusedCase(
    "AGENT_TRIALS_MAX_FAILURES=101%",
    [],
    { AGENT_TRIALS_MAX_FAILURES: "101%" },
    `Expected AGENT_TRIALS_MAX_FAILURES to be a count like 25 or a percentage from 0% to 100% like 10%, got "101%"`
  )

  it("a flag wins over its variable: --timeout 5s runs although AGENT_TRIALS_TIMEOUT=5", async () => {
    const out = path.join(tempDir(), "out.jsonl")
    const result = await run(
      ["--timeout", "5s", "--rate", "600/min", "--synthetic", "3", "--agent", "sim:latency=1ms,fail=0", "--out", out, "--no-progress"],
      { env: { AGENT_TRIALS_TIMEOUT: "5" } }
    )
    assert.strictEqual(result.code, 0, describeResult(result))
    assertExactlyOnce(readTrials(out), ["synthetic-0:1", "synthetic-1:1", "synthetic-2:1"])
    assert.isTrue(readTrials(out).every((t) => t.status === "completed"))
  })
})

describe.concurrent("agent-trials run: --on-invalid skip", () => {
  it("records each bad line as a failed InvalidTask trial naming the line, and runs the rest", async () => {
    const dir = tempDir()
    const file = path.join(dir, "tasks.jsonl")
    const out = path.join(dir, "out.jsonl")
    writeJsonl(file, [
      task("a"),
      `{"id": "broken`,
      task("b"),
      `{"id":"c","inputs":[1]}`,
      task("a"),
      "",
      task("d")
    ])
    const result = await run(["--tasks", file, "--agent", "sim:latency=1ms,fail=0", "--on-invalid", "skip", "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out)
    assertExactlyOnce(trials, ["a:1", "b:1", "d:1", `${file}:2:1`, "c:1", `${file}:5:1`])
    const byId = new Map(trials.map((t) => [t.id, t]))
    for (const id of ["a:1", "b:1", "d:1"]) assert.strictEqual(byId.get(id)!.status, "completed")
    const invalid = (id: string) => {
      const trial = byId.get(id)!
      assert.strictEqual(trial.status, "failed")
      assert.strictEqual(trial.error!.type, "InvalidTask")
      return trial.error!.message
    }
    assert.match(invalid(`${file}:2:1`), new RegExp(`^${escape(file)}:2: not valid JSON`))
    assert.match(invalid("c:1"), new RegExp(`^${escape(file)}:4: field inputs`))
    assert.match(invalid(`${file}:5:1`), new RegExp(`^${escape(file)}:5: duplicate task id "a"`))
    const summary = parseSummary(result.stdout)
    assert.deepStrictEqual([summary.outcome, summary.completed, summary.failed], ["finished", 3, 3])
    assert.include(result.stdout, "InvalidTask 3")
  })

  it("keeps trial ids unique when a bad line carries the id of another task", async () => {
    const dir = tempDir()
    const file = path.join(dir, "tasks.jsonl")
    const out = path.join(dir, "out.jsonl")
    // Line 2 reuses a's id with a bad shape; line 3 has a bad shape under b's id,
    // which line 4 then uses for a valid task.
    writeJsonl(file, [task("a"), `{"id":"a","inputs":"x"}`, `{"id":"b","inputs":"x"}`, task("b")])
    const result = await run(["--tasks", file, "--agent", "sim:latency=1ms,fail=0", "--on-invalid", "skip", "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out)
    const ids = trials.map((t) => t.id)
    assert.strictEqual(new Set(ids).size, ids.length, `duplicate trial ids: ${ids.join(", ")}`)
    assert.strictEqual(trials.length, 4, "one record per line")
    assert.strictEqual(trials.find((t) => t.id === "a:1")?.status, "completed")
    // Each bad line is recorded naming its own line; line 4 either runs or is named as a duplicate.
    const messages = trials.filter((t) => t.error?.type === "InvalidTask").map((t) => t.error!.message)
    for (const line of [2, 3]) {
      assert.isTrue(messages.some((m) => m.startsWith(`${file}:${line}: field inputs`)), `line ${line}: ${messages.join(" | ")}`)
    }
    const b = trials.find((t) => t.task_id === "b" && t.status === "completed")
    assert.isTrue(b !== undefined || messages.some((m) => m.startsWith(`${file}:4: duplicate task id "b"`)), messages.join(" | "))
  })
})

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

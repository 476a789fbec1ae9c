/**
 * Messages a user reads (issue 37, item 20): the epochs line prints no
 * second pass@1 over completed trials beside the scored one; an HTTP body
 * that cannot be encoded says what and where; a line longer than V8's string
 * limit is `FILE:LINE: line longer than 512 MB`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Stream } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as HttpAgent from "../src/agents/Http.ts"
import * as Jsonl from "../src/datasets/Jsonl.ts"
import { encodeJson } from "../src/internal/jsonBody.ts"
import { LineTooLong, MaxLineBytes, splitLines, V8_MAX_STRING_LENGTH } from "../src/internal/lines.ts"
import * as Results from "../src/results/Results.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Summary from "../src/summary/Summary.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { LIMIT } from "./fixtures/small-lines.ts"
import { json, serve } from "./http-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const at = "2026-01-01T00:00:00.000Z"

// A completed trial whose answer the `exact` scorer failed.
const wrong = (task: string, epoch: number): AgentEvalTrial => ({
  id: `${task}:${epoch}`,
  task_id: task,
  status: "completed",
  output: { output_text: "wrong" },
  metadata: { started_at: at, finished_at: at, latency_ms: 1, epoch },
  scores: { exact: { value: 0, passed: false } }
})

const summaryOf = (scorers: ReadonlyArray<string>, trials: ReadonlyArray<AgentEvalTrial>) => {
  const acc = new Summary.Accumulator(3, scorers.length === 0 ? undefined : { scorers })
  for (const trial of trials) acc.add(trial)
  return Summary.format(Summary.make({
    runId: "r",
    resultsFile: "out.jsonl",
    outcome: "finished",
    acc,
    probe: new MutableProbe().snapshot(),
    wallMs: 10,
    parallelism: 4,
    ...(scorers.length === 0 ? {} : { scoring: { probe: new MutableProbe().snapshot(), parallelism: 4 } })
  }))
}

describe("the epochs line", () => {
  const trials = ["a", "b"].flatMap((task) => [1, 2, 3].map((epoch) => wrong(task, epoch)))

  it("with scorers: one pass@1, the scored one, labelled; no pass@1 1 [1, 1] over completed trials", () => {
    const text = summaryOf(["exact"], trials)
    const pass1 = text.split("\n").filter((line) => line.includes("pass@1"))
    assert.deepStrictEqual(pass1.length, 1, text)
    assert.match(pass1[0]!, /^ {2}pass@k counting passed trials: pass@1 0 /)
    assert.include(
      text,
      "  3 epochs, counting completed trials: 2 tasks with every trial recorded (0 incomplete); pass@k below counts passed trials"
    )
  })

  it("without scorers: the estimates over completed trials, as the only pass@1", () => {
    const text = summaryOf([], trials)
    const pass1 = text.split("\n").filter((line) => line.includes("pass@1"))
    assert.strictEqual(pass1.length, 1, text)
    assert.match(pass1[0]!, /^ {2}3 epochs, counting completed trials: 2 tasks .*; pass@1 1 /)
  })
})

describe("HttpBodyError", () => {
  it("encodeJson names what JSON cannot hold and where: a BigInt, a cycle, a toJSON that throws; JSON text otherwise", () => {
    assert.strictEqual(encodeJson({ a: [1, "x"], b: null }), `{"a":[1,"x"],"b":null}`)
    assert.deepStrictEqual(encodeJson(BigInt(7)), { problem: "the body is a BigInt (7), which JSON cannot hold" })
    assert.deepStrictEqual(encodeJson({ messages: [{ n: 1 }, { n: BigInt(2) }] }), {
      problem: "field messages.1.n is a BigInt (2), which JSON cannot hold"
    })
    const loop: Array<unknown> = []
    loop.push({ back: loop })
    assert.deepStrictEqual(encodeJson({ list: loop }), { problem: "field list.0.back refers back to list (a cycle), which JSON cannot hold" })
    const bad = { toJSON: () => { throw new Error("no JSON for me") } }
    assert.deepStrictEqual(encodeJson({ inputs: { bad } }), { problem: "field inputs.bad: its toJSON threw (no JSON for me)" })
    // The same object twice, not in a cycle, is fine.
    const shared = { x: 1 }
    assert.strictEqual(encodeJson({ a: shared, b: shared }), `{"a":{"x":1},"b":{"x":1}}`)
  })

  it.live("a task JSON cannot hold: a failed trial naming the field and the endpoint, no request sent, not retried", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, res) => json(res, 200, { output_text: "ok" }))
      const cycle: Record<string, unknown> = { a: 1 }
      cycle["self"] = cycle
      const tasks: ReadonlyArray<AgentEvalTask> = [
        { id: "big", inputs: { n: BigInt(10) } },
        { id: "cycle", inputs: { c: cycle } },
        { id: "fine", inputs: { n: 10 } }
      ]
      const agent = HttpAgent.make(`${server.base}/agent?api_key=k-0123456789abcdef`)
      const trials = yield* Stream.runCollect(
        runTrials(Stream.fromIterable(tasks), agent, { parallelism: 3, retry: { retries: 2, base: "1 millis", max: "1 millis" } })
      )
      const byTask = new Map(trials.map((t) => [t.task_id, t]))
      const where = `POST ${server.base}/agent?api_key=<redacted>`
      assert.deepInclude(byTask.get("big")!.error, {
        type: "HttpBodyError",
        message: `cannot send ${where}: its body cannot be encoded as JSON: field inputs.n is a BigInt (10), which JSON cannot hold`
      })
      assert.deepInclude(byTask.get("cycle")!.error, {
        type: "HttpBodyError",
        message: `cannot send ${where}: its body cannot be encoded as JSON: field inputs.c.self refers back to inputs.c (a cycle), which JSON cannot hold`
      })
      for (const id of ["big", "cycle"]) assert.strictEqual(byTask.get(id)!.metadata["attempts"], 1)
      assert.strictEqual(byTask.get("fine")!.status, "completed")
      // Only the task that could be encoded reached the server, as JSON.
      assert.deepStrictEqual(server.received.map((r) => [r.headers["content-type"], JSON.parse(r.body)]), [
        ["application/json", { id: "fine", inputs: { n: 10 } }]
      ])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("a line longer than the limit (V8's string limit; smaller here, through the same code)", () => {
  const encoder = new TextEncoder()
  // The text cut into chunks of `size` bytes, as a file stream hands it on.
  const chunks = (text: string, size: number) => {
    const bytes = encoder.encode(text)
    const out: Array<Uint8Array> = []
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size))
    return Stream.fromIterable(out)
  }
  const split = (text: string, size: number, limit: number) =>
    Effect.gen(function*() {
      const seen: Array<number> = []
      const exit = yield* splitLines(chunks(text, size)).pipe(
        Stream.runForEach((line) => Effect.sync(() => seen.push(line.number))),
        Effect.provideService(MaxLineBytes, limit),
        Effect.exit
      )
      return { seen, exit }
    })

  it("the default is V8's string limit, said as 512 MB", () => {
    assert.strictEqual(V8_MAX_STRING_LENGTH, 2 ** 29 - 24)
    assert.strictEqual(new LineTooLong({ line: 7, limit: V8_MAX_STRING_LENGTH }).message, "line longer than 512 MB")
    assert.strictEqual(new LineTooLong({ line: 7, limit: 64 }).message, "line longer than 64 bytes")
  })

  it.effect("a line within the limit passes; one byte more fails naming its line, after the lines before it, in one chunk or across many", () =>
    Effect.gen(function*() {
      const text = `${"a".repeat(16)}\n${"b".repeat(16)}\n${"c".repeat(17)}\nnever\n`
      for (const size of [3, 16, 17, 1000]) {
        const { exit, seen } = yield* split(text, size, 16)
        assert.deepStrictEqual(seen, [1, 2], `chunks of ${size}`)
        assert.isTrue(Exit.isFailure(exit), `chunks of ${size}`)
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        assert.deepInclude((error as { error?: unknown })?.error, { _tag: "LineTooLong", line: 3, limit: 16 })
      }
      // Unterminated at the end, too.
      const last = yield* split(`ok\n${"d".repeat(40)}`, 8, 16)
      assert.deepStrictEqual(last.seen, [1])
      assert.isTrue(Exit.isFailure(last.exit))
      // The limit itself is allowed.
      const exact = yield* split(`${"e".repeat(16)}`, 5, 16)
      assert.deepStrictEqual([exact.seen, Exit.isSuccess(exact.exit)], [[1], true])
    }))

  it.effect("a dataset and a results file name FILE:LINE", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [
        { id: "a", inputs: {} },
        { id: "b", inputs: { text: "x".repeat(200) } }
      ])
      const read = yield* Stream.runDrain(Jsonl.fromJsonl(tasks, { onInvalid: "fail" })).pipe(
        Effect.provideService(MaxLineBytes, 64),
        Effect.flip
      )
      assert.deepInclude(read, { _tag: "DatasetError", path: tasks, line: 2, message: `${tasks}:2: line longer than 64 bytes` })
      const results = path.join(dir, "out.jsonl")
      fs.writeFileSync(results, `${JSON.stringify(wrong("a", 1))}\n${"y".repeat(400)}\n`)
      const resumed = yield* Results.prepare(results, { resume: true, retryFailed: false }).pipe(
        Effect.provideService(MaxLineBytes, 300),
        Effect.flip
      )
      assert.strictEqual(resumed.message, `${results}:2: line longer than 300 bytes`)
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe.concurrent("agent-trials run: a line longer than the limit (the command, its limit 1024 bytes)", () => {
  const script = "test/fixtures/small-lines.ts"

  it("in --tasks: exit 2, one line FILE:LINE: line longer than ..., no stack trace, nothing after it run", async () => {
    const dir = tempDir()
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [
      { id: "a", inputs: {} },
      { id: "b", inputs: {} },
      { id: "c", inputs: { text: "x".repeat(LIMIT) } },
      { id: "d", inputs: {} }
    ])
    const out = path.join(dir, "out.jsonl")
    const result = await run(["--tasks", tasks, "--agent", "sim:latency=1ms,fail=0", "--out", out, "--no-progress"], { script })
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.strictEqual(result.stderr, `agent-trials: ${tasks}:3: line longer than ${LIMIT} bytes\n`, describeResult(result))
    const recorded = fs.existsSync(out) ? fs.readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l).task_id) : []
    assert.deepStrictEqual(recorded.filter((id: string) => id !== "a" && id !== "b"), [])
  })

  it("in a --resume'd results file: exit 2 naming it and the line, the file left as it is", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const content = `${"z".repeat(LIMIT + 1)}\n`
    fs.writeFileSync(out, content)
    const result = await run(["--synthetic", "2", "--out", out, "--resume", "--no-progress"], { script })
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.include(result.stderr, `${out}:1: line longer than ${LIMIT} bytes`, describeResult(result))
    assert.notInclude(result.stderr, "    at ", describeResult(result))
    assert.strictEqual(fs.readFileSync(out, "utf8"), content)
  })
})

// `agent-trials run ...args` with stdout and stderr into one file, so the
// order the user sees on a terminal is the order in the file.
const runInterleaved = (args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly output: string }>((resolve, reject) => {
    const file = path.join(tempDir(), "output.txt")
    const fd = fs.openSync(file, "w")
    const bin = path.join(repoRoot, "node_modules", ".bin")
    const env: NodeJS.ProcessEnv = {}
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("AGENT_TRIALS_")) env[key] = value
    env["PATH"] = `${bin}${path.delimiter}${process.env["PATH"] ?? ""}`
    const child = spawn(path.join(bin, "node"), ["--import", "tsx", "scripts/trials.ts", "run", ...args], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", fd, fd]
    })
    child.on("error", reject)
    child.on("close", (code) => {
      fs.closeSync(fd)
      resolve({ code, output: fs.readFileSync(file, "utf8") })
    })
  })

describe.concurrent("agent-trials run: a run stopped by bad input", () => {
  const good = (id: string) => JSON.stringify({ id, inputs: {} })

  it("before any trial: the error alone (no zero summary, no results file named), no results file, no .run.json; --summary still written", async () => {
    const dir = tempDir()
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), ["not json", good("b")])
    const out = path.join(dir, "out.jsonl")
    const summary = path.join(dir, "summary.json")
    const result = await runInterleaved(["--tasks", tasks, "--agent", "sim:latency=1ms,fail=0", "--out", out, "--summary", summary, "--no-progress"])
    assert.strictEqual(result.code, 2, result.output)
    assert.match(result.output, new RegExp(`^agent-trials: ${escape(tasks)}:1: not valid JSON \\([^\n]*\\)\n$`))
    assert.isFalse(fs.existsSync(out), "results file")
    assert.isFalse(fs.existsSync(`${out}.run.json`), "run definition")
    assert.strictEqual(JSON.parse(fs.readFileSync(summary, "utf8")).outcome, "input_error")
  })

  it("a missing tasks file: one line, nothing left behind", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const missing = path.join(dir, "missing.jsonl")
    const result = await runInterleaved(["--tasks", missing, "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 2, result.output)
    assert.strictEqual(result.output, `agent-trials: tasks file not found: ${missing}\n`)
    assert.deepStrictEqual(fs.readdirSync(dir), [])
  })

  it("after trials were recorded: the error first, then the results file and the summary of what it holds", async () => {
    const dir = tempDir()
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [good("a"), good("b"), `{"id":"c","inputs":[1]}`, good("d")])
    const out = path.join(dir, "out.jsonl")
    const result = await runInterleaved(["--tasks", tasks, "--agent", "sim:latency=1ms,fail=0", "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 2, result.output)
    const lines = result.output.split("\n")
    assert.match(lines[0]!, new RegExp(`^agent-trials: ${escape(tasks)}:3: field inputs`), result.output)
    assert.strictEqual(lines.filter((line) => line.startsWith("agent-trials: ")).length, 1, result.output)
    // Trials already running when the bad line stops the run finish and are recorded.
    assert.deepStrictEqual(readTrials(out).map((t) => t.task_id).sort(), ["a", "b"])
    assert.strictEqual(lines[1], `results: ${out}`, result.output)
    assert.match(lines[2]!, /^run \S+: input_error$/, result.output)
    assert.include(result.output, "  trials this run: 2 (completed 2, failed 0, partial 0)")
    assert.isTrue(fs.existsSync(`${out}.run.json`))
  })
})

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * `agent-trials run` end to end: the real command in a child process, against
 * the built-in simulated agent, a user's module, and real HTTP servers on
 * 127.0.0.1.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  parseSummary,
  readTrials,
  removeTempDirs,
  repoRoot,
  run,
  syntheticIds,
  tempDir
} from "./cli-helpers.ts"
import { json, serve } from "./http-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const MODULE = "test/fixtures/agent-module.ts"

describe.concurrent("agent-trials run: sim agent", () => {
  it("runs --synthetic 50: one valid line per trial, a summary on stdout and in --summary", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const result = await run(["--synthetic", "50", "--out", out, "--no-progress", "--summary", summaryFile])
    assert.strictEqual(result.code, 0, describeResult(result))

    const trials = readTrials(out)
    assertExactlyOnce(trials, syntheticIds(50))
    for (const trial of trials) {
      const i = Number(/^synthetic-(\d+):1$/.exec(trial.id)![1])
      assert.strictEqual(trial.task_id, `synthetic-${i}`)
      assert.strictEqual(trial.metadata.epoch, 1)
      if (trial.status === "completed") assert.strictEqual(trial.output?.output_text, String(i + i))
      else assert.strictEqual(trial.error?.type, "SimulatedFailure")
    }
    const completed = trials.filter((t) => t.status === "completed").length
    const failed = trials.filter((t) => t.status === "failed").length

    const text = parseSummary(result.stdout)
    assert.deepStrictEqual(
      { outcome: text.outcome, total: text.total, completed: text.completed, failed: text.failed, prior: text.alreadyRecorded },
      { outcome: "finished", total: 50, completed, failed, prior: 0 }
    )
    assert.include(result.stdout, `results: ${out}\n`)
    assert.notInclude(result.stderr, "progress:")

    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.strictEqual(summary.run_id, text.runId)
    assert.strictEqual(summary.outcome, "finished")
    assert.strictEqual(summary.results_file, out)
    assert.deepStrictEqual(summary.trials.total, { completed, failed, partial: 0, total: 50 })
    assert.deepStrictEqual(summary.trials.already_recorded, { completed: 0, failed: 0, partial: 0, total: 0 })
    assert.strictEqual(summary.parallelism, 8)
    assert.isTrue(summary.peak_active_calls >= 1 && summary.peak_active_calls <= 8, `peak ${summary.peak_active_calls}`)
    assert.isTrue(summary.peak_outstanding <= 8, `peak outstanding ${summary.peak_outstanding}`)
    assert.isNumber(summary.latency_ms.p50)
    assert.isUndefined(summary.pass_at_k)
  })

  it("--epochs 3: trial ids :1..:3 per task and pass@k counts that match the file", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const tasks = 20
    const result = await run([
      "--synthetic", String(tasks), "--epochs", "3", "--agent", "sim:latency=2ms,fail=0.4",
      "--out", out, "--no-progress", "--summary", summaryFile
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out)
    assertExactlyOnce(trials, syntheticIds(tasks, 3))
    for (const trial of trials) assert.strictEqual(trial.id, `${trial.task_id}:${trial.metadata.epoch}`)

    // Tasks by how many of their 3 trials completed, straight from the file.
    const passes = new Map<string, number>()
    for (const trial of trials) {
      passes.set(trial.task_id, (passes.get(trial.task_id) ?? 0) + (trial.status === "completed" ? 1 : 0))
    }
    const expected = [0, 0, 0, 0]
    for (const c of passes.values()) expected[c]++

    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.strictEqual(summary.epochs, 3)
    assert.deepStrictEqual(summary.pass_at_k.tasks_by_passes, expected)
    assert.strictEqual(summary.pass_at_k.tasks_by_passes.reduce((a: number, b: number) => a + b, 0), tasks)
    assert.strictEqual(summary.pass_at_k.tasks_scored, tasks)
    assert.strictEqual(summary.pass_at_k.tasks_incomplete, 0)
    const completed = trials.filter((t) => t.status === "completed").length
    assert.closeTo(summary.pass_at_k.estimates["pass@1"], completed / (3 * tasks), 1e-4)
    assert.include(result.stdout, `3 epochs, counting completed trials: ${tasks} tasks with every trial recorded (0 incomplete)`)
  })

  it("flags fall back to AGENT_TRIALS_* variables, and a flag beats its variable", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const summaryFile = path.join(dir, "summary.json")
    const result = await run(["--out", out, "--no-progress", "--epochs", "1"], {
      env: {
        AGENT_TRIALS_SYNTHETIC: "30",
        AGENT_TRIALS_PARALLELISM: "3",
        AGENT_TRIALS_EPOCHS: "2",
        AGENT_TRIALS_AGENT: "sim:fail=0",
        AGENT_TRIALS_SUMMARY: summaryFile
      }
    })
    assert.strictEqual(result.code, 0, describeResult(result))
    assertExactlyOnce(readTrials(out), syntheticIds(30))
    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.strictEqual(summary.parallelism, 3)
    assert.strictEqual(summary.peak_active_calls, 3)
    assert.strictEqual(summary.epochs, 1)
    assert.deepStrictEqual(summary.trials.total, { completed: 30, failed: 0, partial: 0, total: 30 })
  })

  it("without --out writes runs/<run-id>.jsonl and prints that path", async () => {
    const result = await run(["--synthetic", "5", "--no-progress"])
    const printed = /^results: (runs\/(\S+)\.jsonl)$/m.exec(result.stdout)
    const file = printed === null ? undefined : path.join(repoRoot, printed[1])
    try {
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.isNotNull(printed, result.stdout)
      assert.strictEqual(printed![2], parseSummary(result.stdout).runId)
      assertExactlyOnce(readTrials(file!), syntheticIds(5))
    } finally {
      if (file !== undefined) fs.rmSync(file, { force: true })
    }
  })
})

describe.concurrent("agent-trials run: datasets and module agents", () => {
  it("--tasks FILE (CRLF, blank lines) through the module's default export", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const tasks: Array<AgentEvalTask> = [
      { id: "alpha", inputs: { instruction: "say alpha" }, intent: "greet", reference: "A", metadata: { split: "dev" } },
      { id: "beta", inputs: { nested: { list: [1, "two", null] } } },
      { id: "gamma é✓", inputs: {} }
    ]
    const file = path.join(dir, "tasks.jsonl")
    fs.writeFileSync(file, `\r\n${JSON.stringify(tasks[0])}\r\n\r\n${JSON.stringify(tasks[1])}\r\n   \r\n${JSON.stringify(tasks[2])}`)
    const result = await run(["--tasks", file, "--agent", `module:${MODULE}`, "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out)
    assertExactlyOnce(trials, tasks.map((t) => `${t.id}:1`))
    for (const trial of trials) {
      assert.strictEqual(trial.status, "completed")
      assert.deepStrictEqual(trial.output, { output_text: `default:${trial.task_id}` })
    }
  })

  it("--tasks - reads stdin; a named export may return a Promise, a thenable, a string or an Effect, and may throw", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const modes = ["promise", "thenable", "string", "effect", "effect-fail", "throw", "reject", "shape"]
    const stdin = modes.map((mode) => JSON.stringify({ id: mode, inputs: { mode } })).join("\n") + "\n"
    const result = await run(["--tasks", "-", "--agent", `module:${MODULE}#named`, "--out", out, "--no-progress"], {
      stdin
    })
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = new Map(readTrials(out).map((t) => [t.task_id, t]))
    assert.deepStrictEqual([...trials.keys()].sort(), [...modes].sort())
    assert.deepStrictEqual(trials.get("promise")!.output, { output_text: "promise:promise", metadata: { trial: "promise:1" } })
    assert.deepStrictEqual(trials.get("thenable")!.output, { output_text: "thenable:thenable" })
    assert.deepStrictEqual(trials.get("string")!.output, { output_text: "string:string" })
    assert.deepStrictEqual(trials.get("effect")!.output, { output_text: "effect:effect" })
    const failure = (id: string) => {
      const trial = trials.get(id)!
      assert.strictEqual(trial.status, "failed", id)
      return trial.error!
    }
    assert.include(failure("effect-fail").message, "effect failed for effect-fail")
    assert.include(failure("throw").message, "thrown for throw")
    assert.include(failure("reject").message, "rejected for reject")
    assert.strictEqual(failure("shape").type, "InvalidAgentOutput")
    const summary = parseSummary(result.stdout)
    assert.deepStrictEqual([summary.completed, summary.failed], [4, 4])
  })

  it("a module without the named export: exit 2 naming the module and the export, nothing written", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const result = await run(["--synthetic", "3", "--agent", `module:${MODULE}#nope`, "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.include(result.stderr, MODULE)
    assert.include(result.stderr, `"nope"`)
    assert.include(result.stderr, "named") // what it does export
    assert.isFalse(fs.existsSync(out))
  })

  it("an export that is not callable, and a missing module file: exit 2 naming them", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const [notCallable, missing] = await Promise.all([
      run(["--synthetic", "3", "--agent", `module:${MODULE}#notCallable`, "--out", out, "--no-progress"]),
      run(["--synthetic", "3", "--agent", "module:test/fixtures/no-such-agent.ts", "--out", out, "--no-progress"])
    ])
    assert.strictEqual(notCallable.code, 2, describeResult(notCallable))
    assert.match(notCallable.stderr, /notCallable.*not a function/)
    assert.strictEqual(missing.code, 2, describeResult(missing))
    assert.include(missing.stderr, "test/fixtures/no-such-agent.ts")
    assert.include(missing.stderr, "cannot load")
    assert.isFalse(fs.existsSync(out))
  })
})

describe.concurrent("agent-trials run: HTTP agents against a real server", () => {
  it.live("http://: every task POSTed once, outputs recorded, at most --parallelism requests at a time", () =>
    Effect.gen(function*() {
      let inFlight = 0
      let peak = 0
      const server = yield* serve((request, res) => {
        if (++inFlight > peak) peak = inFlight
        const task = JSON.parse(request.body) as AgentEvalTask
        setTimeout(() => {
          inFlight--
          // 400 is not retryable: the task is still POSTed exactly once.
          if (task.id === "synthetic-7") return json(res, 400, { error: { message: "unsupported task" } })
          json(res, 200, { output_text: `echo ${task.inputs["instruction"]}`, metadata: { server: "e2e" } })
        }, 10)
      })
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const result = yield* Effect.promise(() =>
        run(["--synthetic", "30", "--agent", `${server.base}/agent`, "--parallelism", "4", "--out", out, "--no-progress"])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      const posted = server.received.map((r) => (JSON.parse(r.body) as AgentEvalTask).id)
      assert.deepStrictEqual([...posted].sort(), Array.from({ length: 30 }, (_, i) => `synthetic-${i}`).sort())
      for (const request of server.received) {
        assert.strictEqual(request.method, "POST")
        assert.strictEqual(request.path, "/agent")
      }
      assert.isTrue(peak >= 1 && peak <= 4, `peak requests in flight ${peak}`)
      const trials = readTrials(out)
      assertExactlyOnce(trials, syntheticIds(30))
      for (const trial of trials) {
        const i = Number(trial.task_id.slice("synthetic-".length))
        if (i === 7) {
          assert.strictEqual(trial.status, "failed")
          assert.strictEqual(trial.error!.type, "HttpStatusError")
          assert.include(trial.error!.message, "400")
          assert.include(trial.error!.message, "unsupported task")
        } else {
          assert.deepStrictEqual(trial.output, { output_text: `echo What is ${i} + ${i}?`, metadata: { server: "e2e" } })
        }
      }
    }))

  it.live("openai:BASE_URL --model m: chat completions recorded, the API key nowhere in the output", () =>
    Effect.gen(function*() {
      const key = "sk-e2e-SECRET"
      const server = yield* serve((request, res) => {
        const body = JSON.parse(request.body) as { model: string; messages: Array<{ role: string; content: string }> }
        const content = body.messages[0].content
        if (content === "What is 3 + 3?") {
          // A server that echoes the credential in its error must not leak it into the file.
          return json(res, 401, { error: { message: `bad credential: ${request.headers.authorization}` } })
        }
        json(res, 200, {
          id: "chatcmpl-1",
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: `answer to ${content}` } }],
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }
        })
      })
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const result = yield* Effect.promise(() =>
        run(
          ["--synthetic", "6", "--agent", `openai:${server.base}/v1`, "--model", "m", "--out", out, "--summary", summaryFile, "--no-progress"],
          { env: { OPENAI_API_KEY: key } }
        )
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.strictEqual(server.received.length, 6)
      for (const request of server.received) {
        assert.strictEqual(request.method, "POST")
        assert.strictEqual(request.path, "/v1/chat/completions")
        assert.strictEqual(request.headers.authorization, `Bearer ${key}`)
        const body = JSON.parse(request.body)
        assert.strictEqual(body.model, "m")
        assert.strictEqual(body.messages.length, 1)
        assert.strictEqual(body.messages[0].role, "user")
        assert.match(body.messages[0].content, /^What is \d+ \+ \d+\?$/)
      }
      const trials = readTrials(out)
      assertExactlyOnce(trials, syntheticIds(6))
      for (const trial of trials) {
        const i = Number(trial.task_id.slice("synthetic-".length))
        if (i === 3) {
          assert.strictEqual(trial.status, "failed")
          assert.include(trial.error!.message, "401")
        } else {
          assert.strictEqual(trial.output?.output_text, `answer to What is ${i} + ${i}?`)
          assert.deepStrictEqual(trial.output?.metadata, {
            model: "m",
            usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }
          })
        }
      }
      const fileText = fs.readFileSync(out, "utf8")
      assert.notInclude(fileText, "SECRET")
      assert.notInclude(result.stdout, "SECRET")
      assert.notInclude(result.stderr, "SECRET")
      assert.notInclude(fs.readFileSync(summaryFile, "utf8"), "SECRET")
    }))

  it("openai: without --model exits 2 naming --model", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const result = await run(["--synthetic", "3", "--agent", "openai:http://127.0.0.1:9/v1", "--out", out], {
      env: { OPENAI_API_KEY: "sk-e2e-SECRET" }
    })
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.include(result.stderr, "--model")
    assert.notInclude(result.stderr + result.stdout, "SECRET")
    assert.isFalse(fs.existsSync(out))
  })
})

describe.concurrent("agent-trials run: progress", () => {
  const slowRun = (dir: string, extra: ReadonlyArray<string>) =>
    run(
      ["--synthetic", "120", "--agent", "sim:latency=30ms,jitter=0ms,fail=0.2", "--parallelism", "4", "--out", path.join(dir, "out.jsonl"), ...extra],
      { env: { AGENT_TRIALS_PROGRESS_INTERVAL_MS: "100" } }
    )

  it("off a terminal: a plain `progress: N/T (...)` line every interval on stderr", async () => {
    const result = await slowRun(tempDir(), [])
    assert.strictEqual(result.code, 0, describeResult(result))
    const lines = result.stderr.split("\n").filter((l) => l.startsWith("progress:"))
    assert.isAtLeast(lines.length, 3, result.stderr)
    let previous = 0
    for (const line of lines) {
      const m = /^progress: (\d+)\/120 \((\d+)%\) {2}[\d.]+\/s {2}(?:ETA \S+ {2})?active (\d+)\/4 {2}failed (\d+)$/.exec(line)
      assert.isNotNull(m, line)
      const done = Number(m![1])
      assert.isTrue(done >= previous && done <= 120, line)
      assert.strictEqual(Number(m![2]), Math.floor((100 * done) / 120), line)
      assert.isTrue(Number(m![3]) <= 4, line)
      assert.isTrue(Number(m![4]) <= done, line)
      previous = done
    }
    assert.match(lines[lines.length - 1], /^progress: 120\/120 \(100%\)/, "the last line shows where the run got to")
    assert.notInclude(result.stderr, "\r", "no terminal control off a TTY")
  })

  it("--no-progress: no progress lines", async () => {
    const result = await slowRun(tempDir(), ["--no-progress"])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.notInclude(result.stderr, "progress")
    assert.strictEqual(parseSummary(result.stdout).total, 120)
  })
})

describe.concurrent("agent-trials run: results on stdout", () => {
  // Every stdout line a whole trial record; nothing else there.
  const stdoutTrials = (stdout: string) => {
    assert.isTrue(stdout.endsWith("\n"), `stdout does not end with a newline: ${JSON.stringify(stdout.slice(-80))}`)
    const file = path.join(tempDir(), "stdout.jsonl")
    fs.writeFileSync(file, stdout)
    return readTrials(file)
  }

  for (const out of ["-", "/dev/stdout"]) {
    it(`--out ${out} piped: stdout is JSONL, one trial per line; results, summary and report lines on stderr`, async () => {
      const summaryFile = path.join(tempDir(), "summary.json")
      const result = await run(["--synthetic", "40", "--out", out, "--summary", summaryFile], {
        env: { AGENT_TRIALS_PROGRESS_INTERVAL_MS: "20" }
      })
      assert.strictEqual(result.code, 0, describeResult(result))
      assertExactlyOnce(stdoutTrials(result.stdout), syntheticIds(40))
      const summary = parseSummary(result.stderr)
      assert.deepStrictEqual([summary.outcome, summary.total], ["finished", 40])
      assert.include(result.stderr, "results: /dev/stdout\n")
      assert.include(result.stderr, "progress: 40/40 (100%)")
      assert.strictEqual(JSON.parse(fs.readFileSync(summaryFile, "utf8")).results_file, "/dev/stdout")
      // No end marker beside a device (nor a warning that one cannot be written).
      assert.notInclude(result.stderr, "end.json")
    })
  }

  it("score --out -: the scored trials on stdout, the rest on stderr", async () => {
    const dir = tempDir()
    const input = path.join(dir, "in.jsonl")
    const first = await run(["--synthetic", "30", "--out", input, "--no-progress", "--score", "none"])
    assert.strictEqual(first.code, 0, describeResult(first))
    const result = await run([input, "--score", "exact", "--out", "-"], { command: "score" })
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = stdoutTrials(result.stdout)
    assertExactlyOnce(trials, syntheticIds(30))
    for (const t of trials) if (t.status === "completed") assert.isDefined(t.scores?.["exact"], t.id)
    assert.include(result.stderr, `scoring ${input} -> /dev/stdout\n`)
    assert.include(result.stderr, "  passed (every scorer passed): ")
  })

  it("--resume and --report with --out - are refused: stdout is not read back", async () => {
    const resumed = await run(["--synthetic", "5", "--out", "-", "--resume", "--no-progress"])
    assert.strictEqual(resumed.code, 2, describeResult(resumed))
    assert.include(resumed.stderr, "--resume cannot read back --out -: stdout is not a regular file")
    assert.strictEqual(resumed.stdout, "")
    const reported = await run(["--synthetic", "5", "--out", "-", "--report", path.join(tempDir(), "r.html"), "--no-progress"])
    assert.strictEqual(reported.code, 2, describeResult(reported))
    assert.include(reported.stderr, "--report reads the results file back: it cannot with --out - (stdout is not a regular file)")
  })
})

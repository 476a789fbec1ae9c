/**
 * MCP servers that fail, through the real command, with a scripted MCP
 * server of our own (test/fixtures/mcp-server.mjs, a real child process
 * over stdio) and a scripted model on 127.0.0.1: a server that dies again
 * after its restart fails every trial that needed it (parallelism 8); one
 * that does not answer initialize or tools/list within --mcp-timeout stops
 * the run (exit 1), per run or per trial; the server's stderr is in every
 * failure's message; after a SIGKILL of the run, a server that ignores its
 * stdin's end and SIGTERM is gone, and so is its child (by pid).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, start, tempDir, waitFor, writeJsonl } from "./cli-helpers.ts"
import { alive } from "./pids.ts"
import { serve } from "./http-server.ts"
import { answer, callTools, firstUser, modelServer } from "./tool-model-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const fixture = "test/fixtures/mcp-server.mjs"
const KEY = "sk-test-0123456789abcdef"

// Turn 1 calls echo with the task's text; turn 2 answers with what came
// back, even a tool error: a model that trusts whatever it is handed.
const echoModel = modelServer((turn, body) => {
  if (turn === 1) return callTools([{ id: "c1", name: "echo", args: { message: firstUser(body) } }])
  const tool = body.messages.find((m) => m["role"] === "tool")
  return answer(`it said: ${String(tool?.["content"])}`)
})

const tasksFile = (dir: string, n: number) =>
  writeJsonl(path.join(dir, "tasks.jsonl"), Array.from({ length: n }, (_, i) => ({ id: `t${i}`, inputs: { instruction: `hello ${i}` } })))

const pidsOf = (file: string): Array<number> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter((l) => l !== "").map(Number) : []

// What a tool result says when its MCP server died under it.
const DIED = /MCP server closed stdout|MCP process exited|MCP transport closed|MCP client scope closed/

describe("MCP servers that fail, from the CLI", () => {
  it.live("a server that dies again after its restart: no trial whose call met a death is completed (parallelism 8)", () =>
    Effect.gen(function*() {
      const model = yield* echoModel
      const dir = tempDir()
      const pids = path.join(dir, "pids")
      const out = path.join(dir, "out.jsonl")
      // The first start dies at its 12th call, the restarted one at its 3rd,
      // while the calls made again after the first death are still running.
      const result = yield* Effect.promise(() =>
        run([
          "--agent", `openai:${model.base}/v1`, "--model", "m",
          "--tools", `mcp:stdio:node ${fixture} --pids ${pids} --exit-after 12,3 --stderr "fixture: serving echo"`,
          "--tasks", tasksFile(dir, 40), "--out", out, "--parallelism", "8", "--no-progress"
        ])
      )
      const trials = readTrials(out)
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.match(result.stdout, /^run \S+: tool_server_failed$/m)
      assert.strictEqual(pidsOf(pids).length, 2)
      const leaked = trials.filter((t) =>
        t.status === "completed" &&
        (t.output?.trajectory ?? []).some((s) => s.type === "tool_result" && DIED.test(String(s.content)))
      )
      assert.deepStrictEqual(leaked.map((t) => [t.task_id, t.output?.output_text]), [])
      const completed = trials.filter((t) => t.status === "completed")
      for (const trial of completed) assert.strictEqual(trial.output?.output_text, `it said: Echo: hello ${trial.task_id.slice(1)}`)
      const failed = trials.filter((t) => t.status !== "completed")
      assert.isAbove(failed.length, 0)
      for (const trial of failed) {
        assert.strictEqual(trial.error?.type, "McpServerFailed", JSON.stringify(trial.error))
        assert.include(trial.error?.message, "died again after its one restart; the server's stderr: fixture: serving echo | fixture: exiting at call 3")
      }
    }))

  it.live("a server that never answers initialize: --mcp-timeout stops the run (exit 1) naming the server, the step and its stderr", () =>
    Effect.gen(function*() {
      const model = yield* echoModel
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const spec = `mcp:stdio:node ${fixture} --hang initialize --stderr "fixture: loading"`
      const result = yield* Effect.promise(() =>
        run([
          "--agent", `openai:${model.base}/v1`, "--model", "m", "--tools", spec, "--mcp-timeout", "1s",
          "--tasks", tasksFile(dir, 3), "--out", out, "--no-progress"
        ])
      )
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.include(
        result.stderr,
        `agent-trials: --tools ${spec.replace(/"fixture: loading"/, "\"fixture: loading\"")}: the MCP server did not answer initialize within 1s (--mcp-timeout); ` +
          "the server's stderr: fixture: loading; the run stopped before its first trial"
      )
      assert.strictEqual(model.received.length, 0)
    }))

  it.live("--mcp-per-trial, a server that never answers tools/list (AGENT_TRIALS_MCP_TIMEOUT): the trial fails with McpServerFailed, the run stops (exit 1)", () =>
    Effect.gen(function*() {
      const model = yield* echoModel
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const result = yield* Effect.promise(() =>
        run([
          "--agent", `openai:${model.base}/v1`, "--model", "m", "--tools", `mcp:stdio:node ${fixture} --hang tools/list`, "--mcp-per-trial",
          "--tasks", tasksFile(dir, 6), "--out", out, "--parallelism", "1", "--no-progress"
        ], { env: { AGENT_TRIALS_MCP_TIMEOUT: "1s" } })
      )
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.match(result.stdout, /^run \S+: tool_server_failed$/m)
      const trials = readTrials(out)
      assert.strictEqual(trials.length, 1)
      assert.strictEqual(trials[0]!.status, "failed")
      assert.strictEqual(trials[0]!.error?.type, "McpServerFailed")
      assert.include(trials[0]!.error?.message, "the MCP server did not answer tools/list within 1s (--mcp-timeout)")
      assert.strictEqual(model.received.length, 0)
    }))

  it.live("a server that exits at start: its own words on stderr are in the message (exit 2, bad --tools)", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const missing = path.join(dir, "no-such-folder")
      const result = yield* Effect.promise(() =>
        run([
          "--agent", "openai:http://127.0.0.1:9/v1", "--model", "m",
          "--tools", `mcp:stdio:node ${fixture} --fail "Error: ENOENT: no such file or directory, stat '${missing}' (key KEY)"`,
          "--synthetic", "1", "--no-progress"
        ], { env: { OPENAI_API_KEY: KEY } })
      )
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, "cannot connect to the MCP server: MCP ")
      assert.notInclude(result.stderr, KEY)
      assert.include(result.stderr, `the server's stderr: Error: ENOENT: no such file or directory, stat '${missing}' (key <redacted>)`)
    }))

  it.live("an MCP server over HTTP that never answers initialize: --mcp-timeout stops the run (exit 1)", () =>
    Effect.gen(function*() {
      const mcp = yield* serve(() => {})
      const result = yield* Effect.promise(() =>
        run([
          "--agent", "openai:http://127.0.0.1:9/v1", "--model", "m", "--tools", `mcp:${mcp.base}/mcp`, "--mcp-timeout", "500ms",
          "--synthetic", "1", "--no-progress"
        ])
      )
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.include(result.stderr, `--tools mcp:${mcp.base}/mcp: the MCP server did not answer initialize within 500ms (--mcp-timeout)`)
      assert.strictEqual(mcp.received.length, 1)
    }))

  it.live("a SIGKILL of the run: a server that ignores stdin's end and SIGTERM is gone, and its child too", () =>
    Effect.gen(function*() {
      // A model that never answers: the run is mid-trial when it is killed.
      const model = yield* serve(() => {})
      const dir = tempDir()
      const pidFile = path.join(dir, "stubborn")
      const running = start([
        "--agent", `openai:${model.base}/v1`, "--model", "m", "--tools", `mcp:stdio:node ${fixture} --stubborn ${pidFile}`,
        "--tasks", tasksFile(dir, 1), "--out", path.join(dir, "out.jsonl"), "--no-progress"
      ])
      let pids: Array<number> = []
      yield* Effect.gen(function*() {
        yield* Effect.promise(() => waitFor("the trial's first model call", () => model.received.length > 0))
        pids = fs.readFileSync(pidFile, "utf8").trim().split(" ").map(Number)
        assert.strictEqual(pids.length, 2)
        assert.isTrue(pids.every(alive))
        running.child.kill("SIGKILL")
        yield* Effect.promise(() => running.result)
        yield* Effect.promise(() =>
          waitFor("the stubborn server and its child to be gone", () => !pids.some(alive), { timeoutMs: 20_000 })
        )
      }).pipe(Effect.ensuring(Effect.sync(() => {
        for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL")
      })))
    }))
})

/**
 * Agents that act, through the real command: a real MCP server from npm
 * (`@modelcontextprotocol/server-everything`, over stdio) as a tool source
 * of an `openai:` tool loop against a scripted server on 127.0.0.1, its tools
 * listed and called, its process gone after the run and after SIGINT
 * (checked by pid), one process per run or one per trial with
 * `--mcp-per-trial`; and `effect-ai:` with a user's `LanguageModel.make`
 * layer and plain module tools.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, start, tempDir, waitFor, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const everything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// The MCP server, started through sh so that it writes its own pid (exec
// keeps the pid) to `pids`, one line per start.
const mcpSpec = (pids: string) => `mcp:stdio:sh -c 'echo $$ >> ${pids}; exec node ${everything} stdio'`

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const pidsOf = (file: string): Array<number> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter((l) => l !== "").map(Number) : []

interface Chat {
  readonly messages: ReadonlyArray<Record<string, unknown>>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}

// Turn 1: call `echo` with the task's text; turn 2: answer with what it echoed
// (or hold the answer forever when `hold`).
const modelServer = async (hold = false, beforeFirstTurn?: (user: string) => Promise<void>) => {
  const bodies: Array<Chat> = []
  const held: Array<http.ServerResponse> = []
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c: Buffer) => raw += c.toString("utf8"))
    req.on("end", () => {
      const body = JSON.parse(raw) as Chat
      bodies.push(body)
      const tool = body.messages.find((m) => m["role"] === "tool")
      const send = (reply: unknown) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(reply))
      }
      if (tool === undefined) {
        const user = String(body.messages.find((m) => m["role"] === "user")?.["content"])
        void (beforeFirstTurn?.(user) ?? Promise.resolve()).then(() => send({
          choices: [{
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: JSON.stringify({ message: user }) } }]
            },
            finish_reason: "tool_calls"
          }],
          usage: { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 }
        }))
      } else if (hold) {
        held.push(res)
      } else {
        send({
          choices: [{ message: { role: "assistant", content: `it said: ${String(tool["content"])}` }, finish_reason: "stop" }],
          usage: { prompt_tokens: 60, completion_tokens: 4, total_tokens: 64 }
        })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  const close = () =>
    new Promise<void>((resolve) => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { base, bodies, close }
}

const tasksFile = (dir: string, n: number) =>
  writeJsonl(path.join(dir, "tasks.jsonl"), Array.from({ length: n }, (_, i) => ({ id: `t${i}`, inputs: { instruction: `hello ${i}` } })))

describe("agents that act, from the CLI", () => {
  it("an MCP server over stdio: its tools listed and called in the loop; one process for the run, gone after it", async () => {
    const dir = tempDir()
    const pids = path.join(dir, "pids")
    const model = await modelServer()
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", mcpSpec(pids),
        "--tasks", tasksFile(dir, 3), "--out", out, "--parallelism", "2", "--no-progress"
      ])
      assert.strictEqual(result.code, 0, describeResult(result))
      const names = model.bodies[0]!.tools!.map((t) => t.function.name)
      assert.include(names, "echo")
      assert.include(names, "get-sum")
      const trials = readTrials(out).sort((a, b) => a.task_id.localeCompare(b.task_id))
      assert.deepStrictEqual(trials.map((t) => t.output?.output_text), ["it said: Echo: hello 0", "it said: Echo: hello 1", "it said: Echo: hello 2"])
      const steps = trials[1]!.output!.trajectory!
      assert.deepStrictEqual(steps.map((s) => s.type), ["model", "tool_call", "tool_result", "model"])
      assert.deepStrictEqual(steps[1]!.arguments, { message: "hello 1" })
      assert.strictEqual(steps[2]!.content, "Echo: hello 1")
      assert.deepStrictEqual(trials[1]!.output!.usage, { input_tokens: 110, output_tokens: 9, total_tokens: 119, model: "m" })
      const started = pidsOf(pids)
      assert.strictEqual(started.length, 1)
      await waitFor("the MCP server to be gone", () => !alive(started[0]!), { timeoutMs: 10_000 })
    } finally {
      await model.close()
    }
  })

  it("--mcp-per-trial starts one server per trial, each gone after its trial", async () => {
    const dir = tempDir()
    const pids = path.join(dir, "pids")
    const model = await modelServer()
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", mcpSpec(pids), "--mcp-per-trial",
        "--tasks", tasksFile(dir, 3), "--out", out, "--parallelism", "1", "--no-progress"
      ])
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.strictEqual(readTrials(out).filter((t) => t.status === "completed").length, 3)
      const started = pidsOf(pids)
      assert.strictEqual(new Set(started).size, 3)
      await waitFor("the MCP servers to be gone", () => started.every((pid) => !alive(pid)), { timeoutMs: 10_000 })
    } finally {
      await model.close()
    }
  })

  it("SIGINT during a loop: the run stops (exit 130) and the MCP server is gone", async () => {
    const dir = tempDir()
    const pids = path.join(dir, "pids")
    const model = await modelServer(true)
    try {
      const out = path.join(dir, "out.jsonl")
      const running = start([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", mcpSpec(pids),
        "--tasks", tasksFile(dir, 2), "--out", out, "--parallelism", "2", "--no-progress"
      ])
      // Both trials are in their second turn: the server has run their echo calls.
      await waitFor("both loops to reach turn 2", () => model.bodies.filter((b) => b.messages.some((m) => m["role"] === "tool")).length === 2)
      const [pid] = pidsOf(pids)
      assert.isTrue(alive(pid!))
      // To the command alone (not its group), as a parent that is not a terminal would.
      running.child.kill("SIGINT")
      const result = await running.result
      assert.strictEqual(result.code, 130, describeResult(result))
      await waitFor("the MCP server to be gone", () => !alive(pid!), { timeoutMs: 10_000 })
    } finally {
      await model.close()
    }
  })

  it("a crash (SIGKILL) during a loop: the MCP server sees its stdin close and is gone too", async () => {
    const dir = tempDir()
    const pids = path.join(dir, "pids")
    const model = await modelServer(true)
    try {
      const running = start([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", mcpSpec(pids),
        "--tasks", tasksFile(dir, 1), "--out", path.join(dir, "out.jsonl"), "--no-progress"
      ])
      await waitFor("the loop to reach turn 2", () => model.bodies.some((b) => b.messages.some((m) => m["role"] === "tool")))
      const [pid] = pidsOf(pids)
      assert.isTrue(alive(pid!))
      running.child.kill("SIGKILL")
      await running.result
      await waitFor("the MCP server to be gone", () => !alive(pid!), { timeoutMs: 10_000 })
    } finally {
      await model.close()
    }
  })

  it("a server that dies is restarted once (the call made again); dying again stops the run (exit 1) naming the server", async () => {
    const dir = tempDir()
    const pids = path.join(dir, "pids")
    // Before the first turn of t1 and of t2, the MCP server now running is killed.
    const model = await modelServer(false, async (user) => {
      if (user === "hello 0") return
      const pid = pidsOf(pids).at(-1)!
      process.kill(pid, "SIGKILL")
      await waitFor("the killed server to be gone", () => !alive(pid), { timeoutMs: 10_000 })
    })
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", mcpSpec(pids),
        "--tasks", tasksFile(dir, 6), "--out", out, "--parallelism", "1", "--no-progress"
      ])
      // The trial that met the second death is recorded; the run stops there (t3.. are left to --resume).
      const trials = readTrials(out).sort((a, b) => a.task_id.localeCompare(b.task_id))
      assert.deepStrictEqual(trials.map((t) => t.status), ["completed", "completed", "failed"], describeResult(result))
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.match(result.stdout, /^run \S+: tool_server_failed$/m)
      // The server's own last stderr lines come between (server-everything's start-up lines).
      assert.match(result.stderr, /died again after its one restart; the server's stderr: .+; the run stopped/)
      assert.strictEqual(trials[1]!.output!.output_text, "it said: Echo: hello 1")
      assert.strictEqual(trials[2]!.error!.type, "McpServerFailed")
      assert.include(trials[2]!.error!.message, "--tools mcp:stdio:sh -c")
      assert.include(trials[2]!.error!.message, "died again after its one restart")
      assert.strictEqual(pidsOf(pids).length, 2)
    } finally {
      await model.close()
    }
  })

  it("effect-ai: a user's LanguageModel.make layer, with module tools: a tool error the model sees, the answer recorded", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "s1", inputs: { a: 2, b: 3 } }, { id: "s2", inputs: { a: 10, b: -4 } }])
    const result = await run([
      "--agent", "effect-ai:test/fixtures/model-layer.ts#layer", "--tools", "module:test/fixtures/tools-plain.ts",
      "--tasks", tasks, "--out", out, "--no-progress"
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out).sort((a, b) => a.task_id.localeCompare(b.task_id))
    assert.deepStrictEqual(trials.map((t) => t.output?.output_text), ["the sum is 5", "the sum is 6"])
    const steps = trials[0]!.output!.trajectory!
    assert.deepStrictEqual(steps.map((s) => [s.type, s.name ?? null, s.is_error ?? false]), [
      ["model", null, false],
      ["tool_call", "add", false],
      ["tool_call", "fail", false],
      ["tool_result", "add", false],
      ["tool_result", "fail", true],
      ["model", null, false]
    ])
    assert.include(String(steps[4]!.content), "the fail tool failed")
    assert.deepStrictEqual(trials[0]!.output!.usage, { input_tokens: 24, output_tokens: 8, total_tokens: 32 })
  })

  it("bad --tools and --agent effect-ai: specs exit 2 naming the flag and the problem", async () => {
    const noExport = await run(["--agent", "effect-ai:test/fixtures/model-layer.ts#nope", "--synthetic", "1", "--no-progress"])
    assert.strictEqual(noExport.code, 2, describeResult(noExport))
    assert.include(noExport.stderr, "--agent effect-ai:test/fixtures/model-layer.ts#nope: model module test/fixtures/model-layer.ts has no export \"nope\"")
    const notLayer = await run(["--agent", "effect-ai:test/fixtures/tools-plain.ts", "--synthetic", "1", "--no-progress"])
    assert.strictEqual(notLayer.code, 2, describeResult(notLayer))
    assert.include(notLayer.stderr, "not a Layer that provides LanguageModel")
    const badTools = await run([
      "--agent", "effect-ai:test/fixtures/model-layer.ts#layer", "--tools", "module:test/fixtures/model-layer.ts#layer",
      "--synthetic", "1", "--no-progress"
    ])
    assert.strictEqual(badTools.code, 2, describeResult(badTools))
    assert.include(badTools.stderr, "--tools module:test/fixtures/model-layer.ts#layer:")
    const deadServer = await run([
      "--agent", "openai:http://127.0.0.1:9/v1", "--model", "m", "--tools", "mcp:stdio:node -e process.exit(3)",
      "--synthetic", "1", "--no-progress"
    ])
    assert.strictEqual(deadServer.code, 2, describeResult(deadServer))
    assert.include(deadServer.stderr, "--tools mcp:stdio:node -e process.exit(3): cannot connect to the MCP server")
  })
})

/**
 * `--tools module:` with tools declared by Zod or the Vercel AI SDK, through
 * the real command (issue 37, item 19): the model server on 127.0.0.1
 * receives each tool's JSON Schema exactly, arguments that do not fit are a
 * tool error the model sees, and a tool whose parameters give no JSON
 * Schema stops the run at start (exit 2, naming the tool and why).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { sentTool, zodObject } from "./sent-tools.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

interface Chat {
  readonly messages: ReadonlyArray<Record<string, unknown>>
  readonly tools?: unknown
}

// Turn 1 calls add twice, once with arguments that do not fit; turn 2 answers with the tool results' text.
const modelServer = async () => {
  const bodies: Array<Chat> = []
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c: Buffer) => raw += c.toString("utf8"))
    req.on("end", () => {
      const body = JSON.parse(raw) as Chat
      bodies.push(body)
      const results = body.messages.filter((m) => m["role"] === "tool").map((m) => String(m["content"]))
      const call = (id: string, args: unknown) => ({ id, type: "function", function: { name: "add", arguments: JSON.stringify(args) } })
      const reply = results.length === 0
        ? { choices: [{ message: { role: "assistant", content: null, tool_calls: [call("c1", { a: "2" }), call("c2", { a: 2, b: 3 })] }, finish_reason: "tool_calls" }] }
        : { choices: [{ message: { role: "assistant", content: results.join(" | ") }, finish_reason: "stop" }] }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const once = async (tools: string) => {
  const dir = tempDir()
  const out = path.join(dir, "out.jsonl")
  const model = await modelServer()
  try {
    const result = await run([
      "--agent", `openai:${model.base}`, "--model", "m", "--tools", tools,
      "--tasks", writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "t1", inputs: { instruction: "add" } }]), "--out", out, "--no-progress"
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    return { sent: model.bodies[0]!.tools, trial: readTrials(out)[0]! }
  } finally {
    await model.close()
  }
}

describe("--tools module: declared with Zod or the AI SDK, from the CLI", () => {
  it("Zod parameters: the JSON Schema sent exactly; arguments that do not fit a tool error the model sees", async () => {
    const { sent, trial } = await once("module:test/fixtures/tools-zod.ts")
    assert.deepStrictEqual(sent, [
      sentTool("add", "Add two numbers", zodObject({ a: { type: "number" }, b: { default: 0, type: "number" } }, ["a"]))
    ])
    assert.strictEqual(trial.status, "completed")
    assert.strictEqual(
      trial.output!.output_text,
      "the arguments do not fit the parameters of add: /a Invalid input: expected number, received string | 5"
    )
  })

  it("an AI SDK tool({ inputSchema: z.object(...) }) set: the JSON Schema sent exactly, arguments checked", async () => {
    const { sent, trial } = await once("module:test/fixtures/tools-zod.ts#sdk")
    assert.deepStrictEqual(sent, [
      sentTool("add", "Add two numbers", zodObject({ a: { type: "number", description: "the first" }, b: { type: "number" } }, ["a", "b"]))
    ])
    const results = trial.output!.trajectory!.filter((s) => s.type === "tool_result")
    assert.deepStrictEqual(results.map((s) => [s.id, s.is_error === true, s.content]), [
      ["c1", true, "the arguments do not fit the parameters of add: /a Invalid input: expected number, received string; /b Invalid input: expected number, received undefined"],
      ["c2", false, 5]
    ])
  })

  it("a tool whose parameters give no JSON Schema: exit 2 at start, naming the tool and why, with --mcp-per-trial too; no model call", async () => {
    const model = await modelServer()
    try {
      const result = await run([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", "module:test/fixtures/tools-zod.ts#opaque",
        "--synthetic", "1", "--no-progress"
      ])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(
        result.stderr,
        "--tools module:test/fixtures/tools-zod.ts#opaque: the parameters of tool \"lookup\" (a Standard Schema of vendor \"opaque\") cannot be turned into a JSON Schema"
      )
      // Tools connected per trial (--mcp-per-trial): a module's tools are still checked at the start.
      const perTrial = await run([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", "module:test/fixtures/tools-zod.ts#opaque", "--mcp-per-trial",
        "--synthetic", "2", "--no-progress"
      ])
      assert.strictEqual(perTrial.code, 2, describeResult(perTrial))
      assert.include(perTrial.stderr, "the parameters of tool \"lookup\" (a Standard Schema of vendor \"opaque\") cannot be turned into a JSON Schema")
      assert.strictEqual(model.bodies.length, 0)
    } finally {
      await model.close()
    }
  })
})

/**
 * Every string a tool returns or throws is scrubbed like the model's text
 * (issue 37, item 6): `OPENAI_API_KEY`, `HF_TOKEN` and the secrets of a URL
 * on the command line, in a module tool's result and error, an MCP server's
 * error result and a tool call's arguments, appear nowhere the run leaves
 * text: the JSONL, the --report page, the --summary file, stdout, stderr and
 * the OTLP export. The real command in a child process; a scripted
 * OpenAI-compatible model, the module tools, a real MCP server over stdio
 * (the reference SDK) and an OTLP collector, all on 127.0.0.1.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { json } from "./http-server.ts"
import { answer, callTools, modelServer } from "./tool-model-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// Every secret contains "SECRET": one look at each text covers them all.
const OPENAI_KEY = "sk-SECRET-openai-key-1"
const HF_TOKEN = "hf_SECRETtokenOfTheHub2"
const URL_VALUE = "SECRET-url-value-3"

const sdk = (file: string) => path.join(repoRoot, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", file)

// An MCP server whose only tool answers with an error result quoting the key.
const mcpServer = `
import { Server } from ${JSON.stringify(sdk("server/index.js"))}
import { StdioServerTransport } from ${JSON.stringify(sdk("server/stdio.js"))}
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdk("types.js"))}
const server = new Server({ name: "vault", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "vault", description: "Opens the vault", inputSchema: { type: "object", properties: {} } }]
}))
server.setRequestHandler(CallToolRequestSchema, async () => ({
  isError: true,
  content: [{ type: "text", text: "the vault refused the key ${OPENAI_KEY} and ${HF_TOKEN}" }]
}))
process.stderr.write("vault starting with ${OPENAI_KEY}\\n")
await server.connect(new StdioServerTransport())
`

// Module tools: one returns what it was given and the secrets, one throws them.
const moduleTools = `
export default {
  peek: {
    description: "Shows the keys",
    parameters: { type: "object", properties: { note: { type: "string" } } },
    execute: (args) => ({ got: args.note, openai: process.env.OPENAI_API_KEY, hub: process.env.HF_TOKEN, url: ${JSON.stringify(URL_VALUE)} })
  },
  boom: {
    description: "Always fails",
    parameters: { type: "object", properties: {} },
    execute: async () => { throw new Error("boom with " + process.env.HF_TOKEN + " and " + process.env.OPENAI_API_KEY) }
  }
}
`

interface Collector {
  readonly url: string
  readonly raw: Array<string>
  readonly close: () => Promise<void>
}

const startCollector = () =>
  new Promise<Collector>((resolve) => {
    const raw: Array<string> = []
    const server = http.createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8").on("data", (chunk: string) => body += chunk)
      req.on("end", () => {
        raw.push(`${req.url} ${body}`)
        json(res, 200, {})
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        raw,
        close: () => new Promise<void>((done) => server.close(() => done()))
      }))
  })

describe("tools' strings are scrubbed like the model's", () => {
  it.live("a key in a tool result, a tool error, an MCP error and a tool argument: nowhere in the JSONL, report, summary, stdout, stderr or OTLP export", () =>
    Effect.gen(function*() {
      // Turn 1 calls every tool, the arguments quoting the secrets; turn 2
      // answers. Task t2's model refuses with the hub token in its error body.
      const model = yield* modelServer((turn, body) => {
        const user = JSON.stringify(body.messages)
        if (user.includes("task two")) return { status: 400, body: { error: { message: `bad token ${HF_TOKEN}` } } }
        return turn === 1
          ? callTools([
            { id: "c1", name: "peek", args: { note: `keys ${OPENAI_KEY} ${HF_TOKEN} ${URL_VALUE}` } },
            { id: "c2", name: "boom", args: {} },
            { id: "c3", name: "vault", args: {} }
          ])
          : answer("done")
      })
      const collector = yield* Effect.acquireRelease(Effect.promise(startCollector), (c) => Effect.promise(c.close))
      const dir = tempDir()
      const tools = path.join(dir, "tools.mjs")
      fs.writeFileSync(tools, moduleTools)
      const server = path.join(dir, "vault.mjs")
      fs.writeFileSync(server, mcpServer)
      const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [
        { id: "t0", inputs: { instruction: "task zero" } },
        { id: "t1", inputs: { instruction: "task one" } },
        { id: "t2", inputs: { instruction: "task two" } }
      ])
      const out = path.join(dir, "out.jsonl")
      const summary = path.join(dir, "summary.json")
      const report = path.join(dir, "report.html")
      const result = yield* Effect.promise(() =>
        run([
          "--agent", `openai:${model.base}/v1?api_key=${URL_VALUE}`, "--model", "m",
          "--tools", `module:${tools}`, "--tools", `mcp:stdio:node ${server}`,
          "--tasks", tasks, "--parallelism", "2", "--retries", "0", "--score", "none",
          "--out", out, "--summary", summary, "--report", report
        ], {
          env: {
            OPENAI_API_KEY: OPENAI_KEY,
            HF_TOKEN,
            OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
            AGENT_TRIALS_PROGRESS_INTERVAL_MS: "50",
            ...Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith("OTEL_") && k !== "OTEL_EXPORTER_OTLP_ENDPOINT").map((k) => [k, ""]))
          }
        })
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      // The tools did get and give the secrets: the model saw them in the tool results.
      const toolMessages = model.received.map((r) => r.body).join("\n")
      assert.include(toolMessages, OPENAI_KEY)
      assert.include(toolMessages, HF_TOKEN)

      const texts = {
        results: fs.readFileSync(out, "utf8"),
        summary: fs.readFileSync(summary, "utf8"),
        report: fs.readFileSync(report, "utf8"),
        stdout: result.stdout,
        stderr: result.stderr,
        otlp: collector.raw.join("\n")
      }
      for (const [where, text] of Object.entries(texts)) assert.notInclude(text, "SECRET", `${where}:\n${text.slice(0, 4000)}`)
      assert.include(texts.otlp, "execute_tool vault", "the collector got the tool spans")
      // The terminal names the failure's first message, scrubbed.
      assert.include(result.stdout + result.stderr, "bad token <redacted>")

      // What is recorded in their place.
      const trials = Object.fromEntries(readTrials(out).map((t) => [t.task_id, t]))
      const steps = trials["t0"]!.output!.trajectory!
      const call = steps.find((s) => s.type === "tool_call" && s.name === "peek")!
      assert.deepStrictEqual(call.arguments, { note: "keys <redacted> <redacted> <redacted>" })
      const byName = Object.fromEntries(steps.filter((s) => s.type === "tool_result").map((s) => [s.name, s]))
      assert.deepStrictEqual(byName["peek"]!.content, { got: "keys <redacted> <redacted> <redacted>", openai: "<redacted>", hub: "<redacted>", url: "<redacted>" })
      assert.strictEqual(byName["boom"]!.content, "boom with <redacted> and <redacted>")
      assert.isTrue(byName["boom"]!.is_error)
      assert.strictEqual(byName["vault"]!.content, "the vault refused the key <redacted> and <redacted>")
      assert.isTrue(byName["vault"]!.is_error)
      assert.strictEqual(trials["t2"]!.status, "failed")
      assert.include(trials["t2"]!.error!.message, "bad token <redacted>")
    }).pipe(Effect.scoped), { timeout: 120_000 })
})

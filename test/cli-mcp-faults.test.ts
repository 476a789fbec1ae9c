/**
 * MCP servers that fail, through the real command, with a scripted MCP
 * server of our own (test/fixtures/mcp-server.mjs, a real child process
 * over stdio) and a scripted model on 127.0.0.1: a server that dies again
 * after its restart fails every trial that needed it (parallelism 8).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { answer, callTools, firstUser, modelServer } from "./tool-model-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const fixture = "test/fixtures/mcp-server.mjs"

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
          "--tools", `mcp:stdio:node ${fixture} --pids ${pids} --exit-after 12,3`,
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
      for (const trial of failed) assert.strictEqual(trial.error?.type, "McpServerFailed", JSON.stringify(trial.error))
    }))
})

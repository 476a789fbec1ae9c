/**
 * Through the real command (issue 37, item 1): a tool loop whose model turn
 * is no answer records a failed trial, never `completed` with an empty
 * answer. `openai:` with `--tools` against a scripted server on 127.0.0.1
 * (a 200 error body, no choices, a content filter in turn 2) and
 * `effect-ai:` over a layer whose turn finishes `content-filter` or
 * `error`: statuses and errors read from the JSONL.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const bodies: Record<string, unknown> = {
  "error-body": { error: { message: "The server had an error processing your request", type: "invalid_request_error" } },
  "no-choices": { choices: [] },
  "filtered": { choices: [{ message: { role: "assistant", content: "" }, finish_reason: "content_filter" }], usage: { prompt_tokens: 7, completion_tokens: 1 } },
  "fine": { choices: [{ message: { role: "assistant", content: "the sum is 5" }, finish_reason: "stop" }] }
}

// Turn 1 calls `add`; turn 2 answers with the body the task's instruction names.
const modelServer = async () => {
  let requests = 0
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c: Buffer) => raw += c.toString("utf8"))
    req.on("end", () => {
      requests++
      const body = JSON.parse(raw) as { messages: ReadonlyArray<Record<string, unknown>> }
      const user = String(body.messages.find((m) => m["role"] === "user")?.["content"])
      const reply = body.messages.some((m) => m["role"] === "tool")
        ? bodies[user]
        : {
          choices: [{
            message: { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "add", arguments: "{\"a\":2,\"b\":3}" } }] },
            finish_reason: "tool_calls"
          }]
        }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(reply))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("a model turn that is no answer, from the CLI", () => {
  it("openai: --tools: an error body, no choices and a content filter in turn 2 are failed trials (ModelError, turn 2) in the JSONL", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), Object.keys(bodies).map((id) => ({ id, inputs: { instruction: id } })))
    const model = await modelServer()
    try {
      const result = await run([
        "--agent", `openai:${model.base}`, "--model", "m", "--tools", "module:test/fixtures/tools-plain.ts",
        "--tasks", tasks, "--out", out, "--no-progress", "--backoff", "1ms"
      ])
      assert.strictEqual(result.code, 0, describeResult(result))
      const trials = new Map(readTrials(out).map((t) => [t.task_id, t] as const))
      assert.deepStrictEqual(
        Object.keys(bodies).map((id) => [id, trials.get(id)?.status, trials.get(id)?.error?.type ?? null]),
        [["error-body", "failed", "ModelError"], ["no-choices", "failed", "ModelError"], ["filtered", "failed", "ModelError"], ["fine", "completed", null]]
      )
      for (const id of ["error-body", "no-choices", "filtered"]) assert.include(trials.get(id)!.error!.message, "the model call of turn 2 failed: ", id)
      assert.include(trials.get("error-body")!.error!.message, "is an error: (type invalid_request_error) The server had an error processing your request")
      assert.include(trials.get("no-choices")!.error!.message, "has no choices")
      assert.include(trials.get("filtered")!.error!.message, "withheld by a content filter")
      assert.strictEqual(trials.get("fine")!.output!.output_text, "the sum is 5")
      // Not retried: two requests per task.
      assert.strictEqual(model.requests(), 8)
    } finally {
      await model.close()
    }
  })

  it("effect-ai: a turn that finishes content-filter or error is a failed trial (ModelError, turn 1) in the JSONL", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), ["filtered", "error", "fine"].map((id) => ({ id, inputs: { instruction: id } })))
    const result = await run([
      "--agent", "effect-ai:test/fixtures/model-layer-troubled.ts#layer", "--tasks", tasks, "--out", out, "--no-progress"
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = new Map(readTrials(out).map((t) => [t.task_id, t] as const))
    assert.deepStrictEqual(
      ["filtered", "error", "fine"].map((id) => [id, trials.get(id)?.status, trials.get(id)?.error?.type ?? null]),
      [["filtered", "failed", "ModelError"], ["error", "failed", "ModelError"], ["fine", "completed", null]]
    )
    assert.include(trials.get("filtered")!.error!.message, "the model call of turn 1 failed: LanguageModel.generateText: Content policy violation")
    assert.include(trials.get("error")!.error!.message, "the model call of turn 1 failed: LanguageModel.generateText: the model finished with an error")
    assert.strictEqual(trials.get("fine")!.output!.output_text, "ok")
  })
})

/**
 * `anthropic:` through the real command against a scripted Messages API
 * server on 127.0.0.1: the trials recorded with their usage priced (cache
 * reads and writes at their own prices), a 401 named, the key nowhere in
 * the records, the summary or the output even when the server says it
 * back; a missing ANTHROPIC_API_KEY exits 2 naming it, before any call.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { answer, error, messagesServer, usage } from "./messages-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const KEY = "sk-ant-SECRET-cli-0123456789"

describe("run --agent anthropic:", () => {
  it.live("records the answers and their usage priced; a 401 is named; the key is nowhere", () =>
    Effect.gen(function*() {
      const server = yield* messagesServer((_turn, body, request) => {
        const content = String(body.messages[0]!.content)
        if (content === "What is 3 + 3?") return error(401, "authentication_error", `invalid x-api-key ${String(request.headers["x-api-key"])}`)
        return answer(`answer to ${content} (key ${String(request.headers["x-api-key"])})`, usage(100, 10, { cache_read_input_tokens: 300, cache_creation_input_tokens: 600 }))
      })
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summary = path.join(dir, "summary.json")
      const pricing = path.join(dir, "pricing.yaml")
      fs.writeFileSync(pricing, "models:\n  claude-test: { input: 3, output: 15, cached_input: 0.3, cache_write_input: 3.75 }\n")
      const result = yield* Effect.promise(() =>
        run(
          ["--synthetic", "4", "--agent", `anthropic:${server.base}`, "--model", "claude-test", "--pricing", pricing, "--out", out, "--summary", summary, "--no-progress"],
          { env: { ANTHROPIC_API_KEY: KEY } }
        )
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.strictEqual(server.received.length, 4)
      for (const request of server.received) {
        assert.strictEqual(request.path, "/v1/messages")
        assert.strictEqual(request.headers["x-api-key"], KEY)
        assert.strictEqual(request.headers["anthropic-version"], "2023-06-01")
      }
      const trials = readTrials(out).sort((a, b) => a.task_id.localeCompare(b.task_id))
      assert.strictEqual(trials.length, 4)
      for (const trial of trials) {
        const i = Number(trial.task_id.slice("synthetic-".length))
        if (i === 3) {
          assert.strictEqual(trial.status, "failed")
          assert.strictEqual(trial.error!.type, "HttpStatusError")
          assert.strictEqual(trial.error!.message, `HTTP 401 from ${server.base}/v1/messages: invalid x-api-key <redacted>`)
        } else {
          assert.strictEqual(trial.output!.output_text, `answer to What is ${i} + ${i}? (key <redacted>)`)
          // 100 * 3 + 300 * 0.3 + 600 * 3.75 + 10 * 15 = 2790 per million
          assert.deepStrictEqual(trial.output!.usage, {
            input_tokens: 1000,
            output_tokens: 10,
            total_tokens: 1010,
            cached_input_tokens: 300,
            cache_write_input_tokens: 600,
            model: "claude-test",
            cost_usd: 0.00279
          })
        }
      }
      for (const text of [fs.readFileSync(out, "utf8"), fs.readFileSync(summary, "utf8"), result.stdout, result.stderr]) {
        assert.notInclude(text, "SECRET")
      }
    }))

  it("without ANTHROPIC_API_KEY: exit 2 naming it, nothing sent", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const result = await run(["--synthetic", "2", "--agent", "anthropic:http://127.0.0.1:9", "--model", "m", "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.include(result.stderr, "--agent anthropic:http://127.0.0.1:9 needs ANTHROPIC_API_KEY (sent as x-api-key); it is not set")
  })
})

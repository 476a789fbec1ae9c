/**
 * Credentials in `--agent` (userinfo, query values) and in OPENAI_API_KEY
 * appear nowhere a run leaves text: stdout, stderr (progress lines and
 * errors included), the results file and the --summary file. The real
 * command in a child process, against a real server that echoes every
 * request back and against a closed port.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { type CliResult, describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { closedPort, type Handler, json, serve } from "./http-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// Every credential below contains "SECRET": one check covers them all.
const USERINFO = "alice:pw-SECRET-1@"
const QUERY = "api_key=SECRET&sig=SECRET-sig%2B2&v=1"
const KEY = "sk-SECRET-3"

// Answers slowly enough for a few progress lines, and echoes the request line
// and every header: in the output (synthetic-0), a 500 (retried, synthetic-1)
// and a 400 (the rest).
const echo: Handler = (request, res) => {
  const seen = `${request.path} ${decodeURIComponent(request.path)} ${JSON.stringify(request.headers)}`
  const body = JSON.parse(request.body) as { id?: string; messages?: Array<{ content: string }> }
  const which = body.id ?? body.messages?.[0]?.content ?? ""
  setTimeout(() => {
    if (which === "synthetic-0" || which === "What is 0 + 0?") {
      return json(res, 200, { output_text: `you called ${seen}`, choices: [{ message: { content: `you called ${seen}` } }] })
    }
    if (which === "synthetic-1" || which === "What is 1 + 1?") return json(res, 500, { error: { message: `failed ${seen}` } })
    json(res, 400, `bad request ${seen}`)
  }, 60)
}

const runWithSecrets = (dir: string, agent: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const out = path.join(dir, "out.jsonl")
  const summary = path.join(dir, "summary.json")
  return Effect.promise(async () => {
    const result = await run(
      [
        "--synthetic", "6", "--parallelism", "2", "--backoff", "10ms", "--backoff-max", "20ms",
        "--out", out, "--summary", summary, "--agent", ...agent
      ],
      { env: { AGENT_TRIALS_PROGRESS_INTERVAL_MS: "50", ...env } }
    )
    return { result, out, summary }
  })
}

const assertNoSecretAnywhere = (outcome: { result: CliResult; out: string; summary: string }) => {
  const { out, result, summary } = outcome
  assert.strictEqual(result.code, 0, describeResult(result))
  assert.include(result.stderr, "progress:", "progress was on")
  const texts = {
    stdout: result.stdout,
    stderr: result.stderr,
    results: fs.readFileSync(out, "utf8"),
    summary: fs.readFileSync(summary, "utf8")
  }
  for (const [where, text] of Object.entries(texts)) assert.notInclude(text, "SECRET", `${where}:\n${text}`)
  return readTrials(out)
}

describe.concurrent("agent-trials run: no secret in any output", () => {
  it.live("http:// with userinfo and ?api_key= against a server that echoes the request", () =>
    Effect.gen(function*() {
      const server = yield* serve(echo)
      const outcome = yield* runWithSecrets(tempDir(), [`http://${USERINFO}127.0.0.1:${server.port}/agent?${QUERY}`])
      const trials = assertNoSecretAnywhere(outcome)
      assert.strictEqual(trials.length, 6)
      // The server did get the secrets, so its echo carried them.
      assert.include(server.received[0]!.path, `?${QUERY}`)
      const byTask = new Map(trials.map((t) => [t.task_id, t]))
      assert.include(byTask.get("synthetic-0")!.output!.output_text, "/agent?api_key=<redacted>&sig=<redacted>&v=1")
      assert.include(
        byTask.get("synthetic-2")!.error!.message,
        `HTTP 400 from http://<redacted>@127.0.0.1:${server.port}/agent?api_key=<redacted>&sig=<redacted>&v=<redacted>: `
      )
    }))

  it.live("openai: with ?api_key= and OPENAI_API_KEY against a server that echoes the request", () =>
    Effect.gen(function*() {
      const server = yield* serve(echo)
      const outcome = yield* runWithSecrets(
        tempDir(),
        [`openai:http://${USERINFO}127.0.0.1:${server.port}/v1?${QUERY}`, "--model", "m"],
        { OPENAI_API_KEY: KEY }
      )
      const trials = assertNoSecretAnywhere(outcome)
      assert.strictEqual(trials.length, 6)
      assert.strictEqual(server.received[0]!.headers.authorization, `Bearer ${KEY}`)
      assert.isTrue(trials.some((t) => t.output?.output_text.includes(`"authorization":"Bearer <redacted>"`)))
    }))

  it.live("http:// and openai: against a closed port: the NetworkError names the URL without its secrets", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const [http, openai] = yield* Effect.all([
        runWithSecrets(tempDir(), [`http://${USERINFO}127.0.0.1:${port}/agent?${QUERY}`]),
        runWithSecrets(tempDir(), [`openai:http://${USERINFO}127.0.0.1:${port}/v1?${QUERY}`, "--model", "m"], {
          OPENAI_API_KEY: KEY
        })
      ], { concurrency: 2 })
      for (const [outcome, pathname] of [[http, "/agent"], [openai, "/v1/chat/completions"]] as const) {
        const trials = assertNoSecretAnywhere(outcome)
        assert.strictEqual(trials.length, 6)
        for (const trial of trials) {
          assert.strictEqual(trial.error?.type, "NetworkError")
          assert.include(trial.error!.message, `POST http://<redacted>@127.0.0.1:${port}${pathname}?api_key=<redacted>`)
        }
      }
    }))

  it.live("openai: a one-letter OPENAI_API_KEY leaves the recorded response byte-identical; a long key is still scrubbed as a value and from an error", () =>
    Effect.gen(function*() {
      const long = "sk-long-SECRET-key-789"
      // What the server sent, by the key it got; 401 for the second task.
      const sent = new Map<string, Array<string>>()
      const server = yield* serve((request, res) => {
        const key = (request.headers.authorization ?? "").replace(/^Bearer /, "")
        const content = (JSON.parse(request.body) as { messages: Array<{ content: string }> }).messages[0]!.content
        if (content === "What is 1 + 1?" && key === long) {
          return json(res, 401, { error: { message: `Incorrect API key provided: ${key}` } })
        }
        const body = JSON.stringify({
          id: "chatcmpl-x1",
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: "x marks the index: max(x, 1x) = x" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 },
          echo: key,
          note: `key=${key}`
        })
        sent.set(key, [...(sent.get(key) ?? []), body])
        json(res, 200, body)
      })
      const [short, scrubbed] = yield* Effect.all([
        runWithSecrets(tempDir(), [`openai:${server.base}/v1`, "--model", "m"], { OPENAI_API_KEY: "x" }),
        runWithSecrets(tempDir(), [`openai:${server.base}/v1`, "--model", "m"], { OPENAI_API_KEY: long })
      ], { concurrency: 2 })

      assert.strictEqual(short.result.code, 0, describeResult(short.result))
      const lines = fs.readFileSync(short.out, "utf8").trim().split("\n")
      assert.strictEqual(lines.length, 6)
      assert.strictEqual(sent.get("x")?.length, 6)
      for (const line of lines) assert.include(line, `"response":${sent.get("x")![0]}`, "the response as the server sent it")

      const trials = assertNoSecretAnywhere(scrubbed)
      const byTask = new Map(trials.map((t) => [t.task_id, t]))
      const response = byTask.get("synthetic-0")!.output!.response as Record<string, unknown>
      assert.deepStrictEqual([response["echo"], response["note"]], ["<redacted>", "key=<redacted>"])
      assert.strictEqual(
        byTask.get("synthetic-1")!.error!.message,
        `HTTP 401 from ${server.base}/v1/chat/completions: Incorrect API key provided: <redacted>`
      )
    }))

  it("a bad --agent URL and an openai: spec without --model: exit 2, the spec redacted in the message", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const [bad, noModel] = await Promise.all([
      run(["--synthetic", "3", "--agent", "http://user:SECRET@[bad?token=SECRET-2", "--out", out]),
      run(["--synthetic", "3", "--agent", "openai:http://x/v1?key=SECRET", "--out", out], { env: { OPENAI_API_KEY: KEY } })
    ])
    assert.strictEqual(bad.code, 2, describeResult(bad))
    assert.include(bad.stderr, "--agent http://<redacted>@[bad?token=<redacted>: not a valid URL", describeResult(bad))
    assert.strictEqual(noModel.code, 2, describeResult(noModel))
    assert.include(noModel.stderr, "--agent openai:http://x/v1?key=<redacted> needs --model NAME", describeResult(noModel))
    for (const result of [bad, noModel]) assert.notInclude(result.stdout + result.stderr, "SECRET", describeResult(result))
    assert.isFalse(fs.existsSync(out))
  })
})

/**
 * The request a team really sends, through the real command against scripted
 * servers on 127.0.0.1: `--system @FILE`, `--temperature`,
 * `--max-output-tokens`, `--model-seed`, `--header` (repeatable) and
 * `--request` in the exact bodies and headers `openai:` and `anthropic:`
 * send, and the judges' `--judge-*` twins in the judge's; recorded in the
 * run's definition (header values redacted, nowhere in a record), so
 * `--resume` refuses another temperature; part of the response cache's
 * key (another temperature misses, the same one hits); bad values exit 2
 * naming the flag (and the file).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { answer as messageAnswer, messagesServer } from "./messages-server.ts"
import { answer, modelServer } from "./tool-model-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const HEADER_SECRET = "SECRET-team-token-42"
const oneLine = (text: string) => text.replace(/\s+/g, " ")

const requestFlags = (dir: string) => {
  const system = path.join(dir, "system.txt")
  fs.writeFileSync(system, "You are terse.\nAnswer with a number.")
  return [
    "--system", `@${system}`,
    "--temperature", "0.2",
    "--max-output-tokens", "50",
    "--header", "X-Team=evals",
    "--header", `X-Token=${HEADER_SECRET}`,
    "--request", "{\"top_p\": 0.9, \"metadata\": {\"run\": \"ci\"}}"
  ]
}

describe("run: the request options", () => {
  it.live("openai: sends them, exactly; the definition records them with header values redacted; none in the records", () =>
    Effect.gen(function*() {
      const server = yield* modelServer((_turn, body, request) => answer(`seen ${String(request.headers["x-token"])} for ${body.messages.length}`))
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const result = yield* Effect.promise(() =>
        run(["--synthetic", "2", "--agent", `openai:${server.base}/v1`, "--model", "m", ...requestFlags(dir), "--model-seed", "7", "--out", out, "--no-progress"])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.strictEqual(server.received.length, 2)
      for (const request of server.received) {
        assert.strictEqual(request.headers["x-team"], "evals")
        assert.strictEqual(request.headers["x-token"], HEADER_SECRET)
        const body = JSON.parse(request.body) as Record<string, unknown> & { messages: Array<{ role: string; content: string }> }
        assert.deepStrictEqual(body, {
          model: "m",
          messages: [{ role: "system", content: "You are terse.\nAnswer with a number." }, { role: "user", content: body.messages[1]!.content }],
          temperature: 0.2,
          max_tokens: 50,
          seed: 7,
          top_p: 0.9,
          metadata: { run: "ci" }
        })
      }
      const recorded = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")) as { request?: ReadonlyArray<string> }
      assert.deepStrictEqual(recorded.request, [
        "--system \"You are terse.\\nAnswer with a number.\"",
        "--temperature 0.2",
        "--max-output-tokens 50",
        "--model-seed 7",
        "--header x-team=<redacted>",
        "--header x-token=<redacted>",
        "--request {\"top_p\":0.9,\"metadata\":{\"run\":\"ci\"}}"
      ])
      const trials = readTrials(out)
      assert.strictEqual(trials.length, 2)
      for (const trial of trials) assert.strictEqual(trial.output!.output_text, "seen <redacted> for 2")
      for (const text of [fs.readFileSync(out, "utf8"), fs.readFileSync(`${out}.run.json`, "utf8"), result.stdout, result.stderr]) {
        assert.notInclude(text, "SECRET")
      }
    }))

  it.live("anthropic: sends them, exactly (system as the Messages API's system), and refuses --model-seed", () =>
    Effect.gen(function*() {
      const server = yield* messagesServer(() => messageAnswer("4"))
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const args = ["--synthetic", "1", "--agent", `anthropic:${server.base}`, "--model", "claude-test", ...requestFlags(dir), "--no-progress"]
      const env = { env: { ANTHROPIC_API_KEY: "sk-ant-cli-0123456789" } }
      const result = yield* Effect.promise(() => run([...args, "--out", out], env))
      assert.strictEqual(result.code, 0, describeResult(result))
      const [sent] = server.received
      assert.strictEqual(sent!.headers["x-team"], "evals")
      assert.strictEqual(sent!.headers["x-token"], HEADER_SECRET)
      assert.strictEqual(sent!.headers["anthropic-version"], "2023-06-01")
      assert.deepStrictEqual(JSON.parse(sent!.body), {
        model: "claude-test",
        messages: [{ role: "user", content: "What is 0 + 0?" }],
        system: "You are terse.\nAnswer with a number.",
        max_tokens: 50,
        temperature: 0.2,
        top_p: 0.9,
        metadata: { run: "ci" }
      })
      const seeded = yield* Effect.promise(() => run([...args, "--model-seed", "7", "--out", path.join(dir, "o2.jsonl")], env))
      assert.strictEqual(seeded.code, 2, describeResult(seeded))
      assert.include(seeded.stderr, "the Messages API takes no seed: drop --model-seed")
      assert.strictEqual(server.received.length, 1)
    }))

  it.live("the judges' own: --judge-system, --judge-temperature, --judge-header and --judge-request in the judge's request and its definition", () =>
    Effect.gen(function*() {
      const agent = yield* modelServer(() => answer("2"))
      const judge = yield* modelServer(() => answer("Right.\nGRADE: C"))
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const result = yield* Effect.promise(() =>
        run([
          "--synthetic", "1", "--agent", `openai:${agent.base}/v1`, "--model", "m", "--temperature", "0.7",
          "--score", `judge:${judge.base}/v1`, "--judge-model", "j", "--judge-system", "Grade strictly.", "--judge-temperature", "0",
          "--judge-max-output-tokens", "300", "--judge-seed", "3", "--judge-header", "X-Judge=yes", "--judge-request", "{\"top_p\": 1}",
          "--out", out, "--no-progress"
        ])
      )
      assert.strictEqual(result.code, 0, describeResult(result))
      assert.strictEqual(judge.received.length, 1)
      assert.strictEqual(judge.received[0]!.headers["x-judge"], "yes")
      const body = JSON.parse(judge.received[0]!.body) as { messages: Array<{ role: string; content: string }> }
      assert.deepStrictEqual(Object.keys(body).sort(), ["max_tokens", "messages", "model", "seed", "temperature", "top_p"])
      assert.deepStrictEqual(body.messages.map((m) => m.role), ["system", "user"])
      assert.strictEqual(body.messages[0]!.content, "Grade strictly.")
      assert.deepStrictEqual([body["temperature" as never], body["max_tokens" as never], body["seed" as never], body["top_p" as never]], [0, 300, 3, 1])
      // The agent's request keeps its own temperature, and none of the judge's.
      assert.deepStrictEqual(JSON.parse(agent.received[0]!.body).temperature, 0.7)
      assert.strictEqual(agent.received[0]!.headers["x-judge"], undefined)
      const recorded = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")) as { request?: ReadonlyArray<string>; judge_request?: ReadonlyArray<string> }
      assert.deepStrictEqual(recorded.request, ["--temperature 0.7"])
      assert.deepStrictEqual(recorded.judge_request, [
        "--judge-system \"Grade strictly.\"",
        "--judge-temperature 0",
        "--judge-max-output-tokens 300",
        "--judge-seed 3",
        "--judge-header x-judge=<redacted>",
        "--judge-request {\"top_p\":1}"
      ])
    }))

  it.live("--resume refuses another --temperature naming both, and continues with the same", () =>
    Effect.gen(function*() {
      const server = yield* modelServer(() => answer("ok"))
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const base = ["--synthetic", "3", "--agent", `openai:${server.base}/v1`, "--model", "m", "--out", out, "--no-progress"]
      const first = yield* Effect.promise(() => run([...base, "--temperature", "0"]))
      assert.strictEqual(first.code, 0, describeResult(first))
      const before = fs.readFileSync(out, "utf8")
      const [other, none] = yield* Effect.promise(() => Promise.all([run([...base, "--temperature", "0.5", "--resume"]), run([...base, "--resume"])]))
      assert.strictEqual(other.code, 2, describeResult(other))
      assert.include(oneLine(other.stderr), "was written with --temperature 0, this run has --temperature 0.5")
      assert.strictEqual(none.code, 2, describeResult(none))
      assert.include(oneLine(none.stderr), "this run has no --system, --temperature, ... (the API's defaults)")
      assert.strictEqual(fs.readFileSync(out, "utf8"), before)
      const same = yield* Effect.promise(() => run([...base, "--temperature", "0", "--resume"]))
      assert.strictEqual(same.code, 0, describeResult(same))
    }), 120_000)

  it.live("--cache: the same --temperature is served from the cache, another one is asked again", () =>
    Effect.gen(function*() {
      const server = yield* modelServer((_turn, body) => answer(`t=${String((body as unknown as { temperature?: number }).temperature)}`))
      const dir = tempDir()
      const args = (temperature: string, out: string) => [
        "--synthetic", "2", "--agent", `openai:${server.base}/v1`, "--model", "m", "--temperature", temperature,
        "--cache", "--cache-dir", path.join(dir, "cache"), "--out", path.join(dir, out), "--no-progress"
      ]
      const first = yield* Effect.promise(() => run(args("0", "a.jsonl")))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(server.received.length, 2)
      const same = yield* Effect.promise(() => run(args("0", "b.jsonl")))
      assert.strictEqual(same.code, 0, describeResult(same))
      assert.strictEqual(server.received.length, 2)
      assert.deepStrictEqual(readTrials(path.join(dir, "b.jsonl")).map((t) => [t.output!.output_text, t.metadata["cache"]]), [["t=0", "hit"], ["t=0", "hit"]])
      const other = yield* Effect.promise(() => run(args("0.5", "c.jsonl")))
      assert.strictEqual(other.code, 0, describeResult(other))
      assert.strictEqual(server.received.length, 4)
      assert.deepStrictEqual(readTrials(path.join(dir, "c.jsonl")).map((t) => [t.output!.output_text, t.metadata["cache"]]), [["t=0.5", "miss"], ["t=0.5", "miss"]])
    }))

  it("bad values exit 2 naming the flag: a missing --system file, --request not JSON or not an object, a header without a name, a request flag with sim", async () => {
    const dir = tempDir()
    const out = (n: number) => ["--out", path.join(dir, `o${n}.jsonl`), "--no-progress"]
    const agent = ["--synthetic", "1", "--agent", "openai:http://127.0.0.1:9/v1", "--model", "m"]
    const [missing, notJson, notObject, noName, sim] = await Promise.all([
      run([...agent, "--system", "@nope/system.txt", ...out(1)]),
      run([...agent, "--request", "{top_p: 1}", ...out(2)]),
      run([...agent, "--request", "[1, 2]", ...out(3)]),
      run([...agent, "--header", "=x", ...out(4)]),
      run(["--synthetic", "1", "--temperature", "0", ...out(5)])
    ])
    for (const r of [missing, notJson, notObject, noName, sim]) assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(missing.stderr, "--system @nope/system.txt: cannot read nope/system.txt (no such file)")
    assert.include(notJson.stderr, "--request")
    assert.include(notJson.stderr, "not JSON")
    assert.include(notObject.stderr, "--request")
    assert.include(notObject.stderr, "got an array")
    assert.include(noName.stderr, "--header")
    assert.include(sim.stderr, "--temperature is about the agent's model requests: it needs an agent that asks a model (openai:BASE_URL or anthropic:BASE_URL), not sim[:...]")
    for (let n = 1; n <= 5; n++) assert.isFalse(fs.existsSync(path.join(dir, `o${n}.jsonl`)) && fs.readFileSync(path.join(dir, `o${n}.jsonl`), "utf8") !== "")
  })
})

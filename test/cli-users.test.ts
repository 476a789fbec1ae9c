/**
 * Simulated users (`run --user`), through the real command: one scripted
 * OpenAI-compatible server on 127.0.0.1 plays both the user model
 * (`user-m`) and the agent's model (`agent-m`), told apart by the request's
 * model. A conversation the user ends with ###STOP###, one that
 * --max-user-turns ends, module users and module agents, a task without
 * the instruction, a tool loop calling a tool between user turns, --resume
 * and --cache, the README's example (pass^k over epochs), and bad specs.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

interface Message {
  readonly role: string
  readonly content: string | null
  readonly tool_calls?: ReadonlyArray<unknown>
}
interface Chat {
  readonly model: string
  readonly messages: ReadonlyArray<Message>
  readonly tools?: ReadonlyArray<unknown>
}
interface Received {
  readonly body: Chat
  readonly authorization: string | undefined
}

const USER_KEY = "sk-user-0123456789abcdef"
const AGENT_KEY = "sk-agent-0123456789abcdef"

const completion = (message: Record<string, unknown>, usage: { prompt: number; completion: number }) => ({
  choices: [{ message: { role: "assistant", ...message }, finish_reason: message["tool_calls"] === undefined ? "stop" : "tool_calls" }],
  usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion }
})

// The user model (`user-m`): asks about an order, gives its number when
// asked, and says ###STOP### once the agent names the order's state (never,
// with `stubborn`). The agent (`agent-m`): asks which order until the user
// names one, then answers; with tools, it looks the order up first.
const scripted = async (options: { readonly stubborn?: boolean; readonly userStatus?: (call: number) => number } = {}) => {
  let userCalls = 0
  const received: Array<Received> = []
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c: Buffer) => raw += c.toString("utf8"))
    req.on("end", () => {
      const body = JSON.parse(raw) as Chat
      received.push({ body, authorization: req.headers.authorization })
      const last = body.messages[body.messages.length - 1]!
      const text = String(last.content ?? "")
      const reply = (message: Record<string, unknown>, usage: { prompt: number; completion: number }) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(completion(message, usage)))
      }
      if (body.model === "user-m") {
        const status = options.userStatus?.(++userCalls) ?? 200
        if (status !== 200) {
          res.writeHead(status, { "content-type": "application/json", "retry-after": "0" })
          return res.end(JSON.stringify({ error: { message: `scripted ${status}` } }))
        }
        if (body.messages.length === 2) return reply({ content: "Where is my order?" }, { prompt: 100, completion: 5 })
        if (options.stubborn !== true && text.includes("is shipped")) return reply({ content: "Thanks! ###STOP###" }, { prompt: 120, completion: 3 })
        return reply({ content: "It is A17." }, { prompt: 110, completion: 4 })
      }
      if (last.role === "tool") return reply({ content: `Order A17 is ${text}` }, { prompt: 30, completion: 6 })
      const said = body.messages.filter((m) => m.role === "user").map((m) => m.content).join(" ")
      if (!said.includes("A17")) return reply({ content: "Which order is it?" }, { prompt: 20, completion: 4 })
      if (body.tools !== undefined && body.tools.length > 0) {
        return reply({
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: JSON.stringify({ order: "A17" }) } }]
        }, { prompt: 25, completion: 5 })
      }
      return reply({ content: "Order A17 is shipped" }, { prompt: 30, completion: 6 })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { base, received, close, of: (model: string) => received.filter((r) => r.body.model === model) }
}

const orders = (dir: string, n = 1) =>
  writeJsonl(
    path.join(dir, "orders.jsonl"),
    Array.from({ length: n }, (_, i) => ({ id: `o${i}`, inputs: { user: "Ask where order A17 is.", instruction: "unused" }, reference: "Order A17 is shipped" }))
  )

const pricing = (dir: string) => {
  const file = path.join(dir, "pricing.json")
  fs.writeFileSync(file, JSON.stringify({ models: { "user-m": { input: 1, output: 2 }, "agent-m": { input: 10, output: 20 } } }))
  return file
}

const env = { OPENAI_API_KEY: AGENT_KEY, AGENT_TRIALS_USER_API_KEY: USER_KEY }

describe("simulated users, from the CLI", () => {
  it("a model user ends with ###STOP###: the conversation as steps, the agent's last answer, usage.user apart and priced", async () => {
    const dir = tempDir()
    const server = await scripted()
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--tasks", orders(dir), "--agent", `openai:${server.base}`, "--model", "agent-m",
        "--user", `openai:${server.base}`, "--user-model", "user-m", "--pricing", pricing(dir),
        "--score", "exact", "--out", out, "--report", path.join(dir, "report.html"), "--no-progress"
      ], { env })
      assert.strictEqual(result.code, 0, describeResult(result))
      const [trial] = readTrials(out)
      assert.strictEqual(trial!.status, "completed")
      const output = trial!.output!
      assert.strictEqual(output.output_text, "Order A17 is shipped")
      assert.deepStrictEqual(
        output.trajectory!.map((s) => [s.type, s.content]),
        [
          ["user_message", "Where is my order?"],
          ["assistant_message", "Which order is it?"],
          ["user_message", "It is A17."],
          ["assistant_message", "Order A17 is shipped"],
          ["user_message", "Thanks! ###STOP###"]
        ]
      )
      assert.deepStrictEqual(output.metadata?.["conversation"], { turns: 2, ended_by: "user" })
      // Agent: 2 calls (20+4, 30+6) at 10/20 per million; user: 3 calls (100+5, 110+4, 120+3) at 1/2.
      assert.deepStrictEqual(output.usage, {
        input_tokens: 50,
        output_tokens: 10,
        total_tokens: 60,
        model: "agent-m",
        cost_usd: (50 * 10 + 10 * 20) / 1e6,
        user: { input_tokens: 330, output_tokens: 12, total_tokens: 342, model: "user-m", cost_usd: (330 * 1 + 12 * 2) / 1e6 }
      })
      assert.deepStrictEqual(output.trajectory![0]!.usage, { input_tokens: 100, output_tokens: 5, total_tokens: 105, model: "user-m" })
      assert.strictEqual(trial!.scores?.["exact"]?.passed, true)
      // The user model: the instruction in its system prompt, the roles mirrored, its own key.
      const asked = server.of("user-m")
      assert.strictEqual(asked.length, 3)
      assert.include(String(asked[0]!.body.messages[0]!.content), "Ask where order A17 is.")
      assert.include(String(asked[0]!.body.messages[0]!.content), "###STOP###")
      assert.deepStrictEqual(asked[1]!.body.messages.slice(1).map((m) => [m.role, m.content]), [
        ["assistant", "Where is my order?"],
        ["user", "Which order is it?"]
      ])
      assert.isTrue(asked.every((r) => r.authorization === `Bearer ${USER_KEY}`))
      // The agent: the conversation so far, its own key.
      const agent = server.of("agent-m")
      assert.deepStrictEqual(agent[1]!.body.messages.map((m) => [m.role, m.content]), [
        ["user", "Where is my order?"],
        ["assistant", "Which order is it?"],
        ["user", "It is A17."]
      ])
      assert.isTrue(agent.every((r) => r.authorization === `Bearer ${AGENT_KEY}`))
      // The summary counts the user's tokens in its totals, on a line of their own.
      assert.match(result.stdout, /usage over 1 trials: 402 tokens/)
      assert.match(result.stdout, /\n {4}user: 342 tokens \(input 330, output 12\), \$0\.000354\n/)
      assert.notInclude(fs.readFileSync(out, "utf8"), USER_KEY)
      // The report's transcript shows the conversation, each side named.
      const html = fs.readFileSync(path.join(dir, "report.html"), "utf8")
      const rows = JSON.parse(/<script type="application\/json" id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
        readonly rows: ReadonlyArray<{ readonly trajectory: { readonly transcript: ReadonlyArray<{ readonly type: string; readonly text: string }> } }>
      }
      assert.deepStrictEqual(rows.rows[0]!.trajectory.transcript.map((s) => [s.type, s.text]), output.trajectory!.map((s) => [s.type, s.content]))
      assert.include(html, `user_message: "user", assistant_message: "assistant"`)
      // Its row's tokens are the agent's and the user model's: 60 + 342.
      assert.strictEqual((rows.rows[0] as unknown as { readonly usage: { readonly tokens: string } }).usage.tokens, "402")
      // The run's definition records the user.
      const definition = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")) as Record<string, unknown>
      assert.deepStrictEqual(definition["user"], {
        spec: `openai:${server.base}`,
        model: "user-m",
        instruction: "inputs.user",
        max_user_turns: 10
      })
    } finally {
      await server.close()
    }
  }, 60_000)

  it("the user model's key never reaches a record, even when the model says it back", async () => {
    const dir = tempDir()
    const server = http.createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(completion({ content: `my header was ${req.headers.authorization}` }, { prompt: 1, completion: 1 })))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
    try {
      const out = path.join(dir, "out.jsonl")
      fs.writeFileSync(path.join(dir, "agent.mjs"), "export default (task, { conversation }) => conversation.at(-1).content\n")
      const result = await run([
        "--tasks", orders(dir), "--agent", `module:${path.join(dir, "agent.mjs")}`,
        "--user", `openai:${base}`, "--user-model", "user-m", "--max-user-turns", "1", "--out", out, "--no-progress"
      ], { env })
      assert.strictEqual(result.code, 0, describeResult(result))
      const text = fs.readFileSync(out, "utf8")
      assert.include(text, "my header was Bearer ")
      assert.notInclude(text, USER_KEY)
      assert.notInclude(result.stdout + result.stderr, USER_KEY)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }, 60_000)

  it("--max-user-turns reached ends the conversation after the agent's answer: completed, recorded as max_user_turns", async () => {
    const dir = tempDir()
    const server = await scripted({ stubborn: true })
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--tasks", orders(dir), "--agent", `openai:${server.base}`, "--model", "agent-m",
        "--user", `openai:${server.base}`, "--user-model", "user-m", "--max-user-turns", "3", "--out", out, "--no-progress"
      ], { env })
      assert.strictEqual(result.code, 0, describeResult(result))
      const [trial] = readTrials(out)
      assert.strictEqual(trial!.status, "completed")
      assert.deepStrictEqual(trial!.output!.metadata?.["conversation"], { turns: 3, ended_by: "max_user_turns" })
      assert.deepStrictEqual(trial!.output!.trajectory!.map((s) => s.type), [
        "user_message", "assistant_message", "user_message", "assistant_message", "user_message", "assistant_message"
      ])
      assert.strictEqual(server.of("user-m").length, 3)
      assert.strictEqual(server.of("agent-m").length, 3)
      assert.include(result.stdout, "\n  conversations: 1 trial; user messages per trial mean 3, p50 3, p95 3, max 3; ended by --max-user-turns: 1\n")
    } finally {
      await server.close()
    }
  }, 60_000)

  it("the user model's 429 is waited out and retried; a user model failing for good fails the trial as UserError, the conversation kept", async () => {
    const dir = tempDir()
    const throttled = await scripted({ userStatus: (n) => n === 2 ? 429 : 200 })
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--tasks", orders(dir), "--agent", `openai:${throttled.base}`, "--model", "agent-m",
        "--user", `openai:${throttled.base}`, "--user-model", "user-m", "--out", out, "--no-progress"
      ], { env })
      assert.strictEqual(result.code, 0, describeResult(result))
      const [trial] = readTrials(out)
      assert.strictEqual(trial!.status, "completed")
      assert.strictEqual(throttled.of("user-m").length, 4)
      assert.strictEqual(trial!.output!.usage!.user!.total_tokens, 342)
    } finally {
      await throttled.close()
    }
    const broken = await scripted({ userStatus: (n) => n === 1 ? 200 : 500 })
    try {
      const out = path.join(dir, "broken.jsonl")
      const result = await run([
        "--tasks", orders(dir), "--agent", `openai:${broken.base}`, "--model", "agent-m",
        "--user", `openai:${broken.base}`, "--user-model", "user-m", "--retries", "1", "--backoff", "1ms", "--out", out, "--no-progress"
      ], { env })
      // A failed trial, recorded: the run itself ends well (no --max-failures).
      assert.strictEqual(result.code, 0, describeResult(result))
      const [trial] = readTrials(out)
      assert.strictEqual(trial!.status, "failed")
      assert.strictEqual(trial!.error?.type, "UserError")
      assert.match(trial!.error!.message, /^the user model failed in turn 2: HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: scripted 500$/)
      assert.deepStrictEqual(trial!.error!.trajectory!.map((s) => s.type), ["user_message", "assistant_message"])
      assert.deepStrictEqual(trial!.error!.usage, {
        input_tokens: 20,
        output_tokens: 4,
        total_tokens: 24,
        model: "agent-m",
        user: { input_tokens: 100, output_tokens: 5, total_tokens: 105, model: "user-m" }
      })
      // One good call, then turn 2's attempt and its one retry.
      assert.strictEqual(broken.of("user-m").length, 3)
    } finally {
      await broken.close()
    }
  }, 60_000)

  it("a module user returning null ends it; a module agent receives the conversation; a task without the instruction is InvalidTask", async () => {
    const dir = tempDir()
    fs.writeFileSync(
      path.join(dir, "user.mjs"),
      "export const play = (conversation, task, { instruction, turn }) =>\n" +
        "  turn === 1 ? instruction : turn === 2 ? `and ${task.id}?` : null\n"
    )
    fs.writeFileSync(
      path.join(dir, "agent.mjs"),
      "export default (task, { conversation }) => conversation.map((m) => `${m.role}:${m.content}`).join('|')\n"
    )
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [
      { id: "a", inputs: {}, metadata: { persona: "hello" } },
      { id: "b", inputs: {} }
    ])
    const out = path.join(dir, "out.jsonl")
    const result = await run([
      "--tasks", tasks, "--agent", `module:${path.join(dir, "agent.mjs")}`, "--user", `module:${path.join(dir, "user.mjs")}#play`,
      "--user-instruction", "metadata.persona", "--out", out, "--no-progress"
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const trials = readTrials(out).sort((x, y) => x.task_id.localeCompare(y.task_id))
    assert.strictEqual(trials[0]!.output?.output_text, "user:hello|assistant:user:hello|user:and a?")
    assert.deepStrictEqual(trials[0]!.output?.metadata?.["conversation"], { turns: 2, ended_by: "user" })
    assert.deepStrictEqual(trials[0]!.output?.trajectory?.map((s) => s.type), [
      "user_message", "assistant_message", "user_message", "assistant_message"
    ])
    assert.strictEqual(trials[1]!.status, "failed")
    assert.strictEqual(trials[1]!.error?.type, "InvalidTask")
    assert.strictEqual(trials[1]!.error?.message, "task b has no user instruction at metadata.persona (--user-instruction)")
  }, 60_000)

  it("with --tools, the agent's tool call and its result sit between the user's turns, counted as tool calls, not messages", async () => {
    const dir = tempDir()
    fs.writeFileSync(
      path.join(dir, "tools.mjs"),
      "export default { lookup: { description: 'An order state', parameters: { type: 'object', properties: { order: { type: 'string' } } }, " +
        "execute: () => 'shipped' } }\n"
    )
    const server = await scripted()
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--tasks", orders(dir), "--agent", `openai:${server.base}`, "--model", "agent-m", "--tools", `module:${path.join(dir, "tools.mjs")}`,
        "--user", `openai:${server.base}`, "--user-model", "user-m", "--out", out, "--no-progress"
      ], { env })
      assert.strictEqual(result.code, 0, describeResult(result))
      const [trial] = readTrials(out)
      assert.deepStrictEqual(trial!.output!.trajectory!.map((s) => s.type), [
        "user_message", "model", "assistant_message",
        "user_message", "model", "tool_call", "tool_result", "model", "assistant_message",
        "user_message"
      ])
      assert.strictEqual(trial!.output!.output_text, "Order A17 is shipped")
      assert.match(result.stdout, /steps per trial mean 3, p50 3, p95 3, max 3; tool calls per trial mean 1/)
    } finally {
      await server.close()
    }
  }, 60_000)

  it("with --tools, a later turn's prompt replays the loop's earlier tool calls and results, not only its answers", async () => {
    const dir = tempDir()
    fs.writeFileSync(
      path.join(dir, "tools.mjs"),
      "export default { lookup: { description: 'An order state', parameters: { type: 'object', properties: { order: { type: 'string' } } }, " +
        "execute: () => 'shipped' } }\n"
    )
    const server = await scripted({ stubborn: true })
    try {
      const out = path.join(dir, "out.jsonl")
      const result = await run([
        "--tasks", orders(dir), "--agent", `openai:${server.base}`, "--model", "agent-m", "--tools", `module:${path.join(dir, "tools.mjs")}`,
        "--user", `openai:${server.base}`, "--user-model", "user-m", "--max-user-turns", "3", "--out", out, "--no-progress"
      ], { env })
      assert.strictEqual(result.code, 0, describeResult(result))
      const agent = server.of("agent-m")
      // Turn 1: one call; turn 2: the tool call, then the answer; turn 3 starts from all of it.
      const third = agent[3]!.body.messages
      assert.deepStrictEqual(third.map((m) => [m.role, m.tool_calls === undefined ? m.content : "(tool call)"]), [
        ["user", "Where is my order?"],
        ["assistant", "Which order is it?"],
        ["user", "It is A17."],
        ["assistant", "(tool call)"],
        ["tool", "shipped"],
        ["assistant", "Order A17 is shipped"],
        ["user", "It is A17."]
      ])
      assert.deepStrictEqual(readTrials(out)[0]!.output?.metadata?.["conversation"], { turns: 3, ended_by: "max_user_turns" })
    } finally {
      await server.close()
    }
  }, 60_000)

  it("--resume refuses another --max-user-turns; --cache serves a second run's whole conversations without a call", async () => {
    const dir = tempDir()
    const server = await scripted()
    try {
      const out = path.join(dir, "out.jsonl")
      const args = [
        "--tasks", orders(dir, 2), "--agent", `openai:${server.base}`, "--model", "agent-m",
        "--user", `openai:${server.base}`, "--user-model", "user-m", "--out", out, "--no-progress",
        "--cache", "--cache-dir", path.join(dir, "cache")
      ]
      const first = await run(args, { env })
      assert.strictEqual(first.code, 0, describeResult(first))
      const calls = server.received.length
      assert.strictEqual(calls, 10)
      const refused = await run([...args, "--resume", "--max-user-turns", "4"], { env })
      assert.strictEqual(refused.code, 2, describeResult(refused))
      assert.include(refused.stderr, "--max-user-turns 10")
      assert.include(refused.stderr, "--max-user-turns 4")
      const again = await run([...args.slice(0, args.indexOf("--out")), "--out", path.join(dir, "again.jsonl"), ...args.slice(args.indexOf("--out") + 2)], { env })
      assert.strictEqual(again.code, 0, describeResult(again))
      assert.strictEqual(server.received.length, calls)
      const trials = readTrials(path.join(dir, "again.jsonl"))
      assert.deepStrictEqual(trials.map((t) => t.metadata["cache"]), ["hit", "hit"])
      assert.deepStrictEqual(trials.map((t) => t.output?.output_text), ["Order A17 is shipped", "Order A17 is shipped"])
    } finally {
      await server.close()
    }
  }, 90_000)

  it("the README's example runs as written: pass^k over epochs of conversations", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("### Simulated users"), readme.indexOf("## Scoring\n"))
    const script = /```sh\n([\s\S]*?)```/.exec(section)![1]!
    const expected = /```text\n([\s\S]*?)\n```/.exec(section)![1]!
    const dir = tempDir()
    // The files the script writes, written under dir instead of the repository's shop/.
    for (const m of script.matchAll(/cat > shop\/(\S+) <<'(\w+)'\n([\s\S]*?)\n\2\n/g)) fs.writeFileSync(path.join(dir, m[1]!), `${m[3]!}\n`)
    const command = /npm run -s trials -- run ([\s\S]*?) \| grep '([^']+)'/.exec(script)!
    const args = command[1]!.replace(/\\\n\s*/g, "").split(/\s+/).map((a) => a.replaceAll("shop/", `${dir}/`))
    const result = await run(args.slice(0))
    assert.strictEqual(result.code, 0, describeResult(result))
    const line = result.stdout.split("\n").find((l) => l.includes(command[2]!))
    assert.strictEqual(line, expected)
  }, 60_000)

  it("bad input exits 2 naming the flag: an unknown --user scheme, a model user without --user-model, --user-model alone, an agent that cannot converse, a cluster run", async () => {
    const dir = tempDir()
    const tasks = orders(dir)
    fs.writeFileSync(path.join(dir, "x.mjs"), "export default () => 'x'\n")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--user", "ftp://example.com/u"], "--user ftp://example.com/u: unknown user scheme \"ftp:\" (expected openai:BASE_URL or anthropic:BASE_URL or module:PATH[#export])"],
      [["--agent", "openai:http://127.0.0.1:9/v1", "--model", "m", "--user", "openai:http://127.0.0.1:9/v1"], "--user openai:http://127.0.0.1:9/v1 needs --user-model NAME"],
      [["--user-model", "user-m"], "--user-model needs --user (it is about the simulated user)"],
      [["--user", "module:user.mjs"], "--user needs an agent that takes part in a conversation (module:PATH[#export] or openai:BASE_URL or anthropic:BASE_URL), not sim"],
      [["--agent", "module:x.mjs", "--user", "module:missing-user.mjs"], "--user module:missing-user.mjs: cannot load user module missing-user.mjs"],
      [["--cluster", "postgres://127.0.0.1:1/db", "--user", "module:x.mjs"], "--user cannot be used with --cluster: the workers call their own agent"]
    ]
    for (const [flags, message] of cases) {
      const result = await run(["--tasks", tasks, ...flags, "--out", path.join(dir, "out.jsonl"), "--no-progress"], { cwd: dir })
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, message, describeResult(result))
      assert.isFalse(fs.existsSync(path.join(dir, "out.jsonl")))
    }
  }, 90_000)
})

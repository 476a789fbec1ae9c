/**
 * Simulated users, below the command: the conversation loop around agents
 * and users made here (a failure keeps its type, the conversation so far
 * and what both sides spent; a timeout's progress holds the conversation;
 * a user that ends before any answer fails), the module user's guard, the
 * messages as the path scorers, the judge's text and the usage sums see
 * them, the pricing of `usage.user` and the budgets that count it, and what
 * `--resume` says of another user.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { Agent } from "../src/domain/Agent.ts"
import * as Conversation from "../src/domain/Conversation.ts"
import * as Trajectory from "../src/domain/Trajectory.ts"
import type { AgentEvalTrial, TrajectoryStep, Usage } from "../src/domain/Trial.ts"
import * as Usages from "../src/domain/Usage.ts"
import * as History from "../src/agents/tools/internal/history.ts"
import * as UserConversation from "../src/agents/users/Conversation.ts"
import * as ModelUser from "../src/agents/users/Model.ts"
import * as ModuleUser from "../src/agents/users/Module.ts"
import type { SimulatedUser } from "../src/agents/users/User.ts"
import * as Users from "../src/agents/users/Users.ts"
import * as CompareUsage from "../src/programs/compare/UsageTally.ts"
import * as Budget from "../src/programs/run/Budget.ts"
import { differences, type RunDefinition } from "../src/programs/run/Definition.ts"
import * as Judge from "../src/scoring/Judge.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as Pricing from "../src/summary/Pricing.ts"

const AT = "2026-01-01T00:00:00.000Z"
const task = { id: "t1", inputs: { user: "You want a refund." } }

class Broke extends Schema.TaggedError<Broke>()("Broke", {
  message: Schema.String,
  trajectory: Schema.Array(Schema.Any),
  usage: Schema.optionalKey(Schema.Any)
}) {}

// A user that says `lines` in order, then ends (null), each turn spending 10 tokens of `u`.
const scriptedUser = (lines: ReadonlyArray<string>): SimulatedUser => (turn) =>
  Effect.succeed(
    turn.turn <= lines.length
      ? { text: lines[turn.turn - 1]!, ends: false, usage: { input_tokens: 8, output_tokens: 2, total_tokens: 10, model: "u" } }
      : { ends: true }
  )

const spent = (tokens: number): Usage => ({ input_tokens: tokens, output_tokens: 0, total_tokens: tokens, model: "a" })

describe("the conversation loop", () => {
  it.effect("an agent failing in its second answer fails the trial with its own type, the conversation and both usages kept", () =>
    Effect.gen(function*() {
      const agent: Agent<Broke> = (_task, trial) =>
        trial?.conversation?.length === 1
          ? Effect.succeed({ output_text: "which order?", usage: spent(5) })
          : Effect.fail(
            new Broke({
              message: "max turns",
              trajectory: [{ type: "model", content: "", started_at: AT, duration_ms: 1 }],
              usage: spent(7)
            })
          )
      const wrapped = UserConversation.wrap(agent, { user: scriptedUser(["refund please", "order 9"]), instruction: "inputs.user", maxUserTurns: 5 })
      const exit = yield* Effect.exit(wrapped(task, { id: "t1:1", epoch: 1 }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
      assert.isTrue(Exit.isFailure(exit))
      const error = (exit as Exit.Failure<unknown, unknown>).cause.reasons[0] as { readonly error: Broke }
      assert.instanceOf(error.error, Broke)
      assert.strictEqual(error.error._tag, "Broke")
      assert.deepStrictEqual(Trajectory.ofError(error.error)?.map((s) => s.type), [
        "user_message", "assistant_message", "user_message", "model"
      ])
      assert.deepStrictEqual(Usages.ofError(error.error), {
        ...spent(12),
        user: { input_tokens: 16, output_tokens: 4, total_tokens: 20, model: "u" }
      })
    }))

  it.effect("a timeout's progress holds the conversation so far and what the agent is doing, with the usage of both", () =>
    Effect.gen(function*() {
      const held = yield* Deferred.make<void>()
      const agent: Agent = (_task, trial) =>
        trial?.conversation?.length === 1
          ? Effect.succeed({ output_text: "which order?", usage: spent(5) })
          : Effect.gen(function*() {
            const progress = yield* Trajectory.CurrentProgress
            if (progress !== undefined) {
              progress.current = () => ({ steps: [{ type: "model", content: "thinking", started_at: AT, duration_ms: 0 }], doing: "waiting for the model" })
            }
            yield* Deferred.await(held)
            return { output_text: "done" }
          })
      const progress: Trajectory.Progress = { current: undefined, usage: undefined }
      const wrapped = UserConversation.wrap(agent, { user: scriptedUser(["refund please", "order 9"]), instruction: "inputs.user", maxUserTurns: 5 })
      const fiber = yield* wrapped(task, { id: "t1:1", epoch: 1 }).pipe(
        Effect.provideService(Trajectory.CurrentProgress, progress),
        Effect.provide(NodeHttpClient.layerUndici),
        Effect.forkChild
      )
      yield* TestClock.adjust(0)
      const now = progress.current!(0)
      assert.deepStrictEqual(now.steps.map((s) => s.type), ["user_message", "assistant_message", "user_message", "model"])
      assert.strictEqual(now.doing, "in user turn 2: waiting for the model")
      assert.deepStrictEqual(progress.usage, { ...spent(5), user: { input_tokens: 16, output_tokens: 4, total_tokens: 20, model: "u" } })
      yield* Deferred.succeed(held, undefined)
      const output = yield* Fiber.join(fiber)
      assert.strictEqual(output.output_text, "done")
    }))

  it.effect("a user that ends before the agent answered fails with UserError; a module user's wrong value is a UserError naming it", () =>
    Effect.gen(function*() {
      const agent: Agent = () => Effect.succeed({ output_text: "never" })
      const silent = UserConversation.wrap(agent, { user: scriptedUser([]), instruction: "inputs.user", maxUserTurns: 3 })
      const ended = yield* Effect.flip(silent(task, undefined).pipe(Effect.provide(NodeHttpClient.layerUndici)))
      assert.strictEqual((ended as { readonly _tag: string })._tag, "UserError")
      assert.strictEqual((ended as Error).message, "the user ended the conversation before the agent answered anything")
      const numeric = ModuleUser.fromFunction(() => 42, "the user module user.mjs")
      const wrong = yield* Effect.flip(
        UserConversation.wrap(agent, { user: numeric, instruction: "inputs.user", maxUserTurns: 3 })(task, undefined).pipe(
          Effect.provide(NodeHttpClient.layerUndici)
        )
      )
      assert.strictEqual(
        (wrong as Error).message,
        "the user module user.mjs returned 42 in turn 1, expected the next message (a string) or null to end"
      )
      assert.deepStrictEqual(Trajectory.ofError(wrong), [])
      const thrown = ModuleUser.fromFunction(() => Promise.reject(new Error("no network")), "the user module user.mjs")
      const rejected = yield* Effect.flip(
        thrown({ task, instruction: "x", conversation: [], turn: 1, trial: undefined }).pipe(Effect.provide(NodeHttpClient.layerUndici))
      )
      assert.include(rejected.message, "the user module user.mjs failed in turn 1: ")
      assert.include(rejected.message, "no network")
    }))

  it("the instruction at a dotted path: a string as it is, other values as JSON, none for a missing key or null", () => {
    const t = { id: "t", inputs: { user: "hi" }, metadata: { persona: { name: "Ana" }, none: null } }
    assert.strictEqual(UserConversation.instructionOf(t, "inputs.user"), "hi")
    assert.strictEqual(UserConversation.instructionOf(t, "metadata.persona"), "{\"name\":\"Ana\"}")
    assert.isUndefined(UserConversation.instructionOf(t, "metadata.none"))
    assert.isUndefined(UserConversation.instructionOf(t, "inputs.user.deeper"))
  })
})

describe("the model user's request", () => {
  it("a system prompt with the instruction and ###STOP###, the greeting first, then the conversation with its roles mirrored", () => {
    const first = ModelUser.mirrored("You want a refund.", [])
    assert.strictEqual(first.length, 2)
    assert.include(first[0]!.content, "You want a refund.")
    assert.include(first[0]!.content, ModelUser.STOP)
    assert.deepStrictEqual(first[1], { role: "user", content: ModelUser.GREETING })
    assert.deepStrictEqual(ModelUser.mirrored("x", [{ role: "user", content: "a" }, { role: "assistant", content: "b" }]).slice(1), [
      { role: "assistant", content: "a" },
      { role: "user", content: "b" }
    ])
  })

  it("--user specs: parsed, refused in --user's words, recorded without secrets", () => {
    assert.deepStrictEqual(Users.parse("module:u.mjs#play"), { _tag: "Module", file: "u.mjs", exportName: "play" })
    assert.strictEqual(Users.parse("module:u.mjs#"), "--user module:u.mjs#: the export name after # is empty")
    assert.strictEqual(Users.parse("openai:ftp://x"), "--user openai:ftp://x: expected openai:BASE_URL with an http(s) URL, e.g. openai:https://api.openai.com/v1")
    const spec = Users.parse("openai:https://me:secret@example.com/v1")
    assert.notStrictEqual(typeof spec, "string")
    assert.notInclude(Users.kindOf(spec as Users.Spec).recorded(spec as Users.Spec, (f) => f), "secret")
  })
})

describe("a tool loop's history replayed as its prompt", () => {
  it("a model turn joined by its calls, the results one tool message, an answer without model turns its own message", () => {
    const history: ReadonlyArray<TrajectoryStep> = [
      { type: "user_message", content: "hi", started_at: AT, duration_ms: 1 },
      { type: "assistant_message", content: "hello", started_at: AT, duration_ms: 1 },
      { type: "user_message", content: "order 9?", started_at: AT, duration_ms: 1 },
      { type: "model", content: "looking", started_at: AT, duration_ms: 1 },
      { type: "tool_call", id: "c1", name: "orders", arguments: { id: 9 }, started_at: AT, duration_ms: 1 },
      { type: "tool_call", id: "c2", name: "fail", started_at: AT, duration_ms: 1 },
      { type: "tool_result", id: "c1", name: "orders", content: "paid", started_at: AT, duration_ms: 0 },
      { type: "tool_result", id: "c2", name: "fail", content: "boom", is_error: true, started_at: AT, duration_ms: 0 },
      { type: "model", content: "it is paid", started_at: AT, duration_ms: 1 },
      { type: "assistant_message", content: "it is paid", started_at: AT, duration_ms: 2 },
      { type: "user_message", content: "thanks", started_at: AT, duration_ms: 1 }
    ]
    assert.deepStrictEqual(History.messagesOf(history), [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "order 9?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "looking" },
          { type: "tool-call", id: "c1", name: "orders", params: { id: 9 }, providerExecuted: false },
          { type: "tool-call", id: "c2", name: "fail", params: {}, providerExecuted: false }
        ]
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", id: "c1", name: "orders", isFailure: false, result: "paid" },
          { type: "tool-result", id: "c2", name: "fail", isFailure: true, result: "boom" }
        ]
      },
      { role: "assistant", content: [{ type: "text", text: "it is paid" }] },
      { role: "user", content: "thanks" }
    ])
  })
})

describe("messages in the path, the judge's text and the scorers", () => {
  const steps: ReadonlyArray<TrajectoryStep> = [
    { type: "user_message", content: "refund please", started_at: AT, duration_ms: 1 },
    { type: "model", content: "", started_at: AT, duration_ms: 1 },
    { type: "tool_call", name: "orders", arguments: { id: 9 }, started_at: AT, duration_ms: 1 },
    { type: "tool_result", name: "orders", content: "paid", started_at: AT, duration_ms: 0 },
    { type: "model", content: "done", started_at: AT, duration_ms: 1 },
    { type: "assistant_message", content: "refunded", started_at: AT, duration_ms: 3 },
    { type: "user_message", content: "###STOP###", started_at: AT, duration_ms: 1 }
  ]

  it("the text names who said what; steps, tool calls and calls by tool count no message", () => {
    assert.strictEqual(
      Trajectory.text(steps),
      [
        "1. user: refund please",
        "2. model turn",
        "3. tool call orders {\"id\":9}",
        "4. tool result orders: paid",
        "5. model turn: done",
        "6. assistant: refunded",
        "7. user: ###STOP###"
      ].join("\n")
    )
    assert.strictEqual(Trajectory.steps(steps), 2)
    assert.strictEqual(Trajectory.toolCalls(steps).length, 1)
    assert.deepStrictEqual([...Trajectory.callsByTool(steps)], [["orders", 1]])
    assert.deepStrictEqual(Conversation.ofTrajectory(steps), [
      { role: "user", content: "refund please" },
      { role: "assistant", content: "refunded" },
      { role: "user", content: "###STOP###" }
    ])
  })

  it("a judge with the trajectory is told it holds the conversation", () => {
    const text = Judge.prompt(task, "refunded", "refunded", steps)
    assert.include(text, "[The conversation (user: and assistant: lines) and the agent's steps: its model turns, tool calls and tool results]")
    assert.include(text, "1. user: refund please")
    assert.include(Judge.prompt(task, "x", "x", steps.slice(1, 5)), "[Agent's steps: its model turns, tool calls and tool results]")
  })

  it.effect("steps:max=2 passes on two model turns among five messages; tool-called counts the one call", () =>
    Effect.gen(function*() {
      const trial: AgentEvalTrial = {
        id: "t1:1",
        task_id: "t1",
        status: "completed",
        output: { output_text: "refunded", trajectory: steps },
        metadata: { started_at: AT, finished_at: AT, latency_ms: 5 }
      }
      const score = (spec: string) =>
        Effect.flatMap(Scorers.fromSpec(spec, { cwd: process.cwd() }), (scorer) => scorer.score(task, trial)).pipe(
          Effect.provide(NodeHttpClient.layerUndici)
        )
      const steps2 = yield* score("steps:max=2")
      assert.deepStrictEqual([steps2.passed, steps2.explanation], [true, "2 steps (expected at most 2)"])
      const called = yield* score("tool-called:orders,max=1")
      assert.isTrue(called.passed)
    }))
})

describe("usage.user: sums, prices and budgets", () => {
  const user = { input_tokens: 100, output_tokens: 10, total_tokens: 110, model: "u" }

  it("Usage.add sums the agent's counts and the user's apart", () => {
    assert.deepStrictEqual(Usages.add({ ...spent(5), user }, { ...spent(7), user }), {
      ...spent(12),
      user: { input_tokens: 200, output_tokens: 20, total_tokens: 220, model: "u" }
    })
    assert.deepStrictEqual(Usages.add(spent(5), { ...spent(1), user }), { ...spent(6), user })
  })

  it("priced by each side's model; an agent that reported nothing is not an unpriced model", () => {
    const unpriced: Array<string> = []
    const pricing = Pricing.make("p.json", { models: { a: { input: 10, output: 20 }, u: { input: 1, output: 2 } } }, (m) => unpriced.push(m))
    assert.deepStrictEqual(pricing.price({ ...spent(1000), user }), {
      ...spent(1000),
      cost_usd: 0.01,
      user: { ...user, cost_usd: (100 + 20) / 1e6 }
    })
    assert.deepStrictEqual(pricing.price({ input_tokens: 0, output_tokens: 0, total_tokens: 0, user }).cost_usd, 0)
    assert.deepStrictEqual(unpriced, [])
  })

  it("the budgets count the user's tokens and cost with the agent's", () => {
    const s = new Budget.Spent()
    s.add({
      id: "t1:1",
      task_id: "t1",
      status: "completed",
      output: { output_text: "x", usage: { ...spent(5), cost_usd: 0.5, user: { ...user, cost_usd: 0.25 } } },
      metadata: { started_at: AT, finished_at: AT, latency_ms: 1 }
    })
    assert.strictEqual(s.tokens, 115)
    assert.strictEqual(s.cost, 0.75)
    assert.strictEqual(s.reached({ maxTokens: 115 })?.budget, "max_tokens")
    assert.isUndefined(s.reached({ maxTokens: 116 }))
  })
})

describe("compare counts the user model's spend with the agent's", () => {
  it("a trial's tokens and cost are its agent's, its user's and its judges'", () => {
    const file = new CompareUsage.FileUsage()
    const sums = file.add(CompareUsage.NO_USAGE, {
      id: "t1:1",
      task_id: "t1",
      status: "completed",
      output: { output_text: "x", usage: { ...spent(5), cost_usd: 0.5, user: { input_tokens: 9, output_tokens: 1, total_tokens: 10, cost_usd: 0.25 } } },
      metadata: { started_at: AT, finished_at: AT, latency_ms: 1 }
    })
    assert.deepStrictEqual(sums, [1, 15, 1, 0.75])
  })
})

describe("the run's definition", () => {
  const base: RunDefinition = {
    version: 1,
    agent: "openai:http://127.0.0.1/v1",
    model: "m",
    scorers: [],
    pass: null,
    judge_model: null,
    epochs: 1,
    dataset: { synthetic: 4 },
    rows: "all"
  }
  const user = { spec: "module:/abs/u.mjs", model: null, instruction: "inputs.user", max_user_turns: 10 }

  it("another user, or one where there was none, is another run, named by its flags; none on both sides is the same", () => {
    assert.deepStrictEqual(differences(base, base), [])
    assert.deepStrictEqual(differences(base, { ...base, user }), [[
      "no --user",
      "--user module:/abs/u.mjs --user-instruction inputs.user --max-user-turns 10"
    ]])
    assert.deepStrictEqual(differences({ ...base, user }, { ...base, user: { ...user, model: "u", max_user_turns: 3 } }), [[
      "--user module:/abs/u.mjs --user-instruction inputs.user --max-user-turns 10",
      "--user module:/abs/u.mjs --user-model u --user-instruction inputs.user --max-user-turns 3"
    ]])
  })
})

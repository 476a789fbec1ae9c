/**
 * Scorers of the path: each spec parsed (and refused) as `--score` takes it,
 * and each scorer's value, verdict and explanation on trajectories built by
 * hand; `tool-calls`' F1 with its pairing (a maximum matching, not a greedy
 * one), its expected calls read at `--expected-tools` or `expected=PATH`;
 * a trial without a trajectory gets a `NoTrajectory` error, never a verdict;
 * and `judge:...,trajectory` puts the steps in the grader's prompt.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Judge from "../src/scoring/Judge.ts"
import * as PathScorers from "../src/scoring/PathScorers.ts"
import * as ScorerKinds from "../src/scoring/ScorerKinds.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as Spec from "../src/scoring/Spec.ts"
import * as Trajectory from "../src/domain/Trajectory.ts"
import type { AgentEvalTask, AgentEvalTrial, Score, TrajectoryStep } from "../src/domain/Trial.ts"

const AT = "2026-01-01T00:00:00.000Z"
const model = (content = ""): TrajectoryStep => ({ type: "model", content, started_at: AT, duration_ms: 3 })
const call = (name: string, args: unknown = {}): TrajectoryStep => ({ type: "tool_call", name, arguments: args, started_at: AT, duration_ms: 1 })
const result = (name: string, content: unknown, isError = false): TrajectoryStep => ({
  type: "tool_result",
  name,
  content,
  ...(isError ? { is_error: true } : undefined),
  started_at: AT,
  duration_ms: 0
})

// Two turns of calls, then the answer: search twice (Paris, then Lyon), lookup once.
const path: ReadonlyArray<TrajectoryStep> = [
  model(),
  call("search", { query: "Paris", filters: { limit: 5, tags: ["a", "b"] } }),
  result("search", "3 hits"),
  model(),
  call("search", { query: "Lyon" }),
  call("lookup", { id: 7 }),
  result("search", "no hits"),
  result("lookup", "boom", true),
  model("the answer")
]

const task = (reference?: unknown, metadata?: Record<string, unknown>): AgentEvalTask => ({
  id: "t1",
  inputs: { instruction: "find it" },
  ...(reference === undefined ? undefined : { reference }),
  ...(metadata === undefined ? undefined : { metadata })
})

const trialOf = (trajectory: ReadonlyArray<TrajectoryStep> | undefined): AgentEvalTrial => ({
  id: "t1:0",
  task_id: "t1",
  status: "completed",
  output: { output_text: "the answer", ...(trajectory === undefined ? undefined : { trajectory }) },
  metadata: { started_at: AT, finished_at: AT, latency_ms: 10 }
})

// `null`: a trial whose agent recorded no trajectory.
const scoreOf = (spec: string, trajectory: ReadonlyArray<TrajectoryStep> | null = path, t: AgentEvalTask = task(), options: Partial<Scorers.Options> = {}) =>
  Effect.flatMap(Scorers.fromSpec(spec, { cwd: process.cwd(), ...options }), (scorer) => scorer.score(t, trialOf(trajectory ?? undefined))).pipe(
    Effect.provide(NodeHttpClient.layerUndici)
  )

const brief = (s: Score) => ({ value: s.value, passed: s.passed, explanation: s.explanation ?? null })

describe("path scorer specs", () => {
  it("parses each kind, with the default names", () => {
    const parsed = (spec: string) => {
      const p = Spec.parse(spec)
      assert.notStrictEqual(typeof p, "string", String(p))
      return p as Spec.ScorerSpec
    }
    assert.deepInclude(parsed("tool-called:search,min=2,max=3"), { _tag: "ToolCalled", name: "tool-called-search", tool: "search", min: 2, max: 3 })
    assert.deepInclude(parsed("tool-not-called:delete_all"), { _tag: "ToolNotCalled", name: "tool-not-called-delete_all", tool: "delete_all" })
    assert.deepInclude(parsed("tool-sequence:search>lookup,exact"), { _tag: "ToolSequence", name: "tool-sequence", tools: ["search", "lookup"], exact: true })
    assert.deepInclude(parsed("tool-args:search,query=Paris,filters.tags=[\"a\",\"b\"],filters.limit=5"), {
      _tag: "ToolArgs",
      name: "tool-args-search",
      tool: "search",
      checks: [{ path: "query", value: "Paris" }, { path: "filters.tags", value: ["a", "b"] }, { path: "filters.limit", value: 5 }]
    })
    assert.deepInclude(parsed("steps:max=4"), { _tag: "Steps", name: "steps", max: 4 })
    assert.deepInclude(parsed("calls=tool-calls:expected=metadata.calls,threshold=0.5"), {
      _tag: "ToolCalls",
      name: "calls",
      expected: "metadata.calls",
      threshold: 0.5
    })
    assert.deepInclude(parsed("judge:http://127.0.0.1:9/v1,trajectory"), { _tag: "Judge", baseUrl: "http://127.0.0.1:9/v1", trajectory: true })
  })

  it("refuses bad specs, naming the spec and the problem", () => {
    assert.strictEqual(Spec.parse("tool-called"), "--score tool-called: expected tool-called:NAME[,min=N][,max=N] with a tool's name first")
    assert.strictEqual(Spec.parse("tool-called:search,min=x"), `--score tool-called:search,min=x: expected min to be a whole number from 0, got "x"`)
    assert.strictEqual(Spec.parse("tool-called:search,min=3,max=2"), "--score tool-called:search,min=3,max=2: min=3 is above max=2")
    assert.strictEqual(Spec.parse("tool-called:search,most=2"), `--score tool-called:search,most=2: unknown option "most" (expected min=VALUE, max=VALUE)`)
    assert.strictEqual(Spec.parse("tool-not-called:a,b"), `--score tool-not-called:a,b: unknown option "b" (it takes no options)`)
    assert.strictEqual(Spec.parse("tool-sequence:a>>b"), `--score tool-sequence:a>>b: expected tool names between the >s, got "a>>b"`)
    assert.strictEqual(Spec.parse("tool-args:search"), "--score tool-args:search: expected tool-args:NAME,PATH=VALUE: at least one PATH=VALUE after the tool's name")
    assert.strictEqual(
      Spec.parse("tool-args:search,query"),
      `--score tool-args:search,query: expected PATH=VALUE with a dotted path into the arguments (like query or filters.limit), got "query"`
    )
    assert.strictEqual(Spec.parse("steps"), "--score steps: expected steps:max=N (or min=N, or both)")
    assert.strictEqual(Spec.parse("steps:max=-1"), `--score steps:max=-1: expected max to be a whole number from 0, got "-1"`)
    assert.strictEqual(Spec.parse("tool-calls:threshold=2"), `--score tool-calls:threshold=2: expected threshold to be a number from 0 to 1, got "2"`)
    assert.include(String(Spec.parse("tool-calls:expected=calls")), "--score tool-calls:expected=calls: expected=PATH: Expected a dotted path into the task starting with id")
  })

  it("records tool-calls with --expected-tools in a run's definition, unless it is the default", () => {
    const recorded = (spec: string, expectedTools?: string) =>
      ScorerKinds.recorded(Spec.parse(spec) as Spec.ScorerSpec, (file) => file, ScorerKinds.builtIn, { expectedTools })
    assert.strictEqual(recorded("tool-calls"), "tool-calls")
    assert.strictEqual(recorded("tool-calls", "reference.tool_calls"), "tool-calls")
    assert.strictEqual(recorded("tool-calls", "metadata.calls"), "tool-calls:expected=metadata.calls")
    assert.strictEqual(recorded("c=tool-calls:threshold=0.5", "metadata.calls"), "c=tool-calls:threshold=0.5,expected=metadata.calls")
    assert.strictEqual(recorded("tool-calls:expected=inputs.calls", "metadata.calls"), "tool-calls:expected=inputs.calls")
    assert.strictEqual(recorded("tool-called:search", "metadata.calls"), "tool-called:search")
  })
})

describe("path scorers on a trajectory", () => {
  it.effect("tool-called and tool-not-called count the calls by name", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(brief(yield* scoreOf("tool-called:search")), {
        value: 1,
        passed: true,
        explanation: "search was called 2 times (expected at least once)"
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-called:search,max=1")), {
        value: 0,
        passed: false,
        explanation: "search was called 2 times (expected exactly once)"
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-called:lookup,min=0,max=1")), {
        value: 1,
        passed: true,
        explanation: "lookup was called once (expected 0 to 1 times)"
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-called:fetch")), {
        value: 0,
        passed: false,
        explanation: "fetch was called never (expected at least once)"
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-not-called:fetch")), { value: 1, passed: true, explanation: null })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-not-called:lookup")), {
        value: 0,
        passed: false,
        explanation: "lookup was called once (expected never)"
      })
    }))

  it.effect("tool-sequence: a subsequence in order (value: the fraction matched), or exactly the calls", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(brief(yield* scoreOf("tool-sequence:search>lookup")), { value: 1, passed: true, explanation: null })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-sequence:search>search>lookup")), { value: 1, passed: true, explanation: null })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-sequence:lookup>search>fetch>x")), {
        value: 0.25,
        passed: false,
        explanation: "expected lookup > search > fetch > x in order; lookup matched, then no search; the calls were search > search > lookup"
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-sequence:search>lookup,exact")), {
        value: 0,
        passed: false,
        explanation: "expected exactly search > lookup, the calls were search > search > lookup"
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-sequence:search>search>lookup,exact")), { value: 1, passed: true, explanation: null })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-sequence:search", [model("no tools")])), {
        value: 0,
        passed: false,
        explanation: "expected search in order; no call matched, then no search; the calls were no tool calls"
      })
    }))

  it.effect("tool-args: some call of the tool has every value at its path (JSON values, arguments sent as JSON text read)", () =>
    Effect.gen(function*() {
      assert.isTrue((yield* scoreOf("tool-args:search,query=Lyon")).passed)
      assert.isTrue((yield* scoreOf("tool-args:search,query=Paris,filters.limit=5,filters.tags=[\"a\",\"b\"]")).passed)
      assert.isTrue((yield* scoreOf("tool-args:lookup,id=7")).passed)
      // "7" is a string: the call's 7 is a number.
      assert.deepStrictEqual(brief(yield* scoreOf("tool-args:lookup,id=\"7\"")), {
        value: 0,
        passed: false,
        explanation: `no call of lookup had id = "7"; its call had {"id":7}`
      })
      // Both checks on one call: Paris had no limit 6, Lyon no filters.
      assert.deepStrictEqual(brief(yield* scoreOf("tool-args:search,query=Paris,filters.limit=6")), {
        value: 0,
        passed: false,
        explanation: `no call of search had query = "Paris", filters.limit = 6; its 2 calls had ` +
          `{"query":"Paris","filters":{"limit":5,"tags":["a","b"]}}, {"query":"Lyon"}`
      })
      assert.deepStrictEqual(brief(yield* scoreOf("tool-args:fetch,url=x")), {
        value: 0,
        passed: false,
        explanation: `fetch was never called (expected a call with url = "x")`
      })
      const asText = [model(), { ...call("lookup"), arguments: "{\"id\":7}" }]
      assert.isTrue((yield* scoreOf("tool-args:lookup,id=7", asText)).passed)
    }))

  it.effect("steps counts the model turns", () =>
    Effect.gen(function*() {
      assert.strictEqual(Trajectory.steps(path), 3)
      assert.deepStrictEqual(brief(yield* scoreOf("steps:max=3")), { value: 1, passed: true, explanation: "3 steps (expected at most 3)" })
      assert.deepStrictEqual(brief(yield* scoreOf("steps:max=2")), { value: 0, passed: false, explanation: "3 steps (expected at most 2)" })
      assert.deepStrictEqual(brief(yield* scoreOf("steps:min=4,max=9")), {
        value: 0,
        passed: false,
        explanation: "3 steps (expected at least 4 and at most 9)"
      })
    }))

  it.effect("a trial without a trajectory gets a NoTrajectory error from every path scorer, an empty one is scored", () =>
    Effect.gen(function*() {
      for (const spec of ["tool-called:search", "tool-not-called:search", "tool-sequence:a", "tool-args:a,b=1", "steps:max=1", "tool-calls"]) {
        const s = yield* scoreOf(spec, null, task({ tool_calls: [] }))
        assert.strictEqual(s.error?.type, "NoTrajectory", spec)
        assert.include(s.error?.message, "trial t1:0 recorded no trajectory")
        assert.isFalse(s.passed)
      }
      assert.isTrue((yield* scoreOf("tool-not-called:search", [])).passed)
      assert.isTrue((yield* scoreOf("steps:max=0", [])).passed)
    }))
})

describe("tool-calls: the calls against the task's expected calls", () => {
  it.effect("F1 of the calls paired by name and arguments; the explanation lists the misses", () =>
    Effect.gen(function*() {
      // Expected: search Paris and fetch; made: search Paris, search Lyon, lookup 7.
      const s = yield* scoreOf("tool-calls", path, task({ tool_calls: [{ name: "search", arguments: { query: "Paris" } }, "fetch"] }))
      // precision 1/3, recall 1/2: F1 = 2 * (1/6) / (5/6) = 0.4.
      assert.closeTo(s.value, 0.4, 1e-12)
      assert.isFalse(s.passed)
      assert.strictEqual(
        s.explanation,
        `F1 0.4 (precision 0.333, recall 0.5; 1 of 2 expected calls made, 3 made): missed: fetch; ` +
          `not expected: search {"query":"Lyon"}; lookup {"id":7}`
      )
      const all = yield* scoreOf(
        "tool-calls",
        path,
        task({ tool_calls: ["search", { type: "function", function: { name: "lookup", arguments: "{\"id\":7}" } }, { name: "search", arguments: { query: "Paris" } }] })
      )
      assert.deepStrictEqual(brief(all), {
        value: 1,
        passed: true,
        explanation: "F1 1 (precision 1, recall 1; 3 of 3 expected calls made, 3 made)"
      })
      const none = yield* scoreOf("tool-calls", [model("no tools needed")], task({ tool_calls: [] }))
      assert.deepStrictEqual(brief(none), { value: 1, passed: true, explanation: "F1 1 (precision 1, recall 1; 0 of 0 expected calls made, 0 made)" })
      const threshold = yield* scoreOf("tool-calls:threshold=0.4", path, task({ tool_calls: [{ name: "search", arguments: { query: "Paris" } }, "fetch"] }))
      assert.isTrue(threshold.passed)
    }))

  it("pairs as many calls as can be (a maximum matching): a loose expected call does not take the one a strict one needs", () => {
    const calls = [call("search", { query: "Paris" }), call("search", { query: "Lyon" })]
    // Greedy in order, "search" (any arguments) would take the Paris call and leave {query: Paris} unpaired.
    const pairs = PathScorers.pairCalls([{ name: "search" }, { name: "search", arguments: { query: "Paris" } }], calls)
    assert.deepStrictEqual(pairs, [1, 0])
  })

  it.effect("reads the expected calls at --expected-tools or expected=PATH; a missing or bad list is a reference error naming the path", () =>
    Effect.gen(function*() {
      const t = task(undefined, { calls: ["search", "search", "lookup"] })
      assert.strictEqual((yield* scoreOf("tool-calls", path, t, { expectedTools: "metadata.calls" })).value, 1)
      assert.strictEqual((yield* scoreOf("tool-calls:expected=metadata.calls", path, t)).value, 1)
      const missing = yield* scoreOf("tool-calls", path, t)
      assert.deepInclude(missing.error, {
        type: "MissingReference",
        message: "task t1 has nothing at reference.tool_calls, the tool calls the tool-calls scorer expects"
      })
      const notList = yield* scoreOf("tool-calls", path, task({ tool_calls: "search" }))
      assert.deepInclude(notList.error, { type: "InvalidReference", message: `task t1: reference.tool_calls must be a list of tool calls, got "search"` })
      const badItem = yield* scoreOf("tool-calls", path, task({ tool_calls: ["search", { arguments: {} }] }))
      assert.deepInclude(badItem.error, {
        type: "InvalidReference",
        message: `task t1: reference.tool_calls[1] must be a tool's name or an object with a "name", got {"arguments":{}}`
      })
      const badArgs = yield* scoreOf("tool-calls", path, task({ tool_calls: [{ name: "a", arguments: "{nope" }] }))
      assert.include(badArgs.error?.message, `reference.tool_calls[0] has "arguments" that are not JSON`)
    }))
})

describe("judge:...,trajectory", () => {
  it("puts the agent's steps in the prompt, whole", () => {
    const long = "x".repeat(5000)
    const prompt = Judge.prompt(task("Paris"), "Paris", "the answer", [...path, result("search", long)])
    assert.include(prompt, "[Agent's steps: its model turns, tool calls and tool results]\n1. model turn\n" +
      `2. tool call search {"query":"Paris","filters":{"limit":5,"tags":["a","b"]}}\n3. tool result search: 3 hits\n4. model turn\n` +
      `5. tool call search {"query":"Lyon"}\n6. tool call lookup {"id":7}\n7. tool result search: no hits\n` +
      "8. tool result lookup (error): boom\n9. model turn: the answer\n10. tool result search: " + long + "\n\n[Answer]\nthe answer")
    assert.include(prompt, "did the agent reach it by sound steps")
    const plain = Judge.prompt(task("Paris"), "Paris", "the answer")
    assert.notInclude(plain, "[Agent's steps")
    assert.notInclude(plain, "sound steps")
  })

  it.effect("a judge asked for the trajectory scores a trial without one as NoTrajectory, before any call", () =>
    Effect.gen(function*() {
      const judge = Judge.make({ name: "judge", baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKey: undefined, trajectory: true })
      const s = yield* judge.score(task("Paris"), trialOf(undefined)).pipe(Effect.provide(NodeHttpClient.layerUndici))
      assert.strictEqual(s.error?.type, "NoTrajectory")
      assert.strictEqual(judge.counts().attempts, 0)
    }))
})

/**
 * The trial entity in one process (`TestRunner`: the real sharding with
 * in-memory storage, messages serialized as they would be between
 * processes): a trial run through it is the record a local run writes; a
 * worker runs at most its parallelism at once; a message sent twice for one
 * trial is run once; the run's settings (retries, timeout, scorers) travel
 * with the message; a one-call `openai:` agent whose server answers 200 with
 * an error body fails its trial on a worker as it does locally.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Stream } from "effect"
import { TestRunner } from "effect/cluster"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type { Agent } from "../src/domain/Agent.ts"
import * as OpenAiAgent from "../src/agents/OpenAi.ts"
import * as SimAgent from "../src/agents/Sim.ts"
import * as Worker from "../src/cluster/Worker.ts"
import { entityId, type Settings, TrialEntity } from "../src/cluster/TrialEntity.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runUnits } from "../src/runner/Runner.ts"
import * as ScorerKinds from "../src/scoring/ScorerKinds.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as Stage from "../src/scoring/Stage.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import { length } from "./fixtures/fake-kinds.ts"
import { answer, firstUser, modelServer } from "./tool-model-server.ts"

const settings: Settings = { retries: 0, backoffMs: 1, backoffMaxMs: 1, retryAfterMaxMs: 1, score: [] }

const cluster = (agent: Agent<unknown, HttpClient.HttpClient>, options: { readonly parallelism: number; readonly probe?: MutableProbe }) =>
  Worker.layer({ agent, parallelism: options.parallelism, cwd: process.cwd(), probe: options.probe }).pipe(
    Layer.provideMerge(TestRunner.layer),
    Layer.provideMerge(FetchHttpClient.layer)
  )

const task = (i: number): AgentEvalTask => ({ id: `t${i}`, inputs: { i }, reference: String(2 * i) })

const send = (t: AgentEvalTask, s: Settings = settings, invalid?: string) =>
  Effect.flatMap(TrialEntity.client, (clientFor) =>
    clientFor(entityId("run-1", `${t.id}:1`)).RunTrial({
      run: "run-1",
      task: t,
      epoch: 1,
      settings: s,
      ...(invalid === undefined ? undefined : { invalid })
    }))

// The fields that depend on when the trial ran.
const timeless = (trial: AgentEvalTrial) => {
  const { finished_at: _f, latency_ms: _l, started_at: _s, ...metadata } = trial.metadata
  const error = trial.error === undefined ? undefined : { ...trial.error, occurred_at: "" }
  return { ...trial, metadata, ...(error === undefined ? undefined : { error }) }
}

describe("trial entity", () => {
  it.live("a trial run by a worker is the record a local run writes, scores included", () => {
    const sim = SimAgent.make({ ...SimAgent.defaults, latencyMs: 1, jitterMs: 1, failRate: 0.3 })
    const tasks = Array.from({ length: 20 }, (_, i) => task(i))
    return Effect.gen(function*() {
      const remote = yield* Effect.forEach(tasks, (t) => send(t, { ...settings, score: ["exact"] }), {
        concurrency: 4
      })
      const scorers = yield* Scorers.fromSpecs(["exact"], { cwd: process.cwd() })
      const local = yield* Stream.runCollect(
        Stage.scoreTrials(
          Stream.map(
            runUnits(Stream.fromIterable(tasks.map((t) => ({ task: t, epoch: 1 }))), sim, { parallelism: 4 }),
            (trial) => ({ task: tasks.find((t) => t.id === trial.task_id)!, trial })
          ),
          { scorers, parallelism: 4 }
        )
      )
      const byId = new Map(local.map((t) => [t.id, timeless(t)]))
      assert.strictEqual(remote.length, 20)
      for (const trial of remote) assert.deepStrictEqual(timeless(trial), byId.get(trial.id))
      // Both kinds are in there: the comparison covers failures and scores.
      assert.isAbove(remote.filter((t) => t.status === "failed").length, 0)
      assert.isAbove(remote.filter((t) => t.scores?.["exact"] !== undefined).length, 0)
    }).pipe(Effect.provide(cluster(sim, { parallelism: 4 })))
  })

  it.live("a worker runs at most its parallelism at once, however many messages it holds", () => {
    const probe = new MutableProbe()
    return Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let calls = 0
      const gated: Agent<never, never> = () => {
        calls++
        return Effect.as(Deferred.await(gate), { output_text: "ok" })
      }
      return yield* Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(Effect.forEach(Array.from({ length: 12 }, (_, i) => task(i)), (t) => send(t), {
          concurrency: "unbounded"
        }))
        // Every message is delivered; three calls are held, the rest wait for a permit.
        while (calls < 3) yield* Effect.sleep(Duration.millis(5))
        yield* Effect.sleep(Duration.millis(100))
        assert.strictEqual(calls, 3)
        assert.strictEqual(probe.active, 3)
        yield* Deferred.succeed(gate, undefined)
        const trials = yield* Fiber.join(fiber)
        assert.strictEqual(trials.length, 12)
        assert.strictEqual(calls, 12)
        assert.strictEqual(probe.peakActive, 3)
      }).pipe(Effect.provide(cluster(gated, { parallelism: 3, probe })))
    })
  })

  it.live("a trial's message sent twice is stored once and run once: the second send gets the stored reply", () => {
    let calls = 0
    const counting: Agent<never, never> = (t) => Effect.sync(() => ({ output_text: `answer ${++calls} for ${t.id}` }))
    return Effect.gen(function*() {
      const first = yield* send(task(1))
      const second = yield* send(task(1))
      assert.strictEqual(calls, 1)
      assert.deepStrictEqual(second, first)
      yield* send(task(2))
      assert.strictEqual(calls, 2)
    }).pipe(Effect.provide(cluster(counting, { parallelism: 2 })))
  })

  it.live("the run's retries travel with the message; a bad dataset line fails as InvalidTask", () => {
    const attempts = new Map<string, number>()
    const flaky: Agent<{ readonly _tag: "Timeout"; readonly message: string }, never> = (t) =>
      Effect.suspend(() => {
        const n = (attempts.get(t.id) ?? 0) + 1
        attempts.set(t.id, n)
        return n < 3 ? Effect.fail({ _tag: "Timeout" as const, message: "slow" }) : Effect.succeed({ output_text: "ok" })
      })
    return Effect.gen(function*() {
      const retried = yield* send(task(1), { ...settings, retries: 2 })
      assert.strictEqual(retried.status, "completed")
      assert.strictEqual(retried.metadata["attempts"], 3)
      const once = yield* send(task(2), settings)
      assert.strictEqual(once.status, "failed")
      assert.strictEqual(once.error?.type, "Timeout")
      const invalid = yield* send(task(3), settings, "line 3: not JSON")
      assert.strictEqual(invalid.status, "failed")
      assert.deepStrictEqual([invalid.error?.type, invalid.error?.message], ["InvalidTask", "line 3: not JSON"])
      assert.isFalse(attempts.has("t3"))
    }).pipe(Effect.provide(cluster(flaky, { parallelism: 2 })))
  })

  it.live("a worker records as a local run does: an output JSON cannot write fails its trial alone, and a tool's secret is scrubbed", () => {
    // What the worker's command line made known (`commandLineSecrets`).
    const key = "sk-SECRET-worker-key-9"
    const agent: Agent<never, never> = (t) =>
      Effect.sync(() => {
        if (t.id === "t1") {
          const response: Record<string, unknown> = {}
          response["self"] = response
          return { output_text: "x", response }
        }
        return {
          output_text: "done",
          trajectory: [
            { type: "tool_call" as const, name: "peek", arguments: { note: `use ${key}` }, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 1 },
            { type: "tool_result" as const, name: "peek", content: { key }, is_error: false, started_at: "2026-01-01T00:00:00.001Z", duration_ms: 0 }
          ]
        }
      })
    return Effect.gen(function*() {
      const [bad, good] = yield* Effect.all([send(task(1)), send(task(2))], { concurrency: 2 })
      assert.strictEqual(bad.status, "failed")
      assert.deepStrictEqual([bad.error?.type, bad.error?.message], [
        "InvalidAgentOutput",
        "the agent's output cannot be written as JSON: output.response.self refers back to output.response (a cycle)"
      ])
      assert.strictEqual(good.status, "completed")
      assert.deepStrictEqual(good.output?.trajectory?.map((s) => s.arguments ?? s.content), [{ note: "use <redacted>" }, { key: "<redacted>" }])
    }).pipe(Effect.provide(cluster(agent, { parallelism: 2 })), Effect.provide(Redactor.Redactor.layer([key])))
  })

  it.live("a worker's one-call openai: agent whose server answers 200 with an error body records the trial failed (InvalidAgentOutput), as a local run does", () =>
    Effect.gen(function*() {
      // Task 1's call gets a 200 whose body is an error; task 2's an answer.
      const server = yield* modelServer((_turn, body) =>
        firstUser(body) === JSON.stringify({ i: 1 })
          ? { body: { error: { message: "The model `m-1` does not exist", type: "invalid_request_error", code: "model_not_found" } } }
          : answer("4")
      )
      const agent = OpenAiAgent.make({ baseUrl: `${server.base}/v1`, model: "m-1", apiKey: undefined })
      const tasks = [task(1), task(2)]
      const remote = yield* Effect.forEach(tasks, (t) => send(t), { concurrency: 2 }).pipe(
        Effect.provide(cluster(agent, { parallelism: 2 }))
      )
      const [bad, good] = remote
      assert.strictEqual(bad!.status, "failed", JSON.stringify(bad))
      assert.strictEqual(bad!.error?.type, "InvalidAgentOutput")
      assert.include(bad!.error?.message, "is an error: (type invalid_request_error")
      assert.isUndefined(bad!.output)
      assert.strictEqual(good!.status, "completed")
      assert.strictEqual(good!.output?.output_text, "4")
      // The same records as a local run of the same agent.
      const local = yield* Stream.runCollect(
        runUnits(Stream.fromIterable(tasks.map((t) => ({ task: t, epoch: 1 }))), agent, { parallelism: 2 })
      ).pipe(Effect.provide(FetchHttpClient.layer))
      const byId = new Map(local.map((t) => [t.id, timeless(t)]))
      for (const trial of remote) assert.deepStrictEqual(timeless(trial), byId.get(trial.id))
      assert.strictEqual(server.received.length, 4)
    }))

  it.live("a worker reads the runs' --score specs with the scorer kinds it is given (its Kinds), a kind of one's own among them", () => {
    const echo: Agent<never, never> = (t) => Effect.succeed({ output_text: String(t.inputs["i"]).repeat(3) })
    const short = { ...settings, score: ["short=length:max=4"] }
    const withLength = Worker.layer({ agent: echo, parallelism: 2, cwd: process.cwd(), scorerKinds: [...ScorerKinds.builtIn, length] }).pipe(
      Layer.provideMerge(TestRunner.layer),
      Layer.provideMerge(FetchHttpClient.layer)
    )
    return Effect.gen(function*() {
      const [a, b] = yield* Effect.forEach([task(1), task(12)], (t) => send(t, short))
      assert.deepStrictEqual([a!.status, a!.scores?.["short"]?.passed], ["completed", true])
      assert.deepStrictEqual([b!.status, b!.scores?.["short"]?.passed], ["completed", false])
    }).pipe(Effect.provide(withLength))
  })

  it.live("without them, the worker knows the built-in kinds alone: the same spec fails the trial as InvalidSettings", () => {
    const echo: Agent<never, never> = (t) => Effect.succeed({ output_text: String(t.inputs["i"]) })
    return Effect.gen(function*() {
      const trial = yield* send(task(1), { ...settings, score: ["short=length:max=4"] })
      assert.deepStrictEqual([trial.status, trial.error?.type], ["failed", "InvalidSettings"])
    }).pipe(Effect.provide(cluster(echo, { parallelism: 2 })))
  })
})

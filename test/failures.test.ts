/**
 * Agent failures of every kind become failed trials, and the run goes on.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Data, Effect, Exit, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Agent from "../src/domain/Agent.ts"
import { MAX_EPOCHS } from "../src/domain/Errors.ts"
import { runTrialsEager } from "../src/runner/Eager.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { tasksStream } from "./fixtures.ts"

class Refused extends Data.TaggedError("Refused")<{ readonly message: string }> {}

const byTask = (trials: ReadonlyArray<AgentEvalTrial>) => new Map(trials.map((t) => [t.task_id, t]))

const collect = <AE>(agent: Agent.Agent<AE>, n: number, parallelism = 4) =>
  Stream.runCollect(runTrials(tasksStream(n), agent, { parallelism }))

describe("agent failures", () => {
  it.effect("typed failure, defect, synchronous throw: failed trials, the rest complete", () =>
    Effect.gen(function*() {
      const agent: Agent.Agent<Refused> = (task) => {
        const i = task.inputs["i"] as number
        if (i === 1) return Effect.fail(new Refused({ message: "no thanks" }))
        if (i === 2) return Effect.die(new RangeError("bad range"))
        if (i === 3) throw new TypeError("thrown before returning an Effect")
        return Effect.succeed({ output_text: `ok ${i}` })
      }
      const trials = byTask(yield* collect(agent, 40))
      assert.strictEqual(trials.size, 40)
      assert.deepInclude(trials.get("t1")!.error, { type: "Refused", message: "no thanks" })
      assert.deepInclude(trials.get("t2")!.error, { type: "RangeError", message: "bad range" })
      assert.deepInclude(trials.get("t3")!.error, { type: "TypeError", message: "thrown before returning an Effect" })
      for (const id of ["t1", "t2", "t3"]) assert.strictEqual(trials.get(id)!.status, "failed")
      assert.strictEqual(trials.get("t0")!.status, "completed")
      assert.deepStrictEqual(trials.get("t39")!.output, { output_text: "ok 39" })
      assert.isUndefined(trials.get("t39")!.error)
    }))

  // The known hazard: a concurrent Stream.mapEffect whose function throws
  // synchronously is reported to hang. Every call here throws synchronously;
  // the run must still finish with one failed trial per task.
  it.effect("every call throwing synchronously still ends, in both runners", () =>
    Effect.gen(function*() {
      const agent: Agent.Agent = () => {
        throw new Error("boom")
      }
      for (const runner of [runTrials, runTrialsEager]) {
        const trials = yield* Stream.runCollect(runner(tasksStream(100), agent, { parallelism: 8 })).pipe(
          Effect.timeout("1 second"),
          Effect.forkChild({ startImmediately: true })
        ).pipe(Effect.flatMap((f) => TestClock.adjust("1 second").pipe(Effect.andThen(Fiber.join(f)))))
        assert.strictEqual(trials.length, 100)
        assert.isTrue(trials.every((t) => t.status === "failed" && t.error?.type === "Error" && t.error.message === "boom"))
      }
    }))

  it.effect("Promise agents: rejection, synchronous throw, string and object outputs, wrong shape", () =>
    Effect.gen(function*() {
      const agent = Agent.fromPromise((task) => {
        const i = task.inputs["i"] as number
        if (i === 0) return Promise.reject(new Error("rejected"))
        if (i === 1) throw new Error("sync throw")
        if (i === 2) return Promise.resolve("plain text")
        if (i === 3) return { output_text: "direct", metadata: { tokens: 3 } }
        if (i === 4) return Promise.resolve({ text: "wrong shape" } as never)
        return Promise.resolve({ output_text: `out ${i}` })
      })
      const trials = byTask(yield* collect(agent, 6))
      assert.deepInclude(trials.get("t0")!.error, { type: "AgentError", message: "rejected" })
      assert.deepInclude(trials.get("t1")!.error, { type: "AgentError", message: "sync throw" })
      assert.deepStrictEqual(trials.get("t2")!.output, { output_text: "plain text" })
      assert.deepStrictEqual(trials.get("t3")!.output, { output_text: "direct", metadata: { tokens: 3 } })
      assert.strictEqual(trials.get("t4")!.error!.type, "InvalidAgentOutput")
      assert.include(trials.get("t4")!.error!.message, `{"text":"wrong shape"}`)
      assert.deepStrictEqual(trials.get("t5")!.output, { output_text: "out 5" })
    }))

  it.live("a Promise agent's AbortSignal fires when its trial is interrupted", () =>
    Effect.gen(function*() {
      const aborted: Array<string> = []
      let started = 0
      const agent = Agent.fromPromise((task, { signal }) =>
        new Promise<string>((resolve) => {
          started++
          const timer = setTimeout(() => resolve("late"), 60_000)
          signal.addEventListener("abort", () => {
            clearTimeout(timer)
            aborted.push(task.id)
          })
        })
      )
      const probe = new MutableProbe()
      const fiber = yield* runTrials(tasksStream(10), agent, { parallelism: 3, probe }).pipe(
        Stream.runDrain,
        Effect.forkChild
      )
      while (started < 3) yield* Effect.sleep("5 millis")
      yield* Fiber.interrupt(fiber)
      assert.sameMembers(aborted, ["t0", "t1", "t2"])
      assert.strictEqual(probe.active, 0)
      assert.strictEqual(probe.outstanding, 0)
      assert.strictEqual(probe.liveFibers, 0)
    }))

  it.live("an interrupted trial stays settled once: calls that end after the interruption change no count", () =>
    Effect.gen(function*() {
      // One agent rejects when its signal aborts (as fetch does), the other
      // ignores the signal and answers a little later: both end after their
      // trials were interrupted, and neither may count again.
      let ended = 0
      const rejecting = Agent.fromPromise((_task, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            ended++
            reject(new Error("aborted"))
          })
        })
      )
      const ignoring = Agent.fromPromise(() =>
        new Promise<string>((resolve) =>
          setTimeout(() => {
            ended++
            resolve("late")
          }, 30)
        )
      )
      for (const agent of [rejecting, ignoring]) {
        ended = 0
        const probe = new MutableProbe()
        const fiber = yield* runTrials(tasksStream(10), agent, { parallelism: 3, probe }).pipe(
          Stream.runDrain,
          Effect.forkChild
        )
        while (probe.active < 3) yield* Effect.sleep("2 millis")
        yield* Fiber.interrupt(fiber)
        while (ended < 3) yield* Effect.sleep("5 millis")
        yield* Effect.sleep("10 millis")
        assert.strictEqual(probe.active, 0)
        assert.strictEqual(probe.outstanding, 0)
        assert.strictEqual(probe.started, 3)
        assert.strictEqual(probe.interrupted, 3)
        assert.strictEqual(probe.completed, 0)
        assert.strictEqual(probe.failed, 0)
      }
    }))

  it.effect("trial metadata: timestamps and latency from the clock", () =>
    Effect.gen(function*() {
      const agent: Agent.Agent = (task) => Effect.as(Effect.sleep("250 millis"), { output_text: task.id })
      const fiber = yield* Effect.forkChild(collect(agent, 1))
      yield* TestClock.adjust("250 millis")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(trial.id, "t0:trial")
      assert.strictEqual(trial.metadata.latency_ms, 250)
      assert.strictEqual(trial.metadata.started_at, new Date(0).toISOString())
      assert.strictEqual(trial.metadata.finished_at, new Date(250).toISOString())
    }))
})

describe("parallelism is checked before any agent call", () => {
  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "8" as unknown as number]) {
    it.effect(`rejects ${String(bad)} (${typeof bad})`, () =>
      Effect.gen(function*() {
        let calls = 0
        let pulled = 0
        const agent: Agent.Agent = () => Effect.sync(() => ({ output_text: String(++calls) }))
        const source = tasksStream(5).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
        for (const runner of [runTrials, runTrialsEager]) {
          const exit = yield* Effect.exit(Stream.runCollect(runner(source, agent, { parallelism: bad })))
          assert.isTrue(Exit.isFailure(exit))
          const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
          assert.strictEqual((error as { _tag: string })._tag, "InvalidParallelism")
          assert.include(
            (error as Error).message,
            `Expected parallelism to be an integer from 1 and up, got ${typeof bad === "string" ? `"8"` : String(bad)}`
          )
        }
        assert.strictEqual(calls, 0)
        assert.strictEqual(pulled, 0)
      }))
  }
})

describe("epochs are checked before any agent call", () => {
  it.effect("runTrials refuses more than MAX_EPOCHS (10000) and accepts it", () =>
    Effect.gen(function*() {
      let calls = 0
      const agent: Agent.Agent = () => Effect.sync(() => ({ output_text: String(++calls) }))
      for (const bad of [10_001, 1e9, 0]) {
        const error = yield* Effect.flip(Stream.runCollect(runTrials(tasksStream(1), agent, { parallelism: 4, epochs: bad })))
        assert.strictEqual(error._tag, "InvalidParallelism")
        assert.strictEqual(error.message, `Expected epochs to be an integer from 1 to ${MAX_EPOCHS}, got ${bad}`)
      }
      assert.strictEqual(calls, 0)
      const trials = yield* Stream.runCollect(runTrials(tasksStream(1), agent, { parallelism: 64, epochs: MAX_EPOCHS }))
      assert.strictEqual(trials.length, MAX_EPOCHS)
    }))
})

describe("ordered and unordered modes", () => {
  const slowHead: Agent.Agent = (task: AgentEvalTask) =>
    Effect.as(Effect.sleep(task.id === "t0" ? "10 seconds" : "1 second"), { output_text: task.id })

  it.effect("unordered: a slow trial does not hold back the others", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const seen: Array<string> = []
      const fiber = yield* runTrials(tasksStream(20), slowHead, { parallelism: 4, probe }).pipe(
        Stream.runForEach((t) => Effect.sync(() => seen.push(t.task_id))),
        Effect.forkChild
      )
      yield* TestClock.adjust("3 seconds")
      // 3 slots keep turning over while t0 holds the fourth.
      assert.strictEqual(seen.length, 9)
      assert.notInclude(seen, "t0")
      yield* TestClock.adjust("7 seconds")
      yield* Fiber.join(fiber)
      assert.strictEqual(seen.length, 20)
      assert.strictEqual(probe.peakOutstanding, 4)
    }))

  it.effect("ordered: input order out, head-of-line stall measured", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const seen: Array<string> = []
      const fiber = yield* runTrials(tasksStream(20), slowHead, { parallelism: 4, probe, ordered: true }).pipe(
        Stream.runForEach((t) => Effect.sync(() => seen.push(t.task_id))),
        Effect.forkChild
      )
      yield* TestClock.adjust("3 seconds")
      // Nothing is emitted and only the first 4 were admitted while t0 runs.
      assert.strictEqual(seen.length, 0)
      assert.strictEqual(probe.started, 4)
      yield* TestClock.adjust("7 seconds")
      yield* TestClock.adjust("4 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen, Array.from({ length: 20 }, (_, i) => `t${i}`))
      assert.isAtMost(probe.peakOutstanding, 4)
    }))
})

describe("agent outputs", () => {
  it.effect("a string, an AgentOutput, extra keys dropped, undefined optional fields; wrong shapes rejected", () =>
    Effect.gen(function*() {
      const ok = (value: unknown) => Effect.runSync(Agent.toAgentOutput(value))
      const bad = (value: unknown) => Effect.runSync(Effect.flip(Agent.toAgentOutput(value)))._tag
      assert.deepStrictEqual(ok("text"), { output_text: "text" })
      assert.deepStrictEqual(ok({ output_text: "a", metadata: { k: 1 }, response: { r: 1 } }), {
        output_text: "a",
        metadata: { k: 1 },
        response: { r: 1 }
      })
      assert.deepStrictEqual(ok({ output_text: "a", extra: 1 }), { output_text: "a" })
      assert.deepStrictEqual(ok({ output_text: "a", metadata: undefined }), { output_text: "a" })
      assert.strictEqual(bad({ output_text: "a", metadata: [] }), "InvalidAgentOutput")
      assert.strictEqual(bad({ output_text: 1 }), "InvalidAgentOutput")
      assert.strictEqual(bad(null), "InvalidAgentOutput")
      assert.strictEqual(bad(42), "InvalidAgentOutput")
    }))
})

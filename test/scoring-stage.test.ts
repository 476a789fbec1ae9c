/**
 * The scoring stage: bounded admission with 10,000 trials waiting (every
 * scorer call held on a gate, counts read from the stage's probe and the
 * agent stage's), pipelining, failed trials kept from scorers, the judge
 * limit.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Latch, Stream } from "effect"
import { TestClock } from "effect/testing"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { Scorer } from "../src/domain/Scorer.ts"
import * as Scorers from "../src/domain/Scorer.ts"
import * as Match from "../src/scoring/Match.ts"
import * as Stage from "../src/scoring/Stage.ts"
import type { AgentEvalTrial, AgentOutput } from "../src/domain/Trial.ts"
import { tasksStream } from "./fixtures.ts"

const TRIALS = 10_000
const AGENT_PARALLELISM = 8
const SCORE_PARALLELISM = 4

// A scorer whose every call waits on the gate, then takes one virtual second.
const gatedScorer = Effect.fnUntraced(function*(name = "gated") {
  const gate = yield* Latch.make(false)
  let calls = 0
  const scorer: Scorer = Scorers.make(name, (_task, output) => {
    calls++
    return gate.await.pipe(
      Effect.andThen(Effect.sleep("1 second")),
      Effect.as(Scorers.verdict(output.startsWith("out:")))
    )
  })
  return { gate, scorer, calls: () => calls } as const
})

const finished = <E>(trials: Stream.Stream<AgentEvalTrial, E>) =>
  Stream.map(trials, (trial): Stage.Finished => ({ task: { id: trial.task_id, inputs: {} }, trial }))

// A trial crosses two stages, each handing over through its own dispatcher
// turn: one TestClock.adjust(0) per stage lets every fiber park.
const settle = Effect.andThen(TestClock.adjust(0), TestClock.adjust(0))

const instantAgent = (task: { readonly id: string }): Effect.Effect<AgentOutput> =>
  Effect.succeed({ output_text: `out:${task.id}` })

describe("scoring stage gate: 10,000 trials, agent parallelism 8, score parallelism 4", () => {
  it.effect("admits no more than its limit while every scorer call is held; the agent stage stays bounded", () =>
    Effect.gen(function*() {
      const agentProbe = new MutableProbe()
      const scoreProbe = new MutableProbe()
      const { gate, scorer, calls } = yield* gatedScorer()
      const emitted: Array<AgentEvalTrial> = []
      const fiber = yield* Stage.scoreTrials(
        finished(runTrials(tasksStream(TRIALS), instantAgent, { parallelism: AGENT_PARALLELISM, probe: agentProbe })),
        { scorers: [scorer], parallelism: SCORE_PARALLELISM, probe: scoreProbe }
      ).pipe(Stream.runForEach((t) => Effect.sync(() => emitted.push(t))), Effect.forkChild)
      yield* settle

      const held = scoreProbe.snapshot()
      assert.strictEqual(held.outstanding, SCORE_PARALLELISM)
      assert.strictEqual(held.peakOutstanding, SCORE_PARALLELISM)
      assert.strictEqual(held.active, SCORE_PARALLELISM)
      assert.strictEqual(calls(), SCORE_PARALLELISM)
      assert.strictEqual(emitted.length, 0)
      // The agent stage runs ahead only as far as the unpulled hand-over
      // lets it: its own slots, nowhere near the 10,000 waiting.
      const agent = agentProbe.snapshot()
      assert.isAtMost(agent.peakOutstanding, AGENT_PARALLELISM)
      assert.strictEqual(agent.started, SCORE_PARALLELISM + AGENT_PARALLELISM)
      assert.strictEqual(agent.completed, SCORE_PARALLELISM + AGENT_PARALLELISM)
      // Fibers of the whole pipeline: one per trial in either stage plus helpers.
      assert.isAtMost(held.liveFibers, SCORE_PARALLELISM + AGENT_PARALLELISM + 4)

      yield* gate.open
      yield* TestClock.adjust("1 second")
      assert.strictEqual(emitted.length, SCORE_PARALLELISM)
      assert.strictEqual(scoreProbe.outstanding, SCORE_PARALLELISM)
      yield* TestClock.adjust(`${TRIALS / SCORE_PARALLELISM} seconds`)
      yield* Fiber.join(fiber)

      assert.strictEqual(emitted.length, TRIALS)
      assert.strictEqual(new Set(emitted.map((t) => t.id)).size, TRIALS)
      assert.isTrue(emitted.every((t) => t.scores?.["gated"]?.passed === true))
      assert.strictEqual(scoreProbe.peakOutstanding, SCORE_PARALLELISM)
      assert.strictEqual(scoreProbe.peakActive, SCORE_PARALLELISM)
      assert.strictEqual(scoreProbe.completed, TRIALS)
      assert.strictEqual(scoreProbe.liveFibers, 0)
      assert.isAtMost(agentProbe.peakOutstanding, AGENT_PARALLELISM)
    }))

  it.effect("pipelined: trials are scored while later trials still run", () =>
    Effect.gen(function*() {
      const agentProbe = new MutableProbe()
      const scoreProbe = new MutableProbe()
      const slowAgent = (task: { readonly id: string }): Effect.Effect<AgentOutput> =>
        Effect.as(Effect.sleep("1 second"), { output_text: `out:${task.id}` })
      const scorer = Scorers.make("instant", () => Effect.succeed(Scorers.verdict(true)))
      const fiber = yield* Stage.scoreTrials(
        finished(runTrials(tasksStream(64), slowAgent, { parallelism: 8, probe: agentProbe })),
        { scorers: [scorer], parallelism: 8, probe: scoreProbe }
      ).pipe(Stream.runCount, Effect.forkChild)
      yield* settle
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual(scoreProbe.completed, 8)
      assert.strictEqual(agentProbe.completed, 8)
      assert.strictEqual(agentProbe.outstanding, 8)
      yield* TestClock.adjust("8 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), 64)
    }))
})

describe("scoring stage", () => {
  it.effect("a failed trial is not sent to scorers and leaves without scores", () =>
    Effect.gen(function*() {
      let calls = 0
      const scorer = Scorers.make("count", () => Effect.sync(() => (calls++, Scorers.verdict(true))))
      const agent = (task: { readonly id: string }) =>
        task.id === "t3" ? Effect.fail(new Error("no")) : instantAgent(task)
      const out = yield* Stage.scoreTrials(
        finished(runTrials(tasksStream(10), agent, { parallelism: 2 })),
        { scorers: [scorer], parallelism: 2 }
      ).pipe(Stream.runCollect)
      assert.strictEqual(out.length, 10)
      assert.strictEqual(calls, 9)
      const failed = out.find((t) => t.task_id === "t3")!
      assert.strictEqual(failed.status, "failed")
      assert.isUndefined(failed.scores)
      assert.isTrue(out.filter((t) => t.task_id !== "t3").every((t) => t.scores?.["count"]?.passed === true))
    }))

  it.effect("judges share --judge-parallelism across the stage", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const a = yield* gatedScorer("a")
      const b = yield* gatedScorer("b")
      // What `Judge.make` gives: a scorer with its call counts.
      const judge = (s: Scorer): Scorer => Object.assign({ ...s }, { counts: () => ({}) })
      const fiber = yield* Stage.scoreTrials(
        finished(runTrials(tasksStream(100), instantAgent, { parallelism: 8 })),
        { scorers: [judge(a.scorer), judge(b.scorer)], parallelism: 8, judgeParallelism: 3, probe }
      ).pipe(Stream.runCount, Effect.forkChild)
      yield* settle
      assert.strictEqual(probe.outstanding, 8)
      assert.strictEqual(probe.active, 3)
      assert.strictEqual(a.calls() + b.calls(), 3)
      yield* a.gate.open
      yield* b.gate.open
      yield* TestClock.adjust("200 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), 100)
      assert.strictEqual(probe.peakActive, 3)
      assert.strictEqual(a.calls(), 100)
      assert.strictEqual(b.calls(), 100)
    }))

  it.effect("refuses a parallelism below 1", () =>
    Effect.gen(function*() {
      const error = yield* Stage.scoreTrials(Stream.empty, { scorers: [] as Array<Scorer>, parallelism: 0 }).pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(error._tag, "InvalidParallelism")
    }))

  it.effect("scorers that only compute (exact, not-exact) are run in the stage's own fiber: no fiber per trial, every trial scored", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const scored = yield* Stage.scoreTrials(
        finished(runTrials(tasksStream(1000), instantAgent, { parallelism: 1 })),
        { scorers: [Match.exact(), Scorers.negate(Match.exact())], parallelism: 8, probe }
      ).pipe(Stream.runCollect)
      assert.strictEqual(scored.length, 1000)
      assert.isTrue(scored.every((t) => t.scores?.["exact"] !== undefined && t.scores["not-exact"] !== undefined))
      assert.strictEqual(probe.peakLiveFibers, 0)
      assert.strictEqual(probe.peakOutstanding, 1)
      // A scorer that may wait (made by `make`) keeps the stage's parallelism, a fiber per trial.
      const waiting = new MutableProbe()
      yield* Stage.scoreTrials(
        finished(runTrials(tasksStream(100), instantAgent, { parallelism: 1 })),
        { scorers: [Match.exact(), Scorers.make("later", () => Effect.as(Effect.sleep("1 second"), Scorers.verdict(true)))], parallelism: 8, probe: waiting }
      ).pipe(Stream.runDrain, Effect.forkChild)
      yield* settle
      assert.strictEqual(waiting.outstanding, 8)
      assert.isAtLeast(waiting.liveFibers, 8)
    }))
})

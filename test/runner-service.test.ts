import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import type { Agent } from "../src/domain/Agent.ts"
import { HttpStatusError } from "../src/domain/HttpErrors.ts"
import * as Options from "../src/programs/Options.ts"
import { Runner } from "../src/runner/Runner.ts"
import { InvalidRunnerConfig } from "../src/runner/RunnerService.ts"
import { program } from "./embed.example.ts"
import { gatedAgent, taskIterable, tasksStream } from "./fixtures.ts"

const withParallelism = (value: unknown) =>
  Runner.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ AGENT_TRIALS_PARALLELISM: value }))))

describe("Runner service", () => {
  it.effect("reads AGENT_TRIALS_PARALLELISM, and runs inside it share one budget of active calls", () =>
    Effect.gen(function*() {
      const runner = yield* Runner
      assert.strictEqual(runner.parallelism, 3)
      const { agent, gate } = yield* gatedAgent()
      const a = yield* Effect.forkChild(Stream.runCollect(runner.run(tasksStream(20), agent)))
      const b = yield* Effect.forkChild(Stream.runCollect(runner.run(tasksStream(20), agent)))
      yield* TestClock.adjust(0)
      // Each run admits up to 3 units, but only 3 calls run across both.
      assert.strictEqual(runner.probe.active, 3)
      assert.strictEqual(runner.probe.outstanding, 6)
      yield* gate.open
      yield* TestClock.adjust("30 seconds")
      const [ra, rb] = [yield* Fiber.join(a), yield* Fiber.join(b)]
      assert.strictEqual(ra.length + rb.length, 40)
      assert.strictEqual(runner.probe.peakActive, 3)
      assert.strictEqual(runner.probe.liveFibers, 0)
    }).pipe(Effect.provide(withParallelism(3))))

  it.effect("defaults to 8", () =>
    Effect.gen(function*() {
      const runner = yield* Runner
      assert.strictEqual(runner.parallelism, 8)
    }).pipe(Effect.provide(Runner.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({})))))))

  it.effect("a bad AGENT_TRIALS_PARALLELISM fails the layer, naming the variable and value", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.provide(Runner.use(() => Effect.void), withParallelism(0)))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(exit), "Expected AGENT_TRIALS_PARALLELISM to be an integer from 1 and up, got 0")
    }))

  it.effect("runTasks: every trial, in input order, like the original run_tasks", () =>
    Effect.gen(function*() {
      const runner = yield* Runner
      // Later tasks finish first, so input order must be restored.
      const agent: Agent = (task) => {
        const i = task.inputs["i"] as number
        return Effect.as(Effect.sleep(`${100 - i} millis`), { output_text: `o${i}` })
      }
      const fiber = yield* Effect.forkChild(runner.runTasks(taskIterable(100), agent))
      yield* TestClock.adjust("10 seconds")
      const trials = yield* Fiber.join(fiber)
      assert.deepStrictEqual(trials.map((t) => t.task_id), Array.from({ length: 100 }, (_, i) => `t${i}`))
      assert.deepStrictEqual(trials.map((t) => t.output?.output_text), Array.from({ length: 100 }, (_, i) => `o${i}`))
      assert.strictEqual(runner.probe.peakOutstanding, 4)
    }).pipe(Effect.provide(Runner.layerWith({ parallelism: 4 }))))

  it.live("the README's embedding example runs as written", () =>
    Effect.gen(function*() {
      const readme = fs.readFileSync(new URL("../README.md", import.meta.url), "utf8")
      const example = fs.readFileSync(new URL("./embed.example.ts", import.meta.url), "utf8")
      assert.include(readme, example.replace(`from "../src/index.ts"`, `from "agent-trials"`))
      const result = yield* program.pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ AGENT_TRIALS_PARALLELISM: 16 })))
      )
      assert.deepStrictEqual(result.summary, { completed: 1000, failed: 0 })
      assert.isAtMost(result.peakActive, 16)
      assert.isAtLeast(result.peakActive, 1)
    }))

  it.effect("failure handling from the environment: timeout, retries, failure budget", () =>
    Effect.gen(function*() {
      const runner = yield* Runner
      let calls = 0
      // Hangs past the timeout on its first call, answers on the second.
      const agent: Agent = (task) =>
        Effect.suspend(() => ++calls % 2 === 1 ? Effect.never : Effect.succeed({ output_text: task.id }))
      const fiber = yield* Effect.forkChild(runner.runTasks(taskIterable(1), agent))
      yield* TestClock.adjust("10 seconds")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(trial.status, "completed")
      assert.strictEqual(trial.metadata["attempts"], 2)
      assert.strictEqual(runner.probe.retries, 1)

      const failing: Agent<string> = () => Effect.fail("no")
      const exit = yield* Effect.exit(runner.runTasks(taskIterable(10), failing))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(exit), "stopped: 2 of 2 finished trials failed, more than the limit of 1 failed trials")
    }).pipe(Effect.provide(Runner.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({
      AGENT_TRIALS_PARALLELISM: 1,
      AGENT_TRIALS_TIMEOUT: "1s",
      AGENT_TRIALS_RETRIES: 2,
      AGENT_TRIALS_BACKOFF: "100ms",
      AGENT_TRIALS_MAX_FAILURES: "1"
    })))))))

  it.effect("a bad AGENT_TRIALS_RATE fails the layer, naming it", () =>
    Effect.gen(function*() {
      const error = yield* layerError({ AGENT_TRIALS_RATE: "fast" })
      assert.strictEqual(
        error.message,
        `Expected AGENT_TRIALS_RATE to be a rate above 0 per s, m (or min) or h, like 10/s or 600/min, got "fast"`
      )
    }))

  it.effect("AGENT_TRIALS_TIMEOUT=5 fails the layer as the CLI refuses it: a duration needs its unit", () =>
    Effect.gen(function*() {
      const error = yield* layerError({ AGENT_TRIALS_TIMEOUT: "5" })
      assert.instanceOf(error, InvalidRunnerConfig)
      assert.strictEqual(
        error.message,
        `Expected AGENT_TRIALS_TIMEOUT to be a duration with a unit, like 5s, 500ms or 2m, got "5" (did you mean 5s?)`
      )
      assert.strictEqual(error.message, yield* Effect.flip(Options.decode(Options.Duration, "AGENT_TRIALS_TIMEOUT")("5")).pipe(
        Effect.map((e) => e.message)
      ))
    }))

  it.effect("every option variable is refused in its Schema's words", () =>
    Effect.gen(function*() {
      const cases = [
        ["AGENT_TRIALS_PARALLELISM", Options.Parallelism, "0"],
        ["AGENT_TRIALS_RETRIES", Options.Count, "-1"],
        ["AGENT_TRIALS_BACKOFF", Options.Duration, "500"],
        ["AGENT_TRIALS_BACKOFF_MAX", Options.Duration, "0s"],
        ["AGENT_TRIALS_RETRY_AFTER_MAX", Options.Duration, "60"],
        ["AGENT_TRIALS_MAX_FAILURES", Options.MaxFailures, "101%"]
      ] as const
      for (const [name, schema, value] of cases) {
        const error = yield* layerError({ [name]: value })
        const expected = yield* Effect.flip(Options.decode(schema as Schema.Codec<unknown, string>, name)(value))
        assert.match(error.message, new RegExp(`^Expected ${name} to be `), name)
        assert.strictEqual(error.message, expected.message, name)
      }
    }))

  it.effect("AGENT_TRIALS_RETRY_AFTER_MAX caps the wait a Retry-After imposes", () =>
    Effect.gen(function*() {
      const runner = yield* Runner
      let calls = 0
      // A 429 asking for 10 s on the first call; then an answer.
      const agent: Agent<HttpStatusError> = (task) =>
        Effect.suspend(() =>
          ++calls === 1
            ? Effect.fail(new HttpStatusError({ status: 429, message: "slow down", retryAfterMs: 10_000 }))
            : Effect.succeed({ output_text: task.id })
        )
      const fiber = yield* Effect.forkChild(runner.runTasks(taskIterable(1), agent))
      // Long enough for the uncapped wait too, so a missing cap fails the assertion, not the clock.
      yield* TestClock.adjust("30 seconds")
      const [trial] = yield* Fiber.join(fiber)
      assert.strictEqual(trial.status, "completed")
      assert.deepStrictEqual(trial.metadata["retry_delays_ms"], [1000])
    }).pipe(Effect.provide(Runner.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({
      AGENT_TRIALS_RETRIES: "1",
      AGENT_TRIALS_RETRY_AFTER_MAX: "1s"
    })))))))
})

/** The error a `Runner.layer` fails with when built on `env`. */
const layerError = (env: Record<string, unknown>) =>
  Effect.flip(Effect.provide(
    Runner.use(() => Effect.void),
    Runner.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))
  ))

import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Agent from "../src/Agent.ts"
import { isoTime } from "../src/internal/execute.ts"
import { MutableProbe } from "../src/internal/probe.ts"
import { runTrials } from "../src/Runner.ts"
import { tasksStream } from "./fixtures.ts"

describe("isoTime", () => {
  it("matches Date#toISOString across minutes, seconds and milliseconds", () => {
    let ms = Date.UTC(2026, 11, 2, 23, 58, 58, 990)
    // Steps of 7 ms and 61 s cross second, minute, hour and day boundaries.
    for (let i = 0; i < 20_000; i++) {
      ms += i % 50 === 0 ? 61_000 : 7
      assert.strictEqual(isoTime(ms), new Date(ms).toISOString())
    }
    for (const fixed of [0, 999, 1000, 59_999, 60_000, Date.UTC(2030, 0, 1)]) {
      assert.strictEqual(isoTime(fixed), new Date(fixed).toISOString())
    }
  })

  it("remembers the last two values without mixing them up: repeats, alternations, a third value", () => {
    const base = Date.UTC(2026, 11, 3, 6, 59, 59, 998)
    // As trials call it: finished, started, finished, started..., with repeats,
    // values in another minute, and a third value that evicts the older one.
    const calls = [base, base - 3, base, base - 3, base + 2, base + 2, base - 3, base + 2, base + 61_000, base, base + 61_000, 0, base, 0]
    for (const ms of calls) assert.strictEqual(isoTime(ms), new Date(ms).toISOString(), `isoTime(${ms})`)
  })
})

describe("an agent that answers at once", () => {
  it.live("does not starve the event loop: a macrotask runs while the run goes on", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const n = 20_000
      let completedWhenImmediateRan = -1
      // Scheduled once the run is under way. Without the runner's heartbeat,
      // an already-resolved promise per call drives the whole run on
      // microtasks, and this runs only after the last trial.
      const agent = Agent.fromPromise(async (task) => {
        if (task.id === "t1000") {
          setImmediate(() => {
            completedWhenImmediateRan = probe.completed
          })
        }
        return task.id
      })
      yield* Stream.runDrain(runTrials(tasksStream(n), agent, { parallelism: 64, probe }))
      assert.strictEqual(probe.completed, n)
      assert.isAtLeast(completedWhenImmediateRan, 1000)
      assert.isBelow(completedWhenImmediateRan, n)
    }))
})

describe("call latency with Effect's live clock", () => {
  // Under the live clock a call's duration is read from performance.now():
  // it must be the call's own duration, within the trial's wall-clock span.
  it("a 30 ms call measures at least about 30 ms and no more than its trial's span", async () => {
    const agent = Agent.fromPromise((task) => new Promise((resolve) => setTimeout(() => resolve(`ok ${task.id}`), 30)))
    const trials = await Effect.runPromise(
      Stream.runCollect(runTrials(tasksStream(4), agent, { parallelism: 2 }))
    )
    assert.strictEqual(trials.length, 4)
    for (const trial of trials) {
      const { finished_at, latency_ms, started_at } = trial.metadata
      const span = Date.parse(finished_at) - Date.parse(started_at)
      assert.isAtLeast(latency_ms, 25, trial.id)
      // Timestamps are whole milliseconds, the latency is not.
      assert.isAtMost(latency_ms, span + 1, trial.id)
    }
  })
})

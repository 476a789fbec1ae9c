import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as Agent from "../src/domain/Agent.ts"
import { isoTime, SyncBlock, WallClock } from "../src/runner/internal/clock.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { Runner, runTrials } from "../src/runner/Runner.ts"
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

describe("WallClock", () => {
  // Readings as (performance.now(), Date.now()) pairs, fed by hand.
  it("gives whole milliseconds at the offset it was aligned to", () => {
    const clock = new WallClock(1_000_000.25)
    clock.check(0, 1_000_000)
    assert.strictEqual(clock.at(10.5), 1_000_010)
    assert.strictEqual(clock.at(999.8), 1_001_000)
  })

  it("keeps its offset while Date.now() differs only by its truncation", () => {
    const clock = new WallClock(5_000.75)
    for (const [now, wall] of [[0, 5_000], [1_000, 6_000], [2_000.5, 7_001], [3_100, 8_100]] as const) {
      clock.check(now, wall)
      assert.strictEqual(clock.offset, 5_000.75, `at ${now}`)
    }
  })

  it("follows a step of the wall clock, forwards and back, at its next check", () => {
    const clock = new WallClock(5_000)
    clock.check(0, 5_000)
    assert.strictEqual(clock.at(0), 5_000)
    // The wall clock jumps 1 h ahead; within the second the old offset holds.
    const hour = 3_600_000
    assert.strictEqual(clock.at(500), 5_500)
    clock.check(1_000, 6_000 + hour)
    assert.strictEqual(clock.at(1_000), 6_000 + hour)
    assert.strictEqual(clock.at(1_700), 6_700 + hour)
    // ... and 10 s back.
    clock.check(2_000, 7_000 + hour - 10_000)
    assert.strictEqual(clock.at(2_000), 7_000 + hour - 10_000)
  })

  it("checks Date.now() again once a second has passed, not before", () => {
    const clock = new WallClock(0)
    const base = 2_000
    clock.at(base)
    const checked = clock.checkedAt
    clock.at(base + 999)
    assert.strictEqual(clock.checkedAt, checked)
    clock.at(base + 1_000)
    assert.strictEqual(clock.checkedAt, base + 1_000)
    // A clock built with a wrong offset is put right by its first reading.
    const now = performance.now()
    const before = Date.now()
    const at = new WallClock(0).at(now)
    assert.isAtLeast(at, before - 2)
    assert.isAtMost(at, Date.now() + 2)
  })
})

describe("SyncBlock", () => {
  it("numbers a synchronous block once, and the next one after a microtask, a macrotask or a timer", async () => {
    const blocks = new SyncBlock()
    const first = blocks.current()
    for (let i = 0; i < 100; i++) assert.strictEqual(blocks.current(), first)
    await Promise.resolve()
    const second = blocks.current()
    assert.isAbove(second, first)
    await new Promise((resolve) => setImmediate(resolve))
    const third = blocks.current()
    assert.isAbove(third, second)
    await new Promise((resolve) => setTimeout(resolve, 1))
    assert.isAbove(blocks.current(), third)
  })
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

  // One permit shared by two runs: the first call holds it until the test
  // lets it go; the other run's trial is admitted meanwhile and waits for
  // it. Its latency is its own call's (the admission's clock reading must not
  // be taken as the call's start), its started_at is its admission. Each
  // bound below is between readings taken on either side of the runner's
  // own, so none depends on how fast the machine is.
  it("a call that waited for its permit measures from when it got it", async () => {
    let release: (() => void) | undefined
    let heldCalledAt = 0
    // The first call is held; the second answers at once.
    const agent = Agent.fromPromise(() => {
      if (release !== undefined) return Promise.resolve("waited")
      heldCalledAt = performance.now()
      return new Promise((resolve) => release = () => resolve("held"))
    })
    let releasedAt = 0
    let releasedWall = 0
    const program = Effect.gen(function*() {
      const runner = yield* Runner
      const fiber = yield* Effect.forkChild(Effect.all([
        Stream.runCollect(runner.run(tasksStream(1), agent)),
        Stream.runCollect(runner.run(tasksStream(1), agent))
      ], { concurrency: 2 }))
      // Both trials admitted, one call holding the permit.
      yield* Effect.sleep("1 millis").pipe(
        Effect.repeat({ until: () => runner.probe.outstanding === 2 && release !== undefined }),
        Effect.timeoutOrElse({ duration: "30 seconds", orElse: () => Effect.die("the two trials were not admitted") })
      )
      // A wait the waiting trial's latency must not count.
      yield* Effect.sleep("50 millis")
      releasedWall = Date.now()
      releasedAt = performance.now()
      release!()
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(Runner.layerWith({ parallelism: 1 })))
    const [a, b] = await Effect.runPromise(program)
    const after = performance.now()
    const trials = [...a, ...b]
    assert.strictEqual(trials.length, 2)
    const waited = trials.find((t) => t.output?.output_text === "waited")!
    const held = trials.find((t) => t.output?.output_text === "held")!
    // Its call started after the release, its trial ended before `after`.
    assert.isAtMost(waited.metadata.latency_ms, after - releasedAt + 0.001)
    // Admitted before the release, finished after it.
    assert.isAtMost(Date.parse(waited.metadata.started_at), releasedWall)
    assert.isAtLeast(Date.parse(waited.metadata.finished_at), releasedWall - 2)
    // The held call's latency spans its hold.
    assert.isAtLeast(held.metadata.latency_ms, releasedAt - heldCalledAt - 0.001)
  })

  it("records latency_ms to the microsecond: 3 decimals at most", async () => {
    const agent = Agent.fromPromise((task) => new Promise((resolve) => setTimeout(() => resolve(`ok ${task.id}`), 2)))
    const probe = new MutableProbe()
    const trials = await Effect.runPromise(Stream.runCollect(runTrials(tasksStream(20), agent, { parallelism: 4, probe })))
    assert.strictEqual(trials.length, 20)
    for (const trial of trials) {
      const ms = trial.metadata.latency_ms
      assert.strictEqual(ms, Math.round(ms * 1000) / 1000, `${trial.id}: latency_ms ${ms}`)
      assert.strictEqual(JSON.stringify(ms), ms.toFixed(3).replace(/\.?0+$/, ""), `${trial.id}: written as ${JSON.stringify(ms)}`)
      assert.isAbove(ms, 0)
    }
  })

  it("stamps started_at and finished_at with the wall clock (Date.now())", async () => {
    const agent = Agent.fromPromise((task) => new Promise((resolve) => setTimeout(() => resolve(`ok ${task.id}`), 5)))
    const before = Date.now()
    const trials = await Effect.runPromise(
      Stream.runCollect(runTrials(tasksStream(6), agent, { parallelism: 3 }))
    )
    const after = Date.now()
    assert.strictEqual(trials.length, 6)
    for (const trial of trials) {
      const started = Date.parse(trial.metadata.started_at)
      const finished = Date.parse(trial.metadata.finished_at)
      // Timestamps are whole milliseconds: within a millisecond of the run's own.
      assert.isAtLeast(started, before - 1, trial.id)
      assert.isAtMost(started, finished, trial.id)
      assert.isAtMost(finished, after + 1, trial.id)
      assert.isAtLeast(finished - started, 4, trial.id)
    }
  })
})

/**
 * The runner's view of the event loop is each run's own (issue 39, section
 * 5): a run whose agent blocked the loop makes its own next call wait for the
 * loop's turn, and another run's call, made in the same moment, does not wait.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Semaphore } from "effect"
import * as Agent from "../src/domain/Agent.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { executeTrial } from "../src/runner/internal/execute.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { Starvation } from "../src/runner/internal/starvation.ts"
import * as Redactor from "../src/runner/Redactor.ts"

const task = (id: string): AgentEvalTask => ({ id, inputs: {} })

// A run's config as the runner makes it, with its own view of the loop.
const runConfig = Effect.map(Semaphore.make(1), (semaphore) => ({
  semaphore,
  probe: new MutableProbe(),
  starvation: new Starvation(),
  redactor: Redactor.make()
}))

describe("a run's view of the event loop", () => {
  it.live("a run that blocked the loop holds back its own next call, not another run's", () =>
    Effect.gen(function*() {
      const a = yield* runConfig
      const b = yield* runConfig
      // Computes on the main thread past the 50 ms after which a run counts the loop as blocked.
      const blocking = Agent.fromPromise(async () => {
        const until = performance.now() + 60
        while (performance.now() < until) {
          // blocked
        }
        return "blocked"
      })
      let turned = false
      const seen: Record<string, boolean> = {}
      // Notes whether the event loop has turned since the blocking call ended.
      const noting = Agent.fromPromise(async (t) => {
        seen[t.id] = turned
        return "noted"
      })
      yield* executeTrial(task("a1"), undefined, blocking, a)
      setImmediate(() => turned = true)
      yield* executeTrial(task("b1"), undefined, noting, b)
      yield* executeTrial(task("a2"), undefined, noting, a)
      assert.deepStrictEqual(seen, { b1: false, a2: true })
    }))
})

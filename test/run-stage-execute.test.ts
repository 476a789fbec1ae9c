/**
 * The execute stage (programs/run/stages/Execute.ts): the bounded runner
 * calls the agent once per unit, at most `parallelism` at a time, and pairs
 * each trial with its unit; with a remote executor the units go to it, with
 * the run's config and the stage's probe, and the agent is never called.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { AgentOutput } from "../src/domain/Trial.ts"
import * as Execute from "../src/programs/run/stages/Execute.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import type { Remote, RemoteConfig } from "../src/runner/Remote.ts"
import type { Paired } from "../src/runner/Runner.ts"
import { drain, trialOf, unit } from "./run-stages.ts"

const units = Stream.fromIterable([unit("a", 1), unit("b", 1), unit("c", 1), unit("d", 1)])
const runner = { parallelism: 2 }

describe("Execute.execute", () => {
  it.effect("runs each unit through the agent, at most `parallelism` at once, paired with its unit (piped)", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const calls: Array<string> = []
      const agent = (task: { readonly id: string }): Effect.Effect<AgentOutput> =>
        Effect.sync(() => {
          calls.push(task.id)
          return { output_text: `out:${task.id}` }
        })
      const { out, ok } = yield* drain(units.pipe(Execute.execute({ agent, runner, probe })))
      assert.isTrue(ok)
      assert.deepStrictEqual(calls.sort(), ["a", "b", "c", "d"])
      assert.deepStrictEqual(
        out.map((p) => [p.unit.task.id, p.trial.task_id, p.trial.output?.output_text]).sort(),
        [["a", "a", "out:a"], ["b", "b", "out:b"], ["c", "c", "out:c"], ["d", "d", "out:d"]]
      )
      assert.strictEqual(probe.completed, 4)
      assert.isAtMost(probe.peakActive, 2)
      assert.strictEqual(probe.limit, 2)
    }))

  it.effect("a --cluster run: the units go to the remote with the run's config and probe; the agent is not called (called directly)", () =>
    Effect.gen(function*() {
      const probe = new MutableProbe()
      const config = { parallelism: 3 } as RemoteConfig
      const seen: Array<unknown> = []
      const remote: Remote = (input, options) => {
        seen.push(options)
        return Stream.map(input, (u): Paired => ({ unit: u, trial: trialOf(u.task.id, { text: "remote" }) }))
      }
      const agent = () => Effect.die("the agent of a --cluster run is never called")
      const { out, ok } = yield* drain(
        Execute.execute(units, { agent, runner, probe, remote: { run: remote, config, out: "out.jsonl", scoreSpecs: ["exact"] } })
      )
      assert.isTrue(ok)
      assert.deepStrictEqual(out.map((p) => [p.unit.task.id, p.trial.output?.output_text]), [
        ["a", "remote"],
        ["b", "remote"],
        ["c", "remote"],
        ["d", "remote"]
      ])
      assert.deepStrictEqual(seen, [{ config, out: "out.jsonl", scoreSpecs: ["exact"], probe }])
    }))
})

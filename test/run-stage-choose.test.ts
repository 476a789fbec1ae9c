/**
 * The choose stage (programs/run/stages/Choose.ts): units already recorded
 * are skipped and counted, `--estimate` takes the first not recorded, and a
 * budget admits units only while it has room.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Budget from "../src/programs/run/Budget.ts"
import { MutableCounts } from "../src/programs/run/internal/counts.ts"
import * as Choose from "../src/programs/run/stages/Choose.ts"
import { drain, trialOf, unit, usageOf } from "./run-stages.ts"

const units = Stream.fromIterable(["t0", "t1", "t2", "t3", "t4"].map((id) => unit(id, 1)))
const ids = (out: ReadonlyArray<{ readonly task: { readonly id: string } }>) => out.map((u) => u.task.id)

describe("Choose.choose", () => {
  it.effect("skips the units whose trial is recorded, and counts them (piped)", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      const recorded = new Set(["t1:1", "t3:1"])
      const { out } = yield* drain(units.pipe(Choose.choose({ recorded, take: undefined, budget: undefined, counts })))
      assert.deepStrictEqual(ids(out), ["t0", "t2", "t4"])
      assert.strictEqual(counts.skipped, 2)
    }))

  it.effect("--estimate: the first `take` units not recorded, then the stream ends (called directly)", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      const { out, ok } = yield* drain(Choose.choose(units, { recorded: new Set(["t1:1"]), take: 2, budget: undefined, counts }))
      assert.isTrue(ok)
      assert.deepStrictEqual(ids(out), ["t0", "t2"])
      assert.strictEqual(counts.skipped, 1)
    }))

  it.effect("a budget already reached admits nothing; one with room admits every unit, counting each", () =>
    Effect.gen(function*() {
      const full = new Budget.Spent()
      full.add(trialOf("before", { usage: usageOf(10) }))
      const none = yield* drain(units.pipe(
        Choose.choose({ recorded: new Set(), take: undefined, budget: { budgets: { maxTokens: 10 }, spent: full }, counts: new MutableCounts(undefined) })
      ))
      assert.deepStrictEqual(ids(none.out), [])
      assert.strictEqual(full.admitted, 0)
      const room = new Budget.Spent()
      room.add(trialOf("before", { usage: usageOf(10) }))
      const all = yield* drain(units.pipe(
        Choose.choose({ recorded: new Set(), take: undefined, budget: { budgets: { maxTokens: 1000 }, spent: room }, counts: new MutableCounts(undefined) })
      ))
      assert.deepStrictEqual(ids(all.out), ["t0", "t1", "t2", "t3", "t4"])
      assert.strictEqual(room.admitted, 5)
    }))
})

/**
 * The price stage (programs/run/stages/Price.ts): without `--pricing` the
 * stream is passed on as it is; with it each trial's usage gets its cost
 * (as `Pricing.priceTrial` computes it), and the warning of unpriced models
 * is given its turn after every trial.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Price from "../src/programs/run/stages/Price.ts"
import * as Pricing from "../src/summary/Pricing.ts"
import { drain, trialOf, usageOf } from "./run-stages.ts"

const trials = [trialOf("a", { usage: usageOf(2_000_000, "m") }), trialOf("b", { usage: usageOf(1000, "other") }), trialOf("c")]

describe("Price.price", () => {
  it.effect("without --pricing, the stream itself passes on (piped)", () =>
    Effect.gen(function*() {
      let warned = 0
      const source = Stream.fromIterable(trials)
      const stage = Price.price({ pricing: undefined, sayUnpriced: Effect.sync(() => void warned++) })
      assert.strictEqual(source.pipe(stage), source)
      const { out } = yield* drain(source.pipe(stage))
      assert.deepStrictEqual(out, trials)
      assert.strictEqual(warned, 0)
    }))

  it.effect("with --pricing, each trial priced as Pricing.priceTrial prices it; the unpriced models told after each (called directly)", () =>
    Effect.gen(function*() {
      const unpriced: Array<string> = []
      const pricing = Pricing.make("prices.json", { models: { m: { input: 1, output: 3 } } }, (model) => unpriced.push(model))
      const reference = Pricing.make("prices.json", { models: { m: { input: 1, output: 3 } } })
      let warned = 0
      const { out } = yield* drain(Price.price(Stream.fromIterable(trials), { pricing, sayUnpriced: Effect.sync(() => void warned++) }))
      assert.deepStrictEqual(out, trials.map((t) => Pricing.priceTrial(reference, t)))
      // 1e6 tokens in at $1 and 1e6 out at $3 per million.
      assert.strictEqual(out[0]!.output?.usage?.cost_usd, 4)
      assert.strictEqual(out[1]!.output?.usage?.cost_usd, 0)
      assert.deepStrictEqual(unpriced, ["other"])
      assert.strictEqual(warned, 3)
    }))
})

/**
 * Issue 39, part 2: the kinds a program knows are a service (`Kinds.Registry`),
 * provided once (`Kinds.layer`, `Kinds.layerWith(extra)`), and every program
 * reads it, so a function reached without passing kinds still sees a user's
 * own (the fakes of test/fixtures/fake-kinds.ts). A `RunConfig.kinds` given
 * (deprecated) wins over the service.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Kinds from "../src/programs/Kinds.ts"
import { echo, kinds as fakeKinds, length, lines, markdown, tsv } from "./fixtures/fake-kinds.ts"

const extra = { agents: [echo], scorers: [length], datasets: [lines], outputs: [markdown], stores: [tsv] }

describe("Kinds as a service", () => {
  it("extend adds each list after the built-in ones, the stores before (the JSONL store takes any name)", () => {
    assert.deepStrictEqual(Kinds.extend(extra), fakeKinds)
    assert.deepStrictEqual(Kinds.extend({}), Kinds.builtIn)
    assert.deepStrictEqual(Kinds.extend({ stores: [tsv] }).stores.map((s) => s.name), ["tsv", "jsonl"])
  })

  it.effect("Kinds.layer holds the built-in kinds, layerWith(extra) them and extra, layerOf(kinds) exactly kinds", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Effect.provide(Effect.service(Kinds.Registry), Kinds.layer), Kinds.builtIn)
      assert.deepStrictEqual(yield* Effect.provide(Effect.service(Kinds.Registry), Kinds.layerWith(extra)), fakeKinds)
      assert.strictEqual(yield* Effect.provide(Effect.service(Kinds.Registry), Kinds.layerOf(fakeKinds)), fakeKinds)
    }))
})

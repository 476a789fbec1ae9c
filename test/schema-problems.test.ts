/**
 * `schemaProblems`: what a Schema found wrong, read from its issue tree (the
 * path, the kind, the check, what was expected), not from its message text.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { schemaProblems } from "../src/domain/internal/failure.ts"

const problemsOf = <S extends Schema.Top>(schema: S, value: unknown, options?: Parameters<typeof Schema.decodeUnknownResult>[1]) => {
  const result = Schema.decodeUnknownResult(schema as never, options)(value)
  assert.isTrue(Result.isFailure(result))
  return Result.isFailure(result) ? schemaProblems((result.failure as Schema.SchemaError).issue) : []
}

describe("schemaProblems", () => {
  const Inner = Schema.Struct({ b: Schema.Number, c: Schema.optionalKey(Schema.String) })
  const Outer = Schema.Struct({ a: Inner, list: Schema.Array(Schema.String) })

  it("a missing key of a nested struct: its path, and its schema read from the struct", () => {
    const [problem, ...rest] = problemsOf(Outer, { a: {}, list: [] })
    assert.lengthOf(rest, 0)
    assert.deepStrictEqual(problem!.path, ["a", "b"])
    assert.strictEqual(problem!.issue._tag, "MissingKey")
    assert.strictEqual(problem!.expected?._tag, "Number")
    assert.isUndefined(problem!.check)
  })

  it("a wrong type inside a list, and every problem with errors: all, in order", () => {
    const problems = problemsOf(Outer, { a: { b: "1" }, list: ["x", 2] }, { errors: "all" })
    assert.deepStrictEqual(problems.map((p) => [p.path, p.issue._tag, p.expected?._tag]), [
      [["a", "b"], "InvalidType", "Number"],
      [["list", 1], "InvalidType", "String"]
    ])
  })

  it("an unknown key, with onExcessProperty: error", () => {
    const [problem] = problemsOf(Outer, { a: { b: 1, d: 2 }, list: [] }, { onExcessProperty: "error" })
    assert.deepStrictEqual(problem!.path, ["a", "d"])
    assert.strictEqual(problem!.issue._tag, "UnexpectedKey")
  })

  it("a failed check, known by identity, at the path a struct's check names", () => {
    const nonNegative = Schema.isGreaterThanOrEqualTo(0)
    const field = problemsOf(Schema.Struct({ x: Schema.Number.check(nonNegative) }), { x: -1 })[0]!
    assert.deepStrictEqual(field.path, ["x"])
    assert.strictEqual(field.check?.filter, nonNegative)
    const ordered = Schema.Struct({ low: Schema.Number, high: Schema.Number }).check(
      Schema.makeFilter((r) => r.low <= r.high ? undefined : { path: ["high"], issue: "below low" })
    )
    const across = problemsOf(ordered, { low: 2, high: 1 })[0]!
    assert.deepStrictEqual(across.path, ["high"])
    assert.isDefined(across.check)
    assert.strictEqual(across.issue._tag, "InvalidValue")
  })
})

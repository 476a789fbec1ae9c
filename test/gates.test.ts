/**
 * `--fail-under NAME=X[@lower]`: what the flag accepts and refuses (in which
 * words), names checked against the run's scorers, and the verdicts on
 * hand-built summaries: the mean against the lower bound, the boundary, and
 * gates that cannot be judged.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Result, Schema } from "effect"
import * as Options from "../src/programs/Options.ts"
import * as Gates from "../src/summary/Gates.ts"
import type * as Clustered from "../src/statistics/Clustered.ts"
import type { ScoringSummary } from "../src/summary/Summary.ts"

const EXPECTED = "expected NAME=X or NAME=X@lower with X a number (for example accuracy=0.8 or passed=0.7@lower)"

const parsed = (text: string): Gates.Gate => {
  const result = Gates.parse(text)
  if (Result.isFailure(result)) assert.fail(`${JSON.stringify(text)} was refused: ${result.failure}`)
  return result.success
}

const refusal = (text: string): string => {
  const result = Gates.parse(text)
  if (Result.isSuccess(result)) assert.fail(`${JSON.stringify(text)} was accepted as ${JSON.stringify(result.success)}`)
  return result.failure
}

const stats = (s: Partial<Clustered.ScorerStats>): Clustered.ScorerStats => ({
  trials: 10,
  scored: 10,
  failed_trials: 0,
  errors: 0,
  values: 10,
  mean: 0.85,
  sd: 0.2,
  standard_error: 0.06,
  ci95: [0.7412, 0.9588],
  passed: 8,
  pass_rate: 0.8,
  pass_rate_ci95: [0.49, 0.94],
  iid_standard_error: 0.06,
  clusters: null,
  design_effect: null,
  pass_rate_design_effect: null,
  ...s
})

const scoring = (s: Partial<ScoringSummary> = {}): ScoringSummary => ({
  scorers: { accuracy: stats({}) },
  pass_rule: "every scorer",
  trials: 50,
  passed: 41,
  pass_rate: 0.82,
  pass_rate_ci95: [0.6921, 0.9022],
  pass_rate_design_effect: null,
  stderr_cluster: null,
  clusters: null,
  not_scored: 0,
  pass_at_k: {
    counts: "passed trials",
    ks: [1],
    tasks_scored: 50,
    tasks_incomplete: 0,
    tasks_by_passes: [9, 41],
    estimates: { "pass@1": 0.82 },
    ci95: { "pass@1": [0.71, 0.93] }
  },
  groups: {},
  parallelism: 4,
  judge_parallelism: null,
  peak_active_scorer_calls: 4,
  peak_outstanding: 4,
  ...s
})

const gate = (name: string, threshold: number, on: "mean" | "lower" = "mean"): Gates.Gate => ({ name, threshold, on })

const one = (g: Gates.Gate, s: ScoringSummary | undefined) => {
  const results = Gates.evaluate([g], s)
  assert.strictEqual(results.length, 1)
  return results[0]
}

describe("Gates.parse", () => {
  it("reads NAME=X as the mean and NAME=X@lower as the interval's lower bound", () => {
    assert.deepStrictEqual(parsed("accuracy=0.8"), { name: "accuracy", threshold: 0.8, on: "mean" })
    assert.deepStrictEqual(parsed("accuracy=0.8@lower"), { name: "accuracy", threshold: 0.8, on: "lower" })
    assert.deepStrictEqual(parsed("passed=0.7"), { name: "passed", threshold: 0.7, on: "mean" })
    assert.deepStrictEqual(parsed("passed=0.7@lower"), { name: "passed", threshold: 0.7, on: "lower" })
  })

  it("takes X as any finite decimal (a module scorer's values may be negative or large), spaces around it", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["s=1", 1],
      ["s=.5", 0.5],
      ["s=5.", 5],
      ["s=-0.25", -0.25],
      ["s=+2", 2],
      ["s=1e-3", 0.001],
      ["s=12.5E2", 1250],
      ["s= 0.8 ", 0.8],
      ["s=0.8 @lower", 0.8],
      ["passed=0", 0],
      ["passed=1", 1]
    ]
    for (const [text, threshold] of cases) assert.strictEqual(parsed(text).threshold, threshold, text)
  })

  it("splits at the last =: a module scorer's name (its file's base name) may hold = or @", () => {
    assert.deepStrictEqual(parsed("a=b=0.5"), { name: "a=b", threshold: 0.5, on: "mean" })
    assert.deepStrictEqual(parsed("x@y=0.9@lower"), { name: "x@y", threshold: 0.9, on: "lower" })
    assert.deepStrictEqual(parsed("not-exact=0.1"), { name: "not-exact", threshold: 0.1, on: "mean" })
  })

  it("refuses what is not NAME=X[@lower], naming the flag and what it expects", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["accuracy=1.5x", `--fail-under accuracy=1.5x: ${EXPECTED}`],
      ["accuracy", `--fail-under accuracy: ${EXPECTED}`],
      ["", `--fail-under "": ${EXPECTED}`],
      ["accuracy=", `--fail-under accuracy=: ${EXPECTED}`],
      ["accuracy= ", `--fail-under accuracy= : ${EXPECTED}`],
      ["accuracy=@lower", `--fail-under accuracy=@lower: ${EXPECTED}`],
      ["accuracy=0x10", `--fail-under accuracy=0x10: ${EXPECTED}`],
      ["accuracy=1,5", `--fail-under accuracy=1,5: ${EXPECTED}`],
      ["accuracy=80%", `--fail-under accuracy=80%: ${EXPECTED}`],
      ["accuracy=Infinity", `--fail-under accuracy=Infinity: ${EXPECTED}`],
      ["accuracy=NaN", `--fail-under accuracy=NaN: ${EXPECTED}`],
      ["accuracy=1e999", `--fail-under accuracy=1e999: X must be finite; ${EXPECTED}`],
      ["=0.8", `--fail-under =0.8: the NAME before = is empty; ${EXPECTED}`],
      [" =0.8", `--fail-under  =0.8: the NAME before = is empty; ${EXPECTED}`],
      ["accuracy=0.8@upper", `--fail-under accuracy=0.8@upper: only @lower may follow X; ${EXPECTED}`],
      ["accuracy=0.8@", `--fail-under accuracy=0.8@: only @lower may follow X; ${EXPECTED}`],
      ["accuracy=0.8@LOWER", `--fail-under accuracy=0.8@LOWER: only @lower may follow X; ${EXPECTED}`],
      ["accuracy=0.8@lower@lower", `--fail-under accuracy=0.8@lower@lower: only @lower may follow X; ${EXPECTED}`]
    ]
    for (const [text, message] of cases) assert.strictEqual(refusal(text), message, text)
  })

  it("refuses a pass rate gate outside 0..1, with the fraction a percentage meant", () => {
    assert.strictEqual(
      refusal("passed=70"),
      `--fail-under passed=70: a pass rate is from 0 to 1, so X must be too (for 70% write passed=0.7); ${EXPECTED}`
    )
    assert.strictEqual(
      refusal("passed=7@lower"),
      `--fail-under passed=7@lower: a pass rate is from 0 to 1, so X must be too (for 7% write passed=0.07); ${EXPECTED}`
    )
    assert.strictEqual(
      refusal("passed=-0.1"),
      `--fail-under passed=-0.1: a pass rate is from 0 to 1, so X must be too; ${EXPECTED}`
    )
    assert.strictEqual(
      refusal("passed=1000"),
      `--fail-under passed=1000: a pass rate is from 0 to 1, so X must be too; ${EXPECTED}`
    )
    // A scorer's mean has no such bound: only the pass rate is a fraction by definition.
    assert.strictEqual(parsed("accuracy=70").threshold, 70)
  })

  it("text writes a gate back the way parse reads it", () => {
    for (const text of ["accuracy=0.8", "accuracy=0.8@lower", "passed=1", "a=b=-0.5@lower", "s=0.001"]) {
      assert.strictEqual(Gates.text(parsed(text)), text)
      assert.deepStrictEqual(parsed(Gates.text(parsed(text))), parsed(text))
    }
    assert.strictEqual(Gates.text(parsed("s=.50")), "s=0.5")
  })
})

describe("Gates.GateSpec", () => {
  const decode = Options.decode(Gates.GateSpec, "--fail-under")

  it("decodes a flag's text through Options.decode", () => {
    assert.deepStrictEqual(Effect.runSync(decode("passed=0.7@lower")), { name: "passed", threshold: 0.7, on: "lower" })
    assert.deepStrictEqual(Schema.decodeUnknownSync(Gates.GateSpec)("accuracy=0.8"), { name: "accuracy", threshold: 0.8, on: "mean" })
  })

  it("refuses with parse's words, unchanged by Options.decode (they name the flag already)", () => {
    for (const text of ["accuracy=1.5x", "=0.8", "passed=70", "accuracy=0.8@upper"]) {
      const exit = Effect.runSyncExit(decode(text))
      if (Exit.isSuccess(exit)) assert.fail(`${text} was accepted`)
      const error = exit.cause.reasons.find((r) => r._tag === "Fail")?.error
      assert.instanceOf(error, Options.InvalidOption)
      assert.strictEqual(error.source, "--fail-under")
      assert.strictEqual(error.message, refusal(text), text)
    }
    assert.throws(() => Schema.decodeUnknownSync(Gates.GateSpec)(0.8), /Expected string/)
  })

  it("encodes a gate back to its text", () => {
    assert.strictEqual(Schema.encodeSync(Gates.GateSpec)({ name: "passed", threshold: 0.7, on: "lower" }), "passed=0.7@lower")
    assert.strictEqual(Schema.encodeSync(Gates.GateSpec)({ name: "a=b", threshold: 1, on: "mean" }), "a=b=1")
  })
})

describe("Gates.check", () => {
  const checked = (gates: ReadonlyArray<Gates.Gate>, scorers: ReadonlyArray<string>) => Gates.check(gates, scorers)
  const refused = (gates: ReadonlyArray<Gates.Gate>, scorers: ReadonlyArray<string>): Gates.UnknownGateName => {
    const result = checked(gates, scorers)
    if (Result.isSuccess(result)) assert.fail(`accepted: ${gates.map(Gates.text).join(", ")}`)
    assert.instanceOf(result.failure, Gates.UnknownGateName)
    return result.failure
  }

  it("accepts the run's scorers and passed, returning the gates", () => {
    const gates = [gate("accuracy", 0.8), gate("judge", 0.5, "lower"), gate("passed", 0.7)]
    const result = checked(gates, ["accuracy", "judge"])
    assert.isTrue(Result.isSuccess(result))
    assert.deepStrictEqual(Result.getOrThrow(result), gates)
    assert.isTrue(Result.isSuccess(checked([], [])))
  })

  it("refuses an unknown name, naming it and the scorers there are", () => {
    const error = refused([gate("accuracy", 0.8), gate("acuracy", 0.8)], ["accuracy", "judge"])
    assert.deepStrictEqual(error.gates, ["acuracy=0.8"])
    assert.deepStrictEqual(error.names, ["acuracy"])
    assert.deepStrictEqual(error.scorers, ["accuracy", "judge"])
    assert.strictEqual(
      error.message,
      "--fail-under acuracy=0.8: acuracy is not a scorer of this run; NAME is one of accuracy, judge, or passed for the pass rate"
    )
  })

  it("names every refused gate at once, each name once", () => {
    const error = refused([gate("typo", 0.8), gate("typo", 0.5, "lower"), gate("oops", 1), gate("exact", 0.9)], ["exact"])
    assert.strictEqual(
      error.message,
      "--fail-under typo=0.8, typo=0.5@lower, oops=1: typo, oops are not scorers of this run; NAME is one of exact, or passed for the pass rate"
    )
  })

  it("refuses every gate, passed too, when the run has no scorers (there is no pass rate)", () => {
    const error = refused([gate("passed", 0.7), gate("exact", 0.5)], [])
    assert.deepStrictEqual(error.gates, ["passed=0.7", "exact=0.5"])
    assert.strictEqual(
      error.message,
      "--fail-under passed=0.7, exact=0.5: the run has no scorers (--score SPEC), so there is no score nor pass rate to judge"
    )
  })

  it("names are exact: case and spaces count", () => {
    assert.strictEqual(refused([gate("Exact", 0.5)], ["exact"]).names[0], "Exact")
    assert.strictEqual(refused([gate("exact ", 0.5)], ["exact"]).names[0], "exact ")
    assert.strictEqual(refused([gate("Passed", 0.5)], ["exact"]).names[0], "Passed")
  })
})

describe("Gates.evaluate", () => {
  it("judges a scorer's mean, and its 95% CI lower bound with @lower", () => {
    const s = scoring()
    assert.deepStrictEqual(one(gate("accuracy", 0.8), s), {
      gate: "accuracy=0.8",
      name: "accuracy",
      on: "mean",
      threshold: 0.8,
      value: 0.85,
      verdict: "pass",
      reason: "mean 0.85 >= 0.8"
    })
    // The same threshold on the lower bound fails: the data do not show 0.8.
    assert.deepStrictEqual(one(gate("accuracy", 0.8, "lower"), s), {
      gate: "accuracy=0.8@lower",
      name: "accuracy",
      on: "lower",
      threshold: 0.8,
      value: 0.7412,
      verdict: "fail",
      reason: "95% CI lower bound 0.7412 < 0.8"
    })
    assert.strictEqual(one(gate("accuracy", 0.9), s).verdict, "fail")
    assert.strictEqual(one(gate("accuracy", 0.7, "lower"), s).verdict, "pass")
  })

  it("judges passed on the run's pass rate and its Wilson lower bound, not a scorer's pass_rate", () => {
    const s = scoring()
    assert.deepStrictEqual(one(gate("passed", 0.7), s), {
      gate: "passed=0.7",
      name: "passed",
      on: "mean",
      threshold: 0.7,
      value: 0.82,
      verdict: "pass",
      reason: "pass rate 0.82 >= 0.7"
    })
    const lower = one(gate("passed", 0.7, "lower"), s)
    assert.strictEqual(lower.value, 0.6921)
    assert.strictEqual(lower.verdict, "fail")
    assert.strictEqual(lower.reason, "pass rate 95% Wilson CI lower bound 0.6921 < 0.7")
    // accuracy's own pass_rate (0.8) and its Wilson bound (0.49) play no part.
    assert.strictEqual(one(gate("passed", 0.81), s).verdict, "pass")
    assert.strictEqual(one(gate("passed", 0.6, "lower"), s).verdict, "pass")
  })

  it("a value equal to X passes (a gate fails below X), on the mean, the bound and the pass rate", () => {
    const s = scoring()
    assert.strictEqual(one(gate("accuracy", 0.85), s).verdict, "pass")
    assert.strictEqual(one(gate("accuracy", 0.85), s).reason, "mean 0.85 >= 0.85")
    assert.strictEqual(one(gate("accuracy", 0.7412, "lower"), s).verdict, "pass")
    assert.strictEqual(one(gate("passed", 0.82), s).verdict, "pass")
    assert.strictEqual(one(gate("passed", 0.6921, "lower"), s).verdict, "pass")
    // Just above the value fails.
    assert.strictEqual(one(gate("accuracy", 0.8500001), s).verdict, "fail")
    assert.strictEqual(one(gate("passed", 0.82001), s).verdict, "fail")
    // 7 of 10 is the double 0.7, as X=0.7 is: the boundary holds through the division.
    assert.strictEqual(one(parsed("passed=0.7"), scoring({ trials: 10, passed: 7, pass_rate: 7 / 10 })).verdict, "pass")
  })

  it("judges negative values and thresholds (a module scorer's values)", () => {
    const s = scoring({ scorers: { delta: stats({ mean: -0.2, ci95: [-0.5, 0.1] }) } })
    assert.strictEqual(one(gate("delta", -0.25), s).verdict, "pass")
    assert.strictEqual(one(gate("delta", -0.25, "lower"), s).verdict, "fail")
    assert.strictEqual(one(gate("delta", -0.25, "lower"), s).reason, "95% CI lower bound -0.5 < -0.25")
  })

  it("fails a gate that cannot be judged, value null, saying why", () => {
    const s = scoring({
      scorers: {
        none: stats({ trials: 3, scored: 0, failed_trials: 3, values: 0, mean: null, sd: null, standard_error: null, ci95: null }),
        single: stats({ trials: 1, scored: 1, values: 1, mean: 1, sd: null, standard_error: null, ci95: null })
      },
      trials: 0,
      passed: 0,
      pass_rate: null,
      pass_rate_ci95: null
    })
    const cases: ReadonlyArray<readonly [Gates.Gate, string]> = [
      [gate("none", 0), "cannot be judged: 0 scored values, so no mean"],
      [gate("none", 0, "lower"), "cannot be judged: 0 scored values, so no 95% CI (it needs 2)"],
      [gate("single", 0.5, "lower"), "cannot be judged: 1 scored value, so no 95% CI (it needs 2)"],
      [gate("passed", 0), "cannot be judged: 0 trials scored, so no pass rate"],
      [gate("passed", 0, "lower"), "cannot be judged: 0 trials scored, so no 95% Wilson CI"],
      // check refuses it up front; evaluate alone must not pass it either.
      [gate("missing", 0), "cannot be judged: no scorer named missing in this run"]
    ]
    for (const [g, reason] of cases) {
      const result = one(g, s)
      assert.strictEqual(result.value, null, Gates.text(g))
      assert.strictEqual(result.verdict, "fail", Gates.text(g))
      assert.strictEqual(result.reason, reason, Gates.text(g))
    }
    // A threshold of 0 passes any value there is: the single value's mean.
    assert.strictEqual(one(gate("single", 0), s).verdict, "pass")
    // Inherited object keys are not scorers.
    assert.strictEqual(one(gate("toString", 0), s).reason, "cannot be judged: no scorer named toString in this run")
  })

  it("fails every gate of a run without scores", () => {
    const results = Gates.evaluate([gate("passed", 0), gate("exact", 0, "lower")], undefined)
    assert.deepStrictEqual(results.map((r) => [r.value, r.verdict, r.reason]), [
      [null, "fail", "cannot be judged: the run has no scores"],
      [null, "fail", "cannot be judged: the run has no scores"]
    ])
  })

  it("a scorer named passed does not shadow the pass rate", () => {
    const s = scoring({ scorers: { passed: stats({ mean: 0.1, ci95: [0, 0.2] }) }, pass_rate: 0.9, pass_rate_ci95: [0.8, 0.95] })
    assert.isTrue(Result.isSuccess(Gates.check([gate("passed", 0.5)], ["passed"])))
    const result = one(gate("passed", 0.5), s)
    assert.strictEqual(result.value, 0.9)
    assert.strictEqual(result.verdict, "pass")
    assert.strictEqual(result.reason, "pass rate 0.9 >= 0.5")
    assert.strictEqual(one(gate("passed", 0.5, "lower"), s).value, 0.8)
  })

  it("keeps the gates' order, and is JSON as the summary writes it (GateResult decodes it back)", () => {
    const gates = [gate("passed", 0.7), gate("accuracy", 0.8, "lower"), gate("accuracy", 0.8)]
    const results = Gates.evaluate(gates, scoring())
    assert.deepStrictEqual(results.map((r) => r.gate), ["passed=0.7", "accuracy=0.8@lower", "accuracy=0.8"])
    const json = JSON.parse(JSON.stringify(results))
    assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.Array(Gates.GateResult))(json), results)
    const unjudged = JSON.parse(JSON.stringify(Gates.evaluate(gates, undefined)))
    assert.strictEqual(unjudged[0].value, null)
    assert.deepStrictEqual(Schema.decodeUnknownSync(Schema.Array(Gates.GateResult))(unjudged), unjudged)
  })
})

describe("Gates.format and Gates.failed", () => {
  const results = Gates.evaluate(
    [gate("accuracy", 0.8, "lower"), gate("passed", 0.7), gate("judge", 0.5)],
    scoring({ scorers: { accuracy: stats({}), judge: stats({ values: 0, mean: null, ci95: null }) } })
  )

  it("prints one line per gate: pass, or FAIL, with the figures or the reason", () => {
    assert.deepStrictEqual(Gates.format(results), [
      "  gate accuracy=0.8@lower: FAIL (95% CI lower bound 0.7412 < 0.8)",
      "  gate passed=0.7: pass (pass rate 0.82 >= 0.7)",
      "  gate judge=0.5: FAIL (cannot be judged: 0 scored values, so no mean)"
    ])
    assert.deepStrictEqual(Gates.format([]), [])
  })

  it("failed: a GatesFailed naming each failed gate, undefined when all pass or there are none", () => {
    const error = Gates.failed(results)
    assert.instanceOf(error, Gates.GatesFailed)
    assert.strictEqual(error._tag, "GatesFailed")
    assert.deepStrictEqual(error.results, results)
    assert.strictEqual(
      error.message,
      "--fail-under: 2 of 3 gates failed: accuracy=0.8@lower (95% CI lower bound 0.7412 < 0.8); " +
        "judge=0.5 (cannot be judged: 0 scored values, so no mean)"
    )
    assert.isUndefined(Gates.failed([results[1]]))
    assert.isUndefined(Gates.failed([]))
    assert.strictEqual(Gates.failed([results[0]])!.message, "--fail-under: 1 of 1 gate failed: accuracy=0.8@lower (95% CI lower bound 0.7412 < 0.8)")
  })
})

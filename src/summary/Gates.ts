/**
 * `--fail-under NAME=X[@lower]`, the quality gates of `run` and `score`: a
 * command exits 1 when a gate fails, and the summary prints each gate with
 * its verdict.
 *
 * - NAME is a scorer of the run, or `passed`: the run's pass rate (trials
 *   that passed by the pass rule, over trials scored).
 * - `NAME=X` judges the scorer's mean (for `passed`, the pass rate);
 *   `NAME=X@lower` judges the lower bound of its 95% interval instead (a
 *   scorer's Student t interval, the pass rate's Wilson interval), so a gate
 *   passes only when the data show the figure is X or more.
 * - The boundary passes: a gate fails when its value is below X, so
 *   `passed=0.7` passes at a pass rate of exactly 0.7.
 * - A gate that cannot be judged (no trials scored, a single value and so no
 *   interval, no scores at all) fails, with the reason: it never passes
 *   silently.
 * - Values are the summary's, as printed (rounded to 4 decimals): the
 *   verdict agrees with the figures the summary shows.
 * - A scorer named `passed` (`--score passed=exact`) does not shadow the
 *   pass rate: `passed` always means the pass rate, whatever the scorers are
 *   named, so a gate means the same in every run.
 * - NAME is split from X at the last `=`: a `module:` scorer's name is its
 *   file's base name, which may hold an `=`.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { fromString } from "../internal/options.ts"
import { ScoreSummary, type ScoringSummary, Summary } from "./Model.ts"

/**
 * A gate: `threshold` is X, `on` what is judged, the mean (the pass rate for
 * `passed`) or the lower bound of its 95% interval.
 *
 * @category models
 * @since 0.1.0
 */
export const Gate = Schema.Struct({
  name: Schema.String,
  threshold: Schema.Number,
  on: Schema.Literals(["mean", "lower"])
})
export type Gate = typeof Gate.Type

/**
 * The NAME that means the run's pass rate rather than a scorer.
 *
 * @category constants
 * @since 0.1.0
 */
export const PASSED = "passed"

const FLAG = "--fail-under"
const EXPECTED = "expected NAME=X or NAME=X@lower with X a number (for example accuracy=0.8 or passed=0.7@lower)"
const NUMBER = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/

/**
 * A gate as `--fail-under` takes it, `NAME=X` or `NAME=X@lower` (what
 * {@link parse} reads back).
 *
 * @category formatting
 * @since 0.1.0
 */
export const text = (gate: Gate): string => `${gate.name}=${gate.threshold}${gate.on === "lower" ? "@lower" : ""}`

/**
 * Reads `NAME=X` or `NAME=X@lower`; a failure is the message, naming
 * `--fail-under` and what it expects. X is a finite number (for `passed`,
 * from 0 to 1), NAME is not empty.
 *
 * **Example** (A gate on a lower bound, and a refusal)
 *
 * ```ts
 * import { Gates } from "agent-trials"
 *
 * Gates.parse("accuracy=0.8@lower")
 * // Result.succeed({ name: "accuracy", threshold: 0.8, on: "lower" })
 * Gates.parse("accuracy=1.5x")
 * // Result.fail("--fail-under accuracy=1.5x: expected NAME=X or NAME=X@lower with X a number (for example ...)")
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parse = (input: string): Result.Result<Gate, string> => {
  const bad = (problem?: string) =>
    Result.fail(`${FLAG} ${input === "" ? `""` : input}: ${problem === undefined ? "" : `${problem}; `}${EXPECTED}`)
  const eq = input.lastIndexOf("=")
  if (eq === -1) return bad()
  const name = input.slice(0, eq)
  if (name.trim() === "") return bad("the NAME before = is empty")
  const value = input.slice(eq + 1)
  const at = value.indexOf("@")
  const number = at === -1 ? value : value.slice(0, at)
  if (at !== -1 && value.slice(at + 1) !== "lower") return bad("only @lower may follow X")
  if (!NUMBER.test(number)) return bad()
  const threshold = Number(number)
  if (!Number.isFinite(threshold)) return bad("X must be finite")
  if (name === PASSED && !(threshold >= 0 && threshold <= 1)) {
    // Read as `Ne-2`, the nearest double to N/100, as Options.MaxFailures does.
    const percent = threshold > 1 && threshold <= 100 ? ` (for ${threshold}% write passed=${Number(`${threshold}e-2`)})` : ""
    return bad(`a pass rate is from 0 to 1, so X must be too${percent}`)
  }
  return Result.succeed({ name, threshold, on: at === -1 ? "mean" : "lower" })
}

/**
 * {@link Gate} from its text, as a Schema: the CLI decodes `--fail-under`
 * with it through `Options.decode`, which keeps the message as it is (it
 * names the flag already).
 *
 * **Example** (Decoding a flag's value)
 *
 * ```ts
 * import { Options, Gates } from "agent-trials"
 *
 * const gate = Options.decode(Gates.GateSpec, "--fail-under")("passed=0.7@lower")
 * // Effect.succeed({ name: "passed", threshold: 0.7, on: "lower" })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const GateSpec = fromString(Gate, parse, text)

/**
 * Gates whose NAME is neither a scorer of the run nor `passed`, or any gate
 * when the run has no scorers (then there is no pass rate either).
 *
 * @category errors
 * @since 0.1.0
 */
export class UnknownGateName extends Schema.TaggedError<UnknownGateName>()("UnknownGateName", {
  /** The gates refused, as written back by {@link text}. */
  gates: Schema.Array(Schema.String),
  /** Their names not among the scorers. */
  names: Schema.Array(Schema.String),
  /** The run's scorers. */
  scorers: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const which = `${FLAG} ${this.gates.join(", ")}`
    if (this.scorers.length === 0) {
      return `${which}: the run has no scorers (--score SPEC), so there is no score nor pass rate to judge`
    }
    const names = this.names.join(", ")
    return `${which}: ${names} ${this.names.length === 1 ? "is not a scorer" : "are not scorers"} of this run; ` +
      `NAME is one of ${this.scorers.join(", ")}, or ${PASSED} for the pass rate`
  }
}

/**
 * Checks the gates against the run's scorers before the run starts: every
 * NAME must be one of `scorers` or `passed` (which is the pass rate even
 * when a scorer is named `passed`), and the run must have scorers.
 *
 * **Example** (A misspelt scorer)
 *
 * ```ts
 * import { Gates } from "agent-trials"
 *
 * Gates.check([{ name: "acuracy", threshold: 0.8, on: "mean" }], ["accuracy", "judge"])
 * // Result.fail(UnknownGateName): --fail-under acuracy=0.8: acuracy is not a scorer of this run;
 * //   NAME is one of accuracy, judge, or passed for the pass rate
 * ```
 *
 * @category validation
 * @since 0.1.0
 */
export const check = (
  gates: ReadonlyArray<Gate>,
  scorers: ReadonlyArray<string>
): Result.Result<ReadonlyArray<Gate>, UnknownGateName> => {
  const known = new Set(scorers)
  const refused = scorers.length === 0 ? gates : gates.filter((g) => g.name !== PASSED && !known.has(g.name))
  if (refused.length === 0) return Result.succeed(gates)
  return Result.fail(
    new UnknownGateName({
      gates: refused.map(text),
      names: [...new Set(refused.map((g) => g.name))].filter((name) => !known.has(name)),
      scorers: [...scorers]
    })
  )
}

/**
 * A gate's verdict, as the summary JSON carries it (`gates`): `value` is
 * what was judged, null when it could not be (then `verdict` is `fail`);
 * `reason` says why, as the text summary prints it.
 *
 * @category models
 * @since 0.1.0
 */
export const GateResult = Schema.Struct({
  gate: Schema.String,
  name: Schema.String,
  on: Schema.Literals(["mean", "lower"]),
  threshold: Schema.Number,
  value: Schema.NullOr(Schema.Number),
  verdict: Schema.Literals(["pass", "fail"]),
  reason: Schema.String
})
export type GateResult = typeof GateResult.Type

const gates = Schema.optionalKey(Schema.Array(GateResult))

/**
 * A run's summary as `--summary FILE` writes it: its gates' results last
 * (`gates`, absent without gates).
 *
 * @category models
 * @since 0.7.0
 */
export const GatedSummary = Schema.Struct({ ...Summary.fields, gates })
export type GatedSummary = typeof GatedSummary.Type

/**
 * `score`'s summary as `--summary FILE` writes it, its gates' results last.
 *
 * @category models
 * @since 0.7.0
 */
export const GatedScoreSummary = Schema.Struct({ ...ScoreSummary.fields, gates })
export type GatedScoreSummary = typeof GatedScoreSummary.Type

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`

// What a gate reads from the scores: the value, what it is called, and why
// there is none.
const measure = (gate: Gate, scoring: ScoringSummary | undefined) => {
  const lower = gate.on === "lower"
  if (scoring === undefined) return { value: null, what: "", missing: "the run has no scores" }
  if (gate.name === PASSED) {
    return {
      value: lower ? scoring.pass_rate_ci95?.[0] ?? null : scoring.pass_rate,
      what: lower ? "pass rate 95% Wilson CI lower bound" : "pass rate",
      missing: `${plural(scoring.trials, "trial")} scored, so no ${lower ? "95% Wilson CI" : "pass rate"}`
    }
  }
  const stats = Object.hasOwn(scoring.scorers, gate.name) ? scoring.scorers[gate.name] : undefined
  if (stats === undefined) return { value: null, what: "", missing: `no scorer named ${gate.name} in this run` }
  const values = plural(stats.values, "scored value")
  if (!lower) return { value: stats.mean, what: "mean", missing: `${values}, so no mean` }
  return {
    value: stats.ci95?.[0] ?? null,
    what: "95% CI lower bound",
    missing: stats.values < 2 ? `${values}, so no 95% CI (it needs 2)` : "no 95% CI"
  }
}

/**
 * Judges each gate on the summary's scoring part (`Summary.scoring`,
 * undefined when the run had no scorers): a gate passes when its value is X
 * or more, and fails below X or when there is no value.
 *
 * **Example** (A pass rate of 0.82 against 0.7)
 *
 * ```ts
 * import { Gates, type Summary } from "agent-trials"
 *
 * declare const scoring: Summary.ScoringSummary // pass_rate 0.82
 * Gates.evaluate([{ name: "passed", threshold: 0.7, on: "mean" }], scoring)
 * // [{ gate: "passed=0.7", name: "passed", on: "mean", threshold: 0.7, value: 0.82,
 * //    verdict: "pass", reason: "pass rate 0.82 >= 0.7" }]
 * ```
 *
 * @category evaluation
 * @since 0.1.0
 */
export const evaluate = (gates: ReadonlyArray<Gate>, scoring: ScoringSummary | undefined): Array<GateResult> =>
  gates.map((gate) => {
    const { missing, value, what } = measure(gate, scoring)
    const base = { gate: text(gate), name: gate.name, on: gate.on, threshold: gate.threshold }
    if (value === null) return { ...base, value, verdict: "fail", reason: `cannot be judged: ${missing}` }
    const pass = value >= gate.threshold
    return {
      ...base,
      value,
      verdict: pass ? "pass" : "fail",
      reason: `${what} ${value} ${pass ? ">=" : "<"} ${gate.threshold}`
    }
  })

/**
 * The summary's lines, one per gate: `  gate NAME=X[@lower]: pass (reason)`
 * or `FAIL (reason)`.
 *
 * **Example** (A failed gate)
 *
 * ```ts
 * import { Gates } from "agent-trials"
 *
 * declare const results: ReadonlyArray<Gates.GateResult>
 * Gates.format(results)
 * // ["  gate accuracy=0.8@lower: FAIL (95% CI lower bound 0.7412 < 0.8)"]
 * ```
 *
 * @category formatting
 * @since 0.1.0
 */
export const format = (results: ReadonlyArray<GateResult>): Array<string> =>
  results.map((r) => `  gate ${r.gate}: ${r.verdict === "pass" ? "pass" : "FAIL"} (${r.reason})`)

/**
 * Some gate failed: the command exits 1. The message names each failed gate
 * with its reason.
 *
 * @category errors
 * @since 0.1.0
 */
export class GatesFailed extends Schema.TaggedError<GatesFailed>()("GatesFailed", {
  results: Schema.Array(GateResult)
}) {
  override get message(): string {
    const failed = this.results.filter((r) => r.verdict === "fail")
    return `${FLAG}: ${failed.length} of ${plural(this.results.length, "gate")} failed: ` +
      failed.map((r) => `${r.gate} (${r.reason})`).join("; ")
  }
}

/**
 * The failure to end the command with when a gate failed; undefined when
 * every gate passed (or there are none).
 *
 * **Example** (Failing the command)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Gates } from "agent-trials"
 *
 * declare const results: ReadonlyArray<Gates.GateResult>
 * const failed = Gates.failed(results)
 * const program = failed === undefined ? Effect.void : Effect.fail(failed)
 * ```
 *
 * @category evaluation
 * @since 0.1.0
 */
export const failed = (results: ReadonlyArray<GateResult>): GatesFailed | undefined =>
  results.some((r) => r.verdict === "fail") ? new GatesFailed({ results: [...results] }) : undefined

/**
 * A summary with its gates' results beside its figures (`gates`), as
 * `--summary FILE` writes it; the summary as it is without gates.
 *
 * @category constructors
 * @since 0.1.0
 */
export const withGates = <S extends { readonly scoring?: ScoringSummary | undefined }>(
  summary: S,
  gates: ReadonlyArray<Gate>
): S & { readonly gates?: ReadonlyArray<GateResult> } =>
  gates.length === 0 ? summary : { ...summary, gates: evaluate(gates, summary.scoring) }

/**
 * The gates' lines to append to a summary's text (each on its own line,
 * after a newline); empty without gates.
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatText = (results: ReadonlyArray<GateResult> | undefined): string =>
  results === undefined || results.length === 0 ? "" : "\n" + format(results).join("\n")

/**
 * The scorer-kind registry (issue 22, rule 4): a kind added through the
 * registry alone is parsed, built, scored, refused in its own words and
 * listed by the help, the unknown-kind message and the docs table; the
 * README's table is the registry's; a run definition's text of a spec comes
 * from its kind's hooks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { SCORE_DESCRIPTION, scoreDescription } from "../src/cli/flags.ts"
import * as Scorer from "../src/domain/Scorer.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as ScorerKinds from "../src/scoring/ScorerKinds.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as Spec from "../src/scoring/Spec.ts"

const EPOCH = "1970-01-01T00:00:00.000Z"
const task = { id: "t1", inputs: { instruction: "q" } }
const trialOf = (output: string): AgentEvalTrial => ({
  id: "t1:trial",
  task_id: "t1",
  status: "completed",
  output: { output_text: output },
  metadata: { started_at: EPOCH, finished_at: EPOCH, latency_ms: 1 }
})

interface LengthSpec extends ScorerKinds.SpecBase {
  readonly _tag: "Length"
  readonly max: number
}

// A kind of one's own, written as a user would: one value, no edit of src/.
const length: ScorerKinds.ScorerKind<LengthSpec> = {
  kind: "length",
  tag: "Length",
  usage: "length:max=N",
  help: "length:max=N",
  doc: "the output has at most N code points",
  parse: (rest, { bad, base }) => {
    const o = ScorerKinds.options(rest, { max: "value" })
    if (typeof o === "string") return bad(o)
    const max = Number(o["max"])
    if (!Number.isInteger(max) || max < 0) return bad("expected length:max=N, N an integer >= 0")
    return { _tag: "Length", ...base("length"), max }
  },
  build: (spec) =>
    Effect.succeed(Scorer.make(spec.name, (_task, output) => Effect.succeed(Scorer.verdict([...output].length <= spec.max))))
}

const kinds = [...ScorerKinds.builtIn, length]

describe("a scorer kind added through the registry alone", () => {
  it("is parsed, with a name of its own too, and refused in its own words", () => {
    assert.deepStrictEqual(Spec.parse("length:max=3", kinds) as LengthSpec, { _tag: "Length", name: "length", shown: "length:max=3", max: 3 })
    assert.deepInclude(Spec.parse("short=length:max=3", kinds) as LengthSpec, { name: "short", shown: "short=length:max=3", max: 3 })
    assert.strictEqual(Spec.parse("length:max=x", kinds), "--score length:max=x: expected length:max=N, N an integer >= 0")
    assert.strictEqual(Spec.parse("length:min=1", kinds), `--score length:min=1: unknown option "min" (expected max=VALUE)`)
    // The built-ins read as before beside it.
    assert.deepStrictEqual(Spec.parse("exact", kinds), { _tag: "Exact", name: "exact", shown: "exact", ignoreCase: false, trim: true })
  })

  it("is built and scores a trial, negated by not: too (the recursion keeps the kinds)", () =>
    Effect.gen(function*() {
      const scorers = (yield* Scorers.fromSpecs(["length:max=3", "not:length:max=3"], { cwd: process.cwd(), kinds })) as ReadonlyArray<
        Scorer.Scorer
      >
      assert.deepStrictEqual(scorers.map((s) => s.name), ["length", "not-length"])
      const [short, long] = scorers
      assert.isTrue((yield* short.score(task, trialOf("abc"))).passed)
      assert.isFalse((yield* short.score(task, trialOf("abcd"))).passed)
      assert.isFalse((yield* long.score(task, trialOf("abc"))).passed)
      const one = (yield* Scorers.fromSpec("length:max=1", { cwd: process.cwd(), kinds })) as Scorer.Scorer
      assert.isTrue((yield* one.score(task, trialOf("é"))).passed)
      const twice = yield* Effect.flip(Scorers.fromSpecs(["length:max=1", "length:max=2"], { cwd: process.cwd(), kinds }))
      assert.include(twice.message, `are both named "length"`)
    }).pipe(Effect.runPromise))

  it("is listed by the unknown-kind message, the help, the docs table and the CLI's --score help", () => {
    assert.strictEqual(
      Spec.parse("lenght", kinds),
      `--score lenght: unknown scorer "lenght" (expected exact, includes, regex, numeric, json, json-schema:FILE, levenshtein, ` +
        `judge:BASE_URL, tool-called:NAME, tool-not-called:NAME, tool-sequence:A>B, tool-args:NAME,PATH=VALUE, steps:max=N, tool-calls, check:COMMAND, module:PATH[#export], not:SPEC or length:max=N, optionally as NAME=SPEC)`
    )
    assert.isTrue(ScorerKinds.help(kinds).endsWith(" | not:SPEC | length:max=N"))
    assert.isTrue(ScorerKinds.docsTable(kinds).endsWith("\n| `length:max=N` | the output has at most N code points |"))
    assert.include(scoreDescription(kinds), "| length:max=N, optionally NAME=SPEC; none scores nothing")
  })

  it("is unknown without the entry, and a spec no kind made is refused by name", () =>
    Effect.gen(function*() {
      assert.include(Spec.parse("length:max=3") as string, `unknown scorer "length" (expected exact,`)
      const error = yield* Effect.flip(Scorers.fromSpec("length:max=3", { cwd: process.cwd() }))
      assert.instanceOf(error, Scorers.ScorerSpecError)
    }).pipe(Effect.runPromise))
})

describe("ScorerKinds.builtIn and what is derived from it", () => {
  it("lists today's kinds in order, with the help and the unknown-kind list they had", () => {
    assert.deepStrictEqual(ScorerKinds.builtIn.map((k) => k.kind), [
      "exact",
      "includes",
      "regex",
      "numeric",
      "json",
      "json-schema",
      "levenshtein",
      "judge",
      "tool-called",
      "tool-not-called",
      "tool-sequence",
      "tool-args",
      "steps",
      "tool-calls",
      "check",
      "module",
      "not"
    ])
    assert.strictEqual(
      ScorerKinds.expected(ScorerKinds.builtIn),
      "exact, includes, regex, numeric, json, json-schema:FILE, levenshtein, judge:BASE_URL, tool-called:NAME, " +
        "tool-not-called:NAME, tool-sequence:A>B, tool-args:NAME,PATH=VALUE, steps:max=N, tool-calls, check:COMMAND, module:PATH[#export] or not:SPEC"
    )
    assert.strictEqual(
      SCORE_DESCRIPTION,
      "A scorer, repeatable: exact | includes | regex[:PATTERN] | numeric[:tolerance=T] | json | json-schema:FILE | " +
        "levenshtein[:threshold=X] | judge:BASE_URL | tool-called:NAME[,min=N][,max=N] | tool-not-called:NAME | " +
        "tool-sequence:A>B>C[,exact] | tool-args:NAME,PATH=VALUE[,PATH=VALUE...] | steps:max=N[,min=N] | " +
        "tool-calls[:expected=PATH][,threshold=X] | check:COMMAND | module:PATH[#export] | not:SPEC, optionally NAME=SPEC; none scores nothing"
    )
    assert.strictEqual(ScorerKinds.expected([length]), "length:max=N")
  })

  it("README.md's table of specs is docsTable(builtIn), row for row", () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")
    const table = ScorerKinds.docsTable(ScorerKinds.builtIn)
    assert.strictEqual(table.split("\n").length, 2 + ScorerKinds.builtIn.length)
    assert.include(readme, `\n${table}\n\n`, "regenerate README's table with ScorerKinds.docsTable(ScorerKinds.builtIn)")
  })

  it("a run definition's text of a spec: module paths resolved, judge specs asking the judge model", () => {
    const recorded = (spec: string) => ScorerKinds.recorded(Spec.parse(spec) as Spec.ScorerSpec, (file) => `/run/${file}`)
    assert.strictEqual(recorded("module:scorers/grade.ts"), "grade=module:/run/scorers/grade.ts")
    assert.strictEqual(recorded("g=module:grade.ts#strict"), "g=module:/run/grade.ts#strict")
    assert.strictEqual(recorded("loose=exact:ignore-case"), "loose=exact:ignore-case")
    const judgeSpec = Spec.parse("judge:https://me:pw-SECRET@host/v1") as Spec.ScorerSpec
    assert.strictEqual(recorded("judge:https://me:pw-SECRET@host/v1"), judgeSpec.shown)
    assert.notInclude(judgeSpec.shown, "SECRET")
    // As before the registry: a negated spec is recorded as shown, and asks no judge model of its own.
    assert.strictEqual(recorded("not:module:grade.ts"), "not:module:grade.ts")
    const judge = (spec: string) => ScorerKinds.usesJudgeModel(Spec.parse(spec) as Spec.ScorerSpec)
    assert.isTrue(judge("judge:https://api.example/v1"))
    assert.isTrue(judge("j=judge:https://api.example/v1"))
    assert.isFalse(judge("exact"))
    assert.isFalse(judge("not:judge:https://api.example/v1"))
  })
})

/**
 * The scorers with known answers: the `--score` spec syntax and its
 * refusals, each built-in scorer (Unicode, empty and huge outputs
 * included), `module:` scorers that throw, reject, return garbage or hang,
 * and the `scores` field of the trial record.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Duration, Effect, Exit, Fiber, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as JsonSchema from "../src/scoring/JsonSchema.ts"
import * as Levenshtein from "../src/scoring/Levenshtein.ts"
import * as Match from "../src/scoring/Match.ts"
import * as ModuleScorer from "../src/scoring/ModuleScorer.ts"
import * as Scorer from "../src/domain/Scorer.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as Spec from "../src/scoring/Spec.ts"
import * as Structured from "../src/scoring/Structured.ts"
import { AgentEvalTrial, type AgentEvalTask, type Score } from "../src/domain/Trial.ts"
import * as fixture from "./fixtures/scorer-module.ts"

const EPOCH = "1970-01-01T00:00:00.000Z"

const taskOf = (reference?: unknown, id = "t1"): AgentEvalTask =>
  reference === undefined ? { id, inputs: { instruction: "q" } } : { id, inputs: { instruction: "q" }, reference }

const trialOf = (output: string, taskId = "t1"): AgentEvalTrial => ({
  id: `${taskId}:trial`,
  task_id: taskId,
  status: "completed",
  output: { output_text: output },
  metadata: { started_at: EPOCH, finished_at: EPOCH, latency_ms: 1 }
})

// Under it.effect the TestClock reads 0: an error's occurred_at is EPOCH.
const score = (scorer: Scorer.Scorer, reference: unknown, output: string) => scorer.score(taskOf(reference), trialOf(output))

const errorOf = (s: Score) => {
  assert.strictEqual(s.value, 0)
  assert.isFalse(s.passed)
  assert.isDefined(s.error, `expected an error, got ${JSON.stringify(s)}`)
  assert.strictEqual(s.error!.occurred_at, EPOCH)
  return s.error!
}

const parsed = (text: string) => {
  const spec = Spec.parse(text)
  assert.notStrictEqual(typeof spec, "string", `refused: ${String(spec)}`)
  return spec as Spec.ScorerSpec
}

describe("--score SPEC", () => {
  it("parses each kind with its defaults and options", () => {
    assert.deepStrictEqual(parsed("exact"), { _tag: "Exact", name: "exact", shown: "exact", ignoreCase: false, trim: true })
    assert.deepInclude(parsed("exact:ignore-case,trim=false"), { ignoreCase: true, trim: false })
    assert.deepInclude(parsed("exact:ignore-case=false,trim"), { ignoreCase: false, trim: true })
    assert.deepInclude(parsed("includes"), { _tag: "Includes", mode: "any", ignoreCase: false })
    assert.deepInclude(parsed("includes:all,ignore-case"), { mode: "all", ignoreCase: true })
    assert.deepInclude(parsed("regex"), { _tag: "Regex", name: "regex", pattern: undefined })
    assert.deepInclude(parsed("numeric"), { _tag: "Numeric", tolerance: { _tag: "Absolute", amount: 0 } })
    assert.deepInclude(parsed("numeric:tolerance=0.01"), { tolerance: { _tag: "Absolute", amount: 0.01 } })
    // 0.7% is read as 0.7e-2, the double nearest 0.007 (0.7 / 100 is 0.006999999999999999).
    assert.deepInclude(parsed("numeric:tolerance=0.7%"), { tolerance: { _tag: "Relative", fraction: 0.007 } })
    assert.deepInclude(parsed("json"), { _tag: "Json", name: "json" })
    assert.deepInclude(parsed("levenshtein"), { _tag: "Levenshtein", threshold: 0.8, ignoreCase: false, trim: true })
    assert.deepInclude(parsed("levenshtein:threshold=0.95,ignore-case"), { threshold: 0.95, ignoreCase: true })
    assert.deepInclude(parsed("judge:https://api.openai.com/v1"), { _tag: "Judge", name: "judge", baseUrl: "https://api.openai.com/v1" })
  })

  it("regex:PATTERN takes all the rest, commas and = included; /PATTERN/FLAGS takes flags", () => {
    const plain = parsed("regex:^a,b=c$") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>
    assert.strictEqual(plain.pattern!.source, "^a,b=c$")
    assert.strictEqual(plain.pattern!.flags, "")
    const literal = parsed("regex:/^yes$/i") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>
    assert.strictEqual(literal.pattern!.source, "^yes$")
    assert.strictEqual(literal.pattern!.flags, "i")
  })

  it("names: the kind, the export or file stem for module:, or NAME= given", () => {
    assert.strictEqual(parsed("loose=exact:ignore-case").name, "loose")
    assert.strictEqual(parsed("loose=exact:ignore-case").shown, "loose=exact:ignore-case")
    assert.strictEqual(parsed("module:scorers/grade.ts#strict").name, "strict")
    assert.deepInclude(parsed("module:scorers/grade.ts"), { _tag: "Module", name: "grade", file: "scorers/grade.ts", exportName: undefined })
    assert.strictEqual(parsed("g2=module:grade.ts#strict").name, "g2")
    // The `=` of an option is no name: the text before it has a colon.
    assert.strictEqual(parsed("levenshtein:threshold=0.5").name, "levenshtein")
  })

  it("refuses a bad spec with a message naming --score SPEC and what is expected", () => {
    const refusals: Record<string, string> = {
      "exakt": `--score exakt: unknown scorer "exakt" (expected exact, includes, regex, numeric, json, json-schema:FILE, levenshtein, judge:BASE_URL, tool-called:NAME, tool-not-called:NAME, tool-sequence:A>B, tool-args:NAME,PATH=VALUE, steps:max=N, tool-calls, check:COMMAND, module:PATH[#export] or not:SPEC, optionally as NAME=SPEC)`,
      "exact:ignorecase": `--score exact:ignorecase: unknown option "ignorecase" (expected ignore-case, trim, start, end, strip-punctuation)`,
      "exact:trim=no": `--score exact:trim=no: expected trim, trim=true or trim=false, got "trim=no"`,
      "exact:trim,trim=false": `--score exact:trim,trim=false: option trim is given twice`,
      "includes:all,any": `--score includes:all,any: all and any are exclusive`,
      "numeric:tolerance": `--score numeric:tolerance: option tolerance needs a value: tolerance=VALUE`,
      "numeric:tolerance=-1": `--score numeric:tolerance=-1: expected tolerance to be a number from 0 up (absolute, like 0.01) or a percentage of the reference (like 1%), got "-1"`,
      "numeric:tolerance=1%%": `--score numeric:tolerance=1%%: expected tolerance to be a number from 0 up (absolute, like 0.01) or a percentage of the reference (like 1%), got "1%%"`,
      "levenshtein:threshold=1.5": `--score levenshtein:threshold=1.5: expected threshold to be a number from 0 to 1, got "1.5"`,
      "json:strict": `--score json:strict: unknown option "strict" (expected find)`,
      "regex:": `--score regex:: the pattern after regex: is empty (write regex alone to use the task's reference)`,
      "regex:/a/g": `--score regex:/a/g: flag g is not accepted (accepted: i, m, s, u, v, d)`,
      "judge:ftp://host": `--score judge:ftp://host: expected judge:BASE_URL with an http(s) URL, e.g. judge:https://api.openai.com/v1`,
      "module:": `--score module:: expected module:PATH[#export]`,
      "module:grade.ts#": `--score module:grade.ts#: the export name after # is empty`,
      "": `--score "": unknown scorer "" (expected exact, includes, regex, numeric, json, json-schema:FILE, levenshtein, judge:BASE_URL, tool-called:NAME, tool-not-called:NAME, tool-sequence:A>B, tool-args:NAME,PATH=VALUE, steps:max=N, tool-calls, check:COMMAND, module:PATH[#export] or not:SPEC, optionally as NAME=SPEC)`
    }
    for (const [spec, message] of Object.entries(refusals)) assert.strictEqual(Spec.parse(spec), message, spec)
    assert.match(Spec.parse("regex:(") as string, /^--score regex:\(: not a regular expression: Invalid regular expression/)
  })

  it("never echoes a judge URL's credentials", () => {
    const spec = parsed("judge:https://me:pw-SECRET@host/v1?api_key=sk-SECRET")
    assert.strictEqual(spec.shown, "judge:https://<redacted>@host/v1?api_key=<redacted>")
    const bad = Spec.parse("judge:https://me:pw-SECRET@host:notaport/v1") as string
    assert.notInclude(bad, "SECRET")
    const unknown = Spec.parse("https://me:pw-SECRET@host/v1") as string
    assert.notInclude(unknown, "SECRET")
    assert.match(unknown, /^--score https:\.\.\.: unknown scorer "https"/)
  })
})

describe("Scorers.fromSpecs", () => {
  it.effect("two scorers with one name are refused, naming both; NAME= resolves it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Scorers.fromSpecs(["exact", "exact:ignore-case"], { cwd: process.cwd() }))
      assert.strictEqual(
        error.message,
        `--score exact and --score exact:ignore-case are both named "exact": give one a name of its own with --score NAME=SPEC`
      )
      // Built-in scorers need no HttpClient; only a judge does.
      const scorers = (yield* Scorers.fromSpecs(["exact", "loose=exact:ignore-case"], { cwd: process.cwd() })) as ReadonlyArray<Scorer.Scorer>
      assert.deepStrictEqual(scorers.map((s) => s.name), ["exact", "loose"])
      const scores = yield* Effect.forEach(scorers, (s) => s.score(taskOf("Yes"), trialOf("yes")))
      assert.deepStrictEqual(scores.map((s) => s.passed), [false, true])
    }))

  it.effect("a judge without a model, and module files or exports that are missing, are refused", () =>
    Effect.gen(function*() {
      const options = { cwd: process.cwd() }
      const noModel = yield* Effect.flip(Scorers.fromSpec("judge:http://127.0.0.1:9/v1", options))
      assert.strictEqual(noModel.message, "--score judge:http://127.0.0.1:9/v1 needs a judge model (--judge-model NAME)")
      const noFile = yield* Effect.flip(Scorers.fromSpec("module:test/fixtures/no-such-scorer.ts", options))
      assert.match(noFile.message, /^--score module:test\/fixtures\/no-such-scorer\.ts: cannot load scorer module test\/fixtures\/no-such-scorer\.ts: /)
      const noExport = yield* Effect.flip(Scorers.fromSpec("module:test/fixtures/scorer-module.ts#nope", options))
      assert.match(noExport.message, /^--score module:test\/fixtures\/scorer-module\.ts#nope: scorer module test\/fixtures\/scorer-module\.ts has no export "nope" \(it exports: .*graded.*\)$/)
      const notCallable = yield* Effect.flip(Scorers.fromSpec("module:test/fixtures/scorer-module.ts#notCallable", options))
      assert.strictEqual(
        notCallable.message,
        `--score module:test/fixtures/scorer-module.ts#notCallable: export "notCallable" of scorer module test/fixtures/scorer-module.ts is a number, not a function`
      )
    }))
})

describe("exact", () => {
  it.effect("equals the reference, trimmed by default; a number or a list of references", () =>
    Effect.gen(function*() {
      const exact = Match.exact()
      assert.deepStrictEqual(yield* score(exact, "4", "4"), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(exact, "4", " 4\n"), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(Match.exact({ trim: false }), "4", " 4\n"), {
        value: 0,
        passed: false,
        explanation: `expected "4", got " 4\\n"`
      })
      assert.isTrue((yield* score(exact, 4, "4")).passed)
      assert.isTrue((yield* score(exact, ["four", "4"], "4")).passed)
      assert.deepStrictEqual(yield* score(exact, ["four", "4"], "5"), {
        value: 0,
        passed: false,
        explanation: `expected one of "four", "4", got "5"`
      })
    }))

  it.effect("empty output and empty reference", () =>
    Effect.gen(function*() {
      assert.isTrue((yield* score(Match.exact(), "", "")).passed)
      assert.isTrue((yield* score(Match.exact(), "", "  \n")).passed)
      assert.deepStrictEqual(yield* score(Match.exact(), "4", ""), { value: 0, passed: false, explanation: `expected "4", got ""` })
    }))

  it.effect("Unicode: canonically equivalent texts are equal; ignore-case folds fully", () =>
    Effect.gen(function*() {
      // "café" with a precomposed é, and with e + U+0301 COMBINING ACUTE ACCENT.
      assert.isTrue((yield* score(Match.exact(), "caf\u00e9", "cafe\u0301")).passed)
      assert.isTrue((yield* score(Match.exact(), "👍🏽", "👍🏽")).passed)
      assert.isFalse((yield* score(Match.exact(), "👍🏽", "👍")).passed)
      const loose = Match.exact({ ignoreCase: true })
      assert.isFalse((yield* score(Match.exact(), "straße", "STRASSE")).passed)
      // toLowerCase alone gives "strasse" vs "straße": full folding maps ß to ss.
      assert.isTrue((yield* score(loose, "straße", "STRASSE")).passed)
      assert.isTrue((yield* score(loose, "οδος", "ΟΔΟΣ")).passed)
      assert.isTrue((yield* score(loose, "ÉCOLE", "e\u0301cole")).passed)
      assert.isFalse((yield* score(loose, "école", "ecole")).passed)
    }))

  it.effect("a missing or unusable reference is a score with an error, not a crash", () =>
    Effect.gen(function*() {
      const missing = errorOf(yield* score(Match.exact(), undefined, "4"))
      assert.deepStrictEqual(missing, {
        type: "MissingReference",
        message: "task t1 has no reference, which the exact scorer needs",
        occurred_at: EPOCH
      })
      const object = errorOf(yield* score(Match.exact(), { answer: 4 }, "4"))
      assert.strictEqual(object.type, "InvalidReference")
      assert.strictEqual(
        object.message,
        `task t1 has the reference {"answer":4}; the exact scorer takes a string, number or boolean, or a non-empty list of them`
      )
      assert.strictEqual(errorOf(yield* score(Match.exact(), [], "4")).type, "InvalidReference")
      assert.strictEqual(errorOf(yield* score(Match.exact(), ["4", null], "4")).type, "InvalidReference")
    }))

  it.effect("a trial without an output is a NoOutput error", () =>
    Effect.gen(function*() {
      const failed: AgentEvalTrial = {
        id: "t1:trial",
        task_id: "t1",
        status: "failed",
        error: { type: "Timeout", message: "slow", occurred_at: EPOCH },
        metadata: { started_at: EPOCH, finished_at: EPOCH, latency_ms: 1 }
      }
      const error = errorOf(yield* Match.exact().score(taskOf("4"), failed))
      assert.deepStrictEqual(error, {
        type: "NoOutput",
        message: "trial t1:trial has no output (status failed): only completed trials are scored",
        occurred_at: EPOCH
      })
    }))
})

describe("includes", () => {
  it.effect("any (the default) and all of a list; the value of all is the fraction found", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* score(Match.includes(), "42", "The answer is 42."), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(Match.includes(), ["41", "42"], "The answer is 42."), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(Match.includes(), ["41", "43"], "The answer is 42."), {
        value: 0,
        passed: false,
        explanation: `"The answer is 42." does not include one of "41", "43"`
      })
      const all = Match.includes({ mode: "all" })
      assert.deepStrictEqual(yield* score(all, ["answer", "42", "x"], "The answer is 42."), {
        value: 2 / 3,
        passed: false,
        explanation: `"The answer is 42." does not include "x"`
      })
      assert.deepStrictEqual(yield* score(all, ["answer", "42"], "The answer is 42."), { value: 1, passed: true })
    }))

  it.effect("Unicode and case; an empty reference is refused; an empty output includes nothing", () =>
    Effect.gen(function*() {
      assert.isTrue((yield* score(Match.includes({ ignoreCase: true }), "ÉCOLE", "à l'e\u0301cole")).passed)
      assert.isFalse((yield* score(Match.includes(), "ÉCOLE", "à l'école")).passed)
      assert.isTrue((yield* score(Match.includes(), "🏽", "👍🏽")).passed)
      assert.strictEqual(errorOf(yield* score(Match.includes(), "  ", "anything")).type, "InvalidReference")
      assert.isFalse((yield* score(Match.includes(), "a", "")).passed)
    }))
})

describe("start, end and strip-punctuation (exact, includes)", () => {
  it("parse: start / end exclusive, strip-punctuation a flag; unset options are absent", () => {
    assert.deepStrictEqual(parsed("exact:end,strip-punctuation"), {
      _tag: "Exact",
      name: "exact",
      shown: "exact:end,strip-punctuation",
      ignoreCase: false,
      trim: true,
      at: "end",
      stripPunctuation: true
    })
    assert.deepInclude(parsed("includes:start,ignore-case"), { at: "start", ignoreCase: true, mode: "any" })
    assert.strictEqual(Spec.parse("exact:start,end"), "--score exact:start,end: start and end are exclusive")
    assert.strictEqual(Spec.parse("includes:start,end"), "--score includes:start,end: start and end are exclusive")
    assert.strictEqual(
      Spec.parse("includes:strip-punctuation=yes"),
      `--score includes:strip-punctuation=yes: expected strip-punctuation, strip-punctuation=true or strip-punctuation=false, got "strip-punctuation=yes"`
    )
    assert.strictEqual(
      Spec.parse("includes:begin"),
      `--score includes:begin: unknown option "begin" (expected all, any, ignore-case, start, end, strip-punctuation)`
    )
  })

  it.effect("start: the reference opens the output; end: it closes it (no word boundary), trimmed", () =>
    Effect.gen(function*() {
      const start = Match.exact({ at: "start" })
      assert.isTrue((yield* score(start, "Paris", "  Paris is the capital")).passed)
      assert.isTrue((yield* score(start, "42", "420 apples")).passed)
      assert.deepStrictEqual(yield* score(start, "Paris", "The capital is Paris"), {
        value: 0,
        passed: false,
        explanation: `expected the output to open with "Paris", got "The capital is Paris"`
      })
      const end = Match.includes({ at: "end" })
      assert.isTrue((yield* score(end, "Paris", "The capital is Paris\n")).passed)
      assert.deepStrictEqual(yield* score(end, ["Rome", "Paris"], "Paris, of course"), {
        value: 0,
        passed: false,
        explanation: `"Paris, of course" does not close with one of "Rome", "Paris"`
      })
      // Unicode: NFC first, folding on both sides, an emoji is whole.
      assert.isTrue((yield* score(Match.includes({ at: "end", ignoreCase: true }), "ÉCOLE", "à l'e\u0301cole")).passed)
      assert.isTrue((yield* score(Match.exact({ at: "end", ignoreCase: true }), "ΟΔΟΣ", "στην οδοσ")).passed)
      assert.isFalse((yield* score(Match.exact({ at: "end" }), "👍", "👍🏽")).passed)
    }))

  it.effect("strip-punctuation removes Unicode punctuation on both sides and collapses spaces; symbols stay", () =>
    Effect.gen(function*() {
      const loose = Match.exact({ stripPunctuation: true })
      assert.isTrue((yield* score(loose, "Paris", "Paris.")).passed)
      assert.isTrue((yield* score(loose, "U.S.A.", "USA")).passed)
      assert.isTrue((yield* score(loose, "«Oui»", "¡Oui!")).passed)
      assert.isTrue((yield* score(loose, "a b", "a — b")).passed)
      assert.isFalse((yield* score(loose, "$5", "5")).passed)
      // The decimal point is punctuation too.
      assert.isTrue((yield* score(loose, "3.14", "314")).passed)
      assert.isFalse((yield* score(Match.exact(), "Paris", "Paris.")).passed)
      const end = Match.includes({ at: "end", stripPunctuation: true, ignoreCase: true })
      assert.isTrue((yield* score(end, "42", "The answer is 42.")).passed)
      assert.isFalse((yield* score(Match.includes({ at: "end" }), "42", "The answer is 42.")).passed)
      // A reference that is all punctuation is empty once stripped.
      assert.strictEqual(errorOf(yield* score(Match.includes({ stripPunctuation: true }), "...", "x")).type, "InvalidReference")
    }))

  it.effect("from a spec, the same scorers", () =>
    Effect.gen(function*() {
      const [end, start] = (yield* Scorers.fromSpecs(
        ["includes:end,strip-punctuation,ignore-case", "exact:start"],
        { cwd: process.cwd() }
      )) as ReadonlyArray<Scorer.Scorer>
      assert.isTrue((yield* score(end, "paris", "It is PARIS!")).passed)
      assert.isFalse((yield* score(start, "paris", "It is paris")).passed)
    }))
})

describe("not:SPEC", () => {
  it("parses any spec under not:, named not-NAME; NAME=not:SPEC names it; refusals name the whole spec", () => {
    assert.deepStrictEqual(parsed("not:exact"), {
      _tag: "Not",
      name: "not-exact",
      shown: "not:exact",
      inner: parsed("exact")
    })
    assert.deepInclude(parsed("not:includes:ignore-case"), { name: "not-includes", shown: "not:includes:ignore-case" })
    assert.deepInclude(parsed("no-leak=not:includes:ignore-case"), { name: "no-leak", shown: "no-leak=not:includes:ignore-case" })
    assert.deepInclude(parsed("not:module:test/fixtures/scorer-module.ts#length"), { name: "not-length" })
    assert.deepInclude(parsed("not:not:exact"), { name: "not-not-exact" })
    const judge = parsed("not:judge:https://me:pw-SECRET@host/v1")
    assert.strictEqual(judge.shown, "not:judge:https://<redacted>@host/v1")
    const refusals: Record<string, string> = {
      "not": `--score not: expected not:SPEC, e.g. not:exact or not:includes:ignore-case`,
      "not:": `--score not:: expected not:SPEC, e.g. not:exact or not:includes:ignore-case`,
      "not:exact:ignorecase": `--score not:exact:ignorecase: unknown option "ignorecase" (expected ignore-case, trim, start, end, strip-punctuation)`,
      "x=not:exakt": `--score x=not:exakt: unknown scorer "exakt" (expected exact, includes, regex, numeric, json, json-schema:FILE, levenshtein, judge:BASE_URL, tool-called:NAME, tool-not-called:NAME, tool-sequence:A>B, tool-args:NAME,PATH=VALUE, steps:max=N, tool-calls, check:COMMAND, module:PATH[#export] or not:SPEC, optionally as NAME=SPEC)`,
      "not:loose=exact": `--score not:loose=...: the name goes before not:, as NAME=not:SPEC`
    }
    for (const [spec, message] of Object.entries(refusals)) assert.strictEqual(Spec.parse(spec), message, spec)
    assert.notInclude(Spec.parse("not:x=judge:https://me:pw-SECRET@host/v1") as string, "SECRET")
    assert.notInclude(Spec.parse("not:https://me:pw-SECRET@host/v1") as string, "SECRET")
  })

  it.effect("value 1 - v, passed flipped; the inner scorer's finding explains it", () =>
    Effect.gen(function*() {
      const notExact = Scorer.negate(Match.exact())
      assert.strictEqual(notExact.name, "not-exact")
      assert.deepStrictEqual(yield* score(notExact, "4", "4"), { value: 0, passed: false, explanation: "exact passed" })
      assert.deepStrictEqual(yield* score(notExact, "4", "5"), {
        value: 1,
        passed: true,
        explanation: `exact did not pass: expected "4", got "5"`
      })
      // A fraction: includes:all finds 2 of 3, so 1/3 is missing.
      const notAll = Scorer.negate(Match.includes({ mode: "all" }), "missing")
      assert.strictEqual(notAll.name, "missing")
      const partial = yield* score(notAll, ["answer", "42", "x"], "The answer is 42.")
      assert.closeTo(partial.value, 1 / 3, 1e-15)
      assert.isTrue(partial.passed)
      // A judge-like scorer that passes with an explanation keeps it.
      const graded = Scorer.make("graded", () => Effect.succeed({ value: 0.75, passed: true, explanation: "mostly right" }))
      assert.deepStrictEqual(yield* score(Scorer.negate(graded), undefined, "x"), {
        value: 0.25,
        passed: false,
        explanation: "graded passed: mostly right"
      })
    }))

  it.effect("an error stays an error; a value outside [0, 1] is an InvalidScore error", () =>
    Effect.gen(function*() {
      const notExact = Scorer.negate(Match.exact())
      const missing = yield* score(notExact, undefined, "4")
      assert.deepStrictEqual(missing, yield* score(Match.exact(), undefined, "4"))
      assert.strictEqual(errorOf(missing).type, "MissingReference")
      const big = Scorer.make("big", () => Effect.succeed({ value: 5, passed: true }))
      assert.deepStrictEqual(errorOf(yield* score(Scorer.negate(big), undefined, "x")), {
        type: "InvalidScore",
        message: "the big scorer gave the value 5; only a value from 0 to 1 can be negated",
        occurred_at: EPOCH
      })
    }))

  it.effect("from a spec, the same scorer: not:exact, NAME=not:SPEC and not: of a module", () =>
    Effect.gen(function*() {
      const options = { cwd: process.cwd() }
      const scorers = (yield* Scorers.fromSpecs(
        ["exact", "not:exact", "wrong=not:exact:ignore-case", "not:module:test/fixtures/scorer-module.ts#length"],
        options
      )) as ReadonlyArray<Scorer.Scorer>
      assert.deepStrictEqual(scorers.map((s) => s.name), ["exact", "not-exact", "wrong", "not-length"])
      const scores = yield* Effect.forEach(scorers, (s) => s.score(taskOf("Yes"), trialOf("yes")))
      assert.deepStrictEqual(scores.map((s) => [s.value, s.passed]), [[0, false], [1, true], [0, false], [0.7, true]])
      // Two negations of one kind collide like any two scorers of one name.
      const twice = yield* Effect.flip(Scorers.fromSpecs(["not:exact", "not:exact:ignore-case"], options))
      assert.include(twice.message, `are both named "not-exact"`)
      const noFile = yield* Effect.flip(Scorers.fromSpec("not:module:test/fixtures/no-such-scorer.ts", options))
      assert.match(noFile.message, /^--score not:module:test\/fixtures\/no-such-scorer\.ts: cannot load scorer module /)
    }))
})

describe("ignore-case folding", () => {
  it.effect("a Greek needle ending in capital sigma is found inside a longer word (the final-sigma rule does not split σ and ς)", () =>
    Effect.gen(function*() {
      const loose = Match.includes({ ignoreCase: true })
      // "ΟΔΟΣ" (road) inside "οδοσήμανση" (road signs): toLowerCase folds the
      // needle's last Σ to the final form ς, the word's σ stays σ.
      assert.isTrue((yield* score(loose, "ΟΔΟΣ", "Η οδοσήμανση λείπει")).passed)
      assert.isTrue((yield* score(loose, "οδος", "ΟΔΟΣΗΜΑΝΣΗ")).passed)
      assert.isTrue((yield* score(loose, "ΟΔΟΣ ΚΑΙ", "οδοσ και")).passed)
      assert.isFalse((yield* score(Match.includes(), "ΟΔΟΣ", "Η οδοσήμανση λείπει")).passed)
      assert.isTrue((yield* score(Match.exact({ ignoreCase: true }), "ΟΔΟΣ", "οδοσ")).passed)
      assert.strictEqual((yield* score(Match.levenshtein({ ignoreCase: true }), "ΣΑΣ", "σας")).value, 1)
    }))

  it("fold gives Python's str.casefold (Unicode 14 full case folding) on the hard letters", () => {
    // Known answers from CPython 3 `s.casefold()` (unicodedata 14.0.0), run
    // outside this code; the whole range of assigned code points was compared
    // the same way once (the classes of equal foldings are the same).
    const known: Array<[string, string]> = [
      ["ß", "ss"],
      ["ẞ", "ss"],
      ["Straẞe", "strasse"],
      ["ſ", "s"],
      ["\u212a", "k"], // KELVIN SIGN
      ["µ", "\u03bc"], // MICRO SIGN to Greek mu
      ["ς", "σ"],
      ["ΟΔΟΣ", "οδοσ"],
      ["ǅ", "ǆ"],
      ["ﬁ", "fi"],
      ["İ", "i\u0307"],
      ["ı", "ı"],
      ["IıI", "iıi"],
      ["ᾳ", "αι"]
    ]
    for (const [text, folded] of known) assert.strictEqual(Match.fold(text), folded, text)
    // Dotless ı has no case folding: it is not I, nor i.
    assert.notStrictEqual(Match.fold("ı"), Match.fold("I"))
    // Cherokee folds to its capitals in CaseFolding.txt; here to the small
    // letters: another representative, the same classes.
    assert.strictEqual(Match.fold("Ꭰ"), Match.fold("ꭰ"))
  })
})

describe("regex", () => {
  it.effect("the reference is the pattern; a spec pattern has flags; an invalid reference is an error", () =>
    Effect.gen(function*() {
      assert.isTrue((yield* score(Match.regex(), "^\\d+$", "123")).passed)
      assert.deepStrictEqual(yield* score(Match.regex(), "^\\d+$", "12a"), {
        value: 0,
        passed: false,
        explanation: `/^\\d+$/ does not match "12a"`
      })
      const yes = Match.regex({ pattern: /^yes$/i })
      assert.isTrue((yield* score(yes, undefined, "YES")).passed)
      const invalid = errorOf(yield* score(Match.regex(), "(", "x"))
      assert.strictEqual(invalid.type, "InvalidReference")
      assert.match(invalid.message, /^task t1's reference is not a regular expression: Invalid regular expression/)
      assert.strictEqual(errorOf(yield* score(Match.regex(), 42, "42")).type, "InvalidReference")
    }))

  it("regex:PATTERN,capture=N: only an exact trailing ,capture=N is the option; N within the pattern's groups", () => {
    const capture = parsed("regex:answer: (\\d+),capture=1") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>
    assert.strictEqual(capture.pattern!.source, "answer: (\\d+)")
    assert.strictEqual(capture.capture, 1)
    const literal = parsed("regex:/ANSWER: (\\w+)/i,capture=1") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>
    assert.deepStrictEqual([literal.pattern!.source, literal.pattern!.flags, literal.capture], ["ANSWER: (\\w+)", "i", 1])
    // Commas stay in the pattern; a pattern that ends in ",capture=1" is written /.../.
    assert.strictEqual((parsed("regex:a{1,3},capture=0") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>).pattern!.source, "a{1,3}")
    const kept = parsed("regex:/x,capture=1/") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>
    assert.deepStrictEqual([kept.pattern!.source, kept.capture], ["x,capture=1", undefined])
    assert.isUndefined((parsed("regex:x,capture=1a") as Extract<Spec.ScorerSpec, { _tag: "Regex" }>).capture)
    assert.strictEqual(Spec.parse("regex:(a)(b),capture=3"), "--score regex:(a)(b),capture=3: capture=3, but the pattern has 2 groups")
    assert.strictEqual(
      Spec.parse("regex:,capture=1"),
      "--score regex:,capture=1: the pattern after regex: is empty (capture=N needs a pattern; write regex alone to use the task's reference)"
    )
  })

  it.effect("capture=N compares group N of the first match with the reference", () =>
    Effect.gen(function*() {
      const answer = Match.regex({ pattern: /ANSWER:\s*(\S+)/i, capture: 1 })
      assert.isTrue((yield* score(answer, "Paris", "Reasoning... answer: paris")).passed)
      assert.isTrue((yield* score(answer, ["Rome", "Paris"], "ANSWER: Paris")).passed)
      assert.deepStrictEqual(yield* score(answer, "Paris", "answer: Rome"), {
        value: 0,
        passed: false,
        explanation: `group 1 is "Rome", expected "Paris"`
      })
      assert.deepStrictEqual(yield* score(answer, "Paris", "no idea"), {
        value: 0,
        passed: false,
        explanation: `/ANSWER:\\s*(\\S+)/i does not match "no idea"`
      })
      // Without i the comparison is exact; Unicode: NFC, and ß folds with i.
      assert.isFalse((yield* score(Match.regex({ pattern: /= (\S+)/, capture: 1 }), "paris", "= Paris")).passed)
      assert.isTrue((yield* score(Match.regex({ pattern: /= (\S+)/u, capture: 1 }), "caf\u00e9", "= cafe\u0301")).passed)
      assert.isTrue((yield* score(Match.regex({ pattern: /= (\S+)/iu, capture: 1 }), "STRASSE", "= Straße")).passed)
      const optional = Match.regex({ pattern: /(a)|(b)/, capture: 2 })
      assert.deepStrictEqual(yield* score(optional, "b", "a"), {
        value: 0,
        passed: false,
        explanation: `group 2 of /(a)|(b)/ took no part in the match "a"`
      })
      assert.isTrue((yield* score(Match.regex({ pattern: /\d+/, capture: 0 }), 42, "it is 42.")).passed)
      const [fromSpec] = (yield* Scorers.fromSpecs(["regex:/answer: (\\w+)/i,capture=1"], { cwd: process.cwd() })) as ReadonlyArray<Scorer.Scorer>
      assert.isTrue((yield* score(fromSpec, "yes", "Answer: YES")).passed)
      assert.strictEqual(errorOf(yield* score(fromSpec, undefined, "Answer: YES")).type, "MissingReference")
    }))

  it.effect("a g or y flag cannot make one trial's match move the next one's start", () =>
    Effect.gen(function*() {
      const global = Match.regex({ pattern: /a/gy })
      assert.isTrue((yield* score(global, undefined, "a")).passed)
      assert.isTrue((yield* score(global, undefined, "a")).passed)
    }))

  it.effect("Unicode property escapes with the u flag", () =>
    Effect.gen(function*() {
      const letters = Match.regex({ pattern: /^\p{L}+$/u })
      assert.isTrue((yield* score(letters, undefined, "naïve")).passed)
      assert.isFalse((yield* score(letters, undefined, "naïve!")).passed)
    }))
})

describe("numeric", () => {
  it("lastNumber reads signs, separators, decimals and exponents, and not a range's dash", () => {
    const cases: Array<[string, number | undefined]> = [
      ["The answer is 4.", 4],
      ["2 + 2 = 4", 4],
      ["1,234.5 apples", 1234.5],
      ["x = -3", -3],
      ["x = \u22123", -3],
      ["pages 1-2", 2],
      ["about 2.5e3 units", 2500],
      ["v1.2.3", 1.2],
      [".5 of it", 0.5],
      ["no numbers here", undefined],
      ["", undefined]
    ]
    for (const [text, expected] of cases) assert.strictEqual(Structured.lastNumber(text), expected, text)
  })

  it.effect("within the tolerance, absolute or relative, bound included", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* score(Structured.numeric(), "4", "It is 4.0."), { value: 1, passed: true })
      assert.isTrue((yield* score(Structured.numeric(), 1000, "1e3")).passed)
      assert.deepStrictEqual(yield* score(Structured.numeric(), 4, "It is 5"), {
        value: 0,
        passed: false,
        explanation: "found 5 (the last number of the output), expected 4 within 0"
      })
      const absolute = Structured.numeric({ tolerance: { _tag: "Absolute", amount: 0.01 } })
      // |1.01 - 1| is 0.010000000000000009 in doubles: the bound is kept anyway.
      assert.isTrue((yield* score(absolute, 1, "1.01")).passed)
      assert.isTrue((yield* score(absolute, 3.14, "about 3.14159")).passed)
      assert.isFalse((yield* score(absolute, 1, "1.02")).passed)
      const relative = Structured.numeric({ tolerance: { _tag: "Relative", fraction: 0.01 } })
      assert.isTrue((yield* score(relative, 200, "202")).passed)
      assert.isTrue((yield* score(relative, -200, "-198")).passed)
      assert.deepStrictEqual(yield* score(relative, 200, "202.5"), {
        value: 0,
        passed: false,
        explanation: "found 202.5 (the last number of the output), expected 200 within 1%"
      })
    }))

  it("numbersIn: every number in order, each with its percent sign; what the numerals are", () => {
    assert.deepStrictEqual(Structured.numbersIn("from 40% to 50 % (x0.5), −2.5e1 and 1,234"), [
      { value: 40, percent: true },
      { value: 50, percent: true },
      { value: 0.5, percent: false },
      { value: -25, percent: false },
      { value: 1234, percent: false }
    ])
    // Not read: other digit scripts, a decimal comma, spaces as separators.
    assert.deepStrictEqual(Structured.numbersIn("٣ ３ 3,5 1 234").map((n) => n.value), [3, 5, 1, 234])
  })

  it.effect("first, last (the default) or any number; percentages compared like with like", () =>
    Effect.gen(function*() {
      assert.deepInclude(parsed("numeric:any,tolerance=1%"), { pick: "any", tolerance: { _tag: "Relative", fraction: 0.01 } })
      assert.notProperty(parsed("numeric"), "pick")
      assert.strictEqual(Spec.parse("numeric:first,any"), "--score numeric:first,any: first, last and any are exclusive")
      assert.strictEqual(
        Spec.parse("numeric:middle"),
        `--score numeric:middle: unknown option "middle" (expected tolerance=VALUE, first, last, any)`
      )
      const output = "Step 1: 12 apples, step 2: 30 apples; answer 42"
      assert.isTrue((yield* score(Structured.numeric({ pick: "first" }), 1, output)).passed)
      assert.deepStrictEqual(yield* score(Structured.numeric({ pick: "first" }), 42, output), {
        value: 0,
        passed: false,
        explanation: "found 1 (the first number of the output), expected 42 within 0"
      })
      assert.isTrue((yield* score(Structured.numeric(), 42, output)).passed)
      assert.isTrue((yield* score(Structured.numeric({ pick: "any" }), 30, output)).passed)
      assert.deepStrictEqual(yield* score(Structured.numeric({ pick: "any" }), 7, output), {
        value: 0,
        passed: false,
        explanation: "none of the 5 numbers of the output (1, 12, 2, 30, 42) is 7 within 0"
      })
      // A plain reference reads a percentage's numeral (50% is 50, as before).
      assert.isTrue((yield* score(Structured.numeric(), 50, "It rose by 50%.")).passed)
      assert.isFalse((yield* score(Structured.numeric(), 0.5, "It rose by 50%.")).passed)
      // A percentage reference: a percentage by its numeral, a plain number as a fraction.
      assert.isTrue((yield* score(Structured.numeric(), "50%", "It rose by 50 %.")).passed)
      assert.isTrue((yield* score(Structured.numeric(), "50%", "a rate of 0.5")).passed)
      assert.deepStrictEqual(yield* score(Structured.numeric(), "50%", "It rose by 50"), {
        value: 0,
        passed: false,
        explanation: "found 50 (the last number of the output), expected 50% within 0"
      })
      // Tolerance in percentage points for an absolute one.
      assert.isTrue((yield* score(Structured.numeric({ tolerance: { _tag: "Absolute", amount: 1 } }), "50%", "about 0.507")).passed)
      const [fromSpec] = (yield* Scorers.fromSpecs(["numeric:first"], { cwd: process.cwd() })) as ReadonlyArray<Scorer.Scorer>
      assert.isTrue((yield* score(fromSpec, 1, output)).passed)
    }))

  it.effect("no number fails the score; a reference that is no number is an error", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* score(Structured.numeric(), 4, ""), {
        value: 0,
        passed: false,
        explanation: "no number in the output, expected 4"
      })
      const error = errorOf(yield* score(Structured.numeric(), "four", "4"))
      assert.deepStrictEqual(error, {
        type: "InvalidReference",
        message: `task t1 has the reference "four"; the numeric scorer takes a number`,
        occurred_at: EPOCH
      })
      assert.strictEqual(errorOf(yield* score(Structured.numeric(), undefined, "4")).type, "MissingReference")
    }))
})

describe("json", () => {
  it.effect("every key of a reference object must be equal; the value is the fraction that is", () =>
    Effect.gen(function*() {
      const json = Structured.json()
      const output = `{"c": "x", "b": [1, {"z": null, "y": true}], "a": 1}`
      assert.deepStrictEqual(yield* score(json, { a: 1, b: [1, { y: true, z: null }] }, output), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(json, { a: 1, b: [{ y: true, z: null }, 1], d: 0 }, output), {
        value: 1 / 3,
        passed: false,
        explanation: `2 of 3 keys differ: "b" (expected [{"y":true,"z":null},1], got [1,{"z":null,"y":true}]), "d" (missing)`
      })
      assert.isTrue((yield* score(json, { "名前": "太郎" }, `{"名前": "太郎", "年": 20}`)).passed)
      assert.deepStrictEqual(yield* score(json, {}, "{}"), { value: 1, passed: true })
    }))

  it.effect("a fenced block is read when the whole output is not JSON; other references must equal the JSON", () =>
    Effect.gen(function*() {
      const json = Structured.json()
      assert.isTrue((yield* score(json, { a: 1 }, "Here it is:\n```json\n{\"a\": 1}\n```\nDone.")).passed)
      assert.isTrue((yield* score(json, { a: 1 }, "```\nnot json\n```\n```\n{\"a\": 1}\n```")).passed)
      assert.isTrue((yield* score(json, [1, 2], " [1, 2] ")).passed)
      assert.isFalse((yield* score(json, [1, 2], "[2, 1]")).passed)
      assert.isTrue((yield* score(json, "x", "\"x\"")).passed)
      assert.deepStrictEqual(yield* score(json, { a: 1 }, "[1]"), {
        value: 0,
        passed: false,
        explanation: `expected an object with keys ["a"], got [1]`
      })
    }))

  it.effect("output that is no JSON, or empty, fails the score; no reference is an error", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* score(Structured.json(), { a: 1 }, "{a: 1}"), {
        value: 0,
        passed: false,
        explanation: `the output is not JSON (nor has a fenced JSON block): "{a: 1}"`
      })
      assert.isFalse((yield* score(Structured.json(), { a: 1 }, "")).passed)
      assert.strictEqual(errorOf(yield* score(Structured.json(), undefined, "{}")).type, "MissingReference")
    }))
})

describe("json:find", () => {
  it("findJson: the first candidate that balances and parses; brackets in strings do not count", () => {
    const cases: Array<[string, unknown]> = [
      [`Sure! Use {name} like this: {"name": "x", "tags": ["a]"]} - done`, { name: "x", tags: ["a]"] }],
      [`a [1, 2} then [3] and {"a": 1}`, [3]],
      [`{"s": "\\"}{"} ok`, { s: `"}{` }],
      [`prefix {"outer": {"inner": [1, {"x": null}]}} suffix`, { outer: { inner: [1, { x: null }] } }],
      [`{"k": "名前 👍🏽"} です`, { k: "名前 👍🏽" }],
      [`{not json} [also, not] {"yes": true}`, { yes: true }]
    ]
    for (const [text, value] of cases) assert.deepStrictEqual(Structured.findJson(text), { value }, text)
    for (const text of ["", "no json", "{unclosed", "[1, 2", "}{", `"[1]"`.slice(0, 3)]) {
      assert.isUndefined(Structured.findJson(text), text)
    }
  })

  it("1 MB of opening brackets is scanned once, not once per bracket", () => {
    // The characters read are counted, and refused past 4 per character of
    // the text: quadratic work would read about half a million per character.
    const counted = (text: string) => {
      const limit = 4 * text.length
      let reads = 0
      const wrapped = new String(text)
      Object.defineProperty(wrapped, "charCodeAt", {
        value: (index: number) => {
          if (++reads > limit) throw new Error(`more than ${limit} reads of a ${text.length}-character text`)
          return text.charCodeAt(index)
        }
      })
      return { text: wrapped as unknown as string, reads: () => reads }
    }
    for (const text of ["[".repeat(1_000_000), `"[ `.repeat(300_000)]) {
      const input = counted(text)
      assert.isUndefined(Structured.findJson(input.text))
      assert.isAtLeast(input.reads(), text.length)
    }
  })

  it.effect("json:find reads JSON inside prose; plain json does not", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(parsed("json:find"), { _tag: "Json", name: "json", shown: "json:find", find: true })
      const output = `The result is {"a": 1, "b": 2}, as asked.`
      assert.isTrue((yield* score(Structured.json({ find: true }), { a: 1 }, output)).passed)
      assert.deepStrictEqual(yield* score(Structured.json(), { a: 1 }, output), {
        value: 0,
        passed: false,
        explanation: `the output is not JSON (nor has a fenced JSON block): ${JSON.stringify(output)}`
      })
      assert.deepStrictEqual(yield* score(Structured.json({ find: true }), { a: 1 }, "nothing here"), {
        value: 0,
        passed: false,
        explanation: `no JSON in the output (not the whole output, a fenced block, nor an object or array inside it): "nothing here"`
      })
      const [fromSpec] = (yield* Scorers.fromSpecs(["json:find"], { cwd: process.cwd() })) as ReadonlyArray<Scorer.Scorer>
      assert.isTrue((yield* score(fromSpec, { a: 1 }, output)).passed)
    }))
})

describe("json-schema:FILE", () => {
  const fromSpec = (spec: string) => Scorers.fromSpec(spec, { cwd: process.cwd() }) as Effect.Effect<Scorer.Scorer, Scorers.ScorerSpecError>

  it("parses: the file is all the rest, but a trailing ,find", () => {
    assert.deepStrictEqual(parsed("json-schema:a,b.json"), { _tag: "JsonSchema", name: "json-schema", shown: "json-schema:a,b.json", file: "a,b.json", find: false })
    assert.deepInclude(parsed("s=json-schema:schemas/x.json,find"), { name: "s", file: "schemas/x.json", find: true })
    assert.strictEqual(Spec.parse("json-schema"), "--score json-schema: expected json-schema:FILE[,find], FILE a JSON Schema")
    assert.strictEqual(Spec.parse("json-schema:,find"), "--score json-schema:,find: expected json-schema:FILE[,find], FILE a JSON Schema")
  })

  it.effect("valid output passes; the explanation lists the errors at their JSON pointers", () =>
    Effect.gen(function*() {
      const scorer = yield* fromSpec("json-schema:test/fixtures/schemas/answer.json")
      assert.strictEqual(scorer.name, "json-schema")
      // No reference needed.
      assert.deepStrictEqual(yield* score(scorer, undefined, `{"answer": 4.5, "unit": "km"}`), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(scorer, undefined, `{"answer": "4", "tags": ["a", 2]}`), {
        value: 0,
        passed: false,
        explanation: `3 schema errors: (root) must have required property 'unit'; /answer must be number; /tags/1 must be string`
      })
      assert.deepStrictEqual(yield* score(scorer, undefined, `[]`), { value: 0, passed: false, explanation: "1 schema error: (root) must be object" })
      assert.isFalse((yield* score(scorer, undefined, `Here: {"answer": 1, "unit": "m"}`)).passed)
      const finding = yield* fromSpec("json-schema:test/fixtures/schemas/answer.json,find")
      assert.isTrue((yield* score(finding, undefined, `Here: {"answer": 1, "unit": "m"}.`)).passed)
      // Draft 07 by its $schema: items as a list.
      const draft7 = yield* fromSpec("json-schema:test/fixtures/schemas/draft7.json")
      assert.isTrue((yield* score(draft7, undefined, `["x"]`)).passed)
      assert.isFalse((yield* score(draft7, undefined, `["x", 1]`)).passed)
      const library = yield* JsonSchema.make({ schema: { type: "string", maxLength: 2 } })
      // Code points vs UTF-16 units: ajv counts code points, so one emoji is 1.
      assert.isTrue((yield* score(library, undefined, `"👍🏽"`)).passed)
      assert.isFalse((yield* score(library, undefined, `"abc"`)).passed)
    }))

  it.effect("a missing file, bad JSON, an invalid schema or an unknown draft is a spec error naming --score and the file", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(fromSpec("json-schema:test/fixtures/schemas/none.json"))
      assert.match(missing.message, /^--score json-schema:test\/fixtures\/schemas\/none\.json: cannot read the schema file test\/fixtures\/schemas\/none\.json: .*ENOENT/)
      const broken = yield* Effect.flip(fromSpec("json-schema:test/fixtures/schemas/broken.json"))
      assert.match(broken.message, /^--score json-schema:test\/fixtures\/schemas\/broken\.json: the schema file test\/fixtures\/schemas\/broken\.json is not JSON: /)
      const invalid = yield* Effect.flip(fromSpec("json-schema:test/fixtures/schemas/invalid.json"))
      assert.match(invalid.message, /^--score json-schema:test\/fixtures\/schemas\/invalid\.json: the schema file test\/fixtures\/schemas\/invalid\.json is not a valid JSON Schema: schema is invalid: data\/type must be equal to one of the allowed values/)
      const draft4 = yield* Effect.flip(JsonSchema.make({ schema: { $schema: "http://json-schema.org/draft-04/schema#" } }))
      assert.match(draft4.message, /^has the \$schema "http:\/\/json-schema.org\/draft-04\/schema#"; the drafts known are /)
      const notObject = yield* Effect.flip(JsonSchema.make({ schema: [1] }))
      assert.strictEqual(notObject.message, "is not a JSON Schema: a schema is an object or a boolean")
    }))
})

// The textbook dynamic programme, for comparison with the banded one.
const naiveDistance = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]
}

// A seeded generator, so every run checks the same pairs.
const lcg = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

describe("levenshtein", () => {
  it("the banded distance equals the full dynamic programme on 2,000 random pairs", () => {
    const random = lcg(7)
    for (let i = 0; i < 2000; i++) {
      const alphabet = 1 + Math.floor(random() * 4)
      const word = () => Array.from({ length: Math.floor(random() * 24) }, () => Math.floor(random() * alphabet))
      const a = word()
      const b = random() < 0.3 ? [...a.slice(0, 5), ...word(), ...a.slice(5)] : word()
      const result = Levenshtein.distance(Uint32Array.from(a), Uint32Array.from(b))
      assert.deepInclude(result, { _tag: "Exact", distance: naiveDistance(a, b) }, JSON.stringify([a, b]))
      // A budget too small to finish still says only what is proven.
      const small = Levenshtein.distance(Uint32Array.from(a), Uint32Array.from(b), 16)
      if (small._tag === "TooLarge") {
        assert.isAtMost(small.atLeast, naiveDistance(a, b))
        assert.isAtMost(small.cells, 16)
      } else assert.strictEqual(small.distance, naiveDistance(a, b))
    }
  })

  it.effect("similarity 1 - distance / longest over code points, passing at the threshold", () =>
    Effect.gen(function*() {
      // kitten -> sitting: 3 edits, 7 code points: 1 - 3/7.
      assert.deepStrictEqual(yield* score(Match.levenshtein(), "sitting", "kitten"), {
        value: 1 - 3 / 7,
        passed: false,
        explanation: "similarity 0.5714 < 0.8 (3 edits over 7 code points)"
      })
      assert.deepStrictEqual(yield* score(Match.levenshtein({ threshold: 0.5 }), "sitting", "kitten"), {
        value: 1 - 3 / 7,
        passed: true
      })
      // 4 code points against 5 (👍 and 🏽 are one each): 1 - 1/5 = 0.8, the
      // threshold exactly. In UTF-16 units it would be 1 - 1/7.
      assert.deepStrictEqual(yield* score(Match.levenshtein(), "👍🏽ok!", "👍🏽ok"), { value: 0.8, passed: true })
      assert.deepStrictEqual(yield* score(Match.levenshtein(), "caf\u00e9", "cafe\u0301"), { value: 1, passed: true })
      assert.strictEqual((yield* score(Match.levenshtein(), "hello", "HELLO")).value, 0)
      assert.strictEqual((yield* score(Match.levenshtein({ ignoreCase: true }), "hello", "HELLO")).value, 1)
      assert.strictEqual((yield* score(Match.levenshtein(), ["far off", "kitten"], "kitten")).value, 1)
    }))

  it.effect("empty texts: two are identical, one against text is 0", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* score(Match.levenshtein(), "", ""), { value: 1, passed: true })
      assert.strictEqual((yield* score(Match.levenshtein(), "abc", "")).value, 0)
      assert.strictEqual((yield* score(Match.levenshtein(), "", "abc")).value, 0)
    }))

  it.effect("a 1 MB output: linear in it against a short reference, and bounded against another 1 MB text", () =>
    Effect.gen(function*() {
      const huge = "x".repeat(1_000_000)
      const short = Levenshtein.distance(Levenshtein.codePoints(huge), Levenshtein.codePoints("abc"))
      // One band of 3 rows by 1,000,001 columns: 3 substitutions and 999,997 insertions.
      assert.deepStrictEqual(short, { _tag: "Exact", distance: 1_000_000, cells: 3 * 1_000_001 })
      assert.deepStrictEqual(yield* score(Match.levenshtein(), "abc", huge), {
        value: 0,
        passed: false,
        explanation: "similarity 0 < 0.8 (1000000 edits over 1000000 code points)"
      })

      // Near-identical megabytes: the common prefix and suffix go first.
      const edited = `${huge.slice(0, 500_000)}yyy${huge.slice(500_003)}`
      const near = Levenshtein.distance(Levenshtein.codePoints(huge), Levenshtein.codePoints(edited))
      // What is left is "xxx" against "yyy": 3 rows of 4 cells.
      assert.deepStrictEqual(near, { _tag: "Exact", distance: 3, cells: 12 })

      // Two unrelated megabytes: stopped at the budget, reported as an error.
      const random = lcg(11)
      const noise = () => Array.from({ length: 1_000_000 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join("")
      const [a, b] = [noise(), noise()]
      const far = Levenshtein.distance(Levenshtein.codePoints(a), Levenshtein.codePoints(b))
      assert.strictEqual(far._tag, "TooLarge")
      assert.isAtMost(far.cells, Levenshtein.DEFAULT_MAX_CELLS)
      const error = errorOf(yield* score(Match.levenshtein(), a, b))
      assert.strictEqual(error.type, "InputTooLarge")
      assert.match(error.message, /^comparing 1000000 with 1000000 code points needs more than 67108864 cells \(the distance is at least \d+\)$/)
    }))
})

describe("module: scorers", () => {
  const load = (exportName: string | undefined, timeout?: Duration.Input) =>
    Scorers.fromSpec(`module:test/fixtures/scorer-module.ts${exportName === undefined ? "" : `#${exportName}`}`, {
      cwd: process.cwd(),
      timeout
    }) as Effect.Effect<Scorer.Scorer>

  it.effect("a boolean, a number, a Score, a Promise or an Effect of one", () =>
    Effect.gen(function*() {
      const byDefault = yield* load(undefined)
      assert.strictEqual(byDefault.name, "scorer-module")
      assert.deepStrictEqual(yield* score(byDefault, "4", "4"), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(byDefault, "4", "5"), { value: 0, passed: false })
      const length = yield* load("length")
      assert.strictEqual(length.name, "length")
      assert.deepStrictEqual(yield* score(length, undefined, "abcdefghij"), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(length, undefined, "abc"), { value: 0.3, passed: false })
      assert.deepStrictEqual(yield* score(yield* load("graded"), undefined, "ok"), {
        value: 0.5,
        passed: true,
        explanation: "half marks for t1: ok"
      })
      assert.deepStrictEqual(yield* score(yield* load("promised"), undefined, "ok"), { value: 1, passed: true })
      assert.deepStrictEqual(yield* score(yield* load("effectful"), undefined, "yes"), { value: 1, passed: true })
    }))

  it.effect("a throw, a rejection, a failed Effect and garbage give scores with errors", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(errorOf(yield* score(yield* load("throws"), undefined, "x")), {
        type: "TypeError",
        message: "cannot score t1",
        occurred_at: EPOCH
      })
      assert.deepInclude(errorOf(yield* score(yield* load("rejects"), undefined, "x")), { type: "RangeError", message: "rejected t1" })
      assert.deepInclude(errorOf(yield* score(yield* load("effectFails"), undefined, "x")), {
        type: "GraderDown",
        message: `{"_tag":"GraderDown","message":"grader down for t1"}`
      })
      const expected = "expected a boolean, a finite number or { value: number, passed: boolean, explanation?: string }"
      assert.deepInclude(errorOf(yield* score(yield* load("garbage"), undefined, "x")), {
        type: "InvalidScore",
        message: `the scorer returned "yes, looks good"; ${expected}`
      })
      assert.deepInclude(errorOf(yield* score(yield* load("notANumber"), undefined, "x")), {
        type: "InvalidScore",
        message: `the scorer returned NaN; ${expected}`
      })
      assert.deepInclude(errorOf(yield* score(yield* load("almost"), undefined, "x")), {
        type: "InvalidScore",
        message: `the scorer returned {"value":"1","passed":true}; ${expected}`
      })
    }))

  it.effect("a call past the timeout is a Timeout error, and its signal fires", () =>
    Effect.gen(function*() {
      const hangs = yield* load("hangs", "2 seconds")
      const before = fixture.aborted
      const fiber = yield* Effect.forkChild(score(hangs, undefined, "x"))
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const timedOut = yield* Fiber.join(fiber)
      assert.deepStrictEqual(timedOut, {
        value: 0,
        passed: false,
        error: { type: "Timeout", message: "scorer hangs did not finish within 2s", occurred_at: "1970-01-01T00:00:02.000Z" }
      })
      assert.strictEqual(fixture.aborted, before + 1)
    }))

  it.effect("a scorer that throws at once does not stall a concurrent Stream.mapEffect", () =>
    Effect.gen(function*() {
      const throws = yield* load("throws")
      const scores = yield* Stream.range(1, 50).pipe(
        Stream.mapEffect((i) => throws.score(taskOf(undefined, `t${i}`), trialOf("x", `t${i}`)), { concurrency: 8, unordered: true }),
        Stream.runCollect
      )
      assert.strictEqual(scores.length, 50)
      assert.isTrue(scores.every((s) => s.error?.type === "TypeError" && !s.passed))
    }))

  it.effect("fromFunction: a plain function is a scorer, guarded the same way", () =>
    Effect.gen(function*() {
      const short = ModuleScorer.fromFunction("short", (_task, trial) => (trial.output?.output_text.length ?? 0) <= 3)
      assert.strictEqual(short.name, "short")
      assert.isTrue((yield* score(short, undefined, "abc")).passed)
      const broken = ModuleScorer.fromFunction("broken", () => {
        throw "a string"
      })
      assert.deepStrictEqual(errorOf(yield* score(broken, undefined, "x")), { type: "ScorerError", message: "a string", occurred_at: EPOCH })
    }))
})

describe("Scorer.make", () => {
  it.effect("a function that throws before returning an Effect gives a score with an error, even in a concurrent stream", () =>
    Effect.gen(function*() {
      const boom = Scorer.make<never, never>("boom", (task) => {
        throw new SyntaxError(`boom ${task.id}`)
      })
      const scores = yield* Stream.range(1, 20).pipe(
        Stream.mapEffect((i) => boom.score(taskOf(undefined, `t${i}`), trialOf("x", `t${i}`)), { concurrency: 4, unordered: true }),
        Stream.runCollect
      )
      assert.strictEqual(scores.length, 20)
      assert.deepStrictEqual(scores.find((s) => s.error?.message === "boom t3"), {
        value: 0,
        passed: false,
        error: { type: "SyntaxError", message: "boom t3", occurred_at: EPOCH }
      })
      assert.isTrue(scores.every((s) => s.error?.type === "SyntaxError"))
    }))

  it.effect("an interruption stays an interruption, not a score", () =>
    Effect.gen(function*() {
      const hang = Scorer.make<never, never>("hang", () => Effect.never)
      const fiber = yield* Effect.forkChild(hang.score(taskOf(undefined), trialOf("x")))
      yield* TestClock.adjust(0)
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(exit))
    }))
})

describe("the trial record's scores", () => {
  const decode = Schema.decodeUnknownExit(AgentEvalTrial)
  const base = { id: "t1:trial", task_id: "t1", status: "completed", output: { output_text: "4" }, metadata: { started_at: EPOCH, finished_at: EPOCH, latency_ms: 1 } }

  it("a record without scores (every file written before) still decodes; one with scores keeps them", () => {
    const old = decode(base)
    assert.isTrue(Exit.isSuccess(old))
    if (Exit.isSuccess(old)) assert.isFalse("scores" in old.value)
    const scores = {
      exact: { value: 1, passed: true },
      judge: { value: 0, passed: false, explanation: "no", error: { type: "UnusableGrade", message: "m", occurred_at: EPOCH } }
    }
    const scored = decode(JSON.parse(JSON.stringify({ ...base, scores })))
    assert.isTrue(Exit.isSuccess(scored))
    if (Exit.isSuccess(scored)) assert.deepStrictEqual(scored.value.scores, scores)
  })

  it("a score that is not a Score is refused", () => {
    for (const bad of [{ value: "1", passed: true }, { value: 1 }, { value: null, passed: true }, { value: 1, passed: true, error: { type: "X" } }]) {
      assert.isTrue(Exit.isFailure(decode({ ...base, scores: { exact: bad } })), JSON.stringify(bad))
    }
  })
})

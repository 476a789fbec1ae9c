/**
 * Scorers that compare the output text with the task's reference text:
 * `exact`, `includes`, `regex` and `levenshtein`.
 *
 * A reference is a string, a number or boolean (compared as its text), or a
 * non-empty list of them: any one of them may match (`includes` with
 * `mode: "all"` needs all of them). Texts are compared in Unicode normal form
 * C, so "é" written as one code point or as "e" and a combining accent is
 * the same text; `ignoreCase` compares full Unicode case foldings ("Straße" equals
 * "STRASSE" and "STRAẞE", "ΟΔΟΣ" equals "οδος" and is found in
 * "οδοσήμανση"); lengths and distances count code points,
 * so an emoji is one character, not two UTF-16 units.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { AgentEvalTask, Score } from "../domain/Trial.ts"
import * as Levenshtein from "./Levenshtein.ts"
import { InvalidReference, makeLocal as make, type MissingReference, reference, type Scorer, verdict } from "../domain/Scorer.ts"

/**
 * How texts are prepared before they are compared: `trim` (default true)
 * drops surrounding whitespace, `ignoreCase` (default false) case-folds.
 *
 * @category models
 * @since 0.1.0
 */
export interface TextOptions {
  readonly name?: string | undefined
  readonly ignoreCase?: boolean | undefined
  readonly trim?: boolean | undefined
}

/**
 * Where `exact` and `includes` look for the reference: `at: "start"` (the
 * reference must open the output) or `"end"` (close it); no word boundary is
 * needed ("42" opens "420"). `stripPunctuation` removes every punctuation
 * character (Unicode category P: `. , ; : ! ? ' " ( ) [ ] { } - _ / \ @ # % & *`,
 * `¿ ¡ « » “ ” — …`) from both texts, then writes each run of whitespace as one
 * space; symbols (`$ + < = > ^ | ~ €`) stay, and so do letters and digits, so
 * "3.14" becomes "314": use `numeric` for numbers.
 *
 * @category models
 * @since 0.2.0
 */
export interface LocationOptions {
  readonly at?: "start" | "end" | undefined
  readonly stripPunctuation?: boolean | undefined
}

/**
 * Passes when the output equals the reference (or one of the references).
 *
 * **Example** (Case-insensitive exact match)
 *
 * ```ts
 * import { Match } from "agent-trials"
 *
 * const scorer = Match.exact({ ignoreCase: true })
 * ```
 *
 * @category scorers
 * @since 0.1.0
 */
export const exact = (options: TextOptions & LocationOptions = {}): Scorer =>
  make(options.name ?? "exact", (task, output) =>
    Effect.map(referenceTexts(task, "exact"), (references) => {
      const prepare = preparer(options)
      const text = prepare(output)
      if (references.some((r) => located(text, prepare(r), options.at ?? "whole"))) return verdict(true)
      const expected = options.at === undefined ? "expected" : `expected the output to ${options.at === "start" ? "open" : "close"} with`
      return verdict(false, `${expected} ${listed(references)}, got ${quote(output)}`)
    }))

/**
 * Options of `includes`: `mode` `any` (the default: one reference found
 * passes, value 1 or 0) or `all` (every reference must be found; the value is
 * the fraction found).
 *
 * @category models
 * @since 0.1.0
 */
export interface IncludesOptions extends LocationOptions {
  readonly name?: string | undefined
  readonly mode?: "any" | "all" | undefined
  readonly ignoreCase?: boolean | undefined
}

/**
 * Passes when the output contains the reference (any one of a list, or all
 * of them with `mode: "all"`). References are trimmed; an empty one is an
 * `InvalidReference`, since it is contained in every output.
 *
 * @category scorers
 * @since 0.1.0
 */
export const includes = (options: IncludesOptions = {}): Scorer => {
  const mode = options.mode ?? "any"
  return make(options.name ?? "includes", (task, output) =>
    Effect.flatMap(referenceTexts(task, "includes"), (references) => {
      const prepare = preparer({ ignoreCase: options.ignoreCase, trim: false, stripPunctuation: options.stripPunctuation })
      const needles = references.map((r) => prepare(r.trim()).trim())
      if (needles.some((n) => n === "")) {
        return Effect.fail(
          new InvalidReference({ task_id: task.id, scorer: "includes", problem: "has an empty reference, which every output includes" })
        )
      }
      // Opening or closing the output is judged on the output without its surrounding whitespace.
      const text = options.at === undefined ? prepare(output) : prepare(output).trim()
      const missing = references.filter((_, i) => !located(text, needles[i], options.at ?? "anywhere"))
      const found = references.length - missing.length
      const passed = mode === "all" ? missing.length === 0 : found > 0
      const value = mode === "all" ? found / references.length : passed ? 1 : 0
      const score: Score = { value, passed }
      return Effect.succeed(
        passed ? score : {
          ...score,
          explanation: `${quote(output)} does not ${
            options.at === undefined ? "include" : options.at === "start" ? "open with" : "close with"
          } ${listed(missing, mode === "all" ? "and" : "or")}`
        }
      )
    }))
}

/**
 * Passes when the pattern matches somewhere in the output (anchor it with `^`
 * and `$` for a whole match). The pattern is `options.pattern`, else the
 * task's reference string, with no flags. The output is matched as it is:
 * not trimmed, not normalized.
 *
 * With `capture: N` (and a pattern), group N of the first match (0: the
 * whole match) is compared with the reference as `exact` compares (NFC,
 * trimmed; any one of a list), case-insensitively when the pattern has the
 * `i` flag: Inspect's `pattern` scorer. No match, or a group that took no
 * part in it, fails the score.
 *
 * @category scorers
 * @since 0.1.0
 */
export const regex = (
  options: { readonly name?: string | undefined; readonly pattern?: RegExp | undefined; readonly capture?: number | undefined } = {}
): Scorer => {
  const fixed = options.pattern === undefined ? undefined : new RegExp(options.pattern.source, safeFlags(options.pattern))
  const capture = options.capture
  if (capture !== undefined && fixed !== undefined) {
    const prepare = preparer({ ignoreCase: fixed.flags.includes("i") })
    return make(options.name ?? "regex", (task, output) =>
      Effect.map(referenceTexts(task, "regex"), (references) => {
        const m = fixed.exec(output)
        if (m === null) return verdict(false, `${String(fixed)} does not match ${quote(output)}`)
        const group = m[capture]
        if (group === undefined) return verdict(false, `group ${capture} of ${String(fixed)} took no part in the match ${quote(m[0])}`)
        const text = prepare(group)
        if (references.some((r) => prepare(r) === text)) return verdict(true)
        return verdict(false, `group ${capture} is ${quote(group)}, expected ${listed(references)}`)
      }))
  }
  return make(options.name ?? "regex", (task, output) =>
    Effect.map(
      fixed === undefined ? referencePattern(task) : Effect.succeed(fixed),
      (pattern) => pattern.test(output) ? verdict(true) : verdict(false, `${String(pattern)} does not match ${quote(output)}`)
    ))
}

/**
 * Comparing the texts would take more than the levenshtein scorer's cell
 * budget (`Levenshtein.DEFAULT_MAX_CELLS`).
 *
 * @category errors
 * @since 0.1.0
 */
export class InputTooLarge extends Schema.TaggedError<InputTooLarge>()("InputTooLarge", {
  /** The output's length, in code points. */
  output_length: Schema.Number,
  /** The reference's length, in code points. */
  reference_length: Schema.Number,
  /** The cell budget it would exceed. */
  max_cells: Schema.Number,
  /** The least the distance can be, known without comparing. */
  at_least: Schema.Number
}) {
  override get message(): string {
    return `comparing ${this.output_length} with ${this.reference_length} code points needs more than ${this.max_cells} cells ` +
      `(the distance is at least ${this.at_least})`
  }
}

/**
 * Options of `levenshtein`: `threshold` (default 0.8), the similarity from
 * which a score passes, and a `maxCells` budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface LevenshteinOptions extends TextOptions {
  readonly threshold?: number | undefined
  readonly maxCells?: number | undefined
}

/**
 * The value is the similarity `1 - distance / max(length output, length
 * reference)` over code points (the best over a list of references), passing
 * at `threshold` or above. The cost is bounded (see `Levenshtein.distance`):
 * beyond the budget the score has an `InputTooLarge` error.
 *
 * @category scorers
 * @since 0.1.0
 */
export const levenshtein = (options: LevenshteinOptions = {}): Scorer => {
  const threshold = options.threshold ?? 0.8
  return make(options.name ?? "levenshtein", (task, output) =>
    Effect.flatMap(referenceTexts(task, "levenshtein"), (references) => {
      const prepare = preparer(options)
      const text = Levenshtein.codePoints(prepare(output))
      let best: { readonly similarity: number; readonly distance: number; readonly longest: number } | undefined
      for (const r of references) {
        const target = Levenshtein.codePoints(prepare(r))
        const result = Levenshtein.distance(text, target, options.maxCells)
        const longest = Math.max(text.length, target.length)
        if (result._tag === "TooLarge") {
          return Effect.fail(
            new InputTooLarge({
              output_length: text.length,
              reference_length: target.length,
              max_cells: options.maxCells ?? Levenshtein.DEFAULT_MAX_CELLS,
              at_least: result.atLeast
            })
          )
        }
        const similarity = Levenshtein.similarity(result.distance, text.length, target.length)
        if (best === undefined || similarity > best.similarity) best = { similarity, distance: result.distance, longest }
      }
      const { distance, longest, similarity } = best!
      const passed = similarity >= threshold
      const score: Score = { value: similarity, passed }
      return Effect.succeed(
        passed
          ? score
          : { ...score, explanation: `similarity ${round(similarity)} < ${threshold} (${distance} edits over ${longest} code points)` }
      )
    }))
}

/**
 * Unicode full case folding (CaseFolding.txt, statuses C and F, as Python's
 * `str.casefold`), built on the built-in mappings: upper-casing first maps
 * "ß" to "SS" and "ﬁ" to "FI", which lower-casing alone does not. Three
 * repairs make every form of a letter fold alike: lower-casing applies the
 * final-sigma rule (a "Σ" that ends a word becomes "ς", not "σ"), so "ς" is
 * then written "σ"; "ẞ" upper-cases to itself and lower-cases to "ß", which
 * is then written "ss"; and dotless "ı", which has no folding, is kept apart
 * from the upper-casing that would make it "I".
 *
 * @internal
 */
export const fold = (text: string): string => {
  const folded = text.includes("\u0131") ? text.split("\u0131").map(foldPart).join("\u0131") : foldPart(text)
  return folded.normalize("NFC")
}

const foldPart = (text: string): string => text.toUpperCase().toLowerCase().replaceAll("\u03c2", "\u03c3").replaceAll("\u00df", "ss")

const PUNCTUATION = /\p{P}+/gu
const SPACES = /\s+/gu

const located = (text: string, reference: string, at: "whole" | "anywhere" | "start" | "end"): boolean =>
  at === "whole" ? text === reference : at === "anywhere" ? text.includes(reference) : at === "start" ? text.startsWith(reference) : text.endsWith(reference)

const preparer = (
  options: { readonly ignoreCase?: boolean | undefined; readonly trim?: boolean | undefined; readonly stripPunctuation?: boolean | undefined }
) =>
(text: string): string => {
  let t = text.normalize("NFC")
  if (options.stripPunctuation === true) t = t.replace(PUNCTUATION, "").replace(SPACES, " ")
  if (options.trim ?? true) t = t.trim()
  return options.ignoreCase === true ? fold(t) : t
}

/**
 * A reference as a list of texts: a string, number or boolean, or a
 * non-empty list of them.
 *
 * @internal
 */
export const referenceTexts = (
  task: AgentEvalTask,
  scorer: string
): Effect.Effect<ReadonlyArray<string>, MissingReference | InvalidReference> =>
  Effect.flatMap(reference(task, scorer), (ref) => {
    const list = Array.isArray(ref) ? ref : [ref]
    const texts = list.flatMap((item) => asText(item) ?? [])
    return list.length > 0 && texts.length === list.length
      ? Effect.succeed(texts)
      : Effect.fail(
        new InvalidReference({
          task_id: task.id,
          scorer,
          problem: `has the reference ${preview(ref)}; the ${scorer} scorer takes a string, number or boolean, or a non-empty list of them`
        })
      )
  })

const asText = (value: unknown): string | undefined =>
  typeof value === "string"
    ? value
    : typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))
    ? String(value)
    : undefined

const referencePattern = (task: AgentEvalTask): Effect.Effect<RegExp, MissingReference | InvalidReference> =>
  Effect.flatMap(reference(task, "regex"), (ref) => {
    if (typeof ref !== "string") {
      return Effect.fail(new InvalidReference({
          task_id: task.id,
          scorer: "regex",
          problem: `has the reference ${preview(ref)}; the regex scorer takes a pattern string`
        }))
    }
    try {
      return Effect.succeed(new RegExp(ref))
    } catch (error) {
      return Effect.fail(
        new InvalidReference({
          task_id: task.id,
          scorer: "regex",
          problem: "is not a regular expression",
          syntax: (error as Error).message
        })
      )
    }
  })

// `g` and `y` make `test` remember where it stopped: one trial's match would
// move the next trial's starting point.
const safeFlags = (pattern: RegExp): string => pattern.flags.replace(/[gy]/g, "")

const listed = (texts: ReadonlyArray<string>, conjunction = "or"): string =>
  texts.length === 1 ? quote(texts[0]) : `${conjunction === "or" ? "one of" : "all of"} ${texts.slice(0, 5).map(quote).join(", ")}${texts.length > 5 ? ", ..." : ""}`

/**
 * A JSON string of at most 100 characters of `text`.
 *
 * @internal
 */
export const quote = (text: string): string => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}...` : text)

/**
 * JSON of at most 100 characters.
 *
 * @internal
 */
export const preview = (value: unknown): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 100 ? `${text.slice(0, 100)}...` : text
}

const round = (x: number): number => Math.round(x * 1e4) / 1e4

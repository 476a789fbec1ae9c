/**
 * Scorers that read a value out of the output: `numeric` (the last number,
 * within a tolerance of the reference) and `json` (the output's JSON, whose
 * keys must equal the reference's).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { AgentEvalTask, Score } from "../domain/Trial.ts"
import { preview, quote } from "./Match.ts"
import { InvalidReference, makeLocal as make, type MissingReference, reference, type Scorer, verdict } from "../domain/Scorer.ts"

/**
 * How far from the reference a number may be: `Absolute` (`|x - ref| <=
 * amount`) or `Relative` (`|x - ref| <= fraction * |ref|`). The bound is
 * inclusive, up to floating-point rounding (1.01 is within 0.01 of 1).
 *
 * @category models
 * @since 0.1.0
 */
export type Tolerance =
  | { readonly _tag: "Absolute"; readonly amount: number }
  | { readonly _tag: "Relative"; readonly fraction: number }

// ASCII digits with optional thousands separators (`1,234.5`), a decimal
// point, an exponent, and a sign (`-`, `+` or U+2212 "−") that counts only
// after neither a letter nor a digit, so a range `1-2` is 1 and 2, not 1 and -2.
const SIGN = String.raw`(?:(?<![\p{L}\p{N}_.,])[-+\u2212])?`
const BODY = String.raw`(?<![\d.])(?:(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?`
// A percent sign right after the number, or after one space (U+0020, U+00A0, U+202F).
const PERCENT = String.raw`(?:[ \u00a0\u202f]?(%))?`
const NUMBERS = new RegExp(`${SIGN}${BODY}${PERCENT}`, "gu")
const ONE_NUMBER = new RegExp(String.raw`^\s*(${SIGN}${BODY})${PERCENT}\s*$`, "u")

const toNumber = (text: string): number => Number(text.trim().replaceAll(",", "").replace("\u2212", "-"))

/**
 * The last number written in `text` (`1,234.5`, `-3`, `2e-3`, `−7`), if any.
 *
 * @category parsing
 * @since 0.1.0
 */
export const lastNumber = (text: string): number | undefined => {
  const all = numbersIn(text)
  return all.length === 0 ? undefined : all[all.length - 1].value
}

/**
 * Passes when the last number of the output is within `tolerance` of the
 * reference (a number, or a string that is one number). The default
 * tolerance is 0: equal numbers (`4.0` equals `4`). No number in the output
 * fails the score; it is not an error.
 *
 * **Example** (Within 1% of the reference)
 *
 * ```ts
 * import { Structured } from "agent-trials"
 *
 * const scorer = Structured.numeric({ tolerance: { _tag: "Relative", fraction: 0.01 } })
 * ```
 *
 * @category scorers
 * @since 0.1.0
 */
export const numeric = (
  options: {
    readonly name?: string | undefined
    readonly tolerance?: Tolerance | undefined
    readonly pick?: "first" | "last" | "any" | undefined
  } = {}
): Scorer => {
  const tolerance = options.tolerance ?? { _tag: "Absolute", amount: 0 }
  const pick = options.pick ?? "last"
  return make(options.name ?? "numeric", (task, output) =>
    Effect.map(referenceNumber(task), (ref) => {
      const expected = ref.percent ? `${ref.value}%` : `${ref.value}`
      const all = numbersIn(output)
      if (all.length === 0) return verdict(false, `no number in the output, expected ${expected}`)
      // Like with like: a percentage reference reads a plain number as a fraction (0.5 is 50%).
      const read = (n: NumberFound): number => ref.percent && !n.percent ? n.value * 100 : n.value
      const candidates = pick === "first" ? [all[0]] : pick === "last" ? [all[all.length - 1]] : all
      const bound = tolerance._tag === "Absolute" ? tolerance.amount : tolerance.fraction * Math.abs(ref.value)
      const within = (x: number) => {
        const slack = 4 * Number.EPSILON * Math.max(Math.abs(x), Math.abs(ref.value), bound)
        return Math.abs(x - ref.value) - bound <= slack
      }
      if (candidates.some((n) => within(read(n)))) return verdict(true)
      const tol = tolerance._tag === "Absolute" ? `${tolerance.amount}` : `${tolerance.fraction * 100}%`
      const shown = (n: NumberFound) => n.percent ? `${n.value}%` : `${n.value}`
      return verdict(
        false,
        pick === "any"
          ? `none of the ${all.length} numbers of the output (${all.slice(0, 5).map(shown).join(", ")}${all.length > 5 ? ", ..." : ""}) is ${expected} within ${tol}`
          : `found ${shown(candidates[0])} (the ${pick} number of the output), expected ${expected} within ${tol}`
      )
    }))
}

/**
 * A number read from text: its value as written, and whether a `%` follows it.
 *
 * @category models
 * @since 0.2.0
 */
export interface NumberFound {
  readonly value: number
  readonly percent: boolean
}

/**
 * Every number written in `text`, in order, as `lastNumber` reads them, each
 * with whether a `%` follows it (`50%`, `50 %`).
 *
 * @category parsing
 * @since 0.2.0
 */
export const numbersIn = (text: string): ReadonlyArray<NumberFound> =>
  Array.from(text.matchAll(NUMBERS), (m) => ({ value: toNumber(m[0].replace(/[ \u00a0\u202f]?%$/, "")), percent: m[1] === "%" }))

const referenceNumber = (task: AgentEvalTask): Effect.Effect<NumberFound, MissingReference | InvalidReference> =>
  Effect.flatMap(reference(task, "numeric"), (ref) => {
    if (typeof ref === "number" && Number.isFinite(ref)) return Effect.succeed({ value: ref, percent: false })
    const one = typeof ref === "string" ? ONE_NUMBER.exec(ref) : null
    if (one !== null) return Effect.succeed({ value: toNumber(one[1]), percent: one[2] === "%" })
    return Effect.fail(
      new InvalidReference({
        task_id: task.id,
        scorer: "numeric",
        problem: `has the reference ${preview(ref)}; the numeric scorer takes a number`
      })
    )
  })

/**
 * Passes when the output is JSON that matches the reference: for a reference
 * object, every one of its keys must be in the output's object with an equal
 * value (other keys are allowed; the value is the fraction of keys that
 * match); any other reference must equal the output's JSON. Values are equal
 * when they are the same JSON (deeply; key order does not count).
 *
 * The JSON is the whole output (trimmed) or, when that does not parse, the
 * first fenced block (```json ... ``` or ``` ... ```) that does, as models
 * often wrap it. Output that is no JSON fails the score; it is not an error.
 *
 * @category scorers
 * @since 0.1.0
 */
export const json = (options: { readonly name?: string | undefined; readonly find?: boolean | undefined } = {}): Scorer =>
  make(options.name ?? "json", (task, output) =>
    Effect.map(reference(task, "json"), (expected): Score => {
      const parsed = outputJson(output, options.find === true)
      if (parsed === undefined) return verdict(false, notJson(output, options.find === true))
      const actual = parsed.value
      if (!isObject(expected)) {
        return equal(actual, expected) ? verdict(true) : verdict(false, `expected ${preview(expected)}, got ${preview(actual)}`)
      }
      if (!isObject(actual)) return verdict(false, `expected an object with keys ${preview(Object.keys(expected))}, got ${preview(actual)}`)
      const keys = Object.keys(expected)
      const wrong = keys.filter((key) => !(Object.hasOwn(actual, key) && equal(actual[key], expected[key])))
      const value = keys.length === 0 ? 1 : (keys.length - wrong.length) / keys.length
      if (wrong.length === 0) return { value, passed: true }
      const shown = wrong.slice(0, 5).map((key) =>
        Object.hasOwn(actual, key)
          ? `${JSON.stringify(key)} (expected ${preview(expected[key])}, got ${preview(actual[key])})`
          : `${JSON.stringify(key)} (missing)`
      )
      return {
        value,
        passed: false,
        explanation: `${wrong.length} of ${keys.length} keys differ: ${shown.join(", ")}${wrong.length > 5 ? ", ..." : ""}`
      }
    }))

const FENCE = /```[^\S\n]*(?:json)?[^\S\n]*\n([\s\S]*?)```/gi

/**
 * The output's JSON as `json` reads it: the whole output, else the first
 * fenced block that parses, else (with `find`) `findJson`'s.
 *
 * @internal
 */
export const outputJson = (output: string, find: boolean): { readonly value: unknown } | undefined =>
  parseJson(output) ?? (find ? findJson(output) : undefined)

/** @internal */
export const notJson = (output: string, find: boolean): string =>
  find
    ? `no JSON in the output (not the whole output, a fenced block, nor an object or array inside it): ${quote(output)}`
    : `the output is not JSON (nor has a fenced JSON block): ${quote(output)}`

/**
 * The first JSON object or array inside prose: each `{` or `[` in turn is a
 * candidate start; its end is the bracket that balances it (brackets inside
 * JSON strings, escapes included, do not count; a wrong closing bracket ends
 * the candidate), and the first candidate whose text parses is the answer.
 * Brackets are matched in what amounts to one pass: a bracket's end, once
 * found, serves every later candidate (the scan of one candidate decides
 * those nested in it); each balanced candidate is parsed once.
 *
 * **Example** (JSON in a model's prose)
 *
 * ```ts
 * import { Structured } from "agent-trials"
 *
 * Structured.findJson(`Sure! Use {name} like this: {"name": "x", "tags": ["a]"]} - done`)
 * // { value: { name: "x", tags: ["a]"] } }
 * ```
 *
 * @category parsing
 * @since 0.2.0
 */
export const findJson = (text: string): { readonly value: unknown } | undefined => {
  // For each opening bracket outside a string: the index of its balancing
  // bracket, or -1 when none (a wrong bracket or the end came first).
  const ends = new Map<number, number>()
  for (let start = 0; start < text.length; start++) {
    const c = text.charCodeAt(start)
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) continue
    if (!ends.has(start)) scan(text, start, ends)
    const end = ends.get(start)!
    if (end === -1) continue
    const found = tryParse(text.slice(start, end + 1))
    if (found !== undefined) return found
  }
  return undefined
}

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

const scan = (text: string, start: number, ends: Map<number, number>): void => {
  const stack: Array<number> = []
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const known = ends.get(i)
      if (known === undefined) stack.push(i)
      else if (known === -1) break
      else i = known
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const open = stack.pop()!
      if (text.charCodeAt(open) !== (c === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
        stack.push(open)
        break
      }
      ends.set(open, i)
      if (stack.length === 0) return
    }
  }
  // A wrong bracket, an opening bracket known to have no end, or the end of
  // the text: no bracket still open is balanced.
  for (const open of stack) ends.set(open, -1)
}

const parseJson = (output: string): { readonly value: unknown } | undefined => {
  const whole = tryParse(output)
  if (whole !== undefined) return whole
  for (const m of output.matchAll(FENCE)) {
    const block = tryParse(m[1])
    if (block !== undefined) return block
  }
  return undefined
}

const tryParse = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Deep equality of JSON values: arrays in order, objects by their own keys
 * in any order.
 *
 * @internal
 */
export const equal = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]))
  if (!isObject(a) || !isObject(b)) return false
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]))
}

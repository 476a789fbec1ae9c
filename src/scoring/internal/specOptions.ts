/**
 * The pieces of `--score` spec syntax that several scorer kinds share: the
 * `NAME=` rule, `key=value` option lists, match locations, tolerances and
 * regular expressions. A kind of one's own may use them for words that read
 * as the built-in kinds' do.
 *
 * @since 0.3.0
 */
import type { Tolerance } from "../Structured.ts"

/** A scorer's name, as `NAME=` gives it. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/

/**
 * Each option a kind accepts: a bare `flag` (`=true` / `=false` too) or a `key=VALUE`.
 *
 * @category parsing
 * @since 0.3.0
 */
export type OptionKinds = Record<string, "flag" | "value">

/**
 * Reads a kind's options, `a,b=1` -> `{ a: true, b: "1" }`; a string result
 * is the problem, worded as the built-in kinds word theirs (`unknown option
 * "x" (expected a, b=VALUE)`, `option a is given twice`).
 *
 * @category parsing
 * @since 0.3.0
 */
export const options = (rest: string | undefined, allowed: OptionKinds): Record<string, string | boolean> | string => {
  const out: Record<string, string | boolean> = {}
  if (rest === undefined) return out
  const names = Object.entries(allowed).map(([name, kind]) => kind === "flag" ? name : `${name}=VALUE`)
  const expected = names.length === 0 ? "it takes no options" : `expected ${names.join(", ")}`
  for (const item of rest.split(",")) {
    const eq = item.indexOf("=")
    const key = (eq === -1 ? item : item.slice(0, eq)).trim()
    const value = eq === -1 ? undefined : item.slice(eq + 1).trim()
    const kind = Object.hasOwn(allowed, key) ? allowed[key] : undefined
    if (kind === undefined) return `unknown option ${JSON.stringify(key)} (${expected})`
    if (Object.hasOwn(out, key)) return `option ${key} is given twice`
    if (kind === "value") {
      if (value === undefined || value === "") return `option ${key} needs a value: ${key}=VALUE`
      out[key] = value
    } else if (value === undefined || value === "true" || value === "false") {
      out[key] = value !== "false"
    } else {
      return `expected ${key}, ${key}=true or ${key}=false, got ${JSON.stringify(item.trim())}`
    }
  }
  return out
}

/** `start` / `end` and `strip-punctuation`, present only when given, so a plain spec reads as it did. */
export const location = (o: Record<string, string | boolean>) => ({
  ...(o["start"] === true ? { at: "start" as const } : o["end"] === true ? { at: "end" as const } : undefined),
  ...(o["strip-punctuation"] === true ? { stripPunctuation: true } : undefined)
})

/** `0.01` (absolute) or `1%` (relative to the reference); a string result is the problem. */
export const toleranceOf = (text: string): Tolerance | string => {
  const m = /^(\d+(?:\.\d+)?(?:e[-+]?\d+)?)(%?)$/i.exec(text)
  // `Ne-2`, the nearest double to N/100 (`0.7 / 100` is not).
  const amount = m === null ? Number.NaN : Number(m[2] === "%" ? `${m[1]}e-2` : m[1])
  if (!Number.isFinite(amount)) {
    return `expected tolerance to be a number from 0 up (absolute, like 0.01) or a percentage of the reference (like 1%), got ${
      JSON.stringify(text)
    }`
  }
  return m![2] === "%" ? { _tag: "Relative", fraction: amount } : { _tag: "Absolute", amount }
}

/** `PATTERN` or `/PATTERN/FLAGS` (flags among `imsuvd`); a string result is the problem. */
export const regexOf = (text: string): RegExp | string => {
  if (text === "") return "the pattern after regex: is empty (write regex alone to use the task's reference)"
  const literal = /^\/([\s\S]+)\/([a-z]*)$/.exec(text)
  const source = literal === null ? text : literal[1]
  const flags = literal === null ? "" : literal[2]
  const refused = flags.replace(/[imsuvd]/g, "")
  if (refused !== "") return `flag ${refused[0]} is not accepted (accepted: i, m, s, u, v, d)`
  try {
    return new RegExp(source, flags)
  } catch (error) {
    return `not a regular expression: ${(error as Error).message}`
  }
}

/**
 * `--score SPEC`: which scorers a run or the `score` command applies. The
 * library takes the same specs (`Scorers.fromSpec`).
 *
 * `[NAME=]KIND[:OPTIONS]`, OPTIONS a comma-separated list of `key=value` or
 * bare flags (`flag` is `flag=true`):
 *
 * - `exact[:ignore-case][,trim=false][,start|end][,strip-punctuation]`: equals
 *   the reference (or, with start / end, the output opens / closes with it); trim is on by default
 * - `includes[:all|any][,ignore-case][,start|end][,strip-punctuation]`: contains
 *   the reference (any one of a list, or all)
 * - `regex`: the reference is the pattern; `regex:PATTERN` (all the rest,
 *   commas included) or `regex:/PATTERN/FLAGS` (flags among `imsuvd`); a
 *   trailing `,capture=N`, exactly, compares group N of the first match with
 *   the reference instead (0 the whole match)
 * - `numeric[:first|last|any][,tolerance=T]`: which number of the output (default
 *   last, or any one); T absolute (`0.01`) or relative to the reference (`1%`); default 0
 * - `json[:find]`: the output's JSON has the reference's keys and values; `find`
 *   also reads the first JSON object or array inside prose
 * - `json-schema:FILE[,find]`: the output's JSON is valid against the JSON
 *   Schema in FILE (all the rest of the spec but a trailing `,find`)
 * - `levenshtein[:threshold=X][,ignore-case][,trim=false]`: similarity >= X (default 0.8)
 * - `judge:BASE_URL`: an LLM grader on an OpenAI-compatible endpoint (needs a judge model)
 * - `module:PATH[#export]`: a user's function `(task, trial) => Score | number | boolean`
 * - `not:SPEC`: any other spec, negated (`Scorer.negate`); named `not-` and the
 *   other's name (`not-exact`), or `NAME=not:SPEC`
 *
 * A scorer's name is its kind (`exact`, `judge`), or for `module:` the export
 * name (the file's base name for the default export); `NAME=` chooses
 * another, so two scorers of one kind can run together:
 * `--score strict=exact --score loose=exact:ignore-case`.
 *
 * @since 0.1.0
 */
import { redactUrl } from "../internal/redact.ts"
import type { Tolerance } from "./Structured.ts"

/**
 * A parsed scorer spec. `shown` is the spec as messages may echo it (a
 * judge's URL only through `redactUrl`).
 *
 * @category models
 * @since 0.1.0
 */
export type ScorerSpec = { readonly name: string; readonly shown: string } & (
  | {
    readonly _tag: "Exact"
    readonly ignoreCase: boolean
    readonly trim: boolean
    readonly at?: "start" | "end" | undefined
    readonly stripPunctuation?: boolean | undefined
  }
  | {
    readonly _tag: "Includes"
    readonly mode: "any" | "all"
    readonly ignoreCase: boolean
    readonly at?: "start" | "end" | undefined
    readonly stripPunctuation?: boolean | undefined
  }
  | { readonly _tag: "Regex"; readonly pattern: RegExp | undefined; readonly capture?: number | undefined }
  | { readonly _tag: "Numeric"; readonly tolerance: Tolerance; readonly pick?: "first" | "last" | "any" | undefined }
  | { readonly _tag: "Json"; readonly find?: boolean | undefined }
  | { readonly _tag: "JsonSchema"; readonly file: string; readonly find: boolean }
  | { readonly _tag: "Levenshtein"; readonly threshold: number; readonly ignoreCase: boolean; readonly trim: boolean }
  | { readonly _tag: "Judge"; readonly baseUrl: string }
  | { readonly _tag: "Module"; readonly file: string; readonly exportName: string | undefined }
  | { readonly _tag: "Not"; readonly inner: ScorerSpec }
)

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/
const KINDS = "exact, includes, regex, numeric, json, json-schema:FILE, levenshtein, judge:BASE_URL, module:PATH[#export] or not:SPEC"

/**
 * Parses a spec; a string result is the problem, worded for `--score`.
 *
 * **Example** (Two exact scorers under their own names)
 *
 * ```ts
 * import { ScorerSpec } from "agent-trials"
 *
 * ScorerSpec.parse("loose=exact:ignore-case")
 * // { _tag: "Exact", name: "loose", shown: "loose=exact:ignore-case", ignoreCase: true, trim: true }
 * ScorerSpec.parse("numeric:tolerance=5%")
 * // { _tag: "Numeric", name: "numeric", ..., tolerance: { _tag: "Relative", fraction: 0.05 } }
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parse = (spec: string): ScorerSpec | string => {
  const eq = spec.indexOf("=")
  const named = eq > 0 && !spec.slice(0, eq).includes(":") && NAME.test(spec.slice(0, eq))
  const given = named ? spec.slice(0, eq) : undefined
  const body = named ? spec.slice(eq + 1) : spec
  const prefix = given === undefined ? "" : `${given}=`
  const parsed = parseBody(body)
  if ("problem" in parsed) return `--score ${prefix === "" && parsed.shown === "" ? `""` : `${prefix}${parsed.shown}`}: ${parsed.problem}`
  return { ...parsed, name: given ?? parsed.name, shown: `${prefix}${parsed.shown}` }
}

// A spec without its `NAME=`: the spec, or the problem and the body as
// messages may echo it.
type Parsed = ScorerSpec | { readonly problem: string; readonly shown: string }

const parseBody = (body: string): Parsed => {
  const colon = body.indexOf(":")
  const kind = colon === -1 ? body : body.slice(0, colon)
  const rest = colon === -1 ? undefined : body.slice(colon + 1)
  const shown = kind === "judge" ? `judge:${redactUrl(rest ?? "")}` : body
  const bad = (problem: string) => ({ problem, shown })
  const base = (name: string) => ({ name, shown })

  switch (kind) {
    case "exact": {
      const o = options(rest, { "ignore-case": "flag", trim: "flag", start: "flag", end: "flag", "strip-punctuation": "flag" })
      if (typeof o === "string") return bad(o)
      if (o["start"] === true && o["end"] === true) return bad("start and end are exclusive")
      return { _tag: "Exact", ...base("exact"), ignoreCase: o["ignore-case"] === true, trim: o["trim"] !== false, ...location(o) }
    }
    case "includes": {
      const o = options(rest, { all: "flag", any: "flag", "ignore-case": "flag", start: "flag", end: "flag", "strip-punctuation": "flag" })
      if (typeof o === "string") return bad(o)
      if (o["all"] === true && o["any"] === true) return bad("all and any are exclusive")
      if (o["start"] === true && o["end"] === true) return bad("start and end are exclusive")
      return {
        _tag: "Includes",
        ...base("includes"),
        mode: o["all"] === true ? "all" : "any",
        ignoreCase: o["ignore-case"] === true,
        ...location(o)
      }
    }
    case "regex": {
      if (rest === undefined) return { _tag: "Regex", ...base("regex"), pattern: undefined }
      // A trailing `,capture=N`, exactly, is the option; `/PATTERN/` keeps a pattern that ends so.
      const option = /,capture=(\d+)$/.exec(rest)
      const pattern = regexOf(option === null ? rest : rest.slice(0, option.index))
      if (typeof pattern === "string") return bad(option === null ? pattern : pattern.replace("write regex alone", "capture=N needs a pattern; write regex alone"))
      if (option === null) return { _tag: "Regex", ...base("regex"), pattern }
      const capture = Number(option[1])
      // Matching the empty alternative gives one slot per group of the pattern.
      const groups = new RegExp(`${pattern.source}|`, pattern.flags).exec("")!.length - 1
      if (capture > groups) return bad(`capture=${capture}, but the pattern has ${groups} group${groups === 1 ? "" : "s"}`)
      return { _tag: "Regex", ...base("regex"), pattern, capture }
    }
    case "numeric": {
      const o = options(rest, { tolerance: "value", first: "flag", last: "flag", any: "flag" })
      if (typeof o === "string") return bad(o)
      const picks = (["first", "last", "any"] as const).filter((p) => o[p] === true)
      if (picks.length > 1) return bad("first, last and any are exclusive")
      const tolerance = o["tolerance"] === undefined ? { _tag: "Absolute" as const, amount: 0 } : toleranceOf(o["tolerance"] as string)
      if (typeof tolerance === "string") return bad(tolerance)
      return { _tag: "Numeric", ...base("numeric"), tolerance, ...(picks.length === 1 ? { pick: picks[0] } : undefined) }
    }
    case "json": {
      const o = options(rest, { find: "flag" })
      if (typeof o === "string") return bad(o)
      return { _tag: "Json", ...base("json"), ...(o["find"] === true ? { find: true } : undefined) }
    }
    case "json-schema": {
      // The file is all the rest; a trailing `,find`, exactly, is the option.
      const target = rest ?? ""
      const find = target.endsWith(",find")
      const file = find ? target.slice(0, -",find".length) : target
      if (file === "") return bad("expected json-schema:FILE[,find], FILE a JSON Schema")
      return { _tag: "JsonSchema", ...base("json-schema"), file, find }
    }
    case "levenshtein": {
      const o = options(rest, { threshold: "value", "ignore-case": "flag", trim: "flag" })
      if (typeof o === "string") return bad(o)
      const text = o["threshold"] as string | undefined
      const threshold = text === undefined ? 0.8 : /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
      if (!(threshold >= 0 && threshold <= 1)) return bad(`expected threshold to be a number from 0 to 1, got ${JSON.stringify(text)}`)
      return { _tag: "Levenshtein", ...base("levenshtein"), threshold, ignoreCase: o["ignore-case"] === true, trim: o["trim"] !== false }
    }
    case "judge": {
      const url = rest ?? ""
      return URL.canParse(url) && /^https?:/i.test(url)
        ? { _tag: "Judge", ...base("judge"), baseUrl: url }
        : bad("expected judge:BASE_URL with an http(s) URL, e.g. judge:https://api.openai.com/v1")
    }
    case "module": {
      const target = rest ?? ""
      const hash = target.lastIndexOf("#")
      const file = hash === -1 ? target : target.slice(0, hash)
      const exportName = hash === -1 ? undefined : target.slice(hash + 1)
      if (file === "") return bad("expected module:PATH[#export]")
      if (exportName === "") return bad("the export name after # is empty")
      const stem = file.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "")
      return { _tag: "Module", ...base(exportName ?? (stem === "" ? "module" : stem)), file, exportName }
    }
    case "not": {
      if (rest === undefined || rest === "") return bad("expected not:SPEC, e.g. not:exact or not:includes:ignore-case")
      const eq = rest.indexOf("=")
      if (eq > 0 && !rest.slice(0, eq).includes(":") && NAME.test(rest.slice(0, eq))) {
        // The rest may be a judge's URL: echo the name alone.
        return { problem: "the name goes before not:, as NAME=not:SPEC", shown: `not:${rest.slice(0, eq)}=...` }
      }
      const inner = parseBody(rest)
      if ("problem" in inner) return { problem: inner.problem, shown: `not:${inner.shown}` }
      return { _tag: "Not", name: `not-${inner.name}`, shown: `not:${inner.shown}`, inner }
    }
    default:
      // A URL given where a kind belongs may carry credentials: echo the kind alone.
      return {
        problem: `unknown scorer ${JSON.stringify(kind)} (expected ${KINDS}, optionally as NAME=SPEC)`,
        shown: /[@/]/.test(body) ? `${kind}:...` : body
      }
  }
}

// Present only when given, so a plain spec reads as it did.
const location = (o: Record<string, string | boolean>) => ({
  ...(o["start"] === true ? { at: "start" as const } : o["end"] === true ? { at: "end" as const } : undefined),
  ...(o["strip-punctuation"] === true ? { stripPunctuation: true } : undefined)
})

type OptionKinds = Record<string, "flag" | "value">

// `a,b=1` -> { a: true, b: "1" }; a flag also takes `=true` / `=false`.
const options = (rest: string | undefined, allowed: OptionKinds): Record<string, string | boolean> | string => {
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

const toleranceOf = (text: string): Tolerance | string => {
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

const regexOf = (text: string): RegExp | string => {
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

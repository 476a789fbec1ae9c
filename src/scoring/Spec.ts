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
 * - `check:COMMAND`: a shell command run in the trial's workspace (a run with
 *   `--workspace`) exits 0; the last line of its stdout, a number from 0 to 1, is the value
 * - `module:PATH[#export]`: a user's function `(task, trial) => Score | number | boolean`
 * - `not:SPEC`: any other spec, negated (`Scorer.negate`); named `not-` and the
 *   other's name (`not-exact`), or `NAME=not:SPEC`
 *
 * A scorer's name is its kind (`exact`, `judge`), or for `module:` the export
 * name (the file's base name for the default export); `NAME=` chooses
 * another, so two scorers of one kind can run together:
 * `--score strict=exact --score loose=exact:ignore-case`.
 *
 * These are the built-in kinds (`ScorerKinds.builtIn`); `parse(spec, kinds)`
 * reads the kinds given instead, a kind of one's own among them.
 *
 * @since 0.1.0
 */
import type { Problem, ScorerKind, SpecBase } from "./Kind.ts"
import { NAME } from "./internal/specOptions.ts"
import type { CheckSpec } from "./kinds/check.ts"
import type { ExactSpec } from "./kinds/exact.ts"
import type { IncludesSpec } from "./kinds/includes.ts"
import type { JsonSpec } from "./kinds/json.ts"
import type { JsonSchemaSpec } from "./kinds/jsonSchema.ts"
import type { JudgeSpec } from "./kinds/judge.ts"
import type { LevenshteinSpec } from "./kinds/levenshtein.ts"
import type { ModuleSpec } from "./kinds/module.ts"
import type { NotSpec } from "./kinds/not.ts"
import type { NumericSpec } from "./kinds/numeric.ts"
import type { RegexSpec } from "./kinds/regex.ts"
import type { StepsSpec } from "./kinds/steps.ts"
import type { ToolArgsSpec } from "./kinds/toolArgs.ts"
import type { ToolCalledSpec } from "./kinds/toolCalled.ts"
import type { ToolCallsSpec } from "./kinds/toolCalls.ts"
import type { ToolNotCalledSpec } from "./kinds/toolNotCalled.ts"
import type { ToolSequenceSpec } from "./kinds/toolSequence.ts"
import * as ScorerKinds from "./ScorerKinds.ts"

/**
 * A spec of one of the built-in kinds (`ScorerKinds.builtIn`).
 *
 * @category models
 * @since 0.3.0
 */
export type BuiltInSpec =
  | ExactSpec
  | IncludesSpec
  | RegexSpec
  | NumericSpec
  | JsonSpec
  | JsonSchemaSpec
  | LevenshteinSpec
  | JudgeSpec
  | ToolCalledSpec
  | ToolNotCalledSpec
  | ToolSequenceSpec
  | ToolArgsSpec
  | StepsSpec
  | ToolCallsSpec
  | CheckSpec
  | ModuleSpec
  | NotSpec

/**
 * A parsed scorer spec: a built-in one, or one of a kind given to `parse`.
 * `shown` is the spec as messages may echo it (a judge's URL only through
 * `redactUrl`).
 *
 * @category models
 * @since 0.1.0
 */
export type ScorerSpec = BuiltInSpec | SpecBase

/**
 * Parses a spec with `kinds` (default the built-in ones); a string result
 * is the problem, worded for `--score`.
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
export const parse = (spec: string, kinds: ReadonlyArray<ScorerKind> = ScorerKinds.builtIn): ScorerSpec | string => {
  const eq = spec.indexOf("=")
  const named = eq > 0 && !spec.slice(0, eq).includes(":") && NAME.test(spec.slice(0, eq))
  const given = named ? spec.slice(0, eq) : undefined
  const body = named ? spec.slice(eq + 1) : spec
  const prefix = given === undefined ? "" : `${given}=`
  const parsed = parseBody(body, kinds)
  if ("problem" in parsed) return `--score ${prefix === "" && parsed.shown === "" ? `""` : `${prefix}${parsed.shown}`}: ${parsed.problem}`
  return { ...parsed, name: given ?? parsed.name, shown: `${prefix}${parsed.shown}` }
}

// A spec without its `NAME=`: the spec, or the problem and the body as
// messages may echo it.
const parseBody = (body: string, kinds: ReadonlyArray<ScorerKind>): SpecBase | Problem => {
  const colon = body.indexOf(":")
  const word = colon === -1 ? body : body.slice(0, colon)
  const rest = colon === -1 ? undefined : body.slice(colon + 1)
  const kind = kinds.find((k) => k.kind === word)
  if (kind === undefined) {
    // A URL given where a kind belongs may carry credentials: echo the kind alone.
    return {
      problem: `unknown scorer ${JSON.stringify(word)} (expected ${ScorerKinds.expected(kinds)}, optionally as NAME=SPEC)`,
      shown: /[@/]/.test(body) ? `${word}:...` : body
    }
  }
  const shown = kind.shown?.(rest) ?? body
  return kind.parse(rest, {
    shown,
    base: (name) => ({ name, shown }),
    bad: (problem) => ({ problem, shown }),
    parseBody: (inner) => parseBody(inner, kinds)
  })
}

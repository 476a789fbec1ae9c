/**
 * The scorer kinds `--score` knows, and what is derived from them: the
 * `--score` help, the list of kinds in the unknown-kind message, the docs
 * table, and a spec's text in a run's definition. Adding a kind is one file
 * (a `ScorerKind`) and one entry in a list: `[...ScorerKinds.builtIn, mine]`,
 * given to `ScorerSpec.parse` and to `Scorers.fromSpecs` as `kinds`.
 *
 * @since 0.3.0
 */
import type { RecordDefaults, ScorerKind, SpecBase } from "./Kind.ts"
import * as check from "./kinds/check.ts"
import * as exact from "./kinds/exact.ts"
import * as includes from "./kinds/includes.ts"
import * as json from "./kinds/json.ts"
import * as jsonSchema from "./kinds/jsonSchema.ts"
import * as judge from "./kinds/judge.ts"
import * as levenshtein from "./kinds/levenshtein.ts"
import * as moduleScorer from "./kinds/module.ts"
import * as not from "./kinds/not.ts"
import * as numeric from "./kinds/numeric.ts"
import * as regex from "./kinds/regex.ts"
import * as steps from "./kinds/steps.ts"
import * as toolArgs from "./kinds/toolArgs.ts"
import * as toolCalled from "./kinds/toolCalled.ts"
import * as toolCalls from "./kinds/toolCalls.ts"
import * as toolNotCalled from "./kinds/toolNotCalled.ts"
import * as toolSequence from "./kinds/toolSequence.ts"

export type { BuildContext, BuildOptions, ParseContext, Problem, RecordDefaults, ScorerKind, SpecBase, World } from "./Kind.ts"
export { type OptionKinds, options } from "./internal/specOptions.ts"

/**
 * The built-in kinds, in the order the help and the docs list them.
 *
 * @category kinds
 * @since 0.3.0
 */
export const builtIn: ReadonlyArray<ScorerKind> = [
  exact.kind,
  includes.kind,
  regex.kind,
  numeric.kind,
  json.kind,
  jsonSchema.kind,
  levenshtein.kind,
  judge.kind,
  toolCalled.kind,
  toolNotCalled.kind,
  toolSequence.kind,
  toolArgs.kind,
  steps.kind,
  toolCalls.kind,
  check.kind,
  moduleScorer.kind,
  not.kind
]

/**
 * The kinds as the `--score` help lists them: `exact | includes | regex[:PATTERN] | ...`.
 *
 * @category derived
 * @since 0.3.0
 */
export const help = (kinds: ReadonlyArray<ScorerKind>): string => kinds.map((k) => k.help).join(" | ")

/**
 * The kinds as the unknown-kind message lists them: `exact, includes, ..., module:PATH[#export] or not:SPEC`.
 *
 * @category derived
 * @since 0.3.0
 */
export const expected = (kinds: ReadonlyArray<ScorerKind>): string => {
  const usages = kinds.map((k) => k.usage)
  return usages.length <= 1 ? usages.join("") : `${usages.slice(0, -1).join(", ")} or ${usages[usages.length - 1]}`
}

/**
 * The docs table of the kinds, in Markdown: one row per kind, its `syntax`
 * (or its `help` as code) and its `doc`, with `|` escaped.
 *
 * **Example** (The README's table)
 *
 * ```ts
 * import { ScorerKinds } from "agent-trials"
 *
 * console.log(ScorerKinds.docsTable(ScorerKinds.builtIn))
 * // | Spec | Passes when |
 * // | --- | --- |
 * // | `exact[:ignore-case][,trim=false][,start\|end][,strip-punctuation]` | the output equals ...
 * ```
 *
 * @category derived
 * @since 0.3.0
 */
export const docsTable = (kinds: ReadonlyArray<ScorerKind>): string =>
  [
    "| Spec | Passes when |",
    "| --- | --- |",
    ...kinds.map((k) => `| ${cell(k.syntax ?? `\`${k.help}\``)} | ${cell(k.doc)} |`)
  ].join("\n")

const cell = (text: string) => text.replaceAll("|", "\\|")

/**
 * The kind whose specs carry this `_tag`, if one of `kinds` does.
 *
 * @category lookups
 * @since 0.3.0
 */
export const ofSpec = (spec: SpecBase, kinds: ReadonlyArray<ScorerKind> = builtIn): ScorerKind | undefined =>
  kinds.find((k) => k.tag === spec._tag)

/**
 * A spec's text in a run's definition: its kind's `recorded` (a `module:`
 * path resolved by `resolve`, `--expected-tools` from `defaults`), or the
 * spec as shown.
 *
 * @category derived
 * @since 0.3.0
 */
export const recorded = (
  spec: SpecBase,
  resolve: (file: string) => string,
  kinds: ReadonlyArray<ScorerKind> = builtIn,
  defaults?: RecordDefaults
): string => ofSpec(spec, kinds)?.recorded?.(spec, resolve, defaults) ?? spec.shown

/**
 * Whether a spec asks the run's judge model (`judge:`), so the model belongs
 * to the run's definition.
 *
 * @category derived
 * @since 0.3.0
 */
export const usesJudgeModel = (spec: SpecBase, kinds: ReadonlyArray<ScorerKind> = builtIn): boolean =>
  ofSpec(spec, kinds)?.usesJudgeModel === true

/**
 * `not:SPEC`: any other spec, negated (`Scorer.negate`); named `not-` and the
 * other's name (`not-exact`), or `NAME=not:SPEC`.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { negate } from "../../domain/Scorer.ts"
import { NAME } from "../internal/specOptions.ts"
import { ScorerSpecError, type ScorerKind, type SpecBase } from "../Kind.ts"

/**
 * A parsed `not` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface NotSpec extends SpecBase {
  readonly _tag: "Not"
  readonly inner: SpecBase
}

/**
 * The `not` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<NotSpec> = {
  kind: "not",
  tag: "Not",
  usage: "not:SPEC",
  help: "not:SPEC",
  doc: "the other spec does not pass: value `1 - v`, `passed` flipped, an error stays an error; `no-leak=not:includes:ignore-case`",
  parse: (rest, { bad, parseBody }) => {
    if (rest === undefined || rest === "") return bad("expected not:SPEC, e.g. not:exact or not:includes:ignore-case")
    const eq = rest.indexOf("=")
    if (eq > 0 && !rest.slice(0, eq).includes(":") && NAME.test(rest.slice(0, eq))) {
      // The rest may be a judge's URL: echo the name alone.
      return { problem: "the name goes before not:, as NAME=not:SPEC", shown: `not:${rest.slice(0, eq)}=...` }
    }
    const inner = parseBody(rest)
    if ("problem" in inner) return { problem: inner.problem, shown: `not:${inner.shown}` }
    return { _tag: "Not", name: `not-${inner.name}`, shown: `not:${inner.shown}`, inner }
  },
  build: (spec, { build }) =>
    build(spec.inner).pipe(
      Effect.map((inner) => negate(inner, spec.name)),
      // The inner spec's message names it: name the whole spec instead.
      Effect.mapError((e) => renamed(e, `--score ${spec.inner.shown}`, `--score ${spec.shown}`))
    )
}

// The first mention of the inner spec, in `where` (worded first) or else in
// `problem`, names the whole spec.
const renamed = (e: ScorerSpecError, inner: string, whole: string): ScorerSpecError =>
  e.where !== undefined && e.where.includes(inner)
    ? new ScorerSpecError({ where: e.where.replace(inner, whole), problem: e.problem })
    : new ScorerSpecError({ ...(e.where === undefined ? undefined : { where: e.where }), problem: e.problem.replace(inner, whole) })

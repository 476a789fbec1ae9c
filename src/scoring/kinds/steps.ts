/**
 * `steps:max=N[,min=N]`.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { countOf } from "../internal/pathSpec.ts"
import { options } from "../internal/specOptions.ts"
import * as PathScorers from "../PathScorers.ts"

/**
 * A parsed `steps` spec.
 *
 * @category models
 * @since 0.5.0
 */
export interface StepsSpec extends SpecBase {
  readonly _tag: "Steps"
  readonly max?: number | undefined
  readonly min?: number | undefined
}

/**
 * The `steps` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: ScorerKind<StepsSpec> = {
  kind: "steps",
  tag: "Steps",
  usage: "steps:max=N",
  help: "steps:max=N[,min=N]",
  doc: "the trajectory has at most N steps (model turns, what `--max-turns` bounds), and at least `min`",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { max: "value", min: "value" })
    if (typeof o === "string") return bad(o)
    const max = countOf(o, "max")
    const min = countOf(o, "min")
    if (typeof max === "string") return bad(max)
    if (typeof min === "string") return bad(min)
    if (max === undefined && min === undefined) return bad("expected steps:max=N (or min=N, or both)")
    if ((min ?? 0) > (max ?? Number.POSITIVE_INFINITY)) return bad(`min=${min} is above max=${max}`)
    return {
      _tag: "Steps",
      ...base("steps"),
      ...(max === undefined ? undefined : { max }),
      ...(min === undefined ? undefined : { min })
    }
  },
  build: (spec) => Effect.succeed(PathScorers.steps({ name: spec.name, max: spec.max, min: spec.min }))
}

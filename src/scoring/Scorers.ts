/**
 * Scorers from `--score SPEC` text (see `ScorerSpec` for the syntax), as the
 * CLI builds them and a library user may: each spec checked and its scorer
 * made before any trial is scored, with messages that name `--score SPEC`.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { HttpClient } from "effect/http"
import type { Scorer } from "../domain/Scorer.ts"
import { type BuildOptions, type ScorerKind, ScorerSpecError } from "./Kind.ts"
import * as ScorerKinds from "./ScorerKinds.ts"
import * as Spec from "./Spec.ts"

export { ScorerSpecError } from "./Kind.ts"

/**
 * What building a scorer may need besides its spec: `cwd`, the judge's
 * model, key, timeout and retries, and the kinds the specs are read with
 * (default `ScorerKinds.builtIn`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends BuildOptions {
  /** The kinds specs are parsed and built with; `ScorerKinds.builtIn` when undefined. */
  readonly kinds?: ReadonlyArray<ScorerKind> | undefined
}

/**
 * Builds the scorer of one spec.
 *
 * **Example** (Scorers for a run)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Scorers } from "agent-trials"
 *
 * const scorers = Scorers.fromSpecs(["exact:ignore-case", "numeric:tolerance=1%"], { cwd: process.cwd() })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromSpec = (
  spec: string,
  options: Options
): Effect.Effect<Scorer<HttpClient.HttpClient>, ScorerSpecError> => {
  const parsed = Spec.parse(spec, options.kinds)
  return typeof parsed === "string" ? Effect.fail(new ScorerSpecError({ problem: parsed })) : build(parsed, options)
}

/**
 * Builds the scorers of several specs, refusing two with one name.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromSpecs = (
  specs: ReadonlyArray<string>,
  options: Options
): Effect.Effect<ReadonlyArray<Scorer<HttpClient.HttpClient>>, ScorerSpecError> =>
  Effect.gen(function*() {
    const parsed: Array<Spec.ScorerSpec> = []
    for (const spec of specs) {
      const p = Spec.parse(spec, options.kinds)
      if (typeof p === "string") return yield* new ScorerSpecError({ problem: p })
      const twin = parsed.find((q) => q.name === p.name)
      if (twin !== undefined) {
        return yield* new ScorerSpecError({
          problem: `--score ${twin.shown} and --score ${p.shown} are both named ${JSON.stringify(p.name)}: ` +
            `give one a name of its own with --score NAME=SPEC`
        })
      }
      parsed.push(p)
    }
    const scorers: Array<Scorer<HttpClient.HttpClient>> = []
    for (const p of parsed) scorers.push(yield* build(p, options))
    return scorers
  })

const build = (
  spec: Spec.ScorerSpec,
  options: Options
): Effect.Effect<Scorer<HttpClient.HttpClient>, ScorerSpecError> => {
  const kind = ScorerKinds.ofSpec(spec, options.kinds)
  // Only a spec made by hand, not by `parse` with these kinds, has no kind.
  return kind === undefined
    ? Effect.fail(new ScorerSpecError({ where: `--score ${spec.shown}`, problem: `no scorer kind makes ${spec._tag} specs` }))
    : kind.build(spec, { options, build: (inner) => build(inner, options) })
}

/**
 * Scorers from `--score SPEC` text (see `ScorerSpec` for the syntax), as the
 * CLI builds them and a library user may: each spec checked and its scorer
 * made before any trial is scored, with messages that name `--score SPEC`.
 *
 * @since 0.1.0
 */
import { Duration, Effect, type Redacted, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { keyFromConfig } from "../internal/apiKey.ts"
import type * as Policy from "../runner/Policy.ts"
import * as Judge from "./Judge.ts"
import * as JsonSchema from "./JsonSchema.ts"
import * as Match from "./Match.ts"
import * as ModuleScorer from "./ModuleScorer.ts"
import { negate, type Scorer } from "../domain/Scorer.ts"
import * as Spec from "./Spec.ts"
import * as Structured from "./Structured.ts"

/**
 * A `--score` spec that cannot be parsed or built (an unknown kind, a bad
 * option, a module without the export, a judge without a model, two scorers
 * with one name).
 *
 * @category errors
 * @since 0.1.0
 */
export class ScorerSpecError extends Schema.TaggedError<ScorerSpecError>()("ScorerSpecError", {
  message: Schema.String
}) {}

/**
 * What building a scorer may need besides its spec.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Where a `module:` path is resolved from. */
  readonly cwd: string
  /** The model a `judge:` asks (the CLI's `--judge-model`). */
  readonly judgeModel?: string | undefined
  /** The judge's key; `OPENAI_API_KEY` (when set and not empty) when undefined. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Per judge attempt (default 60 s) and per `module:` call (default none). */
  readonly timeout?: Duration.Input | undefined
  /** The judge's retries; `Policy.defaultRetry` when undefined. */
  readonly retry?: Policy.RetryPolicy | undefined
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
  const parsed = Spec.parse(spec)
  return typeof parsed === "string" ? Effect.fail(new ScorerSpecError({ message: parsed })) : build(parsed, options)
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
      const p = Spec.parse(spec)
      if (typeof p === "string") return yield* new ScorerSpecError({ message: p })
      const twin = parsed.find((q) => q.name === p.name)
      if (twin !== undefined) {
        return yield* new ScorerSpecError({
          message: `--score ${twin.shown} and --score ${p.shown} are both named ${JSON.stringify(p.name)}: ` +
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
  const { name } = spec
  switch (spec._tag) {
    case "Not":
      return build(spec.inner, options).pipe(
        Effect.map((inner) => negate(inner, name)),
        // The inner spec's message names it: name the whole spec instead.
        Effect.mapError((e) => new ScorerSpecError({ message: e.message.replace(`--score ${spec.inner.shown}`, `--score ${spec.shown}`) }))
      )
    case "Exact":
      return Effect.succeed(
        Match.exact({ name, ignoreCase: spec.ignoreCase, trim: spec.trim, at: spec.at, stripPunctuation: spec.stripPunctuation })
      )
    case "Includes":
      return Effect.succeed(
        Match.includes({ name, mode: spec.mode, ignoreCase: spec.ignoreCase, at: spec.at, stripPunctuation: spec.stripPunctuation })
      )
    case "Regex":
      return Effect.succeed(Match.regex({ name, pattern: spec.pattern, capture: spec.capture }))
    case "Levenshtein":
      return Effect.succeed(
        Match.levenshtein({ name, threshold: spec.threshold, ignoreCase: spec.ignoreCase, trim: spec.trim })
      )
    case "Numeric":
      return Effect.succeed(Structured.numeric({ name, tolerance: spec.tolerance, pick: spec.pick }))
    case "Json":
      return Effect.succeed(Structured.json({ name, find: spec.find }))
    case "JsonSchema":
      return JsonSchema.fromFile(spec.file, { name, find: spec.find, cwd: options.cwd }).pipe(
        Effect.mapError((e) => new ScorerSpecError({ message: `--score ${spec.shown}: ${e.message}` }))
      )
    case "Module":
      return ModuleScorer.load(spec.file, spec.exportName, { name, cwd: options.cwd, timeout: options.timeout }).pipe(
        Effect.mapError((e) => new ScorerSpecError({ message: `--score ${spec.shown}: ${e.message}` }))
      )
    case "Judge": {
      const model = options.judgeModel
      if (model === undefined || model === "") {
        return Effect.fail(new ScorerSpecError({ message: `--score ${spec.shown} needs a judge model (--judge-model NAME)` }))
      }
      return Effect.map(
        options.apiKey === undefined
          ? Effect.mapError(
            keyFromConfig,
            (e) => new ScorerSpecError({ message: `--score ${spec.shown}: cannot read OPENAI_API_KEY: ${e.message}` })
          )
          : Effect.succeed(options.apiKey),
        (apiKey) =>
          Judge.make({
            name,
            baseUrl: spec.baseUrl,
            model,
            apiKey,
            timeout: options.timeout,
            retry: options.retry
          })
      )
    }
  }
}


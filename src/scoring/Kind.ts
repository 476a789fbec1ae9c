/**
 * The port a scorer kind implements: the word before `:` in a `--score`
 * spec, how its rest is parsed into a spec, how a spec becomes a scorer, and
 * the words the CLI's help, its messages and the docs table show for it.
 * `ScorerKinds.builtIn` lists the built-in kinds; a kind of one's own is one
 * more entry in the list given to `ScorerSpec.parse` and `Scorers.fromSpecs`.
 *
 * @since 0.3.0
 */
import { type Duration, type Effect, type Redacted, Schema } from "effect"
import type { HttpClient } from "effect/http"
import type { Scorer } from "../domain/Scorer.ts"
import type * as Request from "../domain/Request.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"
import type * as Policy from "../runner/Policy.ts"
import type { Setting } from "../sandbox/Setting.ts"
import { placedFields, placedMessage } from "../domain/internal/where.ts"

/**
 * A `--score` spec that cannot be parsed or built (an unknown kind, a bad
 * option, a module without the export, a judge without a model, two scorers
 * with one name). `where` is the flag and spec at fault (`--score
 * module:s.ts`) when the problem is worded under it, and `problem` what is
 * wrong; the message is the two joined.
 *
 * @category errors
 * @since 0.1.0
 */
export class ScorerSpecError extends Schema.TaggedError<ScorerSpecError>()("ScorerSpecError", {
  ...placedFields
}) {
  override get message(): string {
    return placedMessage(this)
  }
}

/**
 * What every parsed spec carries: its kind's `tag`, the scorer's name and
 * `shown`, the spec as messages may echo it (credentials redacted).
 *
 * @category models
 * @since 0.3.0
 */
export interface SpecBase {
  readonly _tag: string
  readonly name: string
  readonly shown: string
}

/**
 * A spec refused: the problem, and the spec as the message echoes it.
 *
 * @category models
 * @since 0.3.0
 */
export interface Problem {
  readonly problem: string
  readonly shown: string
}

/**
 * What a kind's `parse` is given besides the rest of its spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface ParseContext {
  /** The spec without its `NAME=`, as messages may echo it (the kind's `shown`). */
  readonly shown: string
  /** The name and shown a spec of this kind carries: `{ _tag: "Exact", ...context.base("exact"), ... }`. */
  readonly base: (name: string) => { readonly name: string; readonly shown: string }
  /** A refusal, echoing `shown`: `--score SPEC: problem`. */
  readonly bad: (problem: string) => Problem
  /** Parses another spec (without `NAME=`) with the same kinds, for a kind that wraps one (`not:SPEC`). */
  readonly parseBody: (body: string) => SpecBase | Problem
}

/**
 * What building a scorer may need besides its spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface BuildOptions {
  /** Where a `module:` path is resolved from. */
  readonly cwd: string
  /** The model a `judge:` asks (the CLI's `--judge-model`). */
  readonly judgeModel?: string | undefined
  /** `--judge-system`, `--judge-temperature`, ...: what a judge's requests carry besides its prompt. */
  readonly judgeRequest?: Request.Options | undefined
  /** The judge's key; `OPENAI_API_KEY` (when set and not empty) when undefined. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Per judge attempt (default 60 s) and per `module:` call (default none). */
  readonly timeout?: Duration.Input | undefined
  /** The judge's retries; `Policy.defaultRetry` when undefined. */
  readonly retry?: Policy.RetryPolicy | undefined
  /** Where `tool-calls` reads a task's expected calls (the CLI's `--expected-tools`); `reference.tool_calls` when undefined. */
  readonly expectedTools?: string | undefined
  /** The trials' worlds (a run with `--workspace`): what a `check:` runs in. Undefined elsewhere, where `check:` is refused. */
  readonly world?: World | undefined
}

/**
 * Where a trial's processes run once its agent is done: the run's sandbox
 * setting (`--sandbox`, `--sandbox-timeout`, ...) and the trial's
 * workspace, which lives until the trial is scored (undefined for a trial
 * that has none).
 *
 * @category models
 * @since 0.9.0
 */
export interface World {
  readonly sandbox: Setting
  readonly workspaceOf: (task: AgentEvalTask, trial: AgentEvalTrial) => string | undefined
}

/**
 * The run's flags a spec's text in a run's definition may depend on.
 *
 * @category models
 * @since 0.5.0
 */
export interface RecordDefaults {
  /** `--expected-tools`. */
  readonly expectedTools?: string | undefined
}

/**
 * What a kind's `build` is given besides its spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface BuildContext {
  readonly options: BuildOptions
  /** Builds another spec with the same kinds, for a kind that wraps one (`not:SPEC`). */
  readonly build: (spec: SpecBase) => Effect.Effect<Scorer<HttpClient.HttpClient>, ScorerSpecError>
}

/**
 * A scorer kind: `kind` is the word before `:` (`exact`, `json-schema`),
 * `tag` the `_tag` of the specs its `parse` returns (how a spec finds its
 * kind again). `usage` is its entry in the unknown-kind message
 * (`json-schema:FILE`), `help` in the `--score` help (`regex[:PATTERN]`);
 * `syntax` (default `help` as code) and `doc` are its row of the docs table,
 * in Markdown. The optional hooks: `shown`, the spec as messages may echo it
 * (default the spec as written); `recorded`, its text in a run's definition
 * (default `shown`), given a function resolving a path against the run's
 * directory and the run's flags it may depend on (`--expected-tools`); `usesJudgeModel`, whether `--judge-model` belongs to the run's
 * definition.
 *
 * **Example** (A kind of one's own: `short[:max=N]`)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Scorer, ScorerKinds } from "agent-trials"
 *
 * interface ShortSpec extends ScorerKinds.SpecBase {
 *   readonly _tag: "Short"
 *   readonly max: number
 * }
 *
 * export const short: ScorerKinds.ScorerKind<ShortSpec> = {
 *   kind: "short",
 *   tag: "Short",
 *   usage: "short",
 *   help: "short[:max=N]",
 *   doc: "the output has at most N characters (default 280)",
 *   parse: (rest, context) => {
 *     const max = rest === undefined ? 280 : Number(rest.replace(/^max=/, ""))
 *     return Number.isInteger(max) ? { _tag: "Short", ...context.base("short"), max } : context.bad("expected short:max=N")
 *   },
 *   build: (spec) =>
 *     Effect.succeed(Scorer.make(spec.name, (_task, output) => Effect.succeed(Scorer.verdict(output.length <= spec.max))))
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface ScorerKind<S extends SpecBase = SpecBase> {
  readonly kind: string
  readonly tag: S["_tag"]
  readonly usage: string
  readonly help: string
  readonly syntax?: string | undefined
  readonly doc: string
  readonly usesJudgeModel?: boolean | undefined
  shown?(rest: string | undefined): string
  parse(rest: string | undefined, context: ParseContext): S | Problem
  build(spec: S, context: BuildContext): Effect.Effect<Scorer<HttpClient.HttpClient>, ScorerSpecError>
  recorded?(spec: S, resolve: (file: string) => string, defaults?: RecordDefaults): string
}

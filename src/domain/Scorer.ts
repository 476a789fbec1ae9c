/**
 * A scorer: a name and a function from a completed trial (and its task) to a
 * `Score`. Its `score` never fails: whatever keeps a scorer from deciding (a
 * missing reference, a throw, a timeout, an unusable grade) becomes a score
 * with `error`, `value` 0 and `passed` false, so a scorer can never crash a
 * run or lose a trial.
 *
 * The `Score` Schema itself is `Trial.Score`, beside the trial record that
 * holds it.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Effect, Schema } from "effect"
import type { AgentEvalTask, AgentEvalTrial, Score } from "./Trial.ts"
import { describe as describeCause } from "../internal/describe.ts"
import * as Usage from "./Usage.ts"

/**
 * A named scorer. `score` assumes a completed trial; a trial without an
 * output gets a score with a `NoOutput` error.
 *
 * @category models
 * @since 0.1.0
 */
export interface Scorer<R = never> {
  readonly name: string
  readonly score: (task: AgentEvalTask, trial: AgentEvalTrial) => Effect.Effect<Score, never, R>
}

/**
 * The task has no `reference` and the scorer needs one: `task_id` is the
 * task, `scorer` the scorer that needs it, and `field` where it looked when
 * not the whole reference (the tool-calls scorer's `reference.tool_calls`).
 *
 * @category errors
 * @since 0.1.0
 */
export class MissingReference extends Schema.TaggedError<MissingReference>()("MissingReference", {
  task_id: Schema.String,
  scorer: Schema.String,
  field: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return this.field === undefined
      ? `task ${this.task_id} has no reference, which the ${this.scorer} scorer needs`
      : `task ${this.task_id} has nothing at ${this.field}, the tool calls the ${this.scorer} scorer expects`
  }
}

/**
 * The task's `reference` has a shape or value the scorer cannot use (an
 * object for `exact`, a pattern that is no regular expression, ...):
 * `task_id` is the task, `scorer` the scorer, `field` where in the task when
 * not the whole reference (`reference.tool_calls[2]`), `problem` what is
 * wrong there, and `syntax` the `RegExp` constructor's words for a pattern
 * that is no regular expression.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidReference extends Schema.TaggedError<InvalidReference>()("InvalidReference", {
  task_id: Schema.String,
  scorer: Schema.String,
  field: Schema.optionalKey(Schema.String),
  problem: Schema.String,
  syntax: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    if (this.syntax !== undefined) return `task ${this.task_id}'s reference ${this.problem}: ${this.syntax}`
    return this.field === undefined
      ? `task ${this.task_id} ${this.problem}`
      : `task ${this.task_id}: ${this.field} ${this.problem}`
  }
}

/**
 * A user's scorer returned something that is not a score: `returned` is
 * what it returned, as shown (`{"score":1}`, `"yes"`, `a function`).
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidScore extends Schema.TaggedError<InvalidScore>()("InvalidScore", {
  returned: Schema.String
}) {
  override get message(): string {
    return `the scorer returned ${this.returned}; expected a boolean, a finite number or { value: number, passed: boolean, explanation?: string }`
  }
}

/**
 * The trial has no output to score (it failed): `trial_id` is the trial and
 * `status` its status.
 *
 * @category errors
 * @since 0.1.0
 */
export class NoOutput extends Schema.TaggedError<NoOutput>()("NoOutput", {
  trial_id: Schema.String,
  status: Schema.String
}) {
  override get message(): string {
    return `trial ${this.trial_id} has no output (status ${this.status}): only completed trials are scored`
  }
}

/**
 * Makes a scorer from a function that may fail or die: a failure or defect
 * (a throw before an Effect is returned included) becomes a score with
 * `error` whose `type` is the error's `_tag` (or Error name) and whose
 * `occurred_at` is read from the Clock. An interruption stays one.
 *
 * **Example** (A scorer of its own)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Scorer } from "agent-trials"
 *
 * const short = Scorer.make("short", (_task, output) => {
 *   const passed = output.length <= 280
 *   return Effect.succeed({ value: passed ? 1 : 0, passed })
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <E, R>(
  name: string,
  f: (task: AgentEvalTask, output: string, trial: AgentEvalTrial) => Effect.Effect<Score, E, R>
): Scorer<R> => ({
  name,
  score: (task, trial) => {
    let effect: Effect.Effect<Score, unknown, R>
    try {
      effect = trial.output === undefined
        ? Effect.fail(
          new NoOutput({ trial_id: trial.id, status: trial.status })
        )
        : f(task, trial.output.output_text, trial)
    } catch (defect) {
      effect = Effect.die(defect)
    }
    return Effect.catchCause(effect, (cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.map(Clock.currentTimeMillis, (now) => errored(cause, new Date(now).toISOString())))
  }
})

// Scorers made by `makeLocal`, and negations of them.
const locals = new WeakSet<Scorer<any>>()

/**
 * `make` for a scorer whose score is computed in place, with no call outside
 * and no wait (`exact`, `includes`, `regex`, `numeric`, `json`, the path
 * scorers): a scoring stage whose scorers are all such runs them in its own
 * fiber, one trial after another, rather than forking a fiber per trial.
 *
 * @internal
 */
export const makeLocal = <E>(
  name: string,
  f: (task: AgentEvalTask, output: string, trial: AgentEvalTrial) => Effect.Effect<Score, E>
): Scorer => {
  const scorer = make(name, f)
  locals.add(scorer)
  return scorer
}

/**
 * Whether `scorer` was made by `makeLocal` (or negates one that was).
 *
 * @internal
 */
export const isLocal = (scorer: Scorer<any>): boolean => locals.has(scorer)

/**
 * The opposite of a scorer: value `1 - v`, `passed` flipped, named `not-`
 * and the scorer's name unless `name` is given. A score with an `error`
 * stays as it is (an error is no verdict to turn over); a value outside
 * [0, 1], which has no opposite, gives an `InvalidScore` error. The
 * explanation says what the scorer found: "exact passed", or its own
 * explanation when it did not pass.
 *
 * **Example** (The output must not give the answer away)
 *
 * ```ts
 * import { Match, Scorer } from "agent-trials"
 *
 * const noLeak = Scorer.negate(Match.includes({ ignoreCase: true }), "no-leak")
 * ```
 *
 * @category combinators
 * @since 0.2.0
 */
export const negate = <R>(scorer: Scorer<R>, name: string = `not-${scorer.name}`): Scorer<R> => {
  const negated = negation(scorer, name)
  if (isLocal(scorer)) locals.add(negated)
  return negated
}

const negation = <R>(scorer: Scorer<R>, name: string): Scorer<R> => ({
  name,
  score: (task, trial) =>
    Effect.flatMap(scorer.score(task, trial), (s): Effect.Effect<Score> => {
      if (s.error !== undefined) return Effect.succeed(s)
      if (!(s.value >= 0 && s.value <= 1)) {
        return Effect.map(Clock.currentTimeMillis, (now) => ({
          value: 0,
          passed: false,
          error: {
            type: "InvalidScore",
            message: `the ${scorer.name} scorer gave the value ${s.value}; only a value from 0 to 1 can be negated`,
            occurred_at: new Date(now).toISOString()
          }
        }))
      }
      const explanation = s.passed
        ? `${scorer.name} passed${s.explanation === undefined ? "" : `: ${s.explanation}`}`
        : s.explanation === undefined
        ? undefined
        : `${scorer.name} did not pass: ${s.explanation}`
      const negated = { value: 1 - s.value, passed: !s.passed }
      return Effect.succeed(explanation === undefined ? negated : { ...negated, explanation })
    })
})

/**
 * The task's reference, failing with `MissingReference` when it has none.
 *
 * @internal
 */
export const reference = (task: AgentEvalTask, scorer: string): Effect.Effect<unknown, MissingReference> =>
  task.reference === undefined || task.reference === null
    ? Effect.fail(new MissingReference({ task_id: task.id, scorer }))
    : Effect.succeed(task.reference)

/**
 * A score that passes with value 1, or fails with value 0.
 *
 * @category constructors
 * @since 0.1.0
 */
export const verdict = (passed: boolean, explanation?: string): Score =>
  explanation === undefined
    ? { value: passed ? 1 : 0, passed }
    : { value: passed ? 1 : 0, passed, explanation }

const errored = (cause: Cause.Cause<unknown>, occurredAt: string): Score => {
  const reason = cause.reasons.find((r) => !Cause.isInterruptReason(r))
  const typed = reason !== undefined && Cause.isFailReason(reason)
  const error = reason === undefined ? undefined : Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
  // A scorer may keep what it learned before it failed (a judge's text without a grade).
  const explanation = typeof error === "object" && error !== null
    ? (error as { readonly explanation?: unknown }).explanation
    : undefined
  // And what it spent (a judge's calls before an unusable answer).
  const usage = Usage.ofError(error)
  return {
    value: 0,
    passed: false,
    ...(typeof explanation === "string" ? { explanation } : undefined),
    error: { type: errorType(error, typed), message: describe(error), occurred_at: occurredAt },
    ...(usage === undefined ? undefined : { usage })
  }
}

const errorType = (error: unknown, typed: boolean): string => {
  if (typeof error === "object" && error !== null) {
    const tag = (error as { readonly _tag?: unknown })._tag
    if (typeof tag === "string" && tag.length > 0) return tag
    if (error instanceof Error) return error.name
  }
  return typed ? "ScorerError" : "Defect"
}

/**
 * A one-line description of anything thrown, at most 500 characters.
 *
 * @internal
 */
export const describe = (error: unknown): string => describeCause(error, { max: 500, clip: "all" })

/**
 * A user's module as a scorer: `module:PATH[#export]`. The export (the
 * default export when none is named) is a function
 * `(task, trial, { signal }) => Score | number | boolean`, or a Promise or an
 * Effect of one.
 *
 * A number is the value, passing at 1 or more (full marks); return
 * `{ value, passed }` to choose another threshold. A boolean is 1 or 0. A
 * throw, a rejection, an Effect failure, anything else returned (a string,
 * NaN, an object without `value` and `passed`) or a call that outlasts the
 * timeout gives a score with an `error`, never a crash.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Schema } from "effect"
import { loadExport } from "../internal/loadExport.ts"
import * as Policy from "../runner/Policy.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"
import { Score } from "../domain/Trial.ts"
import { describe, InvalidScore, make, type Scorer } from "../domain/Scorer.ts"

/**
 * The module cannot be loaded, or lacks a callable export of that name.
 *
 * @category errors
 * @since 0.1.0
 */
export class ModuleScorerError extends Schema.TaggedError<ModuleScorerError>()("ModuleScorerError", {
  file: Schema.String,
  /** The export asked for; the default export when absent. */
  export_name: Schema.optionalKey(Schema.String),
  /** What is wrong, worded with the file (the message). */
  problem: Schema.String
}) {
  override get message(): string {
    return this.problem
  }
}

/**
 * A user's scoring function as this module calls it.
 *
 * @category models
 * @since 0.1.0
 */
export type ScoreFunction = (
  task: AgentEvalTask,
  trial: AgentEvalTrial,
  context: { readonly signal: AbortSignal }
) => unknown

/**
 * Makes a scorer of a function. `timeout` bounds each call (none when
 * undefined); the call's `signal` fires when it is interrupted.
 *
 * **Example** (A Promise function as a scorer)
 *
 * ```ts
 * import { ModuleScorer } from "agent-trials"
 *
 * const scorer = ModuleScorer.fromFunction("short", async (_task, trial) =>
 *   (trial.output?.output_text.length ?? Infinity) <= 280)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromFunction = (
  name: string,
  f: ScoreFunction,
  options: { readonly timeout?: Duration.Input | undefined } = {}
): Scorer => {
  const timeoutMs = options.timeout === undefined ? undefined : Duration.toMillis(options.timeout)
  return make(name, (task, _output, trial) => {
    const call = Effect.flatMap(callForeign(f, task, trial), toScore)
    return timeoutMs === undefined ? call : Effect.timeoutOrElse(call, {
      duration: timeoutMs,
      orElse: () =>
        Effect.fail(
          new Policy.Timeout({
            message: `scorer ${name} did not finish within ${Duration.format(Duration.millis(timeoutMs))}`,
            timeout_ms: timeoutMs
          })
        )
    })
  })
}

/**
 * Imports `file` (relative to `cwd`) and makes a scorer of its export
 * `exportName` (`default` when omitted).
 *
 * @category constructors
 * @since 0.1.0
 */
export const load = Effect.fn("ModuleScorer.load")(function*(
  file: string,
  exportName: string | undefined,
  options: { readonly name: string; readonly cwd: string; readonly timeout?: Duration.Input | undefined }
) {
  const fn = yield* loadExport(file, exportName, options.cwd, "scorer module").pipe(
    Effect.mapError((problem) =>
      new ModuleScorerError({ file, ...(exportName === undefined ? undefined : { export_name: exportName }), problem })
    )
  )
  return fromFunction(options.name, fn as ScoreFunction, { timeout: options.timeout })
})

// A value, a Promise or an Effect; a throw or a rejection is a failure with
// the thrown value, so its type (TypeError, ...) reaches the score's error.
const callForeign = (f: ScoreFunction, task: AgentEvalTask, trial: AgentEvalTrial): Effect.Effect<unknown, unknown> =>
  Effect.callback<unknown, unknown>((resume) => {
    const controller = new AbortController()
    try {
      const result = f(task, trial, { signal: controller.signal })
      if (Effect.isEffect(result)) resume(result as Effect.Effect<unknown, unknown>)
      else if (isPromiseLike(result)) result.then((value) => resume(Effect.succeed(value)), (error) => resume(Effect.fail(error)))
      else resume(Effect.succeed(result))
    } catch (error) {
      resume(Effect.fail(error))
    }
    return Effect.sync(() => controller.abort())
  })

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

const decodeScore = Schema.decodeUnknownExit(Score)

/**
 * What a user's function returned, as a Score: a boolean is 1 or 0, a finite
 * number is the value (passing at 1 or more), an object must be a Score
 * (`{ value, passed, explanation? }`).
 *
 * @category conversions
 * @since 0.1.0
 */
export const toScore = (value: unknown): Effect.Effect<Score, InvalidScore> => {
  if (typeof value === "boolean") return Effect.succeed({ value: value ? 1 : 0, passed: value })
  if (typeof value === "number" && Number.isFinite(value)) return Effect.succeed({ value, passed: value >= 1 })
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    // `explanation: undefined` is how JavaScript often says "none".
    const o = Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
    const exit = decodeScore(o)
    if (exit._tag === "Success") return Effect.succeed(exit.value)
  }
  return Effect.fail(
    new InvalidScore({ returned: preview(value) })
  )
}

const preview = (value: unknown): string => {
  if (typeof value === "number" || typeof value === "bigint" || value === undefined) return String(value)
  if (typeof value === "function") return "a function"
  const text = typeof value === "string" ? JSON.stringify(value) : describe(value)
  return text.length > 200 ? `${text.slice(0, 200)}...` : text
}

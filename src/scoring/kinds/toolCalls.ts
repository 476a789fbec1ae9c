/**
 * `tool-calls[:expected=PATH][,threshold=X]`.
 *
 * @since 0.5.0
 */
import { Effect, Result } from "effect"
import type { ScorerKind, SpecBase } from "../Kind.ts"
import { options } from "../internal/specOptions.ts"
import { parsePath } from "../../domain/internal/taskPath.ts"
import * as PathScorers from "../PathScorers.ts"

/**
 * A parsed `tool-calls` spec: `expected` is the path it names, when it
 * names one (`--expected-tools`, or `reference.tool_calls`, otherwise).
 *
 * @category models
 * @since 0.5.0
 */
export interface ToolCallsSpec extends SpecBase {
  readonly _tag: "ToolCalls"
  readonly expected?: string | undefined
  readonly threshold?: number | undefined
}

/**
 * The `tool-calls` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.5.0
 */
export const kind: ScorerKind<ToolCallsSpec> = {
  kind: "tool-calls",
  tag: "ToolCalls",
  usage: "tool-calls",
  help: "tool-calls[:expected=PATH][,threshold=X]",
  doc: "F1 (its `value`) of the trajectory's calls against the task's expected calls, paired by name and arguments " +
    "(every argument given must be equal), >= X (default 1); the expected calls are a list at PATH, " +
    "default `--expected-tools` or `reference.tool_calls`, of names or `{name, arguments}`; the explanation lists the misses",
  parse: (rest, { bad, base }) => {
    const o = options(rest, { expected: "value", threshold: "value" })
    if (typeof o === "string") return bad(o)
    const path = o["expected"] as string | undefined
    if (path !== undefined) {
      const checked = parsePath(path)
      if (Result.isFailure(checked)) return bad(`expected=PATH: ${checked.failure}`)
    }
    const text = o["threshold"] as string | undefined
    const threshold = text === undefined ? undefined : /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
    if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
      return bad(`expected threshold to be a number from 0 to 1, got ${JSON.stringify(text)}`)
    }
    return {
      _tag: "ToolCalls",
      ...base("tool-calls"),
      ...(path === undefined ? undefined : { expected: path }),
      ...(threshold === undefined ? undefined : { threshold })
    }
  },
  build: (spec, { options: built }) =>
    Effect.succeed(PathScorers.toolCalls({ name: spec.name, expected: spec.expected ?? built.expectedTools, threshold: spec.threshold })),
  // `--expected-tools` is part of what the spec scores: recorded with it, unless it is the default.
  recorded: (spec, _resolve, defaults) => {
    const flag = defaults?.expectedTools
    return spec.expected !== undefined || flag === undefined || flag === PathScorers.DEFAULT_EXPECTED
      ? spec.shown
      : `${spec.shown}${spec.shown.includes(":") ? "," : ":"}expected=${flag}`
  }
}

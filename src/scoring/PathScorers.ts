/**
 * Scorers of the path an agent took: its trajectory's tool calls and turns
 * (`tool-called`, `tool-not-called`, `tool-sequence`, `tool-args`, `steps`,
 * `tool-calls`). A trial whose output has no trajectory (an agent that does
 * not act, or records nothing) gets a `NoTrajectory` error, never a verdict:
 * "the tool was not called" is not known when the calls were not recorded.
 *
 * @since 0.5.0
 */
import { Effect, Schema } from "effect"
import { InvalidReference, makeLocal as make, MissingReference, type Scorer, verdict } from "../domain/Scorer.ts"
import * as Trajectories from "../domain/Trajectory.ts"
import type { AgentEvalTask, AgentEvalTrial, Score, Trajectory, TrajectoryStep } from "../domain/Trial.ts"
import { preview } from "./Match.ts"
import { equal } from "./Structured.ts"

/**
 * The trial's output has no trajectory to score.
 *
 * @category errors
 * @since 0.5.0
 */
export class NoTrajectory extends Schema.TaggedError<NoTrajectory>()("NoTrajectory", {
  trial_id: Schema.String,
  /** The scorer that needs the trajectory. */
  scorer: Schema.String
}) {
  override get message(): string {
    return `trial ${this.trial_id} recorded no trajectory, which the ${this.scorer} scorer needs ` +
      `(agents that act record one: openai: with --tools, effect-ai:, or a module or HTTP agent returning "trajectory")`
  }
}

/**
 * The trajectory of a completed trial, failing with `NoTrajectory` when its
 * agent recorded none.
 *
 * @category getters
 * @since 0.5.0
 */
export const trajectoryOf = (trial: AgentEvalTrial, scorer: string): Effect.Effect<Trajectory, NoTrajectory> =>
  trial.output?.trajectory === undefined
    ? Effect.fail(
      new NoTrajectory({ trial_id: trial.id, scorer })
    )
    : Effect.succeed(trial.output.trajectory)

const pathScorer = <E>(
  name: string,
  f: (trajectory: Trajectory, task: AgentEvalTask) => Effect.Effect<Score, E>
): Scorer =>
  make(name, (task, _output, trial) => Effect.flatMap(trajectoryOf(trial, name), (trajectory) => f(trajectory, task)))

const times = (n: number) => n === 1 ? "once" : `${n} times`

/**
 * Passes when the tool `tool` was called at least `min` (default 1) and at
 * most `max` (default any) times.
 *
 * @category scorers
 * @since 0.5.0
 */
export const toolCalled = (options: {
  readonly name?: string | undefined
  readonly tool: string
  readonly min?: number | undefined
  readonly max?: number | undefined
}): Scorer => {
  const min = options.min ?? 1
  const max = options.max ?? Number.POSITIVE_INFINITY
  const wanted = max === Number.POSITIVE_INFINITY
    ? `at least ${times(min)}`
    : min === max
    ? `exactly ${times(min)}`
    : `${min} to ${max} times`
  return pathScorer(options.name ?? "tool-called", (trajectory) => {
    const count = Trajectories.callsByTool(trajectory).get(options.tool) ?? 0
    const passed = count >= min && count <= max
    return Effect.succeed(verdict(passed, `${options.tool} was called ${count === 0 ? "never" : times(count)} (expected ${wanted})`))
  })
}

/**
 * Passes when the tool `tool` was never called.
 *
 * @category scorers
 * @since 0.5.0
 */
export const toolNotCalled = (options: { readonly name?: string | undefined; readonly tool: string }): Scorer =>
  pathScorer(options.name ?? "tool-not-called", (trajectory) => {
    const count = Trajectories.callsByTool(trajectory).get(options.tool) ?? 0
    return Effect.succeed(
      count === 0 ? verdict(true) : verdict(false, `${options.tool} was called ${times(count)} (expected never)`)
    )
  })

const callNames = (trajectory: Trajectory): ReadonlyArray<string> =>
  Trajectories.toolCalls(trajectory).map((step) => step.name ?? "")

const namesText = (names: ReadonlyArray<string>) => names.length === 0 ? "no tool calls" : names.join(" > ")

/**
 * Passes when the tools were called in this order: as a subsequence of the
 * calls (other calls may come between), or, with `exact`, as the whole list
 * of calls. The value is the fraction of `tools` matched in order (1 or 0
 * with `exact`).
 *
 * @category scorers
 * @since 0.5.0
 */
export const toolSequence = (options: {
  readonly name?: string | undefined
  readonly tools: ReadonlyArray<string>
  readonly exact?: boolean | undefined
}): Scorer =>
  pathScorer(options.name ?? "tool-sequence", (trajectory) => {
    const calls = callNames(trajectory)
    const wanted = options.tools
    if (options.exact === true) {
      const same = calls.length === wanted.length && calls.every((name, i) => name === wanted[i])
      return Effect.succeed(same ? verdict(true) : verdict(false, `expected exactly ${namesText(wanted)}, the calls were ${namesText(calls)}`))
    }
    let matched = 0
    for (const name of calls) if (matched < wanted.length && name === wanted[matched]) matched++
    const value = wanted.length === 0 ? 1 : matched / wanted.length
    if (matched === wanted.length) return Effect.succeed({ value, passed: true })
    return Effect.succeed({
      value,
      passed: false,
      explanation: `expected ${namesText(wanted)} in order; ${
        matched === 0 ? "no call" : `${wanted.slice(0, matched).join(" > ")}`
      } matched, then no ${wanted[matched]}; the calls were ${namesText(calls)}`
    })
  })

/**
 * A tool call's arguments as an object: a JSON string (as OpenAI's API sends
 * them) is read; anything else is taken as it is.
 *
 * @internal
 */
export const argumentsOf = (step: TrajectoryStep): unknown => {
  if (typeof step.arguments !== "string") return step.arguments
  try {
    return JSON.parse(step.arguments)
  } catch {
    return step.arguments
  }
}

/**
 * The value at a dotted path (`city`, `filter.city`, `items.0`) in a value,
 * or undefined where there is none.
 *
 * @internal
 */
export const at = (value: unknown, path: string): unknown => {
  let here = value
  for (const segment of path.split(".")) {
    if (here === null || typeof here !== "object" || !Object.hasOwn(here, segment)) return undefined
    here = (here as Record<string, unknown>)[segment]
  }
  return here
}

/**
 * One argument check of `tool-args`: the value at `path` in a call's
 * arguments equals `value` (as JSON, deeply).
 *
 * @category models
 * @since 0.5.0
 */
export interface ArgumentCheck {
  readonly path: string
  readonly value: unknown
}

const checksText = (checks: ReadonlyArray<ArgumentCheck>) => checks.map((c) => `${c.path} = ${preview(c.value)}`).join(", ")

/**
 * Passes when some call of the tool `tool` has arguments meeting every check.
 *
 * @category scorers
 * @since 0.5.0
 */
export const toolArgs = (options: {
  readonly name?: string | undefined
  readonly tool: string
  readonly checks: ReadonlyArray<ArgumentCheck>
}): Scorer =>
  pathScorer(options.name ?? "tool-args", (trajectory) => {
    const calls = Trajectories.toolCalls(trajectory).filter((step) => step.name === options.tool)
    const meets = (step: TrajectoryStep) => options.checks.every((c) => equal(at(argumentsOf(step), c.path), c.value))
    if (calls.some(meets)) return Effect.succeed(verdict(true))
    const seen = calls.slice(0, 3).map((step) => preview(argumentsOf(step))).join(", ")
    return Effect.succeed(verdict(
      false,
      calls.length === 0
        ? `${options.tool} was never called (expected a call with ${checksText(options.checks)})`
        : `no call of ${options.tool} had ${checksText(options.checks)}; its ${
          calls.length === 1 ? "call had" : `${calls.length} calls had`
        } ${seen}${calls.length > 3 ? ", ..." : ""}`
    ))
  })

/**
 * Passes when the trial took at most `max` (and at least `min`) steps: model
 * turns, what `--max-turns` bounds.
 *
 * @category scorers
 * @since 0.5.0
 */
export const steps = (options: {
  readonly name?: string | undefined
  readonly max?: number | undefined
  readonly min?: number | undefined
}): Scorer =>
  pathScorer(options.name ?? "steps", (trajectory) => {
    const count = Trajectories.steps(trajectory)
    const min = options.min ?? 0
    const max = options.max ?? Number.POSITIVE_INFINITY
    const wanted = [options.min === undefined ? "" : `at least ${min}`, options.max === undefined ? "" : `at most ${max}`]
      .filter((s) => s !== "").join(" and ")
    return Effect.succeed(verdict(count >= min && count <= max, `${count} step${count === 1 ? "" : "s"} (expected ${wanted})`))
  })

/**
 * A tool call a task expects: the tool's name and, when given, arguments
 * the call must have (every key given, with an equal value; other keys are
 * allowed).
 *
 * @category models
 * @since 0.5.0
 */
export interface ExpectedCall {
  readonly name: string
  readonly arguments?: Readonly<Record<string, unknown>> | undefined
}

/**
 * Where a task's expected calls are read when neither `expected=PATH` nor
 * `--expected-tools` says.
 *
 * @category constants
 * @since 0.5.0
 */
export const DEFAULT_EXPECTED = "reference.tool_calls"

/**
 * The calls a task expects, read at `path` (`reference.tool_calls`): a
 * list whose items are a tool's name, `{ name, arguments? }`, or OpenAI's
 * `{ type: "function", function: { name, arguments } }` (arguments as an
 * object or its JSON text).
 *
 * @category getters
 * @since 0.5.0
 */
export const expectedCalls = (
  task: AgentEvalTask,
  path: string = DEFAULT_EXPECTED
): Effect.Effect<ReadonlyArray<ExpectedCall>, MissingReference | InvalidReference> => {
  const list = at(task, path)
  if (list === undefined || list === null) {
    return Effect.fail(new MissingReference({ task_id: task.id, scorer: "tool-calls", field: path }))
  }
  if (!Array.isArray(list)) {
    return Effect.fail(new InvalidReference({
        task_id: task.id,
        scorer: "tool-calls",
        field: path,
        problem: `must be a list of tool calls, got ${preview(list)}`
      }))
  }
  const calls: Array<ExpectedCall> = []
  for (const [i, item] of list.entries()) {
    const call = expectedCall(item)
    if (typeof call === "string") {
      return Effect.fail(new InvalidReference({
          task_id: task.id,
          scorer: "tool-calls",
          field: `${path}[${i}]`,
          problem: `${call}, got ${preview(item)}`
        }))
    }
    calls.push(call)
  }
  return Effect.succeed(calls)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const expectedCall = (item: unknown): ExpectedCall | string => {
  if (typeof item === "string" && item !== "") return { name: item }
  const call = isRecord(item) && isRecord(item["function"]) ? item["function"] : item
  if (!isRecord(call) || typeof call["name"] !== "string" || call["name"] === "") {
    return "must be a tool's name or an object with a \"name\""
  }
  let args = call["arguments"]
  if (typeof args === "string") {
    try {
      args = JSON.parse(args)
    } catch {
      return "has \"arguments\" that are not JSON"
    }
  }
  if (args === undefined || args === null) return { name: call["name"] }
  if (!isRecord(args)) return "must have \"arguments\" that are an object"
  return { name: call["name"], arguments: args }
}

const matches = (expected: ExpectedCall, step: TrajectoryStep): boolean => {
  if (step.name !== expected.name) return false
  const want = expected.arguments
  if (want === undefined) return true
  const actual = argumentsOf(step)
  return isRecord(actual) && Object.keys(want).every((key) => Object.hasOwn(actual, key) && equal(actual[key], want[key]))
}

/**
 * The most expected calls that can be paired each with a call of its own
 * (a maximum bipartite matching: an expected call without arguments must not
 * take the one call that a stricter one needs). `pairs[i]` is the call index
 * paired with expected call `i`, or -1.
 *
 * @internal
 */
export const pairCalls = (expected: ReadonlyArray<ExpectedCall>, calls: ReadonlyArray<TrajectoryStep>): ReadonlyArray<number> => {
  const pairs = expected.map(() => -1)
  const owner = calls.map(() => -1)
  const augment = (i: number, seen: Array<boolean>): boolean => {
    for (let j = 0; j < calls.length; j++) {
      if (seen[j] || !matches(expected[i], calls[j])) continue
      seen[j] = true
      if (owner[j] === -1 || augment(owner[j], seen)) {
        owner[j] = i
        pairs[i] = j
        return true
      }
    }
    return false
  }
  for (let i = 0; i < expected.length; i++) augment(i, calls.map(() => false))
  return pairs
}

const callText = (name: string | undefined, args: unknown) => `${name ?? "(unnamed)"}${args === undefined ? "" : ` ${preview(args)}`}`

const round = (x: number) => Math.round(x * 1000) / 1000

/**
 * The trajectory's tool calls against the task's expected calls at
 * `expected` (default `reference.tool_calls`): the value is the F1 of the
 * calls paired by name and arguments (precision: paired / made, recall:
 * paired / expected; 1 when none were expected and none made), passing at
 * `threshold` (default 1: every expected call made, and no other). The
 * explanation lists the expected calls missed and the calls not expected.
 *
 * @category scorers
 * @since 0.5.0
 */
export const toolCalls = (options: {
  readonly name?: string | undefined
  readonly expected?: string | undefined
  readonly threshold?: number | undefined
} = {}): Scorer => {
  const name = options.name ?? "tool-calls"
  const threshold = options.threshold ?? 1
  return pathScorer(name, (trajectory, task) =>
    Effect.map(expectedCalls(task, options.expected ?? DEFAULT_EXPECTED), (expected): Score => {
      const calls = Trajectories.toolCalls(trajectory)
      const pairs = pairCalls(expected, calls)
      const paired = pairs.filter((j) => j !== -1).length
      const precision = calls.length === 0 ? (expected.length === 0 ? 1 : 0) : paired / calls.length
      const recall = expected.length === 0 ? (calls.length === 0 ? 1 : 0) : paired / expected.length
      const value = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)
      const used = new Set(pairs)
      const missed = expected.filter((_, i) => pairs[i] === -1).map((c) => callText(c.name, c.arguments))
      const extra = calls.filter((_, j) => !used.has(j)).map((c) => callText(c.name, argumentsOf(c)))
      const figures = `F1 ${round(value)} (precision ${round(precision)}, recall ${round(recall)}; ` +
        `${paired} of ${expected.length} expected call${expected.length === 1 ? "" : "s"} made, ${calls.length} made)`
      const misses = [
        missed.length === 0 ? "" : `missed: ${missed.join("; ")}`,
        extra.length === 0 ? "" : `not expected: ${extra.join("; ")}`
      ].filter((s) => s !== "")
      return {
        value,
        passed: value >= threshold - 1e-12,
        explanation: misses.length === 0 ? figures : `${figures}: ${misses.join("; ")}`
      }
    }))
}

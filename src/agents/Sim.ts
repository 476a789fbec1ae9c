/**
 * A simulated agent: latencies and failures drawn deterministically from a
 * seed and the trial id, so the same run gives the same results whatever the
 * scheduling, and a resumed run continues it exactly. Time passes on the
 * Effect Clock (virtual under TestClock).
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { parseDurationMs } from "../internal/options.ts"
import type { Agent } from "../domain/Agent.ts"
import type { AgentKind } from "./Kind.ts"

/**
 * How a simulated agent behaves: a latency of `latencyMs` ± `jitterMs`, a
 * failure with probability `failRate`, all drawn from `seed` and the trial id.
 * A jitter above the latency makes the latencies below `jitterMs - latencyMs`
 * all 0 ms.
 *
 * @category models
 * @since 0.1.0
 */
export interface SimOptions {
  readonly latencyMs: number
  readonly jitterMs: number
  readonly failRate: number
  readonly seed: number
  /** About this many input tokens reported per call (0: no usage reported). */
  readonly tokens?: number | undefined
}

/**
 * The defaults of `sim`: 20 ms ± 10 ms, 2% failures, seed 1.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: SimOptions = { latencyMs: 20, jitterMs: 10, failRate: 0.02, seed: 1 }

/**
 * The failure a simulated trial reports; `fail_rate` is the share of trials
 * the agent fails (`fail=`).
 *
 * @category errors
 * @since 0.1.0
 */
export class SimulatedFailure extends Schema.TaggedError<SimulatedFailure>()("SimulatedFailure", {
  fail_rate: Schema.Number
}) {
  override get message(): string {
    return `simulated failure (fail=${this.fail_rate})`
  }
}

/**
 * Parses `latency=20ms,jitter=10ms,fail=0.02,seed=1` (every key optional).
 * Without `jitter` the jitter is the default's, at most half the latency
 * (`defaultJitterMs`), so `latency=1ms` means 0.5 to 1.5 ms. Returns an error
 * message naming the bad part.
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseOptions = (text: string): SimOptions | string => {
  let options = defaults
  let jitterGiven = false
  for (const part of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const [key, value, ...rest] = part.split("=")
    if (value === undefined || rest.length > 0) return `expected key=value, got "${part}"`
    switch (key) {
      case "latency":
      case "jitter": {
        const ms = parseDurationMs(value)
        if (ms === undefined) return `${key}: expected a duration like 20ms or 1s, got "${value}"`
        options = key === "latency" ? { ...options, latencyMs: ms } : { ...options, jitterMs: ms }
        if (key === "jitter") jitterGiven = true
        break
      }
      case "fail": {
        const rate = Number(value)
        if (!(value !== "" && rate >= 0 && rate <= 1)) return `fail: expected a rate from 0 to 1, got "${value}"`
        options = { ...options, failRate: rate }
        break
      }
      case "tokens": {
        const tokens = Number(value)
        if (!(/^\d+$/.test(value) && Number.isSafeInteger(tokens))) return `tokens: expected an integer >= 0, got "${value}"`
        options = { ...options, tokens }
        break
      }
      case "seed": {
        const seed = Number(value)
        if (!Number.isSafeInteger(seed)) return `seed: expected an integer, got "${value}"`
        options = { ...options, seed }
        break
      }
      default:
        return `unknown option "${key}" (known: latency, jitter, fail, seed, tokens)`
    }
  }
  return jitterGiven ? options : { ...options, jitterMs: defaultJitterMs(options.latencyMs) }
}

/**
 * The jitter of a latency given without one: the default 10 ms, at most half
 * the latency (`sim` keeps 20 ms ± 10 ms; `latency=1ms` is 1 ms ± 0.5 ms).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultJitterMs = (latencyMs: number): number => Math.min(defaults.jitterMs, latencyMs / 2)

/**
 * The simulated agent. Its output is the task's `reference` when that is a
 * string (a correct answer), else `sim:<task id>`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: SimOptions): Agent<SimulatedFailure> => (task, trial) => {
  const key = trial?.id ?? task.id
  const u1 = unit(options.seed, key, 1)
  const u2 = unit(options.seed, key, 2)
  const ms = Math.max(0, options.latencyMs + options.jitterMs * (2 * u1 - 1))
  const outcome = u2 < options.failRate
    ? Effect.fail(new SimulatedFailure({ fail_rate: options.failRate }))
    : Effect.succeed({
      output_text: typeof task.reference === "string" ? task.reference : `sim:${task.id}`,
      metadata: { simulated_latency_ms: Math.round(ms * 1000) / 1000 },
      ...(options.tokens === undefined || options.tokens === 0 ? undefined : { usage: simulatedUsage(options.tokens, unit(options.seed, key, 3)) })
    })
  return ms === 0 ? outcome : Effect.andThen(Effect.sleep(ms), outcome)
}

// With `tokens=N`: input from N/2 to 3N/2 (a seeded draw), a quarter of it
// cached, output a fifth of the input, as model "sim".
const simulatedUsage = (tokens: number, u: number) => {
  const input = Math.round(tokens * (0.5 + u))
  const output = Math.round(input / 5)
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    cached_input_tokens: Math.floor(input / 4),
    model: "sim"
  }
}

// A uniform draw in [0, 1) from (seed, key, salt): FNV-1a then an xorshift mix.
const unit = (seed: number, key: string, salt: number): number => {
  let h = (0x811c9dc5 ^ seed ^ Math.imul(salt, 0x9e3779b1)) >>> 0
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 0x100000000
}

const tokensPart = (o: SimOptions): string => o.tokens === undefined || o.tokens === 0 ? "" : `,tokens=${o.tokens}`

/**
 * `sim[:latency=20ms,jitter=10ms,fail=0.02,seed=1,tokens=0]`: the agent kind.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: AgentKind<{ readonly _tag: "Sim"; readonly options: SimOptions }> = {
  tag: "Sim",
  matches: (text) => text === "sim" || text.startsWith("sim:"),
  usage: "sim[:...]",
  help: "sim[:latency=20ms,jitter=10ms,fail=0.02,seed=1,tokens=0] (jitter unless given: 10ms, at most latency/2; tokens=N reports about N input tokens a call, model sim)",
  doc: "A simulated agent, the default: latencies and failures drawn from a seed (`latency=20ms,jitter=10ms,fail=0.02,seed=1`), no network; `tokens=N` reports a usage of about N input tokens a call (model `sim`)",
  parse: (text) => {
    const options = parseOptions(text.slice(4))
    return typeof options === "string" ? `--agent ${text}: ${options}` : { _tag: "Sim", options }
  },
  format: ({ options: o }) =>
    `sim:latency=${o.latencyMs}ms,jitter=${o.jitterMs}ms,fail=${o.failRate},seed=${o.seed}${tokensPart(o)}`,
  // Latency changes no record's outcome: a resume may run faster or slower.
  recorded: ({ options: o }) => `sim:fail=${o.failRate},seed=${o.seed}${tokensPart(o)}`,
  build: ({ options }) => Effect.succeed(make(options))
}

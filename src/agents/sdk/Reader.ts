/**
 * The port a reader of an agent SDK's result implements: how a value a
 * `module:` agent returned is recognised as that SDK's result (by its shape:
 * the SDK itself is never imported) and read into an `AgentOutput`. The
 * registry (`Adapters.readers`) lists them, so a new SDK is one file and one
 * entry there.
 *
 * @since 0.10.0
 */
import { Clock, Context } from "effect"
import type { AgentOutput, TrajectoryStep } from "../../domain/Trial.ts"

/**
 * When the agent call that gave the result started and ended (epoch
 * milliseconds): the steps an SDK does not time are placed in it.
 *
 * @category models
 * @since 0.10.0
 */
export interface CallTiming {
  readonly started_ms: number
  readonly ended_ms: number
}

/**
 * A reader of one SDK's results.
 *
 * @category models
 * @since 0.10.0
 */
export interface ResultReader {
  /** The SDK, as messages name it (`the AI SDK`). */
  readonly name: string
  /** Whether `value` has the shape of this SDK's result. */
  readonly matches: (value: unknown) => boolean
  /** The answer, trajectory and usage; throws when the result is not an answer (a run left waiting). */
  readonly read: (value: unknown, call: CallTiming) => AgentOutput
}

// Effect's live Clock: a user's callable (a Promise) runs outside any fiber.
const liveClock: Clock.Clock = Context.get(Context.empty(), Clock.Clock)

/**
 * The wall clock now (epoch ms), read from Effect's live Clock.
 *
 * @internal
 */
export const nowMs = (): number => liveClock.currentTimeMillisUnsafe()

/**
 * The call's timing when a caller reading a result itself gives none: a call
 * that ended now and took `durationMs`.
 *
 * @internal
 */
export const endedNow = (durationMs = 0): CallTiming => {
  const now = nowMs()
  return { started_ms: now - durationMs, ended_ms: now }
}

/**
 * A step timed around the whole call: the SDK reports no timing for it.
 *
 * @internal
 */
export const aroundCall = (call: CallTiming): Pick<TrajectoryStep, "started_at" | "duration_ms" | "timing"> => ({
  started_at: new Date(call.started_ms).toISOString(),
  duration_ms: Math.max(0, call.ended_ms - call.started_ms),
  timing: "call"
})

/**
 * A step timed by the SDK: `duration_ms` its own, rounded to the microsecond.
 *
 * @internal
 */
export const bySdk = (startedMs: number, durationMs: number): Pick<TrajectoryStep, "started_at" | "duration_ms" | "timing"> => ({
  started_at: new Date(startedMs).toISOString(),
  duration_ms: Math.max(0, Math.round(durationMs * 1000) / 1000),
  timing: "sdk"
})

/**
 * A plain object (not an array, not null).
 *
 * @internal
 */
export const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A count an SDK reports, as a token count: a non-negative integer, else absent.
 *
 * @internal
 */
export const count = (u: unknown): number | undefined =>
  typeof u === "number" && Number.isInteger(u) && u >= 0 ? u : undefined

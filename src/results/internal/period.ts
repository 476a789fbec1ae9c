/**
 * A background step on a fixed period (the results writer's flush): started
 * at every multiple of `every` from the moment it is built, not `every` after
 * the previous run ended, so a slow run does not push the next one back. A
 * run that overruns a period is followed at once by the next, never by a
 * burst that makes up the ones missed.
 *
 * @internal
 */
import { Clock, Duration, Effect } from "effect"

/**
 * Runs `step` at every multiple of `every` from now, until it fails (the
 * failure is returned) or is interrupted.
 *
 * @internal
 */
export const onFixedPeriod = <E, R>(step: Effect.Effect<void, E, R>, every: Duration.Input): Effect.Effect<never, E, R> =>
  Effect.flatMap(Clock.currentTimeMillis, (start) => {
    const everyMs = Duration.toMillis(every)
    let next = start
    const wait = Effect.clockWith((clock) =>
      Effect.suspend(() => {
        const now = clock.currentTimeMillisUnsafe()
        next += everyMs
        // Behind: the next run at once, and the period counted from now.
        if (next < now) next = now
        return Effect.sleep(next - now)
      })
    )
    return Effect.forever(Effect.andThen(wait, step))
  })

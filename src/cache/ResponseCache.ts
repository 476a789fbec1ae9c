/**
 * The response cache, as a port: a store of successful answers keyed by
 * `CacheKey.of` (the agent kind, the URL without credentials, the model, the
 * whole request body and the trial's epoch), and `call`, the one way the
 * `openai:`, `http(s)://` and `judge:` calls go through it. A call reads the
 * cache only when the service is provided (the run provides it with
 * `--cache`): off unless asked. Only an answer its caller decoded, and that
 * is no error body, is stored: never a non-2xx, an error body, a timeout or a
 * cut-off body (those fail before the store).
 *
 * Each trial's calls are counted (`Tallies`), so its record can say what the
 * cache gave it: `hit` (every call served), `miss` (none) or `partial`.
 *
 * A module agent may use the cache as a service: `ResponseCache.call` around
 * its own request.
 *
 * @since 0.8.0
 */
import { Context, Effect, Option, Schema } from "effect"
import type { TrialContext } from "../domain/Agent.ts"
import * as CacheKey from "./Key.ts"

/**
 * The cache's file could not be opened, read or written: `file` is its path,
 * `problem` what SQLite said.
 *
 * @category errors
 * @since 0.8.0
 */
export class CacheError extends Schema.TaggedError<CacheError>()("CacheError", {
  file: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `the response cache ${this.file}: ${this.problem}`
  }
}

/**
 * What the cache holds: entries, the bytes of their bodies, the file's size
 * on disk (with its WAL), and the oldest and newest entries' times (ISO),
 * absent when it is empty.
 *
 * @category models
 * @since 0.8.0
 */
export interface Stats {
  readonly file: string
  readonly entries: number
  readonly bytes: number
  readonly file_bytes: number
  readonly oldest?: string | undefined
  readonly newest?: string | undefined
}

/**
 * What a trial's calls got from the cache: every one served (`hit`), none
 * (`miss`), or some (`partial`: some turns of a tool loop, or the agent
 * served and its judge not).
 *
 * @category models
 * @since 0.8.0
 */
export type Outcome = "hit" | "miss" | "partial"

/**
 * The hits and misses of each trial in flight, by trial id; `take` reads a
 * trial's outcome once and forgets it, so the map holds only the trials
 * between their first call and their record. Counting only when `counting`
 * (a run that marks its records): a program that never takes them keeps
 * nothing.
 *
 * @category models
 * @since 0.8.0
 */
export class Tallies {
  readonly #byTrial = new Map<string, { hits: number; misses: number }>()
  readonly counting: boolean

  constructor(counting: boolean) {
    this.counting = counting
  }

  /** Counts one call of trial `id` (when `counting`). */
  note(id: string, hit: boolean): void {
    if (!this.counting) return
    let tally = this.#byTrial.get(id)
    if (tally === undefined) this.#byTrial.set(id, tally = { hits: 0, misses: 0 })
    if (hit) tally.hits++
    else tally.misses++
  }

  /** Trial `id`'s outcome, undefined when none of its calls went through the cache; forgotten after. */
  take(id: string): Outcome | undefined {
    const tally = this.#byTrial.get(id)
    if (tally === undefined) return undefined
    this.#byTrial.delete(id)
    return tally.misses === 0 ? "hit" : tally.hits === 0 ? "miss" : "partial"
  }

  /** Trials with calls counted and no outcome taken yet. */
  get size(): number {
    return this.#byTrial.size
  }
}

/**
 * The cache's operations. `lookup` gives a stored body that is younger than
 * the lifetime, or none (and none at all when refreshing); `store` writes or
 * overwrites one.
 *
 * @category models
 * @since 0.8.0
 */
export interface Shape {
  readonly file: string
  readonly lookup: (key: string) => Effect.Effect<Option.Option<string>, CacheError>
  readonly store: (key: string, body: string) => Effect.Effect<void, CacheError>
  readonly stats: Effect.Effect<Stats, CacheError>
  /** Removes the entries stored more than `olderThanMs` ago (all when undefined); the count removed. */
  readonly clear: (olderThanMs?: number | undefined) => Effect.Effect<number, CacheError>
  readonly tallies: Tallies
}

/**
 * The response cache: `SqliteCache.layer` is its implementation.
 *
 * @category services
 * @since 0.8.0
 */
export class ResponseCache extends Context.Service<ResponseCache, Shape>()("agent-trials/ResponseCache") {}

/**
 * The trial a call is made for, when its caller cannot pass it (a tool
 * loop's model): the tool agent provides it around each trial's loop.
 *
 * @category services
 * @since 0.8.0
 */
export const CurrentTrial = Context.Reference<TrialContext | undefined>("agent-trials/ResponseCache/CurrentTrial", {
  defaultValue: () => undefined
})

/**
 * What a call waits for before it is sent, when it is not served from the
 * cache: the run's `--rate` slot, provided around the agent's calls when the
 * cache is on, so a hit takes no slot.
 *
 * @category services
 * @since 0.8.0
 */
export const Pacer = Context.Reference<Effect.Effect<void> | undefined>("agent-trials/ResponseCache/Pacer", {
  defaultValue: () => undefined
})

// The rate slot of a call that is sent (none when no `Pacer` is provided).
const paced: Effect.Effect<void> = Effect.flatMap(Effect.service(Pacer), (pace) => pace ?? Effect.void)

/**
 * `send` through the cache, when one is provided: a stored body younger
 * than the lifetime is decoded instead of sending; else `send` runs, and its
 * body is stored once `decode` accepted it and `usable` says it is an
 * answer (not an error body). The trial (`trial`, else `CurrentTrial`) gives
 * the key its epoch and counts the call as a hit or a miss. A cache that
 * cannot be read or written fails the call with its `CacheError` as a defect
 * (the caller's error type stays its own).
 *
 * **Example** (A module agent's own request, cached)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { ResponseCache } from "agent-trials"
 *
 * const ask = (question: string) =>
 *   ResponseCache.call(
 *     { kind: "my-agent", url: "https://example.com/ask", body: { question } },
 *     Effect.succeed({ answer: "4" } as unknown),
 *     (body) => Effect.succeed(body)
 *   )
 * ```
 *
 * @category calls
 * @since 0.8.0
 */
export const call = <A, E, R, E2 = never, R2 = never>(
  request: CacheKey.Request & { readonly trial?: TrialContext | undefined },
  send: Effect.Effect<unknown, E, R>,
  decode: (body: unknown) => Effect.Effect<A, E2, R2>,
  usable: (body: unknown) => boolean = () => true
): Effect.Effect<A, E | E2, R | R2> =>
  Effect.flatMap(Effect.serviceOption(ResponseCache), (found) => {
    if (Option.isNone(found)) return Effect.flatMap(send, decode)
    const cache = found.value
    return Effect.flatMap(Effect.service(CurrentTrial), (current) => {
      const trial = request.trial ?? current
      const key = CacheKey.of({ ...request, epoch: request.epoch ?? trial?.epoch })
      return Effect.flatMap(Effect.orDie(cache.lookup(key)), (stored) => {
        const body = Option.isSome(stored) ? parsed(stored.value) : undefined
        if (body !== undefined) {
          if (trial !== undefined) cache.tallies.note(trial.id, true)
          return decode(body.value)
        }
        if (trial !== undefined) cache.tallies.note(trial.id, false)
        return Effect.flatMap(Effect.andThen(paced, send), (sent) =>
          Effect.tap(decode(sent), () =>
            usable(sent) ? Effect.orDie(cache.store(key, JSON.stringify(sent))) : Effect.void))
      })
    })
  })

// A body that no longer parses (a file edited by hand) is a miss.
const parsed = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

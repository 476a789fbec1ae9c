/**
 * `--cache` as a Schema from its text: `true` (or `on`, or the bare flag)
 * turns the cache on with entries living 7 days; a duration (`7d`, `12h`,
 * `30m`) turns it on with that lifetime; `refresh` asks every call again and
 * overwrites what is stored; `false` (or `off`) leaves it off.
 *
 * @since 0.8.0
 */
import { Result, Schema } from "effect"
import { fromString, quote } from "../internal/options.ts"
import { DEFAULT_LIFETIME_MS } from "./Sqlite.ts"

/**
 * The cache asked for: how long an entry is served, and whether to ask
 * again and overwrite (`refresh`); null when it is off.
 *
 * @category models
 * @since 0.8.0
 */
export const Setting = Schema.NullOr(Schema.Struct({ lifetimeMs: Schema.Number, refresh: Schema.Boolean }))

/**
 * The value of {@link Setting}.
 *
 * @category models
 * @since 0.8.0
 */
export type Setting = typeof Setting.Type

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 }
const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min|h|d)\s*$/
const EXPECTED = "Expected true, false, refresh or a lifetime with a unit, like 7d, 12h or 30m"

const parse = (text: string): Result.Result<Setting, string> => {
  const word = text.trim().toLowerCase()
  if (word === "true" || word === "on") return Result.succeed({ lifetimeMs: DEFAULT_LIFETIME_MS, refresh: false })
  if (word === "refresh") return Result.succeed({ lifetimeMs: DEFAULT_LIFETIME_MS, refresh: true })
  if (word === "false" || word === "off") return Result.succeed(null)
  const m = DURATION.exec(word)
  if (m === null) {
    const bare = /^\s*(\d+(?:\.\d+)?)\s*$/.exec(word)
    return Result.fail(`${EXPECTED}, got ${quote(text)}${bare === null ? "" : ` (did you mean ${bare[1]}d?)`}`)
  }
  const ms = Number(m[1]) * UNITS[m[2]]
  if (!Number.isFinite(ms) || ms <= 0) return Result.fail(`${EXPECTED} greater than 0, got ${quote(text)}`)
  return Result.succeed({ lifetimeMs: ms, refresh: false })
}

const format = (setting: Setting): string =>
  setting === null ? "false" : setting.refresh ? "refresh" : `${setting.lifetimeMs}ms`

/**
 * `--cache`'s value: `true`, `false`, `refresh` or a lifetime (`7d`).
 *
 * **Example** (A lifetime of 12 hours)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.Cache)("12h") // { lifetimeMs: 43200000, refresh: false }
 * ```
 *
 * @category schemas
 * @since 0.8.0
 */
export const Cache = fromString(Setting, parse, format)

/**
 * A lifetime for `cache clear --older-than`: a duration with a unit, days
 * included (`7d`, `12h`).
 *
 * @category schemas
 * @since 0.8.0
 */
export const Age = fromString(
  Schema.Number,
  (text) => {
    const m = DURATION.exec(text.trim().toLowerCase())
    const ms = m === null ? Number.NaN : Number(m[1]) * UNITS[m[2]]
    return Number.isFinite(ms) && ms > 0
      ? Result.succeed(ms)
      : Result.fail(`Expected a duration greater than 0 with a unit, like 7d, 12h or 30m, got ${quote(text)}`)
  },
  (ms) => `${ms}ms`
)

/**
 * The run options that arrive as text, from a flag or an environment
 * variable: each is one Schema from a string to the value the runner uses.
 * The CLI flags decode with them, `Runner.layer` reads them through `Config`
 * with them, so a value is accepted or refused with the same words wherever
 * it comes from.
 *
 * A refusal reads `Expected <what>, got <value>`; {@link describe} names the
 * flag or variable it came from: `Expected --timeout to be a duration with a
 * unit, like 5s, 500ms or 2m, got "5" (did you mean 5s?)`.
 *
 * @since 0.1.0
 */
import { Config, Duration as D, Effect, Option, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { MAX_EPOCHS } from "./limits.ts"

/**
 * A value an option's Schema refused, with the message naming where it came
 * from (`--timeout`, `AGENT_TRIALS_TIMEOUT`).
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidOption extends Schema.TaggedError<InvalidOption>()("InvalidOption", {
  source: Schema.String,
  message: Schema.String
}) {}

/**
 * A Schema from a string: `parse` decides and words the refusal, `format`
 * writes a value back the way `parse` reads it.
 *
 * @internal
 */
export const fromString = <S extends Schema.Top>(
  to: S,
  parse: (text: string) => Result.Result<S["Type"], string>,
  format: (value: S["Type"]) => string
) =>
  Schema.String.pipe(Schema.decodeTo(
    Schema.toType(to),
    SchemaTransformation.transformEffect({
      decode: (text: string) =>
        Result.match(parse(text), {
          onSuccess: Effect.succeed,
          onFailure: (message) => Effect.fail(new SchemaIssue.InvalidValue({ message }, text))
        }),
      encode: (value: S["Type"]) => Effect.succeed(format(value))
    })
  ))

/** @internal */
export const quote = (text: string) => JSON.stringify(text)

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, min: 60_000, h: 3_600_000 }
const NUMBER = String.raw`(\d+(?:\.\d+)?)`
const durationPattern = new RegExp(String.raw`^\s*${NUMBER}\s*(ms|s|m|min|h)\s*$`)
const LIKE = "like 5s, 500ms or 2m"

const parseDuration = (allowZero: boolean) => (text: string): Result.Result<D.Duration, string> => {
  const m = durationPattern.exec(text)
  if (m === null) {
    const bare = /^\s*(\d+(?:\.\d+)?)\s*$/.exec(text)
    // A bare number was a unit guess before (milliseconds): say which unit is meant.
    const hint = bare === null ? "" : ` (did you mean ${bare[1]}s?)`
    return Result.fail(`Expected a duration with a unit, ${LIKE}, got ${quote(text)}${hint}`)
  }
  const ms = Number(m[1]) * UNITS[m[2]]
  if (!Number.isFinite(ms)) return Result.fail(`Expected a finite duration, ${LIKE}, got ${quote(text)}`)
  if (!allowZero && ms === 0) return Result.fail(`Expected a duration greater than 0, ${LIKE}, got ${quote(text)}`)
  return Result.succeed(D.millis(ms))
}

const formatDuration = (duration: D.Duration): string => `${D.toMillis(duration)}ms`

/**
 * A duration greater than 0: a number (decimals allowed) and a unit, `ms`,
 * `s`, `m` (or `min`) or `h`, e.g. `500ms`, `1.5s`, `2m`. A number without a
 * unit is refused with a suggestion (`5` -> did you mean `5s`?): read as
 * milliseconds or seconds, it would mean one silently where the user meant the other.
 *
 * **Example** (Decoding a duration)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.Duration)("1.5s") // Duration.millis(1500)
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Duration = fromString(Schema.Duration, parseDuration(false), formatDuration)

/**
 * Like {@link Duration}, 0 accepted (a simulated agent's latency or jitter).
 *
 * @category schemas
 * @since 0.1.0
 */
export const NonNegativeDuration = fromString(Schema.Duration, parseDuration(true), formatDuration)

/**
 * A duration with its unit (`20ms`, `1.5s`, `0s`, `2m`) -> milliseconds;
 * undefined when `NonNegativeDuration` refuses it (a bare number
 * such as `20` is refused: the unit is not guessed).
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseDurationMs = (text: string): number | undefined =>
  Option.match(Schema.decodeUnknownOption(NonNegativeDuration)(text), {
    onNone: () => undefined,
    onSome: D.toMillis
  })

/**
 * A cap on call starts: `limit` per `per`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Rate {
  readonly limit: number
  readonly per: D.Duration
}

// `min` before `m`: a rate is written back as `N/min`.
const RATE_UNITS: Record<string, D.Duration> = { s: D.seconds(1), min: D.minutes(1), m: D.minutes(1), h: D.hours(1) }
const ratePattern = new RegExp(String.raw`^\s*${NUMBER}\s*/\s*(s|m|min|h)\s*$`)

/**
 * A rate `N/s`, `N/m` (or `N/min`) or `N/h`, N a number above 0 (decimals
 * allowed): `10/s`, `600/min`, `0.5/s`.
 *
 * **Example** (Decoding a rate)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.Rate)("600/min") // { limit: 600, per: Duration.minutes(1) }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Rate = fromString(
  Schema.Struct({ limit: Schema.Number, per: Schema.Duration }),
  (text): Result.Result<Rate, string> => {
    const m = ratePattern.exec(text)
    const limit = m === null ? Number.NaN : Number(m[1])
    return m !== null && limit > 0 && Number.isFinite(limit)
      ? Result.succeed({ limit, per: RATE_UNITS[m[2]] })
      : Result.fail(`Expected a rate above 0 per s, m (or min) or h, like 10/s or 600/min, got ${quote(text)}`)
  },
  (rate) => {
    const ms = D.toMillis(rate.per)
    const unit = Object.entries(RATE_UNITS).find(([, d]) => D.toMillis(d) === ms)?.[0]
    return unit === undefined ? `${rate.limit * 1000 / ms}/s` : `${rate.limit}/${unit}`
  }
)

// The failure budget, as Policy.MaxFailures describes it (declared there,
// for its public name; this module sits below Policy).
type MaxFailures =
  | { readonly _tag: "Count"; readonly count: number }
  | { readonly _tag: "Fraction"; readonly fraction: number; readonly minFinished?: number | undefined }

const MaxFailuresType: Schema.Codec<MaxFailures> = Schema.Union([
  Schema.TaggedStruct("Count", { count: Schema.Number }),
  Schema.TaggedStruct("Fraction", { fraction: Schema.Number, minFinished: Schema.optional(Schema.Number) })
])

/**
 * A failure budget: a count of failed trials (`25`, an integer from 0 up) or
 * a percentage of finished trials (`10%`, from 0% to 100%, decimals allowed).
 * See `Policy.exceeded` for when a budget is exceeded.
 *
 * **Example** (Decoding a failure budget)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.MaxFailures)("10%") // { _tag: "Fraction", fraction: 0.1 }
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const MaxFailures = fromString(
  MaxFailuresType,
  (text): Result.Result<MaxFailures, string> => {
    const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text)
    // Read as `Ne-2`, the nearest double to N/100 (`0.7 / 100` is not).
    const fraction = percent === null ? Number.NaN : Number(`${percent[1]}e-2`)
    if (fraction >= 0 && fraction <= 1) return Result.succeed({ _tag: "Fraction", fraction })
    const count = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
    if (Number.isSafeInteger(count)) return Result.succeed({ _tag: "Count", count })
    return Result.fail(`Expected a count like 25 or a percentage from 0% to 100% like 10%, got ${quote(text)}`)
  },
  // 0.07 * 100 is 7.000000000000001: round off the binary noise.
  (limit) => limit._tag === "Count" ? `${limit.count}` : `${Number((limit.fraction * 100).toPrecision(12))}%`
)

const integerFrom = (min: number) =>
  fromString(
    Schema.Number,
    (text): Result.Result<number, string> => {
      const n = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
      if (Number.isSafeInteger(n) && n >= min) return Result.succeed(n)
      // A number is shown as a number (`got 0`, `got 1.5`), anything else quoted.
      const shown = text.trim() !== "" && Number.isFinite(Number(text)) ? text.trim() : quote(text)
      return Result.fail(`Expected an integer from ${min} and up, got ${shown}`)
    },
    String
  )

/**
 * A parallelism bound (or any count that must be at least 1, like epochs):
 * an integer from 1 up. The library's numeric option is checked by
 * `Errors.checkParallelism` with the same words.
 *
 * **Example** (Decoding a parallelism bound)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.Parallelism)("8") // 8
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Parallelism = integerFrom(1)

/**
 * Epochs, trials per task: an integer from 1 to `Errors.MAX_EPOCHS`
 * (10,000), the bound `runTrials` checks too. Larger counts would exhaust
 * memory before the first trial (see `Errors.MAX_EPOCHS`).
 *
 * **Example** (Decoding an epochs count)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.Epochs)("5") // 5
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Epochs = fromString(
  Schema.Number,
  (text): Result.Result<number, string> => {
    const n = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
    if (Number.isSafeInteger(n) && n >= 1 && n <= MAX_EPOCHS) return Result.succeed(n)
    const shown = text.trim() !== "" && Number.isFinite(Number(text)) ? text.trim() : quote(text)
    return Result.fail(`Expected an integer from 1 to ${MAX_EPOCHS}, got ${shown}`)
  },
  String
)

/**
 * A count from 0 up: retries after the first attempt, synthetic tasks.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Count = integerFrom(0)

/**
 * A number of rows to take (`--limit`, `--sample`): an integer from 1.
 *
 * @category schemas
 * @since 0.3.0
 */
export const RowCount = integerFrom(1)

/**
 * A margin: a number from 0 up, decimals allowed (`0.02`), as
 * `compare --non-inferiority M` takes it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Margin = fromString(
  Schema.Number,
  (text): Result.Result<number, string> => {
    const n = /^\s*\d+(?:\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
    return Number.isFinite(n) ? Result.succeed(n) : Result.fail(`Expected a number from 0 up, like 0.02, got ${quote(text)}`)
  },
  String
)

/**
 * A token count to stop at (`--max-tokens`, `--trial-max-tokens`): an
 * integer from 1.
 *
 * @category schemas
 * @since 0.4.0
 */
export const TokenCount = integerFrom(1)

/**
 * An amount in USD above 0, decimals allowed (`--max-cost 25`, `0.50`).
 *
 * @category schemas
 * @since 0.4.0
 */
export const Usd = fromString(
  Schema.Number,
  (text): Result.Result<number, string> => {
    const n = /^\s*\$?\d+(?:\.\d+)?\s*$/.test(text) ? Number(text.trim().replace(/^\$/, "")) : Number.NaN
    return Number.isFinite(n) && n > 0
      ? Result.succeed(n)
      : Result.fail(`Expected an amount in USD above 0, like 25 or 0.50, got ${quote(text)}`)
  },
  String
)

/**
 * Names the source in a refusal: `Expected a duration ...` becomes `Expected
 * --timeout to be a duration ...`; a message that already names the source is
 * kept; any other is prefixed with it.
 *
 * @category messages
 * @since 0.1.0
 */
export const describe = (source: string, message: string): string =>
  message.startsWith("Expected ")
    ? `Expected ${source} to be ${message.slice("Expected ".length)}`
    : message.includes(source)
    ? message
    : `${source}: ${message}`

const standard = SchemaIssue.makeFormatterStandardSchemaV1()

// The words of the refusal itself, without the path a Config adds.
const reasonOf = (error: Schema.SchemaError | Config.ConfigError): string => {
  const cause = error instanceof Config.ConfigError ? error.cause : error
  if (!Schema.isSchemaError(cause)) return cause.message
  return standard(cause.issue).issues.map((issue) => issue.message).join("; ")
}

/**
 * Decodes the text of an option, failing with a message naming `source`.
 *
 * **Example** (A refusal that names the flag)
 *
 * ```ts
 * import { Options } from "agent-trials"
 *
 * const timeout = Options.decode(Options.Duration, "--timeout")("5")
 * // fails with InvalidOption: Expected --timeout to be a duration with a unit, like 5s, 500ms or 2m, got "5" (did you mean 5s?)
 * ```
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = <A>(schema: Schema.Codec<A, string>, source: string) => {
  const run = Schema.decodeUnknownEffect(schema)
  return (text: string): Effect.Effect<A, InvalidOption> =>
    Effect.mapError(run(text), (error) => new InvalidOption({ source, message: describe(source, reasonOf(error)) }))
}

/**
 * Reads an option from the configuration (the environment by default)
 * through `Config` with its Schema: none when the variable is not set, a
 * failure naming the variable when its value is refused.
 *
 * **Example** (An optional variable)
 *
 * ```ts
 * import { Effect, Option } from "effect"
 * import { Options } from "agent-trials"
 *
 * const program = Effect.gen(function*() {
 *   const timeout = yield* Options.fromConfig(Options.Duration, "AGENT_TRIALS_TIMEOUT")
 *   // with AGENT_TRIALS_TIMEOUT=5, fails: Expected AGENT_TRIALS_TIMEOUT to be a duration with a unit, ...
 *   return Option.getOrUndefined(timeout)
 * })
 * ```
 *
 * @category decoding
 * @since 0.1.0
 */
export const fromConfig = <A>(schema: Schema.Codec<A, string>, name: string): Effect.Effect<Option.Option<A>, InvalidOption> =>
  Effect.mapError(
    Config.option(Config.schema(schema, name)),
    (error) => new InvalidOption({ source: name, message: describe(name, reasonOf(error)) })
  )

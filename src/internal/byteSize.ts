/**
 * A size in bytes as a flag or variable gives it: `500MB`, `10GB`, `1.5GiB`.
 * One Schema, so `--max-download` and `AGENT_TRIALS_MAX_DOWNLOAD` accept or
 * refuse a value with the same words.
 *
 * @since 0.5.0
 */
import { Result, Schema } from "effect"
import { fromString, quote } from "./options.ts"

// Decimal units as disks and the Hub count (1 MB = 1,000,000 bytes), binary ones by their own names.
const UNITS: Record<string, number> = {
  b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40
}
const pattern = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)\s*$/i
const LIKE = "like 500MB, 10GB or 1.5GiB"

const parse = (text: string): Result.Result<number, string> => {
  const m = pattern.exec(text)
  if (m === null) {
    const bare = /^\s*(\d+(?:\.\d+)?)\s*$/.exec(text)
    return Result.fail(`Expected a size with a unit, ${LIKE}, got ${quote(text)}${bare === null ? "" : ` (did you mean ${bare[1]}MB?)`}`)
  }
  const bytes = Math.floor(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!)
  return Number.isSafeInteger(bytes) && bytes > 0
    ? Result.succeed(bytes)
    : Result.fail(`Expected a size above 0 and below 9PB, ${LIKE}, got ${quote(text)}`)
}

/**
 * A size in bytes above 0: a number (decimals allowed) and a unit, `B`,
 * `KB`, `MB`, `GB`, `TB` (powers of 1000) or `KiB` ... `TiB` (powers of
 * 1024), any case. A number without a unit is refused with a suggestion.
 *
 * **Example** (Decoding a size)
 *
 * ```ts
 * import { Schema } from "effect"
 * import { Options } from "agent-trials"
 *
 * Schema.decodeUnknownSync(Options.ByteSize)("500MB") // 500000000
 * ```
 *
 * @category schemas
 * @since 0.5.0
 */
export const ByteSize = fromString(Schema.Number, parse, (bytes) => `${bytes}B`)

/** `12345678` -> `12.3 MB`, for messages. @internal */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1000) return `${bytes} B`
  const [unit, size] = ([["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["KB", 1e3]] as const).find(([, s]) => bytes >= s)!
  return `${Number((bytes / size).toPrecision(3))} ${unit}`
}

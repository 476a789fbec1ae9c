/**
 * The options of a model request as text arrives for them (`--temperature`,
 * `--header`, `--request` and their `--judge-*` twins): one Schema each, so
 * a flag, its variable and the config file refuse a value with the same
 * words.
 *
 * @since 0.10.0
 */
import { Result, Schema } from "effect"
import { fromString, quote } from "./options.ts"

/**
 * A sampling temperature: a number from 0 to 2 (`0`, `0.7`).
 *
 * @category schemas
 * @since 0.10.0
 */
export const Temperature = fromString(
  Schema.Number,
  (text): Result.Result<number, string> => {
    const n = /^\s*\d+(?:\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
    return Number.isFinite(n) && n <= 2 ? Result.succeed(n) : Result.fail(`Expected a number from 0 to 2, like 0 or 0.7, got ${quote(text)}`)
  },
  String
)

/**
 * A seed sent to the model: an integer (negative ones too).
 *
 * @category schemas
 * @since 0.10.0
 */
export const Seed = fromString(
  Schema.Number,
  (text): Result.Result<number, string> => {
    const n = /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN
    return Number.isSafeInteger(n) ? Result.succeed(n) : Result.fail(`Expected an integer, like 42, got ${quote(text)}`)
  },
  String
)

// RFC 9110's token: the characters a header name may have.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * A header `NAME=VALUE`: a header name (a token) and a value without line
 * breaks.
 *
 * @category schemas
 * @since 0.10.0
 */
export const Header = fromString(
  Schema.Struct({ name: Schema.String, value: Schema.String }),
  (text): Result.Result<{ readonly name: string; readonly value: string }, string> => {
    const at = text.indexOf("=")
    const name = at < 0 ? "" : text.slice(0, at).trim()
    const value = at < 0 ? "" : text.slice(at + 1)
    if (!TOKEN.test(name)) return Result.fail(`Expected NAME=VALUE with a header name before =, like X-Team=evals, got ${quote(text.split("=")[0] ?? "")}=...`)
    if (/[\r\n\0]/.test(value)) return Result.fail(`Expected a header value without line breaks for ${name}`)
    return Result.succeed({ name, value })
  },
  // The value is a secret as often as not: it is never written back.
  (header) => `${header.name}=<redacted>`
)

/**
 * A JSON object, merged into a request's body (`{"top_p": 0.9}`).
 *
 * @category schemas
 * @since 0.10.0
 */
export const RequestBody = fromString(
  Schema.Record(Schema.String, Schema.Unknown),
  (text): Result.Result<Record<string, unknown>, string> => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      return Result.fail(`Expected a JSON object, like {"top_p": 0.9}, got text that is not JSON (${error instanceof Error ? error.message : String(error)})`)
    }
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? Result.succeed(value as Record<string, unknown>)
      : Result.fail(`Expected a JSON object, like {"top_p": 0.9}, got ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}`)
  },
  (body) => JSON.stringify(body)
)

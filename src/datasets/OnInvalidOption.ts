/**
 * `--on-invalid` as a Schema from its text.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { fromString, quote } from "../internal/options.ts"
import type * as Dataset from "./Dataset.ts"

/**
 * What a bad dataset line does: `fail` or `skip`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OnInvalid = fromString(
  Schema.Literals(["fail", "skip"]),
  (text): Result.Result<Dataset.OnInvalid, string> =>
    text === "fail" || text === "skip" ? Result.succeed(text) : Result.fail(`Expected fail or skip, got ${quote(text)}`),
  (value) => value
)

/**
 * `--keep-workspaces[=all|failed]`: which workspaces outlive their trial.
 *
 * @since 0.9.0
 */
import { Result, Schema } from "effect"
import { fromString, quote } from "../internal/options.ts"

/**
 * The option's values: `all` keeps every workspace, `failed` those of failed
 * trials (the summary names them).
 *
 * @category options
 * @since 0.9.0
 */
export const KeepWorkspaces = fromString(
  Schema.Literals(["all", "failed"]),
  (text): Result.Result<"all" | "failed", string> =>
    text === "all" || text === "true" ? Result.succeed("all") : text === "failed" ? Result.succeed(text) : Result.fail(`Expected all or failed, got ${quote(text)}`),
  (value) => value
)

/**
 * Where an error says the fault is: the flag, the file and the line it
 * names, read from the fields errors here carry (`flag`; `file` or `path`;
 * `line`), never from their message. A command's error keeps them when it
 * wraps another, so a caller reads them at the end as at the start.
 *
 * @internal
 */
import { Schema } from "effect"

/**
 * The fields of an error that names where the fault is, each present only
 * when known: `flag` (the one to change: `--resume`, `--score`), `file`,
 * and `line` (of `file`, 1-based).
 *
 * @internal
 */
export const whereFields = {
  flag: Schema.optionalKey(Schema.String),
  file: Schema.optionalKey(Schema.String),
  line: Schema.optionalKey(Schema.Number)
}

/** The flag, file and line at fault; each present only when known. @internal */
export interface Where {
  readonly flag?: string
  readonly file?: string
  readonly line?: number
}

/**
 * The flag, file and line `error` names.
 *
 * **Example** (A dataset's bad line)
 *
 * ```ts
 * import { whereOf } from "./where.ts"
 *
 * whereOf({ path: "tasks.jsonl", line: 3, message: "tasks.jsonl:3: not JSON" })
 * // { file: "tasks.jsonl", line: 3 }
 * ```
 *
 * @internal
 */
export const whereOf = (error: unknown): Where => {
  if (typeof error !== "object" || error === null) return {}
  const e = error as { readonly flag?: unknown; readonly file?: unknown; readonly path?: unknown; readonly line?: unknown }
  const file = typeof e.file === "string" ? e.file : typeof e.path === "string" ? e.path : undefined
  return {
    ...(typeof e.flag === "string" ? { flag: e.flag } : undefined),
    ...(file === undefined ? undefined : { file }),
    ...(typeof e.line === "number" ? { line: e.line } : undefined)
  }
}

/**
 * The fields of an error that says what is wrong (`problem`) and, when
 * there is one, the flag and spec at fault (`where`: `--tools module:t.ts`).
 *
 * @internal
 */
export const placedFields = {
  where: Schema.optionalKey(Schema.String),
  problem: Schema.String
}

/**
 * The message of such an error: `where: problem`, or `problem` alone.
 *
 * @internal
 */
export const placedMessage = (error: { readonly where?: string | undefined; readonly problem: string }): string =>
  error.where === undefined ? error.problem : `${error.where}: ${error.problem}`

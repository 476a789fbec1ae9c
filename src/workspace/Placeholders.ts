/**
 * Placeholders in `--tools` specs, `--setup` and `check:` commands:
 * `{workspace}`, `{trial_id}`, `{task_id}`, `{epoch}` and `{task.PATH}` (a
 * dotted path into the task), each replaced by its value shell-quoted, so a
 * value with spaces or quotes stays one word.
 *
 * @since 0.9.0
 */

/**
 * What the placeholders of one trial stand for.
 *
 * @category models
 * @since 0.9.0
 */
export interface Values {
  readonly workspace?: string | undefined
  readonly trial_id: string
  readonly task_id: string
  readonly epoch?: number | undefined
  readonly task: unknown
}

const PLACEHOLDER = /\{(workspace|trial_id|task_id|epoch|task(?:\.[^{}\s]+)?)\}/g

/**
 * Whether `text` has a placeholder (a `--tools` source with one is started
 * once per trial).
 *
 * @category parsing
 * @since 0.9.0
 */
export const has = (text: string): boolean => new RegExp(PLACEHOLDER.source).test(text)

/**
 * `value` as one POSIX shell word: bare when it is only safe characters,
 * else in single quotes (a quote inside becomes `'\''`).
 *
 * @category formatting
 * @since 0.9.0
 */
export const shellQuote = (value: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`

const at = (value: unknown, path: ReadonlyArray<string>): unknown => {
  let v = value
  for (const key of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined
    v = (v as Record<string, unknown>)[key]
  }
  return v
}

/**
 * `text` with each placeholder replaced by its value, shell-quoted. A
 * placeholder whose value is missing (`{workspace}` without `--workspace`,
 * `{task.PATH}` where the task has nothing) is the problem, as a string:
 * `{ problem }`.
 *
 * With `{ workspace: "/tmp/r/t 1", ... }`, `env STATE={workspace}/s.json
 * node s.js` becomes `env STATE='/tmp/r/t 1'/s.json node s.js`.
 *
 * @category formatting
 * @since 0.9.0
 */
export const expand = (text: string, values: Values): { readonly text: string } | { readonly problem: string } => {
  let problem: string | undefined
  const out = text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = name === "workspace"
      ? values.workspace
      : name === "trial_id"
      ? values.trial_id
      : name === "task_id"
      ? values.task_id
      : name === "epoch"
      ? values.epoch
      : at(values.task, name.split(".").slice(1))
    if (value === undefined || value === null) {
      problem ??= `${whole} has no value${name === "workspace" ? " (it needs --workspace)" : ""}`
      return whole
    }
    return shellQuote(typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value))
  })
  return problem === undefined ? { text: out } : { problem }
}

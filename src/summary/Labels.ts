/**
 * What a trial record says about how its statistics are grouped, written by
 * `run` from the task (so `score`, `report` and `compare` compute the same
 * figures without the tasks file):
 *
 * - `metadata.epochs`: the run's epochs (K);
 * - `metadata.stderr_cluster`: the cluster the trial's standard errors are
 *   computed in: `{ by: "task", value: TASK_ID }` (epochs > 1, the default),
 *   `{ by: PATH, value }` (`--stderr-cluster PATH`), or `null` (not
 *   clustered: one epoch, or `--stderr-cluster none`);
 * - `metadata.groups`: `{ PATH: value }` for each `--group-by PATH`;
 * - `metadata.group_keys`: `{ PATH: key }` beside it, the key a group is
 *   told apart by: the value's JSON text (`"1"` is `"\"1\""`, `1` is `"1"`,
 *   a JSON null `"null"`), `null` where the task has no value at PATH.
 *   Readers group by these keys (a missing value under `(missing)`, which
 *   no JSON text is); on records written before them, by `groups`.
 *
 * A value is the task's value at a dotted PATH (`metadata.passage_id`,
 * `inputs.lang`) as text: a string as it is, anything else as JSON, `null`
 * where the task has none. A trial whose cluster value is `null` is a cluster
 * of its own task: tasks without a value are never pooled together.
 *
 * @since 0.1.0
 */
import { parsePath, TASK_FIELDS } from "../domain/internal/taskPath.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../domain/Trial.ts"

export { parsePath, TASK_FIELDS }

/**
 * The task's value at a dotted path, as text (see the module doc); `null`
 * where there is none (a missing key, a `null`, a path through a non-object).
 *
 * **Example** (Values as text)
 *
 * ```ts
 * import { Labels } from "agent-trials"
 *
 * const task = { id: "t1", inputs: {}, metadata: { subject: "math", level: 3 } }
 * Labels.valueAt(task, "metadata.subject") // "math"
 * Labels.valueAt(task, "metadata.level") // "3"
 * Labels.valueAt(task, "metadata.topic") // null
 * ```
 *
 * @category getters
 * @since 0.1.0
 */
export const valueAt = (task: AgentEvalTask, path: string): string | null => {
  let value: unknown = task
  for (const segment of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return null
    value = (value as Record<string, unknown>)[segment]
  }
  if (value === null || value === undefined) return null
  return typeof value === "string" ? value : JSON.stringify(value)
}

/**
 * The key a task's value at a dotted path is grouped by: its JSON text
 * (`"math"` is `"\"math\""`, `1` is `"1"`, a JSON null is `"null"`), or
 * `null` where the task has no value there (a missing key, a path through a
 * non-object). Unlike `valueAt`, `1` and `"1"` differ, and so do a `null`
 * and no value.
 *
 * **Example** (Keys by JSON text)
 *
 * ```ts
 * import { Labels } from "agent-trials"
 *
 * const task = { id: "t1", inputs: {}, metadata: { level: 1, code: "1", none: null } }
 * Labels.keyAt(task, "metadata.level") // "1"
 * Labels.keyAt(task, "metadata.code") // "\"1\""
 * Labels.keyAt(task, "metadata.none") // "null"
 * Labels.keyAt(task, "metadata.topic") // null
 * ```
 *
 * @category getters
 * @since 0.4.0
 */
export const keyAt = (task: AgentEvalTask, path: string): string | null => {
  let value: unknown = task
  for (const segment of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return null
    value = (value as Record<string, unknown>)[segment]
  }
  if (value === undefined) return null
  try {
    // A value JSON cannot write (a bigint) by its text.
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * How a run clusters: by `"task"`, by a PATH's value, or not at all (`null`).
 *
 * @category models
 * @since 0.1.0
 */
export type ClusterBy = string | null

/**
 * The clustering a run uses: `--stderr-cluster` when given (`null` for
 * `none`), otherwise by task when epochs > 1 and none with one epoch.
 *
 * @category constructors
 * @since 0.1.0
 */
export const clusterBy = (given: ClusterBy | undefined, epochs: number): ClusterBy =>
  given !== undefined ? given : epochs > 1 ? "task" : null

/**
 * The cluster part of a record, as written on `metadata.stderr_cluster`.
 *
 * @category models
 * @since 0.1.0
 */
export interface RecordCluster {
  readonly by: string
  readonly value: string | null
}

/**
 * What `run` writes on each trial's metadata (see the module doc).
 *
 * **Example** (The labels of a task of a 4-epoch run, grouped by subject)
 *
 * ```ts
 * import { Labels } from "agent-trials"
 *
 * Labels.ofTask({ id: "t1", inputs: {}, metadata: { subject: "math" } }, {
 *   epochs: 4,
 *   clusterBy: "task",
 *   groupBy: ["metadata.subject"]
 * })
 * // { epochs: 4, stderr_cluster: { by: "task", value: "t1" }, groups: { "metadata.subject": "math" } }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const ofTask = (
  task: AgentEvalTask,
  options: { readonly epochs: number; readonly clusterBy: ClusterBy; readonly groupBy: ReadonlyArray<string> }
): Record<string, unknown> => {
  const { clusterBy: by } = options
  const labels: Record<string, unknown> = {
    epochs: options.epochs,
    stderr_cluster: by === null ? null : { by, value: by === "task" ? task.id : valueAt(task, by) }
  }
  if (options.groupBy.length > 0) {
    labels.groups = Object.fromEntries(options.groupBy.map((path) => [path, valueAt(task, path)]))
    labels.group_keys = Object.fromEntries(options.groupBy.map((path) => [path, keyAt(task, path)]))
  }
  return labels
}

/**
 * The epochs a record says its run had; undefined on records written before
 * they said.
 *
 * @category getters
 * @since 0.1.0
 */
export const epochsOf = (trial: AgentEvalTrial): number | undefined => {
  const epochs = trial.metadata.epochs
  return typeof epochs === "number" && Number.isSafeInteger(epochs) && epochs >= 1 ? epochs : undefined
}

/**
 * The clustering a record says its run used: `undefined` on records written
 * before they said (the reader then clusters by task when epochs > 1).
 *
 * @category getters
 * @since 0.1.0
 */
export const clusterByOf = (trial: AgentEvalTrial): ClusterBy | undefined => {
  const cluster = recordCluster(trial)
  return cluster === undefined ? undefined : cluster === null ? null : cluster.by
}

const recordCluster = (trial: AgentEvalTrial): RecordCluster | null | undefined => {
  const cluster = trial.metadata.stderr_cluster
  if (cluster === null) return null
  if (typeof cluster !== "object" || cluster === undefined) return undefined
  const { by, value } = cluster as { readonly by?: unknown; readonly value?: unknown }
  return typeof by === "string" && (typeof value === "string" || value === null) ? { by, value } : undefined
}

/**
 * The key of the cluster a trial counts in under `by` (`null`: not
 * clustered). By task, or by a PATH whose value the record lacks, the key is
 * the task's own; otherwise the record's value, so tasks with the same value
 * share a cluster. The two kinds of key cannot collide.
 *
 * @category getters
 * @since 0.1.0
 */
export const clusterKey = (trial: AgentEvalTrial, by: ClusterBy): string | undefined => {
  if (by === null) return undefined
  if (by === "task") return `t${trial.task_id}`
  const cluster = recordCluster(trial)
  return cluster != null && cluster.by === by && cluster.value !== null ? `v${cluster.value}` : `t${trial.task_id}`
}

/**
 * The group values a record carries, by PATH; `{}` on a record without
 * groups. A value that is not text or `null` is read as missing.
 *
 * @category getters
 * @since 0.1.0
 */
export const groupsOf = (trial: AgentEvalTrial): Readonly<Record<string, string | null>> => {
  const groups = trial.metadata.groups
  if (groups === null || typeof groups !== "object" || Array.isArray(groups)) return {}
  const out: Record<string, string | null> = {}
  for (const [path, value] of Object.entries(groups as Record<string, unknown>)) {
    out[path] = typeof value === "string" ? value : null
  }
  return out
}

/**
 * The key of each group a record is in, by PATH: its `metadata.group_keys`
 * (the value's JSON text, `MISSING` for none) when it has them, else, on a
 * record written before them, its `metadata.groups` (the value as text,
 * `MISSING` for none or a null). `{}` on a record without groups.
 *
 * @category getters
 * @since 0.4.0
 */
export const groupKeysOf = (trial: AgentEvalTrial): Readonly<Record<string, string>> => {
  const keys = trial.metadata.group_keys
  const out: Record<string, string> = {}
  if (keys !== null && typeof keys === "object" && !Array.isArray(keys)) {
    for (const [path, key] of Object.entries(keys as Record<string, unknown>)) {
      out[path] = typeof key === "string" ? key : MISSING
    }
    return out
  }
  for (const [path, value] of Object.entries(groupsOf(trial))) out[path] = value ?? MISSING
  return out
}

/**
 * How a group's missing value is shown, and keyed in the summary.
 *
 * @category constants
 * @since 0.1.0
 */
export const MISSING = "(missing)"

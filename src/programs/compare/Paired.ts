/**
 * The paired change of a measure over tasks, `d = new - base` per task, with
 * tasks as the unit (the paired t test: `SE = s_d/√n` on n - 1 df) or, when
 * the comparison is clustered, clusters of tasks as the unit (CR1 over the G
 * clusters, `Clustered.accumulator`, on G - 1 df). The t statistic, its
 * two-sided p and the MDE at 80% power are on the same SE and df, so
 * `p < 0.05` exactly when the 95% interval excludes 0 either way.
 *
 * @internal
 */
import * as Clustered from "../../statistics/Clustered.ts"
import * as Significance from "../../statistics/Significance.ts"
import * as StudentT from "../../statistics/StudentT.ts"
import type { PairedChange } from "../../report/compare/Model.ts"
import type { FileTally } from "./Tally.ts"

export type { PairedChange } from "../../report/compare/Model.ts"

/**
 * The fields of `fields` (a change's own of a `PairedChange`, as its Schema
 * lists them) taken from `d`, in that order.
 *
 * @internal
 */
export const pick = <F extends { readonly [K in keyof PairedChange]?: unknown }>(
  fields: F,
  d: PairedChange
): { readonly [K in keyof F & keyof PairedChange]: PairedChange[K] } => {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(fields) as Array<keyof PairedChange>) picked[key] = d[key]
  return picked as { readonly [K in keyof F & keyof PairedChange]: PairedChange[K] }
}

/**
 * Collects per-task pairs: `add(base, new, cluster)`, the cluster key
 * required when clustered (see `clusterKey`), ignored otherwise.
 *
 * @internal
 */
export class Paired {
  private readonly differences: Clustered.Accumulator
  private readonly clustered: boolean
  private sumA = 0
  private sumB = 0

  constructor(clustered: boolean) {
    this.clustered = clustered
    this.differences = Clustered.accumulator({ clustered })
  }

  add(x: number, y: number, cluster: string | undefined): void {
    this.differences.add(y - x, cluster)
    this.sumA += x
    this.sumB += y
  }

  result(): PairedChange {
    const d = this.differences.snapshot()
    const { n, mean, sd, standard_error: se, df } = d
    const common = {
      n,
      base_mean: n === 0 ? null : this.sumA / n,
      new_mean: n === 0 ? null : this.sumB / n,
      delta: mean,
      sd,
      standard_error: se,
      df,
      ci95: d.ci95,
      clusters: d.clusters,
      design_effect: d.design_effect
    }
    if (!this.clustered) {
      return { ...common, p_value: Significance.tTestPValue(mean, sd, n), mde80: Significance.mde80(sd, n) }
    }
    if (mean === null || se === null || df === null) return { ...common, p_value: null, mde80: null }
    return {
      ...common,
      p_value: se === 0 ? (mean === 0 ? 1 : 0) : StudentT.twoSided(mean / se, df),
      mde80: (StudentT.quantile(0.975, df) + StudentT.quantile(0.8, df)) * se
    }
  }
}

/**
 * The cluster key of a task whose cluster value is `value`: tasks of one
 * value share a key; a task without one (null) is a cluster of its own.
 *
 * @internal
 */
export const clusterKey = (taskId: string, value: string | null | undefined): string =>
  value === null || value === undefined ? `t${taskId}` : `v${value}`

/**
 * The unit of the comparison: tasks (`path` null, no key), or clusters of
 * tasks by the value at `path` their first trial in the base file records.
 *
 * @internal
 */
export interface Unit {
  readonly path: string | null
  readonly of: (taskId: string) => string | undefined
}

/**
 * A paired task's value in a file: its scorer's mean over epochs (a failed
 * trial 0), or its completion rate; undefined when it has none.
 *
 * @internal
 */
export const valueIn = (file: FileTally, id: string, name: string, completion: boolean): number | undefined => {
  const task = file.tasks.get(id)!
  return completion ? task.completed / task.trials : file.valueOf(task, name)
}

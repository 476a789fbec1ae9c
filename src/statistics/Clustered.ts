/**
 * The standard error of a mean when the values come in clusters (the K
 * epochs of one task, the questions on one passage): values of one cluster
 * move together, so counting them as independent makes the interval too
 * narrow by up to √K (Miller 2024, "Adding Error Bars to Evals").
 *
 * - cluster-robust (CR1) standard error over G clusters, what a least-squares
 *   fit of a constant with cluster-robust errors gives:
 *   `SE = sqrt(G/(G-1) · Σ_g (Σ_{i∈g} (x_i - m))²) / n`;
 * - 95% interval `m ± t(0.975, G-1)·SE` (Student's t, not clipped);
 * - design effect `DEFF = (SE / SE_iid)²`, `SE_iid = s/√n`: how many times
 *   more trials the clustering costs (1 with clusters of one value);
 * - a pass rate's Wilson interval on the effective sample size
 *   `n_eff = n / max(1, DEFF)`, DEFF that of the 0/1 pass indicators.
 *
 * Unclustered, the same accumulator gives `s/√n` and `m ± t(0.975, n-1)·SE`,
 * with `clusters` and `design_effect` null.
 *
 * Memory: per open cluster its sum and count; a closed cluster is folded into
 * three running sums, since `Σ_g (S_g - n_g·m)² = Σ S_g² - 2m·Σ S_g·n_g +
 * m²·Σ n_g²` needs no m until the end. The caller says when a cluster is
 * closed (a task whose epochs are all in); with a cluster key that never
 * closes (an arbitrary metadata value) the map of open clusters is the
 * memory, one entry per distinct key.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Statistics from "./Statistics.ts"
import * as StudentT from "./StudentT.ts"

/**
 * The moments of clustered values: `standard_error` and `ci95` (on `df`
 * degrees of freedom) are the cluster-robust ones when clustered, the iid
 * ones otherwise; `iid_standard_error` is always `sd/√n`. `clusters` (G)
 * and `design_effect` are null when not clustered; `design_effect`,
 * `standard_error` and `ci95` are null where undefined (G < 2, or an SD of 0
 * for the design effect).
 *
 * @category models
 * @since 0.1.0
 */
export interface ClusteredMoments extends Statistics.Moments {
  readonly df: number | null
  readonly iid_standard_error: number | null
  readonly clusters: number | null
  readonly design_effect: number | null
}

/**
 * An accumulator of clustered values.
 *
 * @category models
 * @since 0.1.0
 */
export interface Accumulator {
  /** A value of `cluster` (ignored when not clustered; required when clustered). */
  readonly add: (value: number, cluster?: string) => void
  /**
   * No more values of `cluster` will come: its sums are folded away and its
   * entry freed. A value added to it later would open a new cluster of the
   * same key, counted apart: a caller's bug this cannot see.
   */
  readonly close: (cluster: string) => void
  /** Clusters with values and not yet closed: the entries kept in memory. */
  readonly openClusters: () => number
  readonly snapshot: () => ClusteredMoments
}

/**
 * A new accumulator, clustered or not.
 *
 * **Example** (Two tasks of two epochs each)
 *
 * ```ts
 * import { Clustered } from "agent-trials"
 *
 * const stats = Clustered.accumulator({ clustered: true })
 * stats.add(1, "t1")
 * stats.add(1, "t1")
 * stats.close("t1")
 * stats.add(0, "t2")
 * stats.add(0, "t2")
 * stats.snapshot()
 * // { n: 4, mean: 0.5, standard_error: 0.5, df: 1, clusters: 2, design_effect: 3, ... }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const accumulator = (options: { readonly clustered: boolean }): Accumulator => {
  const { clustered } = options
  // Welford's mean and squared deviations, for the mean and the iid SD.
  let n = 0
  let mean = 0
  let m2 = 0
  // The cluster sums are of `x - shift`, shift the first value: CR1 does not
  // change under a shift, and the sums then stay near the spread of the
  // values, so Σ S_g² - 2m·Σ S_g n_g + m²·Σ n_g² cancels little.
  let shift: number | undefined
  let total = 0
  let closed = 0
  let sumS2 = 0
  let sumSN = 0
  let sumN2 = 0
  const open = new Map<string, { s: number; n: number }>()
  return {
    add: (x, cluster) => {
      n++
      const delta = x - mean
      mean += delta / n
      m2 += delta * (x - mean)
      if (!clustered) return
      if (cluster === undefined) throw new RangeError("a clustered accumulator needs the cluster of every value")
      shift ??= x
      const y = x - shift
      total += y
      const entry = open.get(cluster)
      if (entry === undefined) open.set(cluster, { s: y, n: 1 })
      else {
        entry.s += y
        entry.n++
      }
    },
    close: (cluster) => {
      const entry = open.get(cluster)
      if (entry === undefined) return
      open.delete(cluster)
      closed++
      sumS2 += entry.s * entry.s
      sumSN += entry.s * entry.n
      sumN2 += entry.n * entry.n
    },
    openClusters: () => open.size,
    snapshot: () => {
      const iid = Statistics.moments([])
      if (n === 0) return { ...iid, df: null, iid_standard_error: null, clusters: clustered ? 0 : null, design_effect: null }
      const sd = n < 2 ? null : Math.sqrt(m2 / (n - 1))
      const iidSe = sd === null ? null : sd / Math.sqrt(n)
      const base = { n, mean, sd, iid_standard_error: iidSe }
      if (!clustered) {
        if (iidSe === null) return { ...base, standard_error: null, ci95: null, df: null, clusters: null, design_effect: null }
        return { ...base, standard_error: iidSe, ci95: interval(mean, iidSe, n - 1), df: n - 1, clusters: null, design_effect: null }
      }
      const g = closed + open.size
      if (g < 2) return { ...base, standard_error: null, ci95: null, df: null, clusters: g, design_effect: null }
      let s2 = sumS2
      let sn = sumSN
      let n2 = sumN2
      for (const entry of open.values()) {
        s2 += entry.s * entry.s
        sn += entry.s * entry.n
        n2 += entry.n * entry.n
      }
      const m = total / n
      const squares = Math.max(0, s2 - 2 * m * sn + m * m * n2)
      const se = Math.sqrt(g / (g - 1) * squares) / n
      return {
        ...base,
        standard_error: se,
        ci95: interval(mean, se, g - 1),
        df: g - 1,
        clusters: g,
        design_effect: iidSe === null || iidSe === 0 ? null : (se / iidSe) ** 2
      }
    }
  }
}

const interval = (mean: number, se: number, df: number): Statistics.Interval => {
  const t = StudentT.quantile(0.975, df)
  return [mean - t * se, mean + t * se]
}

/**
 * The Wilson interval of a pass rate `passed / n` on the effective sample
 * size `n / max(1, designEffect)` (the design effect of the 0/1 pass
 * indicators under the clusters; null: none, n itself). `null` for n = 0.
 * A design effect below 1 (clusters less alike than chance) does not
 * narrow the interval.
 *
 * **Example** (4 epochs of tasks that pass or fail as a whole)
 *
 * ```ts
 * import { Clustered } from "agent-trials"
 *
 * // 80 of 100 trials passed; the clustering made them worth 25 independent ones.
 * Clustered.wilson(80, 100, 4) // the Wilson interval of 20 of 25: [0.609..., 0.911...]
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const wilson = (passed: number, n: number, designEffect: number | null): Statistics.Interval | null => {
  if (n <= 0) return null
  const effective = n / Math.max(1, designEffect ?? 1)
  return Statistics.wilson(passed / n * effective, effective)
}

/**
 * A scorer's statistics with clustering: `standard_error` and `ci95` of the
 * values are the cluster-robust ones when clustered (`clusters`,
 * `design_effect` beside them), and `pass_rate_ci95` is the Wilson interval
 * on the effective sample size, with `pass_rate_design_effect` the design
 * effect of the 0/1 pass indicators (a failed trial and a scorer error count
 * 0) under the same clusters. Unclustered, these are the iid figures and the
 * cluster fields are null. A Schema, its fields in the order the summary's
 * and compare's JSON write them.
 *
 * @category models
 * @since 0.1.0
 */
export const ScorerStats = Schema.Struct({
  trials: Schema.Number,
  scored: Schema.Number,
  failed_trials: Schema.Number,
  errors: Schema.Number,
  values: Schema.Number,
  mean: Schema.NullOr(Schema.Number),
  sd: Schema.NullOr(Schema.Number),
  standard_error: Schema.NullOr(Schema.Number),
  ci95: Schema.NullOr(Statistics.Interval),
  iid_standard_error: Schema.NullOr(Schema.Number),
  clusters: Schema.NullOr(Schema.Number),
  design_effect: Schema.NullOr(Schema.Number),
  passed: Schema.Number,
  pass_rate: Schema.NullOr(Schema.Number),
  pass_rate_ci95: Schema.NullOr(Statistics.Interval),
  pass_rate_design_effect: Schema.NullOr(Schema.Number)
})
export type ScorerStats = typeof ScorerStats.Type

/**
 * An accumulator of one scorer's scores in clusters.
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoreAccumulator {
  readonly add: (score: Statistics.Observation, cluster?: string) => void
  /** A trial that failed before it could be scored: not passed, no value. */
  readonly addFailedTrial: (cluster?: string) => void
  /** No more trials of `cluster` will come (see {@link Accumulator.close}). */
  readonly close: (cluster: string) => void
  readonly snapshot: () => ScorerStats
}

/**
 * A new accumulator of one scorer's scores, clustered or not.
 *
 * **Example** (Two tasks of two epochs, one right both times, one wrong)
 *
 * ```ts
 * import { Clustered } from "agent-trials"
 *
 * const stats = Clustered.scores({ clustered: true })
 * stats.add({ value: 1, passed: true }, "t1")
 * stats.add({ value: 1, passed: true }, "t1")
 * stats.add({ value: 0, passed: false }, "t2")
 * stats.addFailedTrial("t2")
 * stats.snapshot()
 * // { trials: 4, passed: 2, pass_rate: 0.5, clusters: 2, design_effect: 3, pass_rate_design_effect: 3, ... }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const scores = (options: { readonly clustered: boolean }): ScoreAccumulator => {
  const values = accumulator(options)
  const passes = accumulator(options)
  let scored = 0
  let failedTrials = 0
  let errors = 0
  let passed = 0
  return {
    add: (score, cluster) => {
      scored++
      const pass = score.error === undefined && score.passed
      if (score.error !== undefined) errors++
      else values.add(score.value, cluster)
      if (pass) passed++
      passes.add(pass ? 1 : 0, cluster)
    },
    addFailedTrial: (cluster) => {
      failedTrials++
      passes.add(0, cluster)
    },
    close: (cluster) => {
      values.close(cluster)
      passes.close(cluster)
    },
    snapshot: () => {
      const v = values.snapshot()
      const p = passes.snapshot()
      const trials = scored + failedTrials
      return {
        trials,
        scored,
        failed_trials: failedTrials,
        errors,
        values: v.n,
        mean: v.mean,
        sd: v.sd,
        standard_error: v.standard_error,
        ci95: v.ci95,
        iid_standard_error: v.iid_standard_error,
        clusters: v.clusters,
        design_effect: v.design_effect,
        passed,
        pass_rate: trials === 0 ? null : passed / trials,
        pass_rate_ci95: wilson(passed, trials, p.design_effect),
        pass_rate_design_effect: p.design_effect
      }
    }
  }
}

/**
 * Statistics of scores, with the uncertainty a reader needs to trust them.
 *
 * - mean `m = Σx / n`; sample standard deviation `s = sqrt(Σ(x - m)² / (n - 1))`
 *   (Welford's update, constant space and stable); standard error `SE = s / √n`;
 *   95% interval `m ± t(0.975, n-1)·SE` on Student's t (none below 2 values):
 *   the normal 1.96 would be too narrow for few values (2.2x at n = 3).
 * - pass rate `p = passed / n` with the Wilson score interval
 *   `(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`, z = 1.959964: unlike
 *   `p ± z·sqrt(p(1-p)/n)`, it stays inside [0, 1] and is not zero-width at 0/n or n/n.
 * - unbiased pass@k per task of n trials, c passed: `1 - C(n-c, k) / C(n, k)`,
 *   computed as `1 - Π_{i=0}^{k-1} (n-c-i)/(n-i)` (no factorials, no overflow),
 *   averaged over the tasks with n >= k.
 * - paired difference of two runs over their common tasks: mean of `d = b - a`,
 *   with a 95% interval `d̄ ± t(0.975, n-1)·s_d/√n` on Student's t distribution.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as StudentT from "./StudentT.ts"

/**
 * The 97.5% quantile of the standard normal distribution.
 *
 * @category constants
 * @since 0.1.0
 */
export const Z95 = 1.959963984540054

/**
 * A closed interval `[low, high]`.
 *
 * @category models
 * @since 0.1.0
 */
export const Interval = Schema.Tuple([Schema.Number, Schema.Number])
export type Interval = typeof Interval.Type

/**
 * Count, mean, sample standard deviation, standard error and the 95%
 * interval `mean ± t(0.975, n-1)·SE` (Student's t, not clipped) of some
 * values; `null` where fewer values than needed (a mean needs 1, the rest 2).
 *
 * @category models
 * @since 0.1.0
 */
export interface Moments {
  readonly n: number
  readonly mean: number | null
  readonly sd: number | null
  readonly standard_error: number | null
  readonly ci95: Interval | null
}

/**
 * The moments of `values`, in one pass.
 *
 * **Example** (Mean, standard error and interval)
 *
 * ```ts
 * import { Statistics } from "agent-trials"
 *
 * Statistics.moments([1, 2, 3, 4])
 * // { n: 4, mean: 2.5, sd: 1.29..., standard_error: 0.645..., ci95: [0.445..., 4.554...] }
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const moments = (values: Iterable<number>): Moments => {
  const w = new Welford()
  for (const x of values) w.add(x)
  return w.moments()
}

/**
 * The Wilson score interval of `passed` successes in `n` trials; `null` for
 * n = 0.
 *
 * **Example** (8 of 10)
 *
 * ```ts
 * import { Statistics } from "agent-trials"
 *
 * Statistics.wilson(8, 10) // [0.4901..., 0.9433...]
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const wilson = (passed: number, n: number, z: number = Z95): Interval | null => {
  if (n <= 0) return null
  const p = passed / n
  const z2 = z * z
  const denominator = 1 + z2 / n
  const center = (p + z2 / (2 * n)) / denominator
  const half = (z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))) / denominator
  // Clamped: at p = 0 or 1 rounding can put an end a hair outside [0, 1].
  return [Math.max(0, center - half), Math.min(1, center + half)]
}

/**
 * Unbiased pass@k of one task with `n` trials of which `c` passed: the
 * chance that k of its n trials drawn without replacement hold a pass.
 * `undefined` when n < k. Other input (c > n, a fraction, k < 1) is a
 * caller's bug: a RangeError.
 *
 * @category statistics
 * @since 0.1.0
 */
export const passAtKOfTask = (n: number, c: number, k: number): number | undefined => {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k) && c >= 0 && c <= n && k >= 1)) {
    throw new RangeError(`pass@k needs integers 0 <= c <= n and k >= 1, got n=${n}, c=${c}, k=${k}`)
  }
  if (n < k) return undefined
  if (n - c < k) return 1
  let fail = 1
  for (let i = 0; i < k; i++) fail *= (n - c - i) / (n - i)
  return 1 - fail
}

/**
 * pass@k over tasks (each its own n, so a task with fewer trials still
 * counts): the mean of the tasks' pass@k over the `tasks` with n >= k;
 * `skipped` counts the others. `estimate` is null when no task qualifies.
 *
 * **Example** (Tasks with unequal numbers of trials)
 *
 * ```ts
 * import { Statistics } from "agent-trials"
 *
 * Statistics.passAtK([{ n: 3, c: 1 }, { n: 2, c: 0 }, { n: 1, c: 1 }], 2)
 * // { estimate: 0.333..., tasks: 2, skipped: 1 }: (2/3 + 0) / 2
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const passAtK = (
  tasks: Iterable<{ readonly n: number; readonly c: number }>,
  k: number
): { readonly estimate: number | null; readonly tasks: number; readonly skipped: number } => {
  let sum = 0
  let counted = 0
  let skipped = 0
  for (const { c, n } of tasks) {
    const p = passAtKOfTask(n, c, k)
    if (p === undefined) skipped++
    else {
      sum += p
      counted++
    }
  }
  return { estimate: counted === 0 ? null : sum / counted, tasks: counted, skipped }
}

/**
 * What a scorer's scores add up to. `trials` = `scored` + `failed_trials`:
 * the pass rate is over all of them (a failed trial and a score with an
 * error never pass); the moments are over the `values` of the scores without
 * an error (an error is no measurement).
 *
 * @category models
 * @since 0.1.0
 */
export interface ScorerStats extends Omit<Moments, "n"> {
  readonly trials: number
  readonly scored: number
  readonly failed_trials: number
  readonly errors: number
  readonly values: number
  readonly passed: number
  readonly pass_rate: number | null
  readonly pass_rate_ci95: Interval | null
}

/**
 * What an accumulator reads of one score: its value, its verdict, and
 * whether the scorer failed (a score with an `error` is counted, not
 * measured). A trial's `Score` is one; the numbers here need nothing else of
 * it.
 *
 * @category models
 * @since 0.6.0
 */
export interface Observation {
  readonly value: number
  readonly passed: boolean
  readonly error?: unknown
}

/**
 * A constant-space accumulator of one scorer's scores.
 *
 * @category models
 * @since 0.1.0
 */
export interface Accumulator {
  readonly add: (score: Observation) => void
  /** A trial that failed before it could be scored: not passed, no value. */
  readonly addFailedTrial: () => void
  readonly snapshot: () => ScorerStats
}

/**
 * A new accumulator.
 *
 * **Example** (Scores as they come)
 *
 * ```ts
 * import { Statistics } from "agent-trials"
 *
 * const stats = Statistics.accumulator()
 * stats.add({ value: 1, passed: true })
 * stats.add({ value: 0, passed: false })
 * stats.snapshot().pass_rate // 0.5
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const accumulator = (): Accumulator => {
  const values = new Welford()
  let scored = 0
  let failedTrials = 0
  let errors = 0
  let passed = 0
  return {
    add: (score) => {
      scored++
      if (score.error !== undefined) errors++
      else {
        values.add(score.value)
        if (score.passed) passed++
      }
    },
    addFailedTrial: () => {
      failedTrials++
    },
    snapshot: () => {
      const { n, ...m } = values.moments()
      const trials = scored + failedTrials
      return {
        trials,
        scored,
        failed_trials: failedTrials,
        errors,
        values: n,
        ...m,
        passed,
        pass_rate: trials === 0 ? null : passed / trials,
        pass_rate_ci95: wilson(passed, trials)
      }
    }
  }
}

/**
 * The paired difference of two runs: `d = b - a` per task present in both
 * (a task's score in a run is, say, its mean over trials), with its mean,
 * standard error and 95% interval on Student's t with n - 1 degrees of
 * freedom (exact for normal differences, and wider than the normal interval
 * for few tasks, as it should be). Tasks in only one run are counted, not
 * used.
 *
 * **Example** (Run B against run A)
 *
 * ```ts
 * import { Statistics } from "agent-trials"
 *
 * const a = new Map([["t1", 0.5], ["t2", 0.25], ["t3", 1]])
 * const b = new Map([["t1", 0.75], ["t2", 0.5], ["t3", 1], ["t4", 1]])
 * Statistics.pairedDifference(a, b)
 * // { n: 3, mean: 0.1666..., ..., only_in_a: 0, only_in_b: 1 }
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const pairedDifference = (
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>
): Moments & { readonly df: number | null; readonly only_in_a: number; readonly only_in_b: number } => {
  const w = new Welford()
  let onlyInA = 0
  for (const [task, x] of a) {
    const y = b.get(task)
    if (y === undefined) onlyInA++
    else w.add(y - x)
  }
  const { n, ...m } = w.moments()
  const onlyInB = b.size - n
  if (n < 2 || m.mean === null || m.standard_error === null) {
    return { n, ...m, ci95: null, df: null, only_in_a: onlyInA, only_in_b: onlyInB }
  }
  const t = StudentT.quantile(0.975, n - 1)
  return {
    n,
    ...m,
    ci95: [m.mean - t * m.standard_error, m.mean + t * m.standard_error],
    df: n - 1,
    only_in_a: onlyInA,
    only_in_b: onlyInB
  }
}

// Welford's online mean and sum of squared deviations: no catastrophic
// cancellation, unlike Σx² - (Σx)²/n.
class Welford {
  private n = 0
  private mean = 0
  private m2 = 0

  add(x: number): void {
    this.n++
    const delta = x - this.mean
    this.mean += delta / this.n
    this.m2 += delta * (x - this.mean)
  }

  moments(): Moments {
    const { n } = this
    if (n === 0) return { n, mean: null, sd: null, standard_error: null, ci95: null }
    if (n === 1) return { n, mean: this.mean, sd: null, standard_error: null, ci95: null }
    const sd = Math.sqrt(this.m2 / (n - 1))
    const se = sd / Math.sqrt(n)
    const t = StudentT.quantile(0.975, n - 1)
    return { n, mean: this.mean, sd, standard_error: se, ci95: [this.mean - t * se, this.mean + t * se] }
  }
}

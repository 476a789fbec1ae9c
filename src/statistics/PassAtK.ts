/**
 * pass@k and pass^k over tasks, with the interval a reader needs to trust
 * them. Per task of n trials of which c passed:
 *
 * - pass@k `1 - C(n-c, k) / C(n, k)`: at least one of k trials drawn without
 *   replacement passes (the unbiased estimator, `Statistics.passAtKOfTask`);
 * - pass^k `C(c, k) / C(n, k)`: every one of the k draws passes (the
 *   reliability measure of τ-bench), computed as `Π_{i<k} (c-i)/(n-i)`:
 *   no factorials, no overflow.
 *
 * Over the T tasks with n >= k: the mean of the per-task estimates, and the
 * 95% interval `mean ± t(0.975, T-1) · sd / √T` of Student's t over tasks
 * (the task, not the trial, is the unit sampled), not clipped.
 *
 * @since 0.1.0
 */
import * as Statistics from "./Statistics.ts"
import * as StudentT from "./StudentT.ts"

/**
 * Which measure: at least one of k draws passes (`pass@k`), or all k do
 * (`pass^k`).
 *
 * @category models
 * @since 0.1.0
 */
export type Measure = "pass@k" | "pass^k"

/**
 * A measure over tasks: `estimate` the mean over the `tasks` with n >= k
 * (`skipped` the others), `sd` of the per-task values, `standard_error`
 * `sd / √tasks`, and `ci95` on tasks - 1 degrees of freedom; `null` where
 * too few tasks (an estimate needs 1, the rest 2).
 *
 * @category models
 * @since 0.1.0
 */
export interface Estimate {
  readonly estimate: number | null
  readonly sd: number | null
  readonly standard_error: number | null
  readonly ci95: Statistics.Interval | null
  readonly tasks: number
  readonly skipped: number
}

/**
 * pass^k of one task with `n` trials of which `c` passed: the chance that k
 * of its n trials drawn without replacement all passed. `undefined` when
 * n < k; other bad input (c > n, a fraction, k < 1) is a RangeError.
 *
 * **Example** (3 of 4 trials passed)
 *
 * ```ts
 * import { PassAtK } from "agent-trials"
 *
 * PassAtK.passHatKOfTask(4, 3, 2) // C(3, 2) / C(4, 2) = 0.5
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const passHatKOfTask = (n: number, c: number, k: number): number | undefined => {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k) && c >= 0 && c <= n && k >= 1)) {
    throw new RangeError(`pass^k needs integers 0 <= c <= n and k >= 1, got n=${n}, c=${c}, k=${k}`)
  }
  if (n < k) return undefined
  if (c < k) return 0
  let all = 1
  for (let i = 0; i < k; i++) all *= (c - i) / (n - i)
  return all
}

const ofTask = (measure: Measure) => measure === "pass@k" ? Statistics.passAtKOfTask : passHatKOfTask

/**
 * A measure over tasks of any n each, with its interval over tasks.
 *
 * **Example** (pass@2 and pass^2 of five tasks of 4 epochs)
 *
 * ```ts
 * import { PassAtK } from "agent-trials"
 *
 * const tasks = [4, 3, 1, 0, 2].map((c) => ({ n: 4, c }))
 * PassAtK.estimate(tasks, 2, "pass@k") // { estimate: 0.666..., ci95: [0.139..., 1.194...], tasks: 5, ... }
 * PassAtK.estimate(tasks, 2, "pass^k") // { estimate: 0.333..., ci95: [-0.194..., 0.860...], ... }
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const estimate = (
  tasks: Iterable<{ readonly n: number; readonly c: number }>,
  k: number,
  measure: Measure
): Estimate => {
  const f = ofTask(measure)
  let skipped = 0
  let counted = 0
  // Welford over the per-task values: one pass, constant space.
  let mean = 0
  let m2 = 0
  for (const { c, n } of tasks) {
    const x = f(n, c, k)
    if (x === undefined) {
      skipped++
      continue
    }
    counted++
    const delta = x - mean
    mean += delta / counted
    m2 += delta * (x - mean)
  }
  return summarize(counted, mean, m2, skipped)
}

/**
 * The same from the histogram of tasks by passes (`tasksByPasses[c]` tasks
 * passed c of their n = length - 1 trials each), as the run summary keeps
 * it. Every task is skipped when k > n.
 *
 * **Example** (The histogram of the tasks above)
 *
 * ```ts
 * import { PassAtK } from "agent-trials"
 *
 * PassAtK.fromHistogram([1, 1, 1, 1, 1], 2, "pass^k").estimate // 0.333...
 * ```
 *
 * @category statistics
 * @since 0.1.0
 */
export const fromHistogram = (tasksByPasses: ReadonlyArray<number>, k: number, measure: Measure): Estimate => {
  if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`${measure} needs an integer k >= 1, got k=${k}`)
  const n = tasksByPasses.length - 1
  const tasks = tasksByPasses.reduce((a, b) => a + b, 0)
  if (n < k) return summarize(0, 0, 0, tasks)
  const f = ofTask(measure)
  let sum = 0
  for (let c = 0; c <= n; c++) if (tasksByPasses[c] > 0) sum += tasksByPasses[c] * f(n, c, k)!
  const mean = tasks === 0 ? 0 : sum / tasks
  let m2 = 0
  for (let c = 0; c <= n; c++) if (tasksByPasses[c] > 0) m2 += tasksByPasses[c] * (f(n, c, k)! - mean) ** 2
  return summarize(tasks, mean, m2, 0)
}

const summarize = (tasks: number, mean: number, m2: number, skipped: number): Estimate => {
  if (tasks === 0) return { estimate: null, sd: null, standard_error: null, ci95: null, tasks, skipped }
  if (tasks === 1) return { estimate: mean, sd: null, standard_error: null, ci95: null, tasks, skipped }
  const sd = Math.sqrt(m2 / (tasks - 1))
  const se = sd / Math.sqrt(tasks)
  const t = StudentT.quantile(0.975, tasks - 1)
  return { estimate: mean, sd, standard_error: se, ci95: [mean - t * se, mean + t * se], tasks, skipped }
}

/**
 * Tests for a comparison a CI gate can trust:
 *
 * - the paired t test's two-sided p-value of a mean difference `d̄` over n
 *   pairs: `t = d̄ / (s_d/√n)`, `p = P(|T_{n-1}| >= |t|)`. It is below 0.05
 *   exactly when the 95% t interval `d̄ ± t(0.975, n-1)·s_d/√n` excludes 0;
 * - McNemar's exact test of paired pass/fail verdicts: of the b tasks that
 *   passed only before and the c that passed only after, under no change
 *   each discordant task is a fair coin, so `p = min(1, 2·P(X <= min(b, c)))`
 *   for X ~ Binomial(b + c, 1/2); p = 1 with no discordant task;
 * - Holm's step-down adjustment of m p-values (family-wise error rate): the
 *   i-th smallest `p_(i)` becomes `max_{j<=i} min(1, (m - j + 1)·p_(j))`;
 *   rejecting where the adjusted p is below α holds the chance of any false
 *   rejection to α, and with m = 1 it is the plain test;
 * - the minimum detectable effect at 80% power of a paired t test, two-sided
 *   5%: `(t(0.975, n-1) + t(0.80, n-1))·s_d/√n`.
 *
 * @since 0.1.0
 */
import * as StudentT from "./StudentT.ts"

/**
 * The two-sided p-value of the one-sample (paired) t test that the mean of
 * n values with sample SD `sd` is 0; `null` below 2 values. An SD of 0 gives
 * 1 for a mean of 0 and 0 for any other (the interval is that one point).
 *
 * **Example** (Differences with mean -0.5, SD 0.5, over 5 tasks)
 *
 * ```ts
 * import { Significance } from "agent-trials"
 *
 * Significance.tTestPValue(-0.5, 0.5, 5) // t = -2.236 on 4 df: 0.0890...
 * ```
 *
 * @category tests
 * @since 0.1.0
 */
export const tTestPValue = (mean: number | null, sd: number | null, n: number): number | null => {
  if (n < 2 || mean === null || sd === null) return null
  if (sd === 0) return mean === 0 ? 1 : 0
  return StudentT.twoSided(mean / (sd / Math.sqrt(n)), n - 1)
}

/**
 * McNemar's exact two-sided p-value for `b` and `c` discordant pairs (passed
 * only in one run, only in the other). The binomial tail is summed from
 * `P(X = min(b, c))` down, that term taken in logs: no overflow, no
 * underflow of a term before the sum is reached, for any count.
 *
 * **Example** (1 task passed only before, 6 only after)
 *
 * ```ts
 * import { Significance } from "agent-trials"
 *
 * Significance.mcnemar(1, 6) // 2·(1 + 7)/2⁷ = 0.125
 * ```
 *
 * @category tests
 * @since 0.1.0
 */
export const mcnemar = (b: number, c: number): number => {
  if (!(Number.isSafeInteger(b) && Number.isSafeInteger(c) && b >= 0 && c >= 0)) {
    throw new RangeError(`McNemar's test needs counts b, c >= 0, got b=${b}, c=${c}`)
  }
  const n = b + c
  if (n === 0) return 1
  const k = Math.min(b, c)
  // ln C(n, k) = Σ_{i=1}^{k} ln((n - k + i) / i): exact for small counts.
  let lnBinomial = 0
  for (let i = 1; i <= k; i++) lnBinomial += Math.log((n - k + i) / i)
  const atK = Math.exp(lnBinomial - n * Math.LN2)
  // P(X = i - 1) / P(X = i) = i / (n - i + 1): each term below k relative to P(X = k).
  let term = 1
  let sum = 1
  for (let i = k; i > 0; i--) {
    term *= i / (n - i + 1)
    sum += term
    if (term < sum * 1e-17) break
  }
  return Math.min(1, 2 * atK * sum)
}

/**
 * Holm's step-down adjusted p-values, in the order given. A scorer is
 * significant at family-wise level α when its adjusted p is below α.
 *
 * **Example** (Four hypotheses)
 *
 * ```ts
 * import { Significance } from "agent-trials"
 *
 * Significance.holm([0.01, 0.03, 0.04, 0.005]) // [0.03, 0.06, 0.06, 0.02]: H1 and H4 rejected at 5%
 * ```
 *
 * @category tests
 * @since 0.1.0
 */
export const holm = (pValues: ReadonlyArray<number>): Array<number> => {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`Holm's adjustment needs p-values in [0, 1], got ${p}`)
  }
  const m = pValues.length
  const order = pValues.map((_, i) => i).sort((i, j) => pValues[i] - pValues[j])
  const adjusted = new Array<number>(m)
  let running = 0
  order.forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * pValues[index]))
    adjusted[index] = running
  })
  return adjusted
}

/**
 * The smallest mean paired difference a two-sided 5% t test over `n` pairs
 * with difference SD `sd` detects with 80% power; `null` below 2 pairs.
 *
 * **Example** (30 tasks, differences with SD 0.4)
 *
 * ```ts
 * import { Significance } from "agent-trials"
 *
 * Significance.mde80(0.4, 30) // (2.045 + 0.854)·0.4/√30 = 0.2117...
 * ```
 *
 * @category tests
 * @since 0.1.0
 */
export const mde80 = (sd: number | null, n: number): number | null => {
  if (n < 2 || sd === null) return null
  return (StudentT.quantile(0.975, n - 1) + StudentT.quantile(0.8, n - 1)) * sd / Math.sqrt(n)
}

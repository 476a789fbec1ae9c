/**
 * Student's t distribution: its CDF through the regularized incomplete beta
 * function, and its quantiles by bisection on the CDF (no table, no
 * large-sample approximation). Measured against closed forms and the
 * Cornish-Fisher expansion: relative error about 1e-13 up to 120 degrees of
 * freedom, 1e-10 up to a million. For the confidence interval of a mean of
 * few values, where the normal 1.96 is too narrow (the 97.5% quantile is
 * 12.71 at 1 degree of freedom, 2.26 at 9, 1.98 at 120).
 *
 * @since 0.1.0
 */

/**
 * P(T <= t) for T with `df` degrees of freedom (df > 0, not necessarily an
 * integer): `1 - I_x(df/2, 1/2) / 2` for t >= 0, with x = df / (df + t^2),
 * and by symmetry below 0.
 *
 * @category distributions
 * @since 0.1.0
 */
export const cdf = (t: number, df: number): number => {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN
  if (t === Infinity) return 1
  if (t === -Infinity) return 0
  const tail = 0.5 * bothTails(t, df)
  return t >= 0 ? 1 - tail : tail
}

// P(|T| >= |t|) = I_x(df/2, 1/2), x = df / (df + t²), with 1 - x taken as
// t² / (df + t²): from x alone, a t near 0 lost its digits (t = 1e-8 gave 1).
const bothTails = (t: number, df: number): number => {
  const t2 = t * t
  return betaOf(df / (df + t2), t2 / (df + t2), df / 2, 0.5)
}

/**
 * The two-sided p-value of a t statistic: P(|T| >= |t|) =
 * `I_x(df/2, 1/2)` with x = df / (df + t^2), computed as that tail (not
 * `2·(1 - cdf)`, which loses the digits of a small p).
 *
 * **Example** (t = 2.1 on 3 degrees of freedom)
 *
 * ```ts
 * import { StudentT } from "agent-trials"
 *
 * StudentT.twoSided(2.1, 3) // 0.12656520254968...
 * ```
 *
 * @category distributions
 * @since 0.1.0
 */
export const twoSided = (t: number, df: number): number => {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN
  if (!Number.isFinite(t)) return 0
  return bothTails(t, df)
}

/**
 * The t with P(T <= t) = p, for 0 < p < 1 and df > 0.
 *
 * **Example** (The 97.5% quantile for a 95% interval of 10 values)
 *
 * ```ts
 * import { StudentT } from "agent-trials"
 *
 * StudentT.quantile(0.975, 9) // 2.2621571627...
 * ```
 *
 * @category distributions
 * @since 0.1.0
 */
export const quantile = (p: number, df: number): number => {
  if (!(p > 0 && p < 1) || !(df > 0)) return Number.NaN
  if (p === 0.5) return 0
  if (p < 0.5) return -quantile(1 - p, df)
  // The upper tail 1 - p is computed directly: 1 - cdf would lose digits near p = 1.
  const tail = 1 - p
  const upper = (t: number) => 0.5 * bothTails(t, df)
  let lo = 0
  let hi = 1
  while (upper(hi) > tail) {
    lo = hi
    hi *= 2
    if (!Number.isFinite(hi)) return Infinity
  }
  for (let i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
    const mid = (lo + hi) / 2
    if (upper(mid) > tail) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/**
 * The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (modified Lentz), on the side where it converges fast.
 *
 * @category distributions
 * @since 0.1.0
 */
export const incompleteBeta = (x: number, a: number, b: number): number => betaOf(x, 1 - x, a, b)

// I_x(a, b) given x and y = 1 - x each computed directly by the caller: near
// x = 1, `1 - x` would keep only the digits x had left.
const betaOf = (x: number, y: number, a: number, b: number): number => {
  if (x <= 0) return 0
  if (y <= 0) return 1
  const lnX = x < 0.5 ? Math.log(x) : Math.log1p(-y)
  const lnY = y < 0.5 ? Math.log(y) : Math.log1p(-x)
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * lnX + b * lnY)
  return x < (a + 1) / (a + b + 2)
    ? front * continuedFraction(x, a, b) / a
    : 1 - front * continuedFraction(y, b, a) / b
}

const TINY = 1e-300

const continuedFraction = (x: number, a: number, b: number): number => {
  let c = 1
  let d = 1 - (a + b) * x / (a + 1)
  if (Math.abs(d) < TINY) d = TINY
  d = 1 / d
  let h = d
  for (let m = 1; m <= 100_000; m++) {
    const m2 = 2 * m
    // The even step, then the odd step of the fraction.
    let aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < TINY) d = TINY
    c = 1 + aa / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    h *= d * c
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < TINY) d = TINY
    c = 1 + aa / c
    if (Math.abs(c) < TINY) c = TINY
    d = 1 / d
    const delta = d * c
    h *= delta
    if (Math.abs(delta - 1) < 1e-16) break
  }
  return h
}

// Lanczos approximation (g = 7, 9 terms), relative error about 1e-15.
const LANCZOS = [
  0.99999999999980993,
  676.5203681218851,
  -1259.1392167224028,
  771.32342877765313,
  -176.61502916214059,
  12.507343278686905,
  -0.13857109526572012,
  9.9843695780195716e-6,
  1.5056327351493116e-7
]

/**
 * ln Γ(x) for x > 0.
 *
 * @category distributions
 * @since 0.1.0
 */
export const logGamma = (x: number): number => {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const z = x - 1
  let sum = LANCZOS[0]
  for (let i = 1; i < 9; i++) sum += LANCZOS[i] / (z + i)
  const t = z + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum)
}

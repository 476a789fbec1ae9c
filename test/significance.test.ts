/**
 * The tests of a comparison, against values computed outside this code: by
 * hand (binomial sums in the comments), Holm on the Wikipedia example
 * ("Holm–Bonferroni method", Example: p = 0.01, 0.03, 0.04, 0.005 at 5%
 * rejects hypotheses one and four), and with python3 on this machine, scipy
 * 1.17.1: `scipy.special.betainc`, `2·scipy.stats.t.sf(|t|, df)`,
 * `scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue` (equal to the doubled
 * tail when p = 1/2) and `scipy.stats.t.ppf`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Significance from "../src/statistics/Significance.ts"
import * as Statistics from "../src/statistics/Statistics.ts"
import * as StudentT from "../src/statistics/StudentT.ts"

const relative = (actual: number | null, expected: number, tolerance: number, what = "") => {
  assert.isNumber(actual, what)
  assert.isAtMost(Math.abs(actual! - expected), tolerance * Math.max(Math.abs(expected), 1e-300), `${what}: ${actual} vs ${expected}`)
}

describe("StudentT.incompleteBeta and twoSided", () => {
  it("I_x(a, b) against scipy.special.betainc(a, b, x)", () => {
    const cases: ReadonlyArray<readonly [number, number, number, number]> = [
      [0.5, 2, 3, 0.6875], // by hand: I_0.5(2, 3) = Σ_{j=2}^{4} C(4, j)/16 = (6 + 4 + 1)/16
      [0.1, 0.5, 0.5, 0.20483276469913345],
      [0.9, 10, 0.5, 0.15164090963470994],
      [0.999, 50, 0.5, 0.7523690199653766],
      [0.3, 100, 200, 0.10884306564490986],
      [0.01, 0.5, 30, 0.560665631094749],
      [0.75, 1.5, 0.5, 0.3910022189557705],
      [1e-5, 2, 0.5, 3.7500125000703137e-11]
    ]
    for (const [x, a, b, expected] of cases) relative(StudentT.incompleteBeta(x, a, b), expected, 1e-12, `I_${x}(${a}, ${b})`)
  })

  it("two-sided p-values against 2·scipy.stats.t.sf(|t|, df)", () => {
    const cases: ReadonlyArray<readonly [number, number, number]> = [
      [2.1, 3, 0.1265652025496846],
      [-0.7, 10, 0.4998875701728844],
      [0, 5, 1],
      [12.7062047361747, 1, 0.050000000000000024],
      [3.5, 40, 0.0011577066147574699],
      [40, 4, 2.3340163226012678e-06],
      [1e-8, 7, 0.999999992300171],
      [-5, 2.5, 0.02345118997086185]
    ]
    for (const [t, df, expected] of cases) relative(StudentT.twoSided(t, df), expected, 1e-11, `t ${t} df ${df}`)
    // Near t = 0, from x = df/(df + t²) alone (x rounds to 1) the p was exactly 1 and the CDF 0.5.
    relative(StudentT.cdf(1e-8, 7), 0.5000000038499145, 1e-15)
    relative(StudentT.quantile(0.500001, 3), 2.7206990464555036e-06, 1e-9)
    assert.strictEqual(StudentT.twoSided(Infinity, 3), 0)
    assert.isNaN(StudentT.twoSided(1, 0))
  })
})

describe("Significance.tTestPValue", () => {
  it("the paired t test's p: d̄ = -0.5, s = 0.5, n = 5 is t = -√5 on 4 df, p = 0.08900934250008567 (scipy)", () => {
    relative(Significance.tTestPValue(-0.5, 0.5, 5), 0.08900934250008567, 1e-11)
    assert.isNull(Significance.tTestPValue(1, null, 1))
    assert.strictEqual(Significance.tTestPValue(0, 0, 4), 1)
    assert.strictEqual(Significance.tTestPValue(-0.2, 0, 4), 0)
  })

  it("p < 0.05 exactly when the 95% t interval excludes 0 (random paired data, n = 2..40)", () => {
    let seed = 17
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    let excluded = 0
    for (let round = 0; round < 2000; round++) {
      const n = 2 + Math.floor(random() * 39)
      const shift = (random() - 0.5) * 0.6
      const a = new Map<string, number>()
      const b = new Map<string, number>()
      for (let i = 0; i < n; i++) {
        a.set(`t${i}`, random())
        b.set(`t${i}`, random() + shift)
      }
      const d = Statistics.pairedDifference(a, b)
      const p = Significance.tTestPValue(d.mean, d.sd, d.n)!
      const outside = d.ci95![0] > 0 || d.ci95![1] < 0
      assert.strictEqual(p < 0.05, outside, `n ${n}: p ${p}, ci ${d.ci95}`)
      if (outside) excluded++
    }
    // Both sides of the boundary were seen.
    assert.isAbove(excluded, 200)
    assert.isBelow(excluded, 1800)
  })
})

describe("Significance.mcnemar", () => {
  it("small b, c by hand: 2·Σ_{i<=min} C(b+c, i) / 2^(b+c)", () => {
    // b 1, c 6: 2·(1 + 7)/128 = 0.125. b 0, c 5: 2·1/32 = 0.0625.
    // b 2, c 8: 2·(1 + 10 + 45)/1024 = 0.109375. b 3, c 3: 2·(1 + 6 + 15 + 20)/64 > 1: 1.
    // b 10, c 25: 2·Σ_{i<=10} C(35, i)/2^35 = 0.016673847800120715 (python math.comb; scipy binomtest agrees).
    assert.approximately(Significance.mcnemar(1, 6), 0.125, 1e-15)
    assert.approximately(Significance.mcnemar(6, 1), 0.125, 1e-15)
    assert.approximately(Significance.mcnemar(0, 5), 0.0625, 1e-15)
    assert.approximately(Significance.mcnemar(2, 8), 0.109375, 1e-15)
    assert.strictEqual(Significance.mcnemar(3, 3), 1)
    relative(Significance.mcnemar(10, 25), 0.016673847800120715, 1e-13)
  })

  it("no discordant pair: 1; large counts stay finite (scipy binomtest)", () => {
    assert.strictEqual(Significance.mcnemar(0, 0), 1)
    relative(Significance.mcnemar(400, 480), 0.007707305043339153, 1e-9)
    relative(Significance.mcnemar(4900, 5100), 0.04658552770494645, 1e-9)
    assert.strictEqual(Significance.mcnemar(0, 1200), 0) // 2·2^-1200 underflows, as in scipy
    assert.throws(() => Significance.mcnemar(-1, 2), RangeError)
    assert.throws(() => Significance.mcnemar(1.5, 2), RangeError)
  })
})

describe("Significance.holm", () => {
  it("the Wikipedia example: 0.01, 0.03, 0.04, 0.005 adjust to 0.03, 0.06, 0.06, 0.02 (H1 and H4 below 5%)", () => {
    // Sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 -> running max 0.06.
    const adjusted = Significance.holm([0.01, 0.03, 0.04, 0.005])
    const expected = [0.03, 0.06, 0.06, 0.02]
    adjusted.forEach((p, i) => assert.approximately(p, expected[i], 1e-15))
    assert.deepStrictEqual(adjusted.map((p) => p < 0.05), [true, false, false, true])
  })

  it("six values (R's p.adjust(method = \"holm\") by hand): the cap at 1, ties, m = 1 and m = 0", () => {
    // 0.01, 0.04, 0.20, 0.03, 0.005, 0.07: sorted 0.005·6 = 0.03, 0.01·5 = 0.05, 0.03·4 = 0.12,
    // 0.04·3 = 0.12, 0.07·2 = 0.14, 0.20·1 = 0.20.
    const adjusted = Significance.holm([0.01, 0.04, 0.2, 0.03, 0.005, 0.07])
    const expected = [0.05, 0.12, 0.2, 0.12, 0.03, 0.14]
    adjusted.forEach((p, i) => assert.approximately(p, expected[i], 1e-15))
    // Ties after the running max: 0.3·3 = 0.9, max(0.4·2, 0.9), max(0.4·1, 0.9).
    Significance.holm([0.4, 0.3, 0.4]).forEach((p) => assert.approximately(p, 0.9, 1e-15))
    assert.deepStrictEqual(Significance.holm([0.6, 0.7]), [1, 1])
    assert.deepStrictEqual(Significance.holm([0.0371]), [0.0371])
    assert.deepStrictEqual(Significance.holm([]), [])
    assert.throws(() => Significance.holm([Number.NaN]), RangeError)
  })
})

describe("Significance.mde80", () => {
  it("(t(0.975, n-1) + t(0.80, n-1))·sd/√n from scipy's t quantiles", () => {
    // n = 10: t(0.975, 9) = 2.262157162798205, t(0.80, 9) = 0.8834038596855346; sd 0.3:
    // 3.1455610224837396·0.3/√10 = 0.298414120502902. n = 30, sd 0.4: (2.045229642132703 +
    // 0.8541919858818557)·0.4/√30 = 0.21174381725092356.
    relative(Significance.mde80(0.3, 10), 0.298414120502902, 1e-11)
    relative(Significance.mde80(0.4, 30), 0.21174381725092356, 1e-11)
    relative(StudentT.quantile(0.8, 4), 0.9409645772351816, 1e-11)
    assert.isNull(Significance.mde80(0.3, 1))
    assert.isNull(Significance.mde80(null, 5))
    assert.strictEqual(Significance.mde80(0, 5), 0)
  })
})

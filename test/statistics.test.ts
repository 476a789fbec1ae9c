/**
 * The statistics against values computed by hand (the arithmetic is in the
 * comments, z = 1.959963984540054), against closed forms (Student's t for
 * 1 and 2 degrees of freedom), against exact rationals (pass@k with BigInt
 * binomials) and against the summary's equal-n pass@k.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Statistics from "../src/statistics/Statistics.ts"
import * as StudentT from "../src/statistics/StudentT.ts"
import { passAtK as histogramPassAtK } from "../src/summary/Summary.ts"
import type { Score } from "../src/domain/Trial.ts"

const close = (actual: number | null | undefined, expected: number, tolerance = 1e-9, what = "") => {
  assert.isNumber(actual, what)
  assert.approximately(actual!, expected, tolerance, what)
}

const closeInterval = (actual: Statistics.Interval | null, expected: readonly [number, number], tolerance = 1e-9) => {
  assert.isNotNull(actual)
  close(actual![0], expected[0], tolerance, "low")
  close(actual![1], expected[1], tolerance, "high")
}

describe("moments", () => {
  it("mean, sample SD, SE and the Student t 95% interval of 1, 2, 3, 4", () => {
    // mean 2.5; deviations ±0.5, ±1.5: Σ² = 0.25·2 + 2.25·2 = 5; s² = 5/3,
    // s = 1.2909944; SE = s/√4 = 0.6454972; t(0.975, 3) = 3.1824463052837078
    // (scipy.stats.t.ppf(0.975, 3), scipy 1.17.1 on this machine; tables: 3.182):
    // 2.5 ± 3.1824463·0.6454972 = 2.5 ± 2.0542603, not the normal 2.5 ± 1.2651513.
    const m = Statistics.moments([1, 2, 3, 4])
    assert.strictEqual(m.n, 4)
    assert.strictEqual(m.mean, 2.5)
    close(m.sd, 1.2909944487358056)
    close(m.standard_error, 0.6454972243679028)
    closeInterval(m.ci95, [0.4457397432394794, 4.554260256760521])
  })

  it("fewer than 2 values: no SD, SE or interval; none: no mean either", () => {
    assert.deepStrictEqual(Statistics.moments([7]), { n: 1, mean: 7, sd: null, standard_error: null, ci95: null })
    assert.deepStrictEqual(Statistics.moments([]), { n: 0, mean: null, sd: null, standard_error: null, ci95: null })
    // Equal values: SD 0, a zero-width interval.
    assert.deepStrictEqual(Statistics.moments([0.5, 0.5]), { n: 2, mean: 0.5, sd: 0, standard_error: 0, ci95: [0.5, 0.5] })
  })

  it("stays exact far from zero, where Σx² - (Σx)²/n cancels", () => {
    // 1e9 + {4, 7, 13, 16}: deviations ±3, ±6 from 1e9 + 10; s² = (9 + 36)·2 / 3 = 30.
    const m = Statistics.moments([1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16])
    assert.strictEqual(m.mean, 1e9 + 10)
    close(m.sd, Math.sqrt(30), 1e-9)
  })
})

describe("wilson", () => {
  it("8 of 10: (0.4902, 0.9433)", () => {
    // p = 0.8, z² = 3.8414588, z²/n = 0.38414588; denominator 1.38414588;
    // centre (0.8 + 0.19207294) / 1.38414588 = 0.71674016;
    // half 1.959964·√(0.016 + 0.00960365) / 1.38414588 = 1.959964·0.16001141 / 1.38414588 = 0.22657769.
    const interval = Statistics.wilson(8, 10)
    closeInterval(interval, [0.49016247153664183, 0.9433178485456247])
    assert.strictEqual(interval!.map((x) => x.toFixed(4)).join(", "), "0.4902, 0.9433")
  })

  it("0 and 10 of 10 are not zero-width and stay in [0, 1]; 0 of 0 has none", () => {
    // p = 0: centre = half = (z²/2n) / (1 + z²/n) = 0.19207294 / 1.38414588 = 0.13876640.
    closeInterval(Statistics.wilson(0, 10), [0, 0.2775327998628892])
    closeInterval(Statistics.wilson(10, 10), [0.7224672001371107, 1])
    const ends = [...Statistics.wilson(0, 10)!, ...Statistics.wilson(10, 10)!]
    assert.isTrue(ends.every((x) => x >= 0 && x <= 1))
    assert.isNull(Statistics.wilson(0, 0))
  })
})

describe("pass@k", () => {
  it("one task: 1 - C(n-c, k) / C(n, k) by hand", () => {
    // n = 5, c = 2: k = 1: 1 - 3/5; k = 2: 1 - C(3,2)/C(5,2) = 1 - 3/10;
    // k = 3: 1 - C(3,3)/C(5,3) = 1 - 1/10; k = 4: C(3,4) = 0, so 1.
    close(Statistics.passAtKOfTask(5, 2, 1), 0.4, 1e-15)
    close(Statistics.passAtKOfTask(5, 2, 2), 0.7, 1e-15)
    close(Statistics.passAtKOfTask(5, 2, 3), 0.9, 1e-15)
    assert.strictEqual(Statistics.passAtKOfTask(5, 2, 4), 1)
    assert.strictEqual(Statistics.passAtKOfTask(5, 0, 3), 0)
    assert.strictEqual(Statistics.passAtKOfTask(5, 5, 1), 1)
    assert.isUndefined(Statistics.passAtKOfTask(3, 1, 4))
    assert.throws(() => Statistics.passAtKOfTask(3, 4, 1), RangeError, "pass@k needs integers 0 <= c <= n and k >= 1, got n=3, c=4, k=1")
    assert.throws(() => Statistics.passAtKOfTask(3, 1, 0), RangeError)
  })

  it("no overflow: n = 200, c = 1, k = 100 is 1/2", () => {
    // C(199, 100) / C(200, 100) = (200 - 100) / 200: the factorials overflow a double, the product does not.
    close(Statistics.passAtKOfTask(200, 1, 100), 0.5, 1e-12)
  })

  it("equals the exact rational 1 - C(n-c, k)/C(n, k) for every n <= 16, c, k", () => {
    const binomial = (n: number, k: number): bigint => {
      if (k < 0 || k > n) return 0n
      let r = 1n
      for (let i = 0; i < k; i++) r = r * BigInt(n - i) / BigInt(i + 1)
      return r
    }
    for (let n = 1; n <= 16; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          const exact = 1 - Number(binomial(n - c, k)) / Number(binomial(n, k))
          close(Statistics.passAtKOfTask(n, c, k), exact, 1e-12, `n=${n} c=${c} k=${k}`)
        }
      }
    }
  })

  it("tasks with unequal n: the mean over tasks with n >= k, the others counted as skipped", () => {
    // k = 2: {3,1}: 1 - C(2,2)/C(3,2) = 2/3; {2,0}: 0; {1,1}: n < k, skipped. (2/3 + 0) / 2 = 1/3.
    const tasks = [{ n: 3, c: 1 }, { n: 2, c: 0 }, { n: 1, c: 1 }]
    const two = Statistics.passAtK(tasks, 2)
    close(two.estimate, 1 / 3, 1e-15)
    assert.deepInclude(two, { tasks: 2, skipped: 1 })
    // k = 1 is c/n per task: (1/3 + 0 + 1) / 3 = 4/9.
    close(Statistics.passAtK(tasks, 1).estimate, 4 / 9, 1e-15)
    assert.deepStrictEqual(Statistics.passAtK(tasks, 4), { estimate: null, tasks: 0, skipped: 3 })
  })

  it("agrees with the summary's equal-n pass@k (a histogram of tasks by passes)", () => {
    let seed = 5
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(random() * 10)
      const tasks = Array.from({ length: 1 + Math.floor(random() * 20) }, () => ({ n, c: Math.floor(random() * (n + 1)) }))
      const histogram = Array.from({ length: n + 1 }, (_, c) => tasks.filter((t) => t.c === c).length)
      for (let k = 1; k <= n; k++) close(Statistics.passAtK(tasks, k).estimate, histogramPassAtK(histogram, k)!, 1e-12)
    }
  })
})

describe("accumulator", () => {
  it("counts, moments over values without an error, the pass rate over every trial with Wilson", () => {
    const stats = Statistics.accumulator()
    const scores: Array<Score> = [
      { value: 1, passed: true },
      { value: 0, passed: false },
      { value: 0.5, passed: true, explanation: "half" },
      { value: 0, passed: false, error: { type: "Timeout", message: "slow", occurred_at: "1970-01-01T00:00:00.000Z" } }
    ]
    for (const score of scores) stats.add(score)
    stats.addFailedTrial()
    const s = stats.snapshot()
    // Values 1, 0, 0.5: mean 0.5; deviations 0.5, -0.5, 0: s² = 0.5 / 2, s = 0.5;
    // SE = 0.5/√3 = 0.28867513; t(0.975, 2) = 0.95/√(2·0.975·0.025) = 4.3026527 (the closed form
    // for 2 degrees of freedom): 0.5 ± 4.3026527·0.28867513 = 0.5 ± 1.24206886.
    // Pass rate 2 of 5 trials (4 scored, 1 failed): Wilson p = 0.4, n = 5:
    // denominator 1 + 3.8414588/5 = 1.76829176; centre (0.4 + 0.38414588) / 1.76829176 = 0.44344825;
    // half 1.959964·√(0.048 + 0.03841459) / 1.76829176 = 0.32582747.
    assert.deepInclude(s, { trials: 5, scored: 4, failed_trials: 1, errors: 1, values: 3, mean: 0.5, passed: 2, pass_rate: 0.4 })
    close(s.sd, 0.5)
    close(s.standard_error, 0.2886751345948129)
    closeInterval(s.ci95, [-0.7420688558751651, 1.7420688558751651])
    closeInterval(s.pass_rate_ci95, [0.11762077423264783, 0.769275718723987])
  })

  it("empty: counts 0, everything else null", () => {
    assert.deepStrictEqual(Statistics.accumulator().snapshot(), {
      trials: 0,
      scored: 0,
      failed_trials: 0,
      errors: 0,
      values: 0,
      mean: null,
      sd: null,
      standard_error: null,
      ci95: null,
      passed: 0,
      pass_rate: null,
      pass_rate_ci95: null
    })
  })

  it("one pass over 100,000 scores matches the two-pass mean and SD", () => {
    let seed = 9
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const values = Array.from({ length: 100_000 }, () => random())
    const stats = Statistics.accumulator()
    for (const value of values) stats.add({ value, passed: value >= 0.5 })
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    const sd = Math.sqrt(values.reduce((a, x) => a + (x - mean) ** 2, 0) / (values.length - 1))
    const s = stats.snapshot()
    close(s.mean, mean, 1e-12)
    close(s.sd, sd, 1e-12)
    assert.strictEqual(s.passed, values.filter((v) => v >= 0.5).length)
  })
})

describe("Student's t", () => {
  it("matches the closed forms for 1 and 2 degrees of freedom across p", () => {
    // df = 1 (Cauchy): t = tan(π(p - 1/2)); df = 2: t = (2p - 1) / √(2p(1 - p)).
    for (let i = 1; i < 200; i++) {
      const p = i / 200
      close(StudentT.quantile(p, 1), Math.tan(Math.PI * (p - 0.5)), 1e-9 * Math.max(1, Math.abs(Math.tan(Math.PI * (p - 0.5)))), `df 1, p ${p}`)
      close(StudentT.quantile(p, 2), (2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 1e-10, `df 2, p ${p}`)
      close(StudentT.cdf(Math.tan(Math.PI * (p - 0.5)), 1), p, 1e-12)
    }
  })

  it("the 97.5% quantiles of the tables, and the normal 1.959964 in the limit", () => {
    const table: Array<[number, number]> = [[1, 12.7062], [2, 4.3027], [5, 2.5706], [9, 2.2622], [10, 2.2281], [30, 2.0423], [120, 1.9799]]
    for (const [df, t] of table) close(StudentT.quantile(0.975, df), t, 5e-5, `df ${df}`)
    // Cornish-Fisher at df = 1e6: z + (z³ + z)/4df + ... = 1.95996636.
    close(StudentT.quantile(0.975, 1e6), 1.9599663568, 1e-9)
    close(StudentT.quantile(0.025, 5), -2.5705818356, 1e-9)
    assert.strictEqual(StudentT.quantile(0.5, 3), 0)
    assert.isNaN(StudentT.quantile(1, 3))
    assert.isNaN(StudentT.quantile(0.5, 0))
  })

  it("cdf and quantile are inverse, and cdf is symmetric", () => {
    for (const df of [1, 3, 7.5, 40, 1000]) {
      for (const p of [0.001, 0.05, 0.3, 0.7, 0.95, 0.999]) close(StudentT.cdf(StudentT.quantile(p, df), df), p, 1e-11, `df ${df} p ${p}`)
      close(StudentT.cdf(1.3, df) + StudentT.cdf(-1.3, df), 1, 1e-14)
    }
    assert.strictEqual(StudentT.cdf(0, 4), 0.5)
  })
})

describe("pairedDifference", () => {
  it("b - a over the common tasks, with a t interval on n - 1 degrees of freedom", () => {
    const a = new Map([["t1", 0.5], ["t2", 0.25], ["t3", 1], ["t5", 0]])
    const b = new Map([["t1", 0.75], ["t2", 0.5], ["t3", 1], ["t4", 1]])
    // d = 0.25, 0.25, 0: mean 1/6; deviations 1/12, 1/12, -1/6: Σ² = 1/24, s² = 1/48;
    // SE = √(1/48 / 3) = 1/12; t(0.975, 2) = 0.95/√(2·0.975·0.025) = 4.3026527;
    // 1/6 ± 4.3026527/12 = 1/6 ± 0.3585544.
    const d = Statistics.pairedDifference(a, b)
    assert.deepInclude(d, { n: 3, df: 2, only_in_a: 1, only_in_b: 1 })
    close(d.mean, 1 / 6, 1e-15)
    close(d.standard_error, 1 / 12, 1e-15)
    closeInterval(d.ci95, [-0.191887727479122, 0.5252210608124553], 1e-9)
    // Wider than the normal interval would be (1/6 ± 1.959964/12): few tasks, less certainty.
    assert.isBelow(d.ci95![0], 1 / 6 - Statistics.Z95 / 12)
  })

  it("fewer than 2 common tasks: a mean at most, no interval", () => {
    const one = Statistics.pairedDifference(new Map([["t1", 0]]), new Map([["t1", 1], ["t2", 1]]))
    assert.deepStrictEqual(one, { n: 1, mean: 1, sd: null, standard_error: null, ci95: null, df: null, only_in_a: 0, only_in_b: 1 })
    const none = Statistics.pairedDifference(new Map(), new Map())
    assert.deepInclude(none, { n: 0, mean: null, ci95: null })
  })
})

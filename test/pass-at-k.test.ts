/**
 * pass^k per task against exact rationals (BigInt binomials), and pass@k /
 * pass^k over tasks with their t intervals against values computed outside
 * this code with python3 on this machine (fractions and math.comb for the
 * per-task values, mean and variance; scipy 1.17.1 `t.ppf(0.975, 4)` =
 * 2.7764451051977934, tables 2.776).
 */
import { assert, describe, it } from "@effect/vitest"
import * as PassAtK from "../src/statistics/PassAtK.ts"
import * as Statistics from "../src/statistics/Statistics.ts"

const close = (actual: number | null | undefined, expected: number, tolerance = 1e-12, what = "") => {
  assert.isNumber(actual, what)
  assert.approximately(actual!, expected, tolerance, what)
}

const binomial = (n: number, k: number): bigint => {
  if (k < 0 || k > n) return 0n
  let r = 1n
  for (let i = 0; i < k; i++) r = r * BigInt(n - i) / BigInt(i + 1)
  return r
}

// Five tasks of 4 epochs that passed 4, 3, 1, 0 and 2 of them.
const TASKS = [4, 3, 1, 0, 2].map((c) => ({ n: 4, c }))

describe("PassAtK.passHatKOfTask", () => {
  it("C(c, k) / C(n, k) by hand, and 0 / undefined / RangeError at the edges", () => {
    // n = 4, c = 3: k = 1: 3/4; k = 2: C(3,2)/C(4,2) = 3/6; k = 3: 1/4; k = 4: 0.
    close(PassAtK.passHatKOfTask(4, 3, 1), 0.75, 0)
    close(PassAtK.passHatKOfTask(4, 3, 2), 0.5, 1e-16)
    close(PassAtK.passHatKOfTask(4, 3, 3), 0.25, 1e-16)
    assert.strictEqual(PassAtK.passHatKOfTask(4, 3, 4), 0)
    assert.strictEqual(PassAtK.passHatKOfTask(4, 4, 4), 1)
    assert.isUndefined(PassAtK.passHatKOfTask(3, 3, 4))
    assert.throws(() => PassAtK.passHatKOfTask(3, 4, 1), RangeError, "pass^k needs integers 0 <= c <= n and k >= 1, got n=3, c=4, k=1")
    assert.throws(() => PassAtK.passHatKOfTask(3, 1, 0), RangeError)
  })

  it("equals the exact rational C(c, k)/C(n, k) for every n <= 16, c, k, and does not overflow at n = 200", () => {
    for (let n = 1; n <= 16; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          close(PassAtK.passHatKOfTask(n, c, k), Number(binomial(c, k)) / Number(binomial(n, k)), 1e-14, `n=${n} c=${c} k=${k}`)
        }
      }
    }
    // C(199, 100) / C(200, 100) = 100/200: the factorials overflow a double, the product does not.
    close(PassAtK.passHatKOfTask(200, 199, 100), 0.5, 1e-12)
  })
})

describe("PassAtK.estimate and fromHistogram", () => {
  it("pass@k and pass^k over five tasks with the t interval over tasks (python fractions + scipy)", () => {
    // Per task (c = 4, 3, 1, 0, 2 of 4):
    //   pass@2 = 1, 1, 1/2, 0, 5/6: mean 2/3, s² = 13/72, SE 0.19002923751652298;
    //     2/3 ± 2.7764451·0.1900292 = [0.1390609203194475, 1.1942724130138858] (not clipped);
    //   pass^2 = 1, 1/2, 0, 0, 1/6: mean 1/3, s² = 13/72: [-0.19427241301388581, 0.8609390796805525];
    //   pass@3 = 1, 1, 3/4, 0, 1: mean 3/4, s² = 3/16: [0.21234371729549228, 1.2876562827045077];
    //   pass^3 = 1, 1/4, 0, 0, 0: mean 1/4, s² = 3/16: [-0.2876562827045077, 0.7876562827045077];
    //   k = 1: both c/n = 1, 3/4, 1/4, 0, 1/2: mean 1/2, s² = 5/32: [0.009189209630610706, 0.9908107903693892].
    const expected: ReadonlyArray<readonly [PassAtK.Measure, number, number, number, number, number]> = [
      ["pass@k", 2, 2 / 3, 13 / 72, 0.1390609203194475, 1.1942724130138858],
      ["pass^k", 2, 1 / 3, 13 / 72, -0.19427241301388581, 0.8609390796805525],
      ["pass@k", 3, 3 / 4, 3 / 16, 0.21234371729549228, 1.2876562827045077],
      ["pass^k", 3, 1 / 4, 3 / 16, -0.2876562827045077, 0.7876562827045077],
      ["pass@k", 1, 1 / 2, 5 / 32, 0.009189209630610706, 0.9908107903693892],
      ["pass^k", 1, 1 / 2, 5 / 32, 0.009189209630610706, 0.9908107903693892]
    ]
    const histogram = [1, 1, 1, 1, 1] // one task passed each of 0..4 of its trials
    for (const [measure, k, mean, variance, low, high] of expected) {
      for (const e of [PassAtK.estimate(TASKS, k, measure), PassAtK.fromHistogram(histogram, k, measure)]) {
        const what = `${measure} k=${k}`
        assert.deepInclude(e, { tasks: 5, skipped: 0 }, what)
        close(e.estimate, mean, 1e-15, what)
        close(e.sd, Math.sqrt(variance), 1e-15, what)
        close(e.standard_error, Math.sqrt(variance / 5), 1e-15, what)
        close(e.ci95![0], low, 1e-12, what)
        close(e.ci95![1], high, 1e-12, what)
      }
    }
    // pass@k's estimate is Statistics.passAtK's.
    close(PassAtK.estimate(TASKS, 2, "pass@k").estimate, Statistics.passAtK(TASKS, 2).estimate!, 1e-15)
  })

  it("tasks with n < k are skipped; one task: an estimate, no interval; none: nulls", () => {
    const mixed = [{ n: 3, c: 2 }, { n: 1, c: 1 }]
    // k = 2: {3, 2}: pass^2 = C(2,2)/C(3,2) = 1/3; {1, 1} has n < k.
    assert.deepStrictEqual(PassAtK.estimate(mixed, 2, "pass^k"), {
      estimate: 1 / 3,
      sd: null,
      standard_error: null,
      ci95: null,
      tasks: 1,
      skipped: 1
    })
    assert.deepInclude(PassAtK.estimate([], 1, "pass@k"), { estimate: null, ci95: null, tasks: 0, skipped: 0 })
    assert.deepInclude(PassAtK.fromHistogram([2, 3], 2, "pass@k"), { estimate: null, tasks: 0, skipped: 5 })
    assert.throws(() => PassAtK.fromHistogram([2, 3], 0, "pass@k"), RangeError)
    // Every task alike: SD 0, a zero-width interval.
    assert.deepInclude(PassAtK.fromHistogram([0, 0, 7], 2, "pass^k"), { estimate: 1, sd: 0, ci95: [1, 1] })
  })

  it("the histogram and the task list agree on random data", () => {
    let seed = 11
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let round = 0; round < 100; round++) {
      const n = 1 + Math.floor(random() * 8)
      const tasks = Array.from({ length: 2 + Math.floor(random() * 30) }, () => ({ n, c: Math.floor(random() * (n + 1)) }))
      const histogram = Array.from({ length: n + 1 }, (_, c) => tasks.filter((t) => t.c === c).length)
      for (let k = 1; k <= n; k++) {
        for (const measure of ["pass@k", "pass^k"] as const) {
          const a = PassAtK.estimate(tasks, k, measure)
          const b = PassAtK.fromHistogram(histogram, k, measure)
          close(a.estimate, b.estimate!, 1e-12)
          close(a.sd, b.sd!, 1e-12)
        }
      }
    }
  })
})

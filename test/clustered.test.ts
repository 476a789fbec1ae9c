/**
 * The cluster-robust (CR1) standard error, its t interval, the design effect
 * and Wilson on the effective sample size, against values computed outside
 * this code: by hand in the comments, and with python3 on this machine
 * (fractions for the exact hand formula; numpy 2.4.6 for the least-squares
 * sandwich `(X'X)⁻¹ Σ_g X_g'u_g u_g'X_g (X'X)⁻¹ · G/(G-1)` of a constant,
 * an independent route to the same number; scipy 1.17.1 for t quantiles and
 * z = norm.ppf(0.975)).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clustered from "../src/statistics/Clustered.ts"
import * as Statistics from "../src/statistics/Statistics.ts"

const close = (actual: number | null | undefined, expected: number, tolerance = 1e-12, what = "") => {
  assert.isNumber(actual, what)
  assert.approximately(actual!, expected, tolerance, what)
}

// Six tasks of three epochs whose values depend strongly on the task: the
// epochs of a task agree, the tasks do not.
const TASKS: ReadonlyArray<readonly [string, ReadonlyArray<number>]> = [
  ["t1", [1, 1, 0.9]],
  ["t2", [0, 0.1, 0]],
  ["t3", [1, 1, 1]],
  ["t4", [0.2, 0, 0.1]],
  ["t5", [0.8, 0.9, 1]],
  ["t6", [0, 0, 0]]
]

// The epochs arrive interleaved (epoch 1 of every task, then epoch 2, ...),
// each task closed after its last epoch when `close` is set.
const feed = (values: (x: number) => number, closing: boolean) => {
  const acc = Clustered.accumulator({ clustered: true })
  for (let epoch = 0; epoch < 3; epoch++) {
    for (const [task, xs] of TASKS) {
      acc.add(values(xs[epoch]), task)
      if (closing && epoch === 2) acc.close(task)
    }
  }
  return acc
}

describe("Clustered.accumulator", () => {
  it("strongly task-dependent values: CR1 equals the hand formula and the sandwich, and DEFF > 1", () => {
    // mean 9/18 = 0.5. Per task Σ(x - 0.5): t1 1.4, t2 -1.4, t3 1.5, t4 -1.2, t5 1.2, t6 -1.5;
    // Σ² = 1.96 + 1.96 + 2.25 + 1.44 + 1.44 + 2.25 = 11.3; CR1 = √(6/5 · 11.3) / 18 = √13.56 / 18
    // = 0.2045772515502441 (python fractions; numpy's sandwich gives the same 0.2045772515502441).
    // iid: s = 0.47403152042131247, s/√18 = 0.11173030086202647; DEFF = (0.20458/0.11173)² = 3.352530541012216.
    // t(0.975, 5) = 2.5705818356363146 (scipy.stats.t.ppf; tables 2.571):
    // 0.5 ± 2.5705818·0.2045773 = [-0.025882566819458552, 1.0258825668194587], not clipped.
    for (const closing of [true, false]) {
      const acc = feed((x) => x, closing)
      assert.strictEqual(acc.openClusters(), closing ? 0 : 6)
      const s = acc.snapshot()
      assert.deepInclude(s, { n: 18, clusters: 6, df: 5 })
      close(s.mean, 0.5)
      close(s.sd, 0.47403152042131247)
      close(s.standard_error, 0.2045772515502441)
      close(s.standard_error, Math.sqrt(6 / 5 * 11.3) / 18)
      close(s.iid_standard_error, 0.11173030086202647)
      close(s.design_effect, 3.352530541012216, 1e-11)
      assert.isAbove(s.design_effect!, 1)
      close(s.ci95![0], -0.025882566819458552, 1e-11)
      close(s.ci95![1], 1.0258825668194587, 1e-11)
      // Wider than the iid interval 0.5 ± t(0.975, 17)·SE_iid would be.
      assert.isAbove(s.ci95![1] - s.ci95![0], 2 * 2.1098155778333156 * 0.11173030086202647)
    }
  })

  it("unequal cluster sizes, closed in any order, against the hand formula", () => {
    // a [3, 5], b [10], c [4, 4, 7, 1], d [0, 2, 2]: mean 38/10 = 3.8; per cluster Σ(x - 3.8):
    // a 0.4, b 6.2, c 0.8, d -7.4; Σ² = 0.16 + 38.44 + 0.64 + 54.76 = 94; CR1 = √(4/3 · 94) / 10
    // = 1.1195237082497775; s² = 398/45, SE_iid = 0.940449065311059; DEFF = 1.4170854271356783.
    const acc = Clustered.accumulator({ clustered: true })
    const order: ReadonlyArray<readonly [string, number]> = [
      ["c", 4], ["a", 3], ["d", 0], ["c", 4], ["b", 10], ["d", 2], ["c", 7], ["a", 5], ["d", 2], ["c", 1]
    ]
    for (const [cluster, x] of order) {
      acc.add(x, cluster)
      if (cluster === "b") acc.close("b")
      if (cluster === "a" && x === 5) acc.close("a")
    }
    assert.strictEqual(acc.openClusters(), 2)
    const s = acc.snapshot()
    assert.deepInclude(s, { n: 10, clusters: 4, df: 3 })
    close(s.mean, 3.8)
    close(s.standard_error, 1.1195237082497775)
    close(s.iid_standard_error, 0.940449065311059)
    close(s.design_effect, 1.4170854271356783, 1e-11)
    acc.close("c")
    acc.close("d")
    acc.close("nothing") // a cluster without values: nothing to fold
    close(acc.snapshot().standard_error, 1.1195237082497775)
    assert.strictEqual(acc.snapshot().clusters, 4)
  })

  it("clusters of one value each: CR1 is the iid s/√n exactly and DEFF is 1", () => {
    // √(n/(n-1) · Σ(x - m)²) / n = √(Σ(x - m)²/(n - 1)) / √n = s/√n.
    const acc = Clustered.accumulator({ clustered: true })
    const xs = [0.3, 0.9, 0.1, 0.5, 0.75]
    xs.forEach((x, i) => acc.add(x, `t${i}`))
    const s = acc.snapshot()
    const m = Statistics.moments(xs)
    close(s.standard_error, m.standard_error!, 1e-15)
    close(s.design_effect, 1, 1e-12)
  })

  it("unclustered: s/√n and the t interval on n - 1, clusters and design effect null", () => {
    const acc = Clustered.accumulator({ clustered: false })
    for (const x of [1, 2, 3, 4]) acc.add(x, "ignored")
    const s = acc.snapshot()
    assert.deepStrictEqual(s, { ...Statistics.moments([1, 2, 3, 4]), df: 3, iid_standard_error: s.standard_error, clusters: null, design_effect: null })
    close(s.ci95![0], 0.4457397432394794) // 2.5 ± t(0.975, 3)·0.6454972 (scipy t.ppf 3.1824463052837078)
  })

  it("fewer than 2 clusters: no SE, interval or design effect; none at all: counts 0", () => {
    const one = Clustered.accumulator({ clustered: true })
    one.add(1, "t1")
    one.add(0, "t1")
    assert.deepInclude(one.snapshot(), { n: 2, mean: 0.5, clusters: 1, standard_error: null, ci95: null, df: null, design_effect: null })
    close(one.snapshot().iid_standard_error, 0.5)
    assert.deepInclude(Clustered.accumulator({ clustered: true }).snapshot(), { n: 0, mean: null, clusters: 0, design_effect: null })
    assert.deepInclude(Clustered.accumulator({ clustered: false }).snapshot(), { n: 0, clusters: null })
    // All values equal: SE 0, a zero-width interval, and no design effect (0/0).
    const flat = Clustered.accumulator({ clustered: true })
    for (const task of ["a", "a", "b", "b"]) flat.add(0.7, task)
    assert.deepInclude(flat.snapshot(), { standard_error: 0, design_effect: null, clusters: 2 })
    assert.throws(() => Clustered.accumulator({ clustered: true }).add(1), RangeError)
  })

  it("stays accurate far from zero (the sums are of x minus the first value)", () => {
    // The task-dependent data shifted by 1e9: every deviation, so CR1, is the same.
    const s = feed((x) => 1e9 + x, true).snapshot()
    close(s.mean, 1e9 + 0.5, 1e-6)
    close(s.standard_error, 0.2045772515502441, 1e-7)
  })

  it("memory: closed clusters leave no entry; 100,000 tasks of 4 epochs, closed as they finish, keep at most 1 open", () => {
    const acc = Clustered.accumulator({ clustered: true })
    let peak = 0
    for (let t = 0; t < 100_000; t++) {
      for (let e = 0; e < 4; e++) acc.add((t % 7) / 6, `t${t}`)
      peak = Math.max(peak, acc.openClusters())
      acc.close(`t${t}`)
    }
    assert.strictEqual(peak, 1)
    assert.strictEqual(acc.openClusters(), 0)
    const s = acc.snapshot()
    assert.strictEqual(s.clusters, 100_000)
    // Every epoch of a task equal: Σ_g (S_g - n_g m)² = K² Q and Σ(x - m)² = K Q (Q = Σ_g (μ_g - m)²),
    // so DEFF = G/(G-1) · K² Q / n² / (K Q / (n(n-1))) = (GK - 1)/(G - 1) = 399999/99999.
    close(s.design_effect, 399_999 / 99_999, 1e-9)
  })
})

describe("Clustered.wilson", () => {
  it("on n_eff = n / DEFF of the pass indicators, with the observed rate passed / n", () => {
    // The six tasks above pass (value >= 0.5) all or none of their epochs: 9 of 18, DEFF of the 0/1
    // indicators = 3.4 (python fractions: CR1 √(6/5·13.5)/18, SE_iid √(18/68/18)); n_eff = 18/3.4
    // = 5.294117647058823; Wilson at p = 0.5, z = 1.959963984540054:
    // [0.17577229905701958, 0.8242277009429804], against [0.2903, 0.7097] on n = 18.
    const passes = feed((x) => (x >= 0.5 ? 1 : 0), true).snapshot()
    close(passes.design_effect, 3.4, 1e-12)
    const ci = Clustered.wilson(9, 18, passes.design_effect)!
    close(ci[0], 0.17577229905701958, 1e-12)
    close(ci[1], 0.8242277009429804, 1e-12)
    const iid = Statistics.wilson(9, 18)!
    close(iid[0], 0.29031021505169974, 1e-12)
    assert.isAbove(iid[0], ci[0])
  })

  it("no design effect or one below 1: the plain Wilson interval; n = 0: none", () => {
    assert.deepStrictEqual(Clustered.wilson(8, 10, null), Statistics.wilson(8, 10))
    assert.deepStrictEqual(Clustered.wilson(8, 10, 0.5), Statistics.wilson(8, 10))
    assert.isNull(Clustered.wilson(0, 0, 2))
    // The doc's example: 80 of 100 with DEFF 4 is Wilson of 20 of 25.
    const ci = Clustered.wilson(80, 100, 4)!
    const same = Statistics.wilson(20, 25)!
    close(ci[0], same[0], 1e-15)
    close(ci[1], same[1], 1e-15)
  })
})

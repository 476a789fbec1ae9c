/**
 * The end-of-run summary: histogram percentiles against exact ones, pass@k
 * against a brute-force count over subsets, the accumulator's counts, and the
 * progress line.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Progress from "../src/programs/run/Progress.ts"
import { MAX_EPOCHS } from "../src/domain/Errors.ts"
import * as Aggregate from "../src/report/Aggregate.ts"
import * as Summary from "../src/summary/Summary.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"

const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The nearest-rank quantile of sorted values. */
const exactQuantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]

describe("LatencyHistogram", () => {
  const distributions: Record<string, (random: () => number) => number> = {
    "uniform 1..100 ms": (r) => 1 + 99 * r(),
    "log-uniform 0.01 ms..60 s": (r) => 0.01 * Math.exp(r() * Math.log(6e6)),
    "long tail (Pareto)": (r) => 5 / Math.pow(1 - r(), 1 / 1.5),
    "two modes": (r) => (r() < 0.9 ? 20 + r() * 5 : 2000 + r() * 500),
    "a few distinct values": (r) => [3, 3, 3, 17, 250][Math.floor(r() * 5)]
  }

  it.effect.prop(
    "p50, p95, p99 within 2.5% of the exact values on random data (the buckets grow by 5%)",
    { seed: Schema.Int, n: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5000 })) },
    ({ n, seed }) =>
      Effect.sync(() => {
        for (const [name, draw] of Object.entries(distributions)) {
          const random = mulberry32(seed)
          const histogram = new Summary.LatencyHistogram()
          const values: Array<number> = []
          for (let i = 0; i < n; i++) {
            const ms = draw(random)
            values.push(ms)
            histogram.record(ms)
          }
          values.sort((a, b) => a - b)
          for (const q of [0.5, 0.95, 0.99]) {
            const exact = exactQuantile(values, q)
            const estimate = histogram.quantile(q)!
            assert.isTrue(Math.abs(estimate - exact) <= 0.025 * exact, `${name}, n=${n}, q=${q}: ${estimate} vs exact ${exact}`)
          }
          assert.strictEqual(histogram.max, values[values.length - 1])
          assert.strictEqual(histogram.total, n)
        }
      }),
    { arbitrary: { runs: 40 } }
  )

  it("an empty histogram has no quantiles; one value is its own quantiles", () => {
    const histogram = new Summary.LatencyHistogram()
    assert.isUndefined(histogram.quantile(0.5))
    histogram.record(42)
    for (const q of [0, 0.5, 0.99, 1]) assert.closeTo(histogram.quantile(q)!, 42, 42 * 0.05)
  })
})

// pass@k by counting: over every k-subset of a task's n trials, the share that
// holds at least one completed trial; averaged over tasks.
const bruteForcePassAtK = (tasksByPasses: ReadonlyArray<number>, k: number): number | undefined => {
  const n = tasksByPasses.length - 1
  const tasks = tasksByPasses.reduce((a, b) => a + b, 0)
  if (tasks === 0 || k < 1 || k > n) return undefined
  let sum = 0
  tasksByPasses.forEach((count, c) => {
    let subsets = 0
    let passing = 0
    for (let mask = 0; mask < 1 << n; mask++) {
      let bits = 0
      let pass = false
      for (let i = 0; i < n; i++) {
        if (mask & (1 << i)) {
          bits++
          if (i < c) pass = true
        }
      }
      if (bits !== k) continue
      subsets++
      if (pass) passing++
    }
    sum += count * (passing / subsets)
  })
  return sum / tasks
}

describe("passAtK", () => {
  it.effect.prop(
    "equals the brute-force count over subsets",
    {
      counts: Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 50 }))).check(
        Schema.isMinLength(2),
        Schema.isMaxLength(9)
      )
    },
    ({ counts }) =>
      Effect.sync(() => {
        const n = counts.length - 1
        for (let k = 0; k <= n + 1; k++) {
          const expected = bruteForcePassAtK(counts, k)
          const actual = Summary.passAtK(counts, k)
          if (expected === undefined) assert.isUndefined(actual, `k=${k} counts=${counts}`)
          else assert.closeTo(actual!, expected, 1e-12, `k=${k} counts=${counts}`)
        }
      }),
    { arbitrary: { runs: 200 } }
  )

  it("known values", () => {
    assert.strictEqual(Summary.passAtK([0, 0, 4], 1), 1)
    assert.strictEqual(Summary.passAtK([4, 0, 0], 2), 0)
    assert.closeTo(Summary.passAtK([0, 1, 0], 1)!, 0.5, 1e-12)
    assert.strictEqual(Summary.passAtK([0, 1, 0], 2), 1)
    assert.isUndefined(Summary.passAtK([0, 0, 0], 1))
  })
})

const trial = (taskId: string, epoch: number, status: "completed" | "failed", latencyMs = 10, errorType = "AgentError"): AgentEvalTrial => ({
  id: `${taskId}:${epoch}`,
  task_id: taskId,
  status,
  ...(status === "failed" ? { error: { type: errorType, message: "x", occurred_at: "2026-01-01T00:00:00.000Z" } } : { output: { output_text: "y" } }),
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.010Z", latency_ms: latencyMs, epoch }
})

describe("Accumulator and make", () => {
  it("counts this run and prior trials apart, scores tasks once all epochs are in, leaves InvalidTask out", () => {
    const acc = new Summary.Accumulator(3)
    // Task a: 3/3 (one prior); b: 1/3; c: 0/3; d: 2 of 3 recorded (incomplete); an invalid line.
    acc.add(trial("a", 1, "completed", 5), true)
    acc.add(trial("a", 2, "completed"))
    acc.add(trial("a", 3, "completed"))
    acc.add(trial("b", 1, "failed"))
    acc.add(trial("b", 2, "completed"))
    acc.add(trial("b", 3, "failed"), true)
    for (let e = 1; e <= 3; e++) acc.add(trial("c", e, "failed", 10, "Timeout"))
    acc.add(trial("d", 1, "completed"))
    acc.add(trial("d", 2, "failed"))
    acc.add(trial("tasks.jsonl:9", 1, "failed", 0, "InvalidTask"))

    assert.deepStrictEqual(acc.thisRun, { completed: 4, failed: 6, partial: 0 })
    assert.deepStrictEqual(acc.prior, { completed: 1, failed: 1, partial: 0 })
    assert.deepStrictEqual(acc.tasksByPasses, [1, 1, 0, 1])
    assert.strictEqual(acc.incompleteTasks, 1)
    assert.deepStrictEqual(Object.fromEntries(acc.errorTypes), { AgentError: 2, Timeout: 3, InvalidTask: 1 })
    assert.strictEqual(acc.latency.total, 10, "prior trials are not this run's latencies")

    const summary = Summary.make({
      runId: "r",
      resultsFile: "out.jsonl",
      outcome: "finished",
      acc,
      probe: new MutableProbe().snapshot(),
      wallMs: 2000,
      parallelism: 4
    })
    assert.deepStrictEqual(summary.trials.total, { completed: 5, failed: 7, partial: 0, total: 12 })
    assert.strictEqual(summary.throughput_per_s, 5)
    assert.deepStrictEqual(summary.pass_at_k!.tasks_by_passes, [1, 1, 0, 1])
    assert.strictEqual(summary.pass_at_k!.tasks_scored, 3)
    assert.strictEqual(summary.pass_at_k!.tasks_incomplete, 1)
    assert.closeTo(summary.pass_at_k!.estimates["pass@1"]!, 4 / 9, 1e-4)
    assert.strictEqual(summary.pass_at_k!.estimates["pass@3"], round4(Summary.passAtK([1, 1, 0, 1], 3)!))
    const text = Summary.format(summary)
    assert.include(text, "run r: finished")
    assert.include(text, "trials this run: 10 (completed 4, failed 6, partial 0)")
    assert.include(text, "3 epochs, counting completed trials: 3 tasks with every trial recorded (1 incomplete)")
    assert.include(text, "results: out.jsonl")
  })

  it("one epoch: no pass@k section", () => {
    const acc = new Summary.Accumulator(1)
    acc.add(trial("a", 1, "completed"))
    const summary = Summary.make({ runId: "r", resultsFile: "f", outcome: "interrupted", acc, probe: new MutableProbe().snapshot(), wallMs: 0, parallelism: 1 })
    assert.isUndefined(summary.pass_at_k)
    assert.strictEqual(summary.throughput_per_s, 0)
    assert.notInclude(Summary.format(summary), "epochs")
  })
})

const round4 = (x: number) => Math.round(x * 1e4) / 1e4

const scoredTrial = (
  taskId: string,
  epoch: number,
  scores: Record<string, { value: number; passed: boolean; error?: { type: string; message: string; occurred_at: string } }> | undefined
): AgentEvalTrial => ({ ...trial(taskId, epoch, "completed"), ...(scores === undefined ? {} : { scores }) })

const scorerError = { type: "MissingReference", message: "x", occurred_at: "2026-01-01T00:00:00.000Z" }

describe("Accumulator with scorers", () => {
  it("per scorer statistics, trials passed by every scorer or by --pass, pass@k from scores; failed trials count and never pass", () => {
    const add = (acc: Summary.Accumulator) => {
      // Task a: 2 of 2 pass both; b: one passes exact only, one failed trial;
      // c: a scorer error on `num` and a completed trial without scores (an
      // older run's record).
      acc.add(scoredTrial("a", 1, { exact: { value: 1, passed: true }, num: { value: 1, passed: true } }))
      acc.add(scoredTrial("a", 2, { exact: { value: 1, passed: true }, num: { value: 0.5, passed: true } }))
      acc.add(scoredTrial("b", 1, { exact: { value: 1, passed: true }, num: { value: 0, passed: false } }))
      acc.add(trial("b", 2, "failed"))
      acc.add(scoredTrial("c", 1, { exact: { value: 0, passed: false }, num: { value: 0, passed: false, error: scorerError } }))
      acc.add(scoredTrial("c", 2, undefined))
    }
    // Not clustered here (the iid figures); the clustered ones are tested below.
    const every = new Summary.Accumulator(2, { scorers: ["exact", "num"], stderrCluster: null })
    add(every)
    const make = (acc: Summary.Accumulator) =>
      Summary.make({
        runId: "r",
        resultsFile: "f",
        outcome: "finished",
        acc,
        probe: new MutableProbe().snapshot(),
        wallMs: 1000,
        parallelism: 4,
        scoring: { probe: { ...new MutableProbe().snapshot(), peakActive: 2, peakOutstanding: 3 }, parallelism: 3 }
      })
    const s = make(every).scoring!
    // exact over 5 trials (the unscored one left out): 3 passed, values 1,1,1,0.
    assert.strictEqual(s.scorers["exact"]!.trials, 5)
    assert.strictEqual(s.scorers["exact"]!.failed_trials, 1)
    assert.strictEqual(s.scorers["exact"]!.passed, 3)
    assert.strictEqual(s.scorers["exact"]!.pass_rate, 0.6)
    assert.strictEqual(s.scorers["exact"]!.mean, 0.75)
    assert.strictEqual(s.scorers["exact"]!.standard_error, 0.25)
    assert.deepStrictEqual(s.scorers["exact"]!.pass_rate_ci95, [0.2307, 0.8824])
    // num: an error is no measurement: mean over 1, 0.5, 0.
    assert.strictEqual(s.scorers["num"]!.errors, 1)
    assert.strictEqual(s.scorers["num"]!.mean, 0.5)
    assert.strictEqual(s.scorers["num"]!.passed, 2)
    assert.strictEqual(s.trials, 5)
    assert.strictEqual(s.passed, 2)
    assert.strictEqual(s.not_scored, 1)
    // a: 2 of 2; b: 0 of 2; c incomplete (its unscored trial is left out).
    assert.deepStrictEqual(s.pass_at_k.tasks_by_passes, [1, 0, 1])
    assert.strictEqual(s.pass_at_k.tasks_incomplete, 1)
    assert.strictEqual(s.pass_at_k.estimates["pass@1"], 0.5)
    assert.strictEqual(s.pass_at_k.estimates["pass@2"], 0.5)
    assert.strictEqual(s.peak_outstanding, 3)
    const text = Summary.format(make(every))
    assert.include(text, "scoring parallelism 3: peak active scorer calls 2, peak outstanding 3")
    assert.include(text, "score exact: trials 5 (scored 4, failed trials 1, scorer errors 0), mean 0.75 ± 0.25")
    assert.include(text, "passed (every scorer passed): 2 of 5 trials, pass rate 0.4")
    assert.notInclude(text, "counts completed trials, not correct answers")

    const byExact = new Summary.Accumulator(2, { scorers: ["exact", "num"], pass: "exact", stderrCluster: null })
    add(byExact)
    const p = make(byExact).scoring!
    assert.strictEqual(p.pass_rule, "exact")
    assert.strictEqual(p.passed, 3)
    // b now 1 of 2: pass@1 = (1 + 0.5) / 2.
    assert.deepStrictEqual(p.pass_at_k.tasks_by_passes, [0, 1, 1])
    assert.strictEqual(p.pass_at_k.estimates["pass@1"], 0.75)
    assert.include(Summary.format(make(byExact)), "passed (--pass exact): 3 of 5 trials")

    // Scored elsewhere (a --cluster run's workers): the scores, and no scoring stage line.
    const elsewhere = Summary.format(Summary.make({
      runId: "r",
      resultsFile: "f",
      outcome: "finished",
      acc: every,
      probe: new MutableProbe().snapshot(),
      wallMs: 1000,
      parallelism: 4
    }))
    assert.include(elsewhere, "score exact: trials 5 (scored 4, failed trials 1, scorer errors 0), mean 0.75 ± 0.25")
    assert.notInclude(elsewhere, "scoring parallelism")
  })

  it("without scorers the summary says pass@k counts completed trials", () => {
    const acc = new Summary.Accumulator(2)
    acc.add(trial("a", 1, "completed"))
    acc.add(trial("a", 2, "failed"))
    const summary = Summary.make({ runId: "r", resultsFile: "f", outcome: "finished", acc, probe: new MutableProbe().snapshot(), wallMs: 0, parallelism: 1 })
    assert.isUndefined(summary.scoring)
    assert.strictEqual(summary.pass_at_k!.counts, "completed trials")
    assert.include(Summary.format(summary), "pass@k above counts completed trials, not correct answers: no scorer checked them")
  })
})

describe("Summary.format latencies", () => {
  it("prints latencies to 3 significant digits (the histogram is good to ±2.5%)", () => {
    const acc = new Summary.Accumulator(1)
    const made = Summary.make({ runId: "r", resultsFile: "f.jsonl", outcome: "finished", acc, probe: new MutableProbe(), wallMs: 1000, parallelism: 1 })
    const s = { ...made, latency_ms: { p50: 19.536, p95: 0.012345, p99: 1234.5, max: 30.01 } }
    assert.include(Summary.format(s), "  latency ms: p50 19.5  p95 0.0123  p99 1230  max 30.0\n")
    assert.include(Summary.format({ ...made, latency_ms: { p50: null, p95: null, p99: null, max: null } }), "  latency ms: p50 -  p95 -  p99 -  max -\n")
    assert.include(Summary.format({ ...made, latency_ms: { p50: 0, p95: 100, p99: 99.96, max: 1 } }), "  latency ms: p50 0  p95 100  p99 100  max 1.00\n")
  })
})

describe("Progress.line", () => {
  it("shows done/total with percent, rate, ETA, active calls and failures; done/total counts skipped trials", () => {
    const probe = new MutableProbe()
    probe.callStarted()
    probe.callStarted()
    const recorded = { completed: 27, failed: 3, partial: 0 }
    const source = { probe, recorded, skipped: () => 20, total: () => 200, parallelism: 8 }
    assert.strictEqual(Progress.line(source, 10_000), "50/200 (25%)  3.0/s  ETA 50s  active 2/8  failed 3")
    assert.strictEqual(
      Progress.line({ ...source, total: () => undefined }, 10_000),
      "50 done  3.0/s  active 2/8  failed 3"
    )
  })

  it("counts what is recorded, not what the probe saw end: interrupted trials are neither done nor failed", () => {
    const probe = new MutableProbe()
    // 30 trials finished, 3 of them failed, 8 interrupted in flight; only 20
    // (2 failed) reached the file before the stop.
    for (let i = 0; i < 38; i++) probe.unitStarted()
    for (let i = 0; i < 30; i++) probe.unitEnded(i < 3)
    for (let i = 0; i < 8; i++) probe.unitEnded(undefined)
    assert.deepStrictEqual([probe.completed, probe.failed, probe.interrupted], [30, 3, 8])
    const source = {
      probe,
      recorded: { completed: 18, failed: 2, partial: 0 },
      skipped: () => 0,
      total: () => 100,
      parallelism: 8
    }
    assert.strictEqual(Progress.line(source, 10_000), "20/100 (20%)  2.0/s  ETA 40s  active 0/8  failed 2  interrupted 8")
  })
})

describe("large K: tallies that grow on demand, a readable per-count line", () => {
  it("the histograms hold the counts seen, not K + 1 slots; pass@k and the JSON are as before", () => {
    const epochs = 10_000
    const acc = new Summary.Accumulator(epochs, { scorers: ["exact"] })
    assert.deepStrictEqual(acc.tasksByPasses, [], "nothing allocated per epoch up front")
    assert.deepStrictEqual(acc.scoring!.tasksByPasses, [])
    // Task a: all 10,000 trials failed; task b: 3 completed (and passed), the rest failed.
    for (let e = 1; e <= epochs; e++) {
      acc.add(trial("a", e, "failed"))
      const t = trial("b", e, e <= 3 ? "completed" : "failed")
      acc.add(e <= 3 ? { ...t, scores: { exact: { value: 1, passed: true } } } : t)
    }
    assert.deepStrictEqual(acc.tasksByPasses, [1, 0, 0, 1])
    assert.deepStrictEqual(acc.scoring!.tasksByPasses, [1, 0, 0, 1])
    // pass@k of the short histogram with n given equals the full one's.
    const full = Array.from({ length: epochs + 1 }, (_, c) => (c === 0 || c === 3 ? 1 : 0))
    for (const k of [1, 5, 100, epochs]) {
      assert.strictEqual(Summary.passAtK(acc.tasksByPasses, k, epochs), Summary.passAtK(full, k), `k = ${k}`)
    }
    const summary = Summary.make({
      runId: "r",
      resultsFile: "out.jsonl",
      outcome: "finished",
      acc,
      probe: new MutableProbe().snapshot(),
      wallMs: 1000,
      parallelism: 8
    })
    assert.deepStrictEqual(summary.pass_at_k!.tasks_by_passes, full, "the JSON keeps one entry per count 0..K")
    assert.deepStrictEqual(summary.scoring!.pass_at_k.tasks_by_passes, full)
    const text = Summary.format(summary)
    assert.include(text, "  tasks by completed trials (completed:tasks, nonzero only): 0:1 3:1\n")
    for (const line of text.split("\n")) assert.isBelow(line.length, 300, line)
  })

  it("a report of a file whose ids claim a huge epoch sizes nothing by it", () => {
    const agg = new Aggregate.Aggregate({ maxRows: 10 })
    agg.add(trial("a", 1, "completed"))
    agg.add(trial("a", 1_000_000_000, "completed"))
    const result = agg.result()
    assert.strictEqual(result.acc.epochs, MAX_EPOCHS)
    assert.isBelow(result.acc.tasksByPasses.length, 3)
  })
})

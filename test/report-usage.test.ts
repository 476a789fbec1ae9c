/**
 * What the report says the trials spent: results files written with known
 * usage (cached and reasoning tokens, a judge's own usage, a failed trial's
 * attempts, a `TokenLimit` trial's kept output, priced and unpriced records,
 * a trial without usage), reported through `Report.report` as the command
 * does, and the page's cards and the table's usage cells read back as text
 * against totals worked by hand. The percentiles (a histogram's, within
 * ±2.5%) are checked against the true ones and against what the run's own
 * summary states. A file without usage has no usage card and no column.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Report from "../src/programs/Report.ts"
import type * as Aggregate from "../src/report/Aggregate.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Summary from "../src/summary/Summary.ts"
import { tokensText, usdText } from "../src/summary/Usage.ts"
import type { AgentEvalTrial, Score, Usage } from "../src/domain/Trial.ts"
import * as Kinds from "../src/programs/Kinds.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-report-usage-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const times = (i: number) => ({
  started_at: new Date(T0 + i * 100).toISOString(),
  finished_at: new Date(T0 + i * 100 + 40).toISOString(),
  latency_ms: 40
})
const score = (passed: boolean, usage?: Usage): Score => ({ value: passed ? 1 : 0, passed, ...(usage === undefined ? {} : { usage }) })

// Six trials, as a run with --pricing and a judge writes them:
// a: agent 1,200 tokens (800 cached, 50 reasoning) $0.0024, judge 320 $0.0003, passes;
// b: agent 2,500 $0.005, judge 430 $0.0004, not passed;
// c: failed, its attempts spent 500 $0.001 (error.usage);
// d: failed TokenLimit, its output kept: 3,100 (2,500 reasoning) $0.03;
// e: passes, no usage at all; f: passes, 110 tokens of a model the pricing did not list (no cost_usd).
const pricedTrials = (): ReadonlyArray<AgentEvalTrial> => [
  {
    id: "a:1", task_id: "a", status: "completed", metadata: times(0),
    output: {
      output_text: "A",
      usage: { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, cached_input_tokens: 800, reasoning_tokens: 50, model: "m1", cost_usd: 0.0024 }
    },
    scores: { exact: score(true), judge: score(true, { input_tokens: 300, output_tokens: 20, total_tokens: 320, model: "j1", cost_usd: 0.0003 }) }
  },
  {
    id: "b:1", task_id: "b", status: "completed", metadata: times(1),
    output: { output_text: "B", usage: { input_tokens: 2000, output_tokens: 500, total_tokens: 2500, model: "m1", cost_usd: 0.005 } },
    scores: { exact: score(false), judge: score(false, { input_tokens: 400, output_tokens: 30, total_tokens: 430, model: "j1", cost_usd: 0.0004 }) }
  },
  {
    id: "c:1", task_id: "c", status: "failed", metadata: times(2),
    error: {
      type: "AgentError", message: "503", occurred_at: times(2).finished_at,
      usage: { input_tokens: 500, output_tokens: 0, total_tokens: 500, model: "m1", cost_usd: 0.001 }
    }
  },
  {
    id: "d:1", task_id: "d", status: "failed", metadata: times(3),
    output: { output_text: "D", usage: { input_tokens: 100, output_tokens: 3000, total_tokens: 3100, reasoning_tokens: 2500, model: "m1", cost_usd: 0.03 } },
    error: { type: "TokenLimit", message: "the trial used 3100 tokens, more than the limit of 3000 tokens per trial", occurred_at: times(3).finished_at }
  },
  { id: "e:1", task_id: "e", status: "completed", metadata: times(4), output: { output_text: "E" }, scores: { exact: score(true), judge: score(true) } },
  {
    id: "f:1", task_id: "f", status: "completed", metadata: times(5),
    output: { output_text: "F", usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110, model: "m2" } },
    scores: { exact: score(true), judge: score(true) }
  }
]

// The same records from a run without --pricing: no cost anywhere.
const withoutCost = (usage: Usage | undefined): Usage | undefined => {
  if (usage === undefined) return undefined
  const { cost_usd: _, ...rest } = usage
  return rest
}
const unpricedTrials = (): ReadonlyArray<AgentEvalTrial> =>
  pricedTrials().map((t) => ({
    ...t,
    ...(t.output === undefined ? {} : { output: { ...t.output, ...(t.output.usage === undefined ? {} : { usage: withoutCost(t.output.usage)! }) } }),
    ...(t.error === undefined ? {} : { error: { ...t.error, ...(t.error.usage === undefined ? {} : { usage: withoutCost(t.error.usage)! }) } }),
    ...(t.scores === undefined ? {} : {
      scores: Object.fromEntries(Object.entries(t.scores).map(([name, s]) => [name, { ...s, ...(s.usage === undefined ? {} : { usage: withoutCost(s.usage)! }) }]))
    })
  }))

const noUsageTrials = (): ReadonlyArray<AgentEvalTrial> =>
  unpricedTrials().map((t) => {
    const { usage: _o, ...output } = t.output ?? { output_text: "" }
    const { usage: _e, ...error } = t.error ?? { type: "", message: "", occurred_at: "" }
    return {
      ...t,
      ...(t.output === undefined ? {} : { output }),
      ...(t.error === undefined ? {} : { error }),
      ...(t.scores === undefined ? {} : {
        scores: Object.fromEntries(Object.entries(t.scores).map(([name, { usage: _s, ...s }]) => [name, s]))
      })
    }
  })

// Writes the trials as a results file and reports it as `agent-trials report` does.
const reportOf = (name: string, trials: ReadonlyArray<AgentEvalTrial>, summary?: Summary.Summary) =>
  Effect.gen(function*() {
    const results = path.join(dir, `${name}.jsonl`)
    const html = path.join(dir, `${name}.html`)
    fs.writeFileSync(results, trials.map((t) => JSON.stringify(t)).join("\n") + "\n")
    if (summary === undefined) yield* Report.report({ results, html, maxRows: 100 })
    else yield* Report.write({ results, html, maxRows: 100, summary })
    return fs.readFileSync(html, "utf8")
  }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()]))

// The usage section's cards, label -> [value, note], as the page's text says them.
const usageCards = (html: string): Map<string, readonly [string, string | undefined]> | undefined => {
  const section = /<section class="card" id="usage">(.*?)<\/section>/.exec(html)?.[1]
  if (section === undefined) return undefined
  const cards = new Map<string, readonly [string, string | undefined]>()
  for (const m of section.matchAll(/<div class="label">([^<]*)<\/div><div class="value">([^<]*)<\/div>(?:<div class="note">([^<]*)<\/div>)?/g)) {
    cards.set(m[1]!, [m[2]!, m[3]])
  }
  return cards
}

// The run's own summary of the same records: what `run --summary` states.
const summaryOf = (trials: ReadonlyArray<AgentEvalTrial>, usage?: Parameters<typeof Summary.make>[0]["usage"]) => {
  const acc = new Summary.Accumulator(1, { scorers: ["exact", "judge"] })
  for (const t of trials) acc.add(t)
  return Summary.make({ runId: "r", resultsFile: "r.jsonl", outcome: "finished", acc, probe: new MutableProbe(), wallMs: 600, parallelism: 2, usage })
}

// The q-quantile as the summary's histogram ranks it: the ceil(q n)-th smallest.
const trueQuantile = (xs: ReadonlyArray<number>, q: number) => [...xs].sort((a, b) => a - b)[Math.max(1, Math.ceil(q * xs.length)) - 1]!

const p50p95 = (p: Summary.PerTrial, show: (x: number) => string) => `p50 ${show(p.p50!)} · p95 ${show(p.p95!)}`

describe("report usage cards", () => {
  it.effect("a priced file with a judge: tokens by side and kind, cost, per trial and per passed trial, as worked by hand", () =>
    Effect.gen(function*() {
      const trials = pricedTrials()
      const cards = usageCards(yield* reportOf("priced", trials))!
      assert.isDefined(cards)
      // Agent: 1,200 + 2,500 + 500 + 3,100 + 110 = 7,410 (input 3,700 with 800 cached, output 3,710 with
      // 2,550 reasoning); judge: 320 + 430 = 750; together 8,160. Cost: agent $0.0384, judge $0.0007.
      assert.deepStrictEqual(cards.get("Tokens"), ["8,160", "agent 7,410 · judge 750"])
      assert.deepStrictEqual(cards.get("Agent tokens"), ["7,410", "input 3,700 (800 cached) · output 3,710 (2,550 reasoning)"])
      assert.deepStrictEqual(cards.get("Judge tokens"), ["750", "input 700 · output 50"])
      assert.deepStrictEqual(cards.get("Cost"), ["$0.0391", "agent $0.0384 · judge $0.0007"])
      // Per trial over the 5 trials with usage (e has none): 8,160 / 5 tokens, $0.0391 / 5 (f's unpriced usage is $0).
      const summary = summaryOf(trials).usage!
      const tokens = cards.get("Tokens per trial (mean)")!
      assert.deepStrictEqual(tokens, ["1,632", p50p95(summary.per_trial.tokens, tokensText)])
      const cost = cards.get("Cost per trial (mean)")!
      assert.deepStrictEqual(cost, ["$0.00782", p50p95(summary.per_trial.cost_usd!, usdText)])
      // The percentiles shown are within 2.5% of the true ones (1,520 and 3,100 tokens; $0.0027 and $0.03).
      const [p50, p95] = [...tokens[1]!.matchAll(/p\d+ ([\d,.]+)/g)].map((m) => Number(m[1]!.replace(/,/g, "")))
      assert.approximately(p50!, trueQuantile([1520, 2930, 500, 3100, 110], 0.5), 1520 * 0.025)
      assert.approximately(p95!, trueQuantile([1520, 2930, 500, 3100, 110], 0.95), 3100 * 0.025)
      const [c50, c95] = [...cost[1]!.matchAll(/p\d+ \$([\d.e-]+)/g)].map((m) => Number(m[1]))
      assert.approximately(c50!, 0.0027, 0.0027 * 0.025)
      assert.approximately(c95!, 0.03, 0.03 * 0.025)
      // a, e and f pass both scorers: $0.0391 / 3.
      assert.deepStrictEqual(cards.get("Cost per passed trial"), ["$0.01303", "over 3 passed trials (every scorer)"])
      assert.deepStrictEqual([...cards.keys()], [
        "Tokens", "Agent tokens", "Judge tokens", "Tokens per trial (mean)", "Cost", "Cost per trial (mean)", "Cost per passed trial"
      ])
    }))

  it.effect("the section's note counts the trials with usage, and names the models the run's pricing file did not list", () =>
    Effect.gen(function*() {
      const trials = pricedTrials()
      const html = yield* reportOf("priced-run", trials, summaryOf(trials, { priced: true, unpriced: ["m2", "<m3>"] }))
      const note = /<section class="card" id="usage">.*?<p class="note">(.*?)<\/p><\/section>/.exec(html)![1]!
      assert.include(note, "What the 5 trials whose records carry usage spent (of 6)")
      assert.include(note, "a usage without one counts as $0.")
      assert.include(note, "Not in the run&#39;s pricing file (priced at $0): m2, &lt;m3&gt;.")
    }))

  it.effect("an unpriced file: the token cards only, and a note that nothing is priced", () =>
    Effect.gen(function*() {
      const html = yield* reportOf("unpriced", unpricedTrials())
      const cards = usageCards(html)!
      assert.deepStrictEqual([...cards.keys()], ["Tokens", "Agent tokens", "Judge tokens", "Tokens per trial (mean)"])
      assert.deepStrictEqual(cards.get("Tokens"), ["8,160", "agent 7,410 · judge 750"])
      assert.strictEqual(cards.get("Tokens per trial (mean)")![0], "1,632")
      assert.include(html, "Not priced: no record carries a cost_usd (run with --pricing FILE).")
      assert.notInclude(html, "$0")
    }))

  it.effect("a file without usage has no usage section", () =>
    Effect.gen(function*() {
      const html = yield* reportOf("plain", noUsageTrials())
      assert.isUndefined(usageCards(html))
      assert.notInclude(html, "<h2>Usage</h2>")
      // The TokenLimit error's message says "tokens"; no card, heading or column does.
      assert.notMatch(html, /Tokens|Cost|cost_usd|\$0/)
    }))
})

// The table's header cells, the page's flag for the script, and each row's usage, from the page.
const table = (html: string) => {
  const head = /<table id="rows"><thead><tr>(.*?)<\/tr><\/thead>/.exec(html)![1]!
  const data = JSON.parse(/<script type="application\/json" id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
    readonly rows: ReadonlyArray<Aggregate.Row>
    readonly usage?: { readonly cost: boolean }
  }
  return {
    head: [...head.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]!),
    usage: data.usage,
    cells: Object.fromEntries(data.rows.map((r) => [r.id, r.usage]))
  }
}

describe("report usage column", () => {
  const before = ["Trial", "Status", "Input", "Reference", "Output", "Scores", "Error", "ms"]

  it.effect("a priced file: a tokens and a cost column, each trial's agent and judges together, a dash where none", () =>
    Effect.gen(function*() {
      const html = yield* reportOf("priced-table", pricedTrials())
      const t = table(html)
      assert.deepStrictEqual(t.head, [...before, "Tokens", "Cost"])
      assert.deepStrictEqual(t.usage, { cost: true })
      assert.deepStrictEqual(t.cells, {
        // 1,200 + the judge's 320; $0.0024 + $0.0003
        "a:1": { tokens: "1,520", cost: "$0.0027" },
        "b:1": { tokens: "2,930", cost: "$0.0054" },
        // a failed trial's attempts (error.usage), a TokenLimit trial's kept output
        "c:1": { tokens: "500", cost: "$0.001" },
        "d:1": { tokens: "3,100", cost: "$0.03" },
        "e:1": undefined,
        // usage, but no cost_usd: no cost shown (the cards count it as $0)
        "f:1": { tokens: "110", cost: null }
      })
      assert.include(html, "Tokens and cost of a trial: its agent&#39;s and its judges&#39; together (— where its record carries no usage, or no cost_usd).")
    }))

  it.effect("an unpriced file: the tokens column only", () =>
    Effect.gen(function*() {
      const t = table(yield* reportOf("unpriced-table", unpricedTrials()))
      assert.deepStrictEqual(t.head, [...before, "Tokens"])
      assert.deepStrictEqual(t.usage, { cost: false })
      assert.deepStrictEqual(t.cells["a:1"], { tokens: "1,520", cost: null })
      assert.deepStrictEqual(t.cells["d:1"], { tokens: "3,100", cost: null })
      assert.isUndefined(t.cells["e:1"])
    }))

  it.effect("a file without usage: no usage column, no usage in the rows' data", () =>
    Effect.gen(function*() {
      const html = yield* reportOf("plain-table", noUsageTrials())
      const t = table(html)
      assert.deepStrictEqual(t.head, before)
      assert.isUndefined(t.usage)
      assert.deepStrictEqual(Object.values(t.cells), [undefined, undefined, undefined, undefined, undefined, undefined])
      assert.notInclude(/id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!, `"usage"`)
    }))
})

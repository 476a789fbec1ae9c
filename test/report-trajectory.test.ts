/**
 * What the report shows of agents that act: results files with trajectories
 * (tool errors, a failed trial's kept trajectory, long contents, markup in
 * names and contents), reported through `Report.report` as the command
 * does: the tools section (its cards and its table, against counts worked by
 * hand and against the file's own summary), the table's steps and path
 * columns, and each row's transcript (steps in order, contents cut at 1,000
 * characters and a transcript at 8,000, the record kept whole), all escaped.
 * A file without trajectories has no section and no columns.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Report from "../src/programs/Report.ts"
import type * as Aggregate from "../src/report/Aggregate.ts"
import type { AgentEvalTrial, TrajectoryStep } from "../src/domain/Trial.ts"
import * as Kinds from "../src/programs/Kinds.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-report-trajectory-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const T0 = Date.parse("2026-01-01T00:00:00.000Z")
const AT = new Date(T0).toISOString()
const times = (i: number) => ({
  started_at: new Date(T0 + i * 100).toISOString(),
  finished_at: new Date(T0 + i * 100 + 40).toISOString(),
  latency_ms: 40
})
const model = (content = "", tokens?: number): TrajectoryStep => ({
  type: "model",
  content,
  started_at: AT,
  duration_ms: 3,
  ...(tokens === undefined ? {} : { usage: { input_tokens: tokens - 2, output_tokens: 2, total_tokens: tokens } })
})
const call = (name: string, args: unknown): TrajectoryStep => ({ type: "tool_call", name, arguments: args, started_at: AT, duration_ms: 2 })
const result = (name: string, content: unknown, isError = false): TrajectoryStep => ({
  type: "tool_result",
  name,
  content,
  ...(isError ? { is_error: true } : {}),
  started_at: AT,
  duration_ms: 0
})

const LONG = "y".repeat(1500)

// a: search then answer; b: search (an error), <lookup> with markup, then answer;
// c: failed MaxTurns with 3 turns kept; d: no trajectory (a one-call agent);
// e: 30 turns of 1,000-character texts (the transcript stops at 8,000 characters).
const trials = (): ReadonlyArray<AgentEvalTrial> => [
  {
    id: "a:1", task_id: "a", status: "completed", metadata: times(0),
    output: { output_text: "Paris", trajectory: [model("", 120), call("search", { q: "capital" }), result("search", LONG), model("Paris", 80)] }
  },
  {
    id: "b:1", task_id: "b", status: "completed", metadata: times(1),
    output: {
      output_text: "Lyon",
      trajectory: [
        model(),
        call("search", { q: "x" }),
        call("<lookup>", { id: "<b>7</b>" }),
        result("search", "rate limited", true),
        result("<lookup>", { city: "Lyon <i>" }),
        model("Lyon")
      ]
    }
  },
  {
    id: "c:1", task_id: "c", status: "failed", metadata: times(2),
    error: { type: "MaxTurns", message: "the loop reached --max-turns 3", occurred_at: AT, trajectory: [model(), call("search", { q: 1 }), result("search", "?"), model(), model()] }
  },
  { id: "d:1", task_id: "d", status: "completed", metadata: times(3), output: { output_text: "one call" } },
  {
    id: "e:1", task_id: "e", status: "completed", metadata: times(4),
    output: { output_text: "done", trajectory: Array.from({ length: 30 }, () => model("z".repeat(1000))) }
  }
]

const reportOf = (name: string, records: ReadonlyArray<AgentEvalTrial>) =>
  Effect.gen(function*() {
    const results = path.join(dir, `${name}.jsonl`)
    fs.writeFileSync(results, records.map((t) => JSON.stringify(t)).join("\n") + "\n")
    const html = path.join(dir, `${name}.html`)
    yield* Report.report({ results, html, maxRows: 100 })
    return fs.readFileSync(html, "utf8")
  }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()]))

const table = (html: string) => {
  const head = /<table id="rows"><thead><tr>(.*?)<\/tr><\/thead>/.exec(html)![1]!
  const data = JSON.parse(/<script type="application\/json" id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!) as {
    readonly rows: ReadonlyArray<Aggregate.Row>
    readonly trajectory?: boolean
  }
  return {
    head: [...head.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]!),
    flag: data.trajectory,
    rows: Object.fromEntries(data.rows.map((r) => [r.id, r.trajectory]))
  }
}

const section = (html: string) => /<section class="card" id="tools-used">(.*?)<\/section>/.exec(html)?.[1]

describe("the report of agents that act", () => {
  it.effect("the tools section: trials with a trajectory, steps and calls per trial, tool errors, calls and errors by tool", () =>
    Effect.gen(function*() {
      const html = yield* reportOf("acts", trials())
      const tools = section(html)!
      assert.isDefined(tools)
      const cards = Object.fromEntries(
        [...tools.matchAll(/<div class="stat[^"]*"><div class="label">(.*?)<\/div><div class="value">(.*?)<\/div>(?:<div class="note">(.*?)<\/div>)?/g)]
          .map((m): [string, ReadonlyArray<string | undefined>] => [m[1]!, [m[2], m[3]]])
      )
      // Steps 2, 2, 3, 30; calls 1, 2, 1, 0 over the 4 trials with a trajectory (d has none).
      assert.deepStrictEqual(cards, {
        "Trials with a trajectory": ["4", "of 5"],
        "Steps per trial (mean)": ["9.25", "p50 2 · p95 30 · max 30"],
        "Tool calls per trial (mean)": ["1", "p50 1 · p95 2 · max 2"],
        "Tool calls": ["4", undefined],
        "Tool errors": ["1", "25.0%"]
      })
      const rows = [...tools.matchAll(/<tr><td class="mono">(.*?)<\/td><td class="num">(.*?)<\/td><td class="num">(.*?)<\/td><td class="num">(.*?)<\/td><\/tr>/g)]
        .map((m) => m.slice(1))
      assert.deepStrictEqual(rows, [["search", "3", "1", "33.3%"], ["&lt;lookup&gt;", "1", "0", "0.0%"]])
      assert.notInclude(html, "<lookup>")
    }))

  it.effect("the table's steps and path columns, and each row's transcript in order, cut and bounded", () =>
    Effect.gen(function*() {
      const html = yield* reportOf("rows", trials())
      const t = table(html)
      assert.strictEqual(t.flag, true)
      assert.deepStrictEqual(t.head.slice(-2), ["Steps", "Path"])
      const a = t.rows["a:1"]!
      assert.deepInclude(a, { steps: 2, tool_calls: 1, tool_errors: 0, more: 0 })
      assert.deepStrictEqual(a.transcript.map((s) => [s.type, s.name, s.error, s.tokens]), [
        ["model", null, false, "120"],
        ["tool_call", "search", false, null],
        ["tool_result", "search", false, null],
        ["model", null, false, "80"]
      ])
      assert.strictEqual(a.transcript[1]!.text, `{"q":"capital"}`)
      assert.strictEqual(a.transcript[2]!.text, `${"y".repeat(1000)}… (500 more characters)`)
      const b = t.rows["b:1"]!
      assert.deepInclude(b, { steps: 2, tool_calls: 2, tool_errors: 1 })
      assert.deepStrictEqual(b.transcript.map((s) => [s.name, s.error, s.text]), [
        [null, false, ""],
        ["search", false, `{"q":"x"}`],
        ["<lookup>", false, `{"id":"<b>7</b>"}`],
        ["search", true, "rate limited"],
        ["<lookup>", false, `{"city":"Lyon <i>"}`],
        [null, false, "Lyon"]
      ])
      // The failed trial's kept trajectory has its row too.
      assert.deepInclude(t.rows["c:1"], { steps: 3, tool_calls: 1, tool_errors: 0 })
      assert.isUndefined(t.rows["d:1"])
      // 30 steps of 1,000 characters: 8 kept (the 8,000th character reached), 22 counted.
      const e = t.rows["e:1"]!
      assert.strictEqual(e.transcript.length, 8)
      assert.strictEqual(e.more, 22)
      // Markup in the rows' JSON never closes the script.
      const data = /id="rows-data">([\s\S]*?)<\/script>/.exec(html)![1]!
      assert.notInclude(data, "<")
      // The record keeps the long content whole.
      const record = fs.readFileSync(path.join(dir, "rows.jsonl"), "utf8").split("\n")[0]!
      assert.include(record, LONG)
    }))

  it.effect("a file without trajectories has no tools section and no steps or path column", () =>
    Effect.gen(function*() {
      const plain = trials().map((t): AgentEvalTrial =>
        t.output === undefined
          ? { ...t, error: { type: "MaxTurns", message: "m", occurred_at: AT } }
          : { ...t, output: { output_text: t.output.output_text } }
      )
      const html = yield* reportOf("plain", plain)
      assert.isUndefined(section(html))
      const t = table(html)
      assert.isUndefined(t.flag)
      assert.notInclude(t.head, "Steps")
      assert.notInclude(t.head, "Path")
    }))
})

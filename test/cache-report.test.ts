/**
 * The report shows response-cache hits as such (issue 40, part 3): a results
 * file whose records say `metadata.cache` gets a "Served from cache" card
 * (hits, misses, partial), its latency leaves the hits out, and a hit's row
 * carries `cache: "hit"` (the table shows `cached` for its latency).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import * as Report from "../src/programs/Report.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-cache-report-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const trial = (i: number, latency: number, cache: string): AgentEvalTrial => ({
  id: `t${i}:1`,
  task_id: `t${i}`,
  status: "completed",
  output: { output_text: String(i), usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } },
  metadata: {
    started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    finished_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i + 1)).toISOString(),
    latency_ms: latency,
    epoch: 1,
    cache
  }
})

describe("report: response-cache hits", () => {
  it.effect("a Served from cache card, hits out of the latency, and rows that say cache: hit", () =>
    Effect.gen(function*() {
      const results = path.join(dir, "cached.jsonl")
      const html = path.join(dir, "cached.html")
      // Three hits at 1 ms, a miss at 800 ms, a partial at 400 ms.
      const trials = [trial(0, 1, "hit"), trial(1, 1, "hit"), trial(2, 1, "hit"), trial(3, 800, "miss"), trial(4, 400, "partial")]
      fs.writeFileSync(results, trials.map((t) => JSON.stringify(t)).join("\n") + "\n")
      yield* Report.report({ results, html, maxRows: 100 })
      const page = fs.readFileSync(html, "utf8")
      assert.include(page, "Served from cache")
      assert.include(page, "hits, not in latency or throughput · 1 misses · 1 partial")
      // The p50 of 400 and 800 (within the histogram's 2.5%), not of the 1 ms hits.
      const card = (label: string) => new RegExp(`<div class="label">${label}</div><div class="value">([^<]*)</div>`).exec(page)?.[1]
      assert.strictEqual(card("Served from cache"), "3")
      const p50 = card("Latency p50")
      assert.isDefined(p50)
      const ms = Number(p50!.replace(/[^\d.]/g, ""))
      assert.isAtLeast(ms, 390, p50)
      assert.isAtMost(ms, 820, p50)
      const rows = JSON.parse(/<script type="application\/json" id="rows-data">(.*?)<\/script>/s.exec(page)![1]!.replaceAll("\\u003c", "<"))
      const caches = (rows.rows as Array<{ id: string; cache?: string }>).map((r) => [r.id, r.cache])
      assert.deepStrictEqual(caches, [["t0:1", "hit"], ["t1:1", "hit"], ["t2:1", "hit"], ["t3:1", "miss"], ["t4:1", "partial"]])
    }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
})

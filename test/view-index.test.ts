/**
 * The view's index of a results file: one pass gives each trial's offset,
 * status, verdicts and groups; appended bytes are indexed by themselves (a
 * line without its newline waits for it); pages and filters read only the
 * lines they return; a file that shrank is indexed again.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FileIndex } from "../src/view/Index.ts"
import { IDLE_MS, Runs } from "../src/view/Runs.ts"

const record = (i: number) => ({
  id: `t-${i}:1`,
  task_id: `t-${i}`,
  status: i % 4 === 3 ? "failed" : "completed",
  ...(i % 4 === 3
    ? { error: { type: "Boom", message: "boom", occurred_at: "2026-01-01T00:00:00.000Z" } }
    : { output: { output_text: i % 5 === 0 ? `needle ${i}` : `answer ${i}` } }),
  metadata: {
    started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    finished_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i + 1)).toISOString(),
    latency_ms: 1000,
    groups: { "metadata.subject": i % 2 === 0 ? "math" : "art" }
  },
  ...(i % 4 === 3 ? {} : { scores: { exact: { value: i % 3 === 0 ? 0 : 1, passed: i % 3 !== 0 } } })
})
const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => JSON.stringify(record(from + k)) + "\n").join("")

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-view-index-"))

describe("view index", () => {
  it.effect("indexes every line once, then only what is appended, and a line only once it ends", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "a.jsonl")
      fs.writeFileSync(file, lines(0, 10))
      const index = new FileIndex(file)
      assert.strictEqual((yield* index.refresh()).length, 10)
      assert.strictEqual(index.count, 10)
      const whole = lines(10, 12)
      fs.appendFileSync(file, whole.slice(0, whole.length - 20))
      // One whole line and the start of another: only the whole one.
      assert.strictEqual((yield* index.refresh()).length, 1)
      fs.appendFileSync(file, whole.slice(whole.length - 20))
      const added = yield* index.refresh()
      assert.strictEqual(added.length, 1)
      const [rec] = (yield* index.recordsAt(added)) as Array<{ id: string }>
      assert.strictEqual(rec!.id, "t-11:1")
      assert.strictEqual(index.count, 12)
      assert.strictEqual(index.figures().failed, 3)
      // Nothing appended: nothing added.
      assert.strictEqual((yield* index.refresh()).length, 0)
      assert.strictEqual(index.report().trials, 12)
    }))

  it.effect("pages and filters by status, verdict, group and text, counting every trial kept", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "b.jsonl")
      fs.writeFileSync(file, lines(0, 100) + "not json\n")
      const index = new FileIndex(file)
      yield* index.refresh()
      assert.strictEqual(index.count, 100)
      assert.strictEqual(index.figures().badLines, 1)
      const all = Array.from({ length: 100 }, (_, i) => record(i))
      const ids = (r: { trials: Array<unknown> }) => r.trials.map((t) => (t as { id: string }).id)
      const page = yield* index.page(10, 5, {})
      assert.strictEqual(page.total, 100)
      assert.deepStrictEqual(ids(page), all.slice(10, 15).map((r) => r.id))
      const failed = yield* index.page(0, 1000, { status: "failed" })
      assert.deepStrictEqual(ids(failed), all.filter((r) => r.status === "failed").map((r) => r.id))
      const wrong = yield* index.page(0, 1000, { scorer: { name: "exact", passed: false } })
      assert.deepStrictEqual(ids(wrong), all.filter((r) => r.scores?.exact.passed === false).map((r) => r.id))
      const art = yield* index.page(2, 3, { group: { path: "metadata.subject", value: "art" }, status: "completed" })
      const arts = all.filter((r) => r.metadata.groups["metadata.subject"] === "art" && r.status === "completed")
      assert.strictEqual(art.total, arts.length)
      assert.deepStrictEqual(ids(art), arts.slice(2, 5).map((r) => r.id))
      const needle = yield* index.page(0, 1000, { q: "NEEDLE" })
      assert.deepStrictEqual(ids(needle), all.filter((r) => "output" in r && r.output.output_text.startsWith("needle")).map((r) => r.id))
      assert.deepStrictEqual(((yield* index.find("t-42:1")) as { id: string }).id, "t-42:1")
      assert.strictEqual(yield* index.find("t-420:1"), undefined)
    }))

  it.effect("a file that shrank (replaced) is indexed again from its start", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "c.jsonl")
      fs.writeFileSync(file, lines(0, 20))
      const index = new FileIndex(file)
      yield* index.refresh()
      fs.writeFileSync(file, lines(0, 3))
      yield* index.refresh()
      assert.strictEqual(index.count, 3)
      assert.strictEqual(index.report().trials, 3)
    }))

  it.effect("runs: found recursively by KEY, never by a path outside the folder", () =>
    Effect.gen(function*() {
      const root = path.join(dir, "runs")
      fs.mkdirSync(path.join(root, "matrix-1"), { recursive: true })
      fs.writeFileSync(path.join(root, "one.jsonl"), lines(0, 4))
      fs.writeFileSync(path.join(root, "matrix-1", "cell-a.jsonl"), lines(0, 2))
      fs.writeFileSync(path.join(dir, "outside.jsonl"), lines(0, 2))
      // A tasks file beside the runs: JSONL, but no trial record in it.
      fs.writeFileSync(path.join(root, "tasks.jsonl"), `{"id":"a","inputs":{}}\n`)
      const runs = new Runs(root)
      const list = yield* runs.list()
      assert.deepStrictEqual(list.map((r) => r.key).sort(), ["matrix-1/cell-a", "one"])
      assert.strictEqual(list.find((r) => r.key === "one")!.trials, 4)
      assert.strictEqual(yield* runs.get("../outside"), undefined)
      assert.strictEqual(yield* runs.get("matrix-1/../one"), undefined)
      assert.strictEqual((yield* runs.get("matrix-1/cell-a"))!.count, 2)
    }))

  it.effect("a run's status: running while its file grows, finished with all its trials, stopped when it stops short", () =>
    Effect.gen(function*() {
      const root = path.join(dir, "status")
      fs.mkdirSync(root, { recursive: true })
      const definition = JSON.stringify({ run_id: "r1", agent: "sim", model: null, epochs: 2, rows: "all", dataset: { synthetic: 5 } })
      fs.writeFileSync(path.join(root, "short.jsonl"), lines(0, 4))
      fs.writeFileSync(path.join(root, "short.jsonl.run.json"), definition)
      fs.writeFileSync(path.join(root, "whole.jsonl"), lines(0, 10))
      fs.writeFileSync(path.join(root, "whole.jsonl.run.json"), definition)
      fs.writeFileSync(path.join(root, "unknown.jsonl"), lines(0, 3))
      const mtime = Math.max(...["short", "whole", "unknown"].map((k) => fs.statSync(path.join(root, `${k}.jsonl`)).mtimeMs))
      const runs = new Runs(root)
      const statuses = () => Effect.map(runs.list(), (list) => Object.fromEntries(list.map((r) => [r.key, [r.status, r.total]])))
      yield* TestClock.setTime(mtime + 1000)
      assert.deepStrictEqual(yield* statuses(), { short: ["running", 10], whole: ["finished", 10], unknown: ["running", null] })
      yield* TestClock.setTime(mtime + IDLE_MS + 1000)
      assert.deepStrictEqual(yield* statuses(), { short: ["stopped", 10], whole: ["finished", 10], unknown: ["finished", null] })
    }))
})

/**
 * Issue 37 (items 7, 8, 11 and 15) from the CLI, as a user runs it: a Hub
 * download that stalls ends with exit 1 naming the URL and the bytes, and
 * the next run resumes; a bad --max-download is exit 2; a cached copy that
 * cannot be read is named with its path; two runs filling one cache entry
 * at once both succeed; a Parquet footer that lies is exit 2; and the
 * progress total and --estimate know a CSV or JSON file's size.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parquetWriteBuffer } from "hyparquet-writer"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { serveHub, sha } from "./fixtures/hub-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const sim = ["--agent", "sim:latency=1ms,jitter=0ms,fail=0", "--no-progress"]
const FILE = "data/train-00000-of-00001.parquet"

const questions = (n: number) =>
  new Uint8Array(parquetWriteBuffer({
    columnData: [
      { name: "id", data: Array.from({ length: n }, (_, i) => `h${i}`), type: "STRING" },
      { name: "question", data: Array.from({ length: n }, (_, i) => `q ${i}`), type: "STRING" }
    ],
    rowGroupSize: 10
  }))

const hub = () => serveHub({ "owner/qa": { refs: { main: { sha: sha("a"), files: new Map([[FILE, questions(25)]]) } } } })
const cachedAt = (cache: string) => path.join(cache, "hf", "owner", "qa", sha("a"), ...FILE.split("/"))
const summaryOf = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

describe("agent-trials run: hf: downloads bounded", () => {
  it.live("a download that stalls (AGENT_TRIALS_HUB_TIMEOUT=1s): exit 1 naming the URL and the bytes; not finished; the next run reads it", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const dir = tempDir()
      const cache = path.join(dir, "cache")
      const out = path.join(dir, "out.jsonl")
      const summary = path.join(dir, "summary.json")
      const args = ["--tasks", "hf:owner/qa", "--cache-dir", cache, ...sim, "--out", out, "--summary", summary]
      server.behaveNext(FILE, { _tag: "Silent" })
      const env = { HF_ENDPOINT: server.endpoint, AGENT_TRIALS_HUB_TIMEOUT: "1s" }
      const stalled = yield* Effect.promise(() => run(args, { env }))
      assert.strictEqual(stalled.code, 1, describeResult(stalled))
      assert.include(stalled.stderr, `download from ${server.endpoint}/datasets/owner/qa/resolve/${sha("a")}/${FILE} stalled: no byte for 1s (--hub-timeout); 0 B received`)
      assert.include(stalled.stderr, "run again")
      assert.notInclude(stalled.stderr, "deadbeef")
      // Said once, and recorded as what it was: not bad input, not finished.
      assert.strictEqual(stalled.stderr.split("stalled: no byte").length, 2, stalled.stderr)
      assert.strictEqual(summaryOf(summary).outcome, "source_failed")
      assert.isFalse(fs.existsSync(cachedAt(cache)))
      const again = yield* Effect.promise(() => run(args, { env }))
      assert.strictEqual(again.code, 0, describeResult(again))
      assert.strictEqual(readTrials(out).length, 25)
    })))

  it.live("--max-download without a unit, or AGENT_TRIALS_HUB_TIMEOUT without one: exit 2 naming the flag or the variable", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const bad = yield* Effect.promise(() => run(["--tasks", "hf:owner/qa", "--cache-dir", dir, ...sim, "--max-download", "500"]))
      assert.strictEqual(bad.code, 2, describeResult(bad))
      assert.include(bad.stderr, `Expected --max-download to be a size with a unit, like 500MB, 10GB or 1.5GiB, got "500" (did you mean 500MB?)`)
      const env = yield* Effect.promise(() => run(["--tasks", "hf:owner/qa", "--cache-dir", dir, ...sim], { env: { AGENT_TRIALS_HUB_TIMEOUT: "60" } }))
      assert.strictEqual(env.code, 2, describeResult(env))
      assert.include(env.stderr, "AGENT_TRIALS_HUB_TIMEOUT")
    }))

  it.live("a cached copy that cannot be read: exit 2 naming its path to delete; deleted, the run downloads it again", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const dir = tempDir()
      const cache = path.join(dir, "cache")
      fs.mkdirSync(path.dirname(cachedAt(cache)), { recursive: true })
      fs.writeFileSync(cachedAt(cache), "not parquet at all")
      const args = ["--tasks", "hf:owner/qa", "--cache-dir", cache, ...sim, "--out", path.join(dir, "out.jsonl")]
      const env = { HF_ENDPOINT: server.endpoint }
      const broken = yield* Effect.promise(() => run(args, { env }))
      assert.strictEqual(broken.code, 2, describeResult(broken))
      assert.include(broken.stderr, `the cached copy is ${cachedAt(cache)}: delete it and run again to download it anew`)
      fs.rmSync(cachedAt(cache))
      const fixed = yield* Effect.promise(() => run(args, { env }))
      assert.strictEqual(fixed.code, 0, describeResult(fixed))
    })))

  it.live("two runs filling the same cache entry at once: both exit 0 with every task; one download", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const dir = tempDir()
      const cache = path.join(dir, "cache")
      // Both requests are in before either body is sent.
      server.bodyDelayMs = 1500
      const env = { HF_ENDPOINT: server.endpoint }
      const [a, b] = yield* Effect.promise(() =>
        Promise.all(["a", "b"].map((n) => run(["--tasks", "hf:owner/qa", "--cache-dir", cache, ...sim, "--out", path.join(dir, `${n}.jsonl`)], { env })))
      )
      for (const [r, n] of [[a!, "a"], [b!, "b"]] as const) {
        assert.strictEqual(r.code, 0, describeResult(r))
        assert.strictEqual(readTrials(path.join(dir, `${n}.jsonl`)).length, 25)
      }
      assert.strictEqual(server.count(`/cdn/owner/qa/${sha("a")}/${FILE}`), 1)
    })))
})

describe("agent-trials score and report: hf: tasks under the same bounds as run", () => {
  it.live("--max-download and --hub-timeout, and AGENT_TRIALS_MAX_DOWNLOAD, bound score's and report's download of the tasks: exit 1, as run", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const dir = tempDir()
      const env = { HF_ENDPOINT: server.endpoint }
      const results = path.join(dir, "out.jsonl")
      const ran = yield* Effect.promise(() => run(["--tasks", "hf:owner/qa", "--cache-dir", path.join(dir, "run-cache"), ...sim, "--out", results], { env }))
      assert.strictEqual(ran.code, 0, describeResult(ran))
      // Each reads into a cache of its own, so each downloads; the Hub declares no size.
      server.linkedSize.set(FILE, null)
      const tasks = (cache: string) => ["--tasks", "hf:owner/qa", "--cache-dir", path.join(dir, cache)]
      const tooLarge = `is larger than --max-download 100 B (no size declared)`

      server.behaveNext(FILE, { _tag: "Chunked" })
      const scored = yield* Effect.promise(() =>
        run([results, "--score", "exact", ...tasks("score-cache"), "--max-download", "100B", "--out", path.join(dir, "s.jsonl")], { command: "score", env })
      )
      assert.strictEqual(scored.code, 1, describeResult(scored))
      assert.include(scored.stderr, tooLarge)

      server.behaveNext(FILE, { _tag: "Chunked" })
      const html = path.join(dir, "r.html")
      const reported = yield* Effect.promise(() =>
        run([results, "--html", html, ...tasks("report-cache")], { command: "report", env: { ...env, AGENT_TRIALS_MAX_DOWNLOAD: "100B" } })
      )
      assert.strictEqual(reported.code, 1, describeResult(reported))
      assert.include(reported.stderr, tooLarge)

      server.behaveNext(FILE, { _tag: "Silent" })
      const stalled = yield* Effect.promise(() =>
        run([results, "--html", html, ...tasks("stall-cache"), "--hub-timeout", "1s"], { command: "report", env })
      )
      assert.strictEqual(stalled.code, 1, describeResult(stalled))
      assert.include(stalled.stderr, `download from ${server.endpoint}/datasets/owner/qa/resolve/${sha("a")}/${FILE} stalled: no byte for 1s (--hub-timeout)`)
      assert.isFalse(fs.existsSync(html))
    })))
})

describe("agent-trials run: the rows a file holds", () => {
  it("a Parquet footer whose row count disagrees with its row groups: exit 2 naming the file and both counts, no trial run", async () => {
    const dir = tempDir()
    const bytes = new Uint8Array(parquetWriteBuffer({ columnData: [{ name: "id", data: ["a", "b", "c", "d", "e"], type: "STRING" }], rowGroupSize: 2 }))
    // FileMetaData.num_rows (field 3, i64): zigzag(5) = 0x0a becomes zigzag(7) = 0x0e.
    let at = bytes.length - 8 - new DataView(bytes.buffer).getUint32(bytes.length - 8, true)
    while (!(bytes[at] === 0x16 && bytes[at + 1] === 0x0a)) at++
    bytes[at + 1] = 0x0e
    const file = path.join(dir, "lying.parquet")
    fs.writeFileSync(file, bytes)
    const out = path.join(dir, "out.jsonl")
    const r = await run(["--tasks", file, ...sim, "--out", out])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, `${file}: the footer says 7 rows but its row groups hold 5`)
    assert.isTrue(!fs.existsSync(out) || readTrials(out).length === 0)
  })

  it("--json-path data over {\"data\": [], \"data\": [...]}: exit 2 naming the key given twice, no trial run", async () => {
    const dir = tempDir()
    const file = path.join(dir, "twice.json")
    fs.writeFileSync(file, `{"data": [], "data": [{"id": "b", "q": "1"}]}`)
    const out = path.join(dir, "out.jsonl")
    const r = await run(["--tasks", file, "--json-path", "data", ...sim, "--out", out])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, `${file}: --json-path data: the key "data" is given twice at the top level (at byte 13): keep one`)
    assert.isTrue(!fs.existsSync(out) || readTrials(out).length === 0)
  })

  it("the progress total and --estimate know a CSV file's rows and a JSON file's records at --json-path", async () => {
    const dir = tempDir()
    const csv = path.join(dir, "q.csv")
    fs.writeFileSync(csv, "id,q\r\n" + Array.from({ length: 40 }, (_, i) => `t${i},"two\nlines ${i}"`).join("\n") + "\n")
    const progress = await run(["--tasks", csv, "--agent", "sim:latency=1ms,jitter=0ms,fail=0", "--out", path.join(dir, "p.jsonl")], {
      env: { AGENT_TRIALS_PROGRESS_INTERVAL_MS: "20" }
    })
    assert.strictEqual(progress.code, 0, describeResult(progress))
    assert.include(progress.stderr, "40/40 (100%)")
    assert.notInclude(progress.stderr, "40 done")
    const json = path.join(dir, "q.json")
    fs.writeFileSync(json, JSON.stringify({ data: { rows: Array.from({ length: 30 }, (_, i) => ({ id: `j${i}`, q: `${i}` })) } }))
    const summary = path.join(dir, "s.json")
    const estimate = await run(["--tasks", json, "--json-path", "data.rows", ...sim, "--out", path.join(dir, "e.jsonl"), "--summary", summary, "--estimate", "--estimate-trials", "5", "--epochs", "2"])
    assert.strictEqual(estimate.code, 0, describeResult(estimate))
    assert.strictEqual(summaryOf(summary).estimate.trials_total, 60)
    assert.strictEqual(summaryOf(summary).estimate.trials_run, 5)
  })
})

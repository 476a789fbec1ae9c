/**
 * `run` over the dataset formats, as a user runs it: a CSV file mapped by
 * `--map`, the choice of rows (`--sample`, `--ids`, `--limit`) recorded in the
 * summary and held to on `--resume`, a source that fails mid-run (the run
 * stops with what it wrote, and resumes), and `hf:` end to end against a
 * local Hub through `HF_ENDPOINT`: the revision read on the summary and every
 * record, the download cached, a gated dataset's 401 without `HF_TOKEN`, and
 * the token in no output.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parquetWriteBuffer } from "hyparquet-writer"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  readTrials,
  removeTempDirs,
  run,
  tempDir
} from "./cli-helpers.ts"
import { serveHub, sha } from "./fixtures/hub-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const sim = ["--agent", "sim:latency=1ms,jitter=0ms,fail=0", "--no-progress"]

const csvOf = (n: number, bad?: number) =>
  "question_id,question,answer,subject\r\n" +
  Array.from({ length: n }, (_, i) => i + 1 === bad ? `q${i},"a, b",extra,x,y` : `q${i},"What is ""${i}""?",${i},s${i % 3}`).join("\r\n") +
  "\r\n"

/** An agent that answers with the task it was given, as JSON. */
const echo = ["--agent", "module:test/fixtures/agent-module.ts#echo", "--no-progress"]
const taskOf = (trial: { readonly output?: { readonly output_text: string } | undefined }) => JSON.parse(trial.output!.output_text)

const summaryOf = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

describe.concurrent("agent-trials run: CSV, --map and the rows chosen", () => {
  it("a CSV file with --map: each row a task as mapped; the summary says the source, format, mapping and rows", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "questions.csv")
    fs.writeFileSync(tasks, csvOf(12))
    const out = path.join(dir, "out.jsonl")
    const summary = path.join(dir, "summary.json")
    const map = "id=question_id,inputs.instruction=question,reference=answer,metadata.subject=subject"
    const r = await run(["--tasks", tasks, "--map", map, ...echo, "--out", out, "--summary", summary])
    assert.strictEqual(r.code, 0, describeResult(r))
    const trials = readTrials(out)
    assertExactlyOnce(trials, Array.from({ length: 12 }, (_, i) => `q${i}:1`))
    const first = trials.find((t) => t.task_id === "q1")!
    assert.deepStrictEqual(taskOf(first), { id: "q1", inputs: { instruction: "What is \"1\"?" }, reference: "1", metadata: { subject: "s1" } })
    assert.deepStrictEqual(summaryOf(summary).dataset, { source: tasks, format: "csv", map, json_path: null, rows: "all" })
    assert.include(r.stdout, `dataset: ${tasks} (csv, --map ${map}), rows: every row`)
  })

  it("--sample N --seed S: the same N rows each time; the choice recorded; --resume refuses another choice", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "q.csv")
    fs.writeFileSync(tasks, csvOf(50))
    const [a, b] = ["a", "b"].map((n) => path.join(dir, `${n}.jsonl`))
    const summary = path.join(dir, "summary.json")
    const args = ["--tasks", tasks, ...sim, "--sample", "7", "--seed", "42"]
    const [ra, rb] = await Promise.all([run([...args, "--out", a!, "--summary", summary]), run([...args, "--out", b!])])
    assert.strictEqual(ra.code, 0, describeResult(ra))
    assert.strictEqual(rb.code, 0, describeResult(rb))
    const ids = readTrials(a!).map((t) => t.task_id).sort()
    assert.strictEqual(ids.length, 7)
    assert.deepStrictEqual(readTrials(b!).map((t) => t.task_id).sort(), ids)
    assert.deepStrictEqual(summaryOf(summary).dataset.rows, { sample: 7, seed: 42 })
    const changed = await run(["--tasks", tasks, ...sim, "--sample", "7", "--seed", "43", "--out", a!, "--resume"])
    assert.strictEqual(changed.code, 2, describeResult(changed))
    assert.include(changed.stderr, "rows")
    const same = await run([...args, "--out", a!, "--resume"])
    assert.strictEqual(same.code, 0, describeResult(same))
    assert.strictEqual(readTrials(a!).length, 7)
  })

  it("--ids FILE runs only those tasks, and says which of them the dataset lacks; --limit the first N", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "q.tsv")
    fs.writeFileSync(tasks, "id\tprompt\n" + Array.from({ length: 20 }, (_, i) => `t${i}\tp${i}`).join("\n") + "\n")
    const list = path.join(dir, "ids.txt")
    fs.writeFileSync(list, "t3\nt17\n# a comment\nt99\n")
    const out = path.join(dir, "ids.jsonl")
    const summary = path.join(dir, "summary.json")
    const r = await run(["--tasks", tasks, ...sim, "--ids", list, "--out", out, "--summary", summary])
    assert.strictEqual(r.code, 0, describeResult(r))
    assertExactlyOnce(readTrials(out), ["t3:1", "t17:1"])
    assert.include(r.stderr, `--ids ${list}: 1 of its 3 ids are not in the dataset (t99)`)
    const rows = summaryOf(summary).dataset.rows
    assert.strictEqual(rows.ids.file, list)
    assert.strictEqual(rows.ids.count, 3)
    assert.match(rows.ids.sha256, /^[0-9a-f]{64}$/)
    const limited = path.join(dir, "limit.jsonl")
    const l = await run(["--tasks", tasks, ...sim, "--limit", "4", "--out", limited])
    assert.strictEqual(l.code, 0, describeResult(l))
    assertExactlyOnce(readTrials(limited), ["t0:1", "t1:1", "t2:1", "t3:1"])
  })

  it("bad choices and mappings: exit 2 naming the flag, before any trial", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "q.csv")
    fs.writeFileSync(tasks, csvOf(5))
    const out = path.join(dir, "out.jsonl")
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["--map", "inputs.x=nope"], `${tasks}: --map inputs.x=nope: no column "nope" (the columns: question_id, question, answer, subject)`],
      [["--map", "bogus"], "--map"],
      [["--sample", "3", "--limit", "2"], "--sample"],
      [["--seed", "3"], "--seed"],
      [["--limit", "0"], "--limit"],
      [["--ids", path.join(dir, "none.txt")], "no such file"]
    ]
    for (const [flags, expected] of cases) {
      const r = await run(["--tasks", tasks, ...sim, "--out", out, ...flags])
      assert.strictEqual(r.code, 2, describeResult(r))
      assert.include(r.stderr, expected, describeResult(r))
      assert.isFalse(fs.existsSync(out) && fs.readFileSync(out, "utf8").trim() !== "", `${flags.join(" ")} recorded trials`)
    }
  })

  it("a bad row mid-file stops the run with what it wrote (exit 2, the row named); fixed, --resume completes it", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "q.csv")
    fs.writeFileSync(tasks, csvOf(300, 250))
    const out = path.join(dir, "out.jsonl")
    const map = "id=question_id,inputs.q=question,reference=answer"
    const r = await run(["--tasks", tasks, "--map", map, ...sim, "--parallelism", "4", "--out", out])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, `${tasks}: row 250 (line 251): expected 4 fields (the header's), got 5`)
    const before = readTrials(out)
    assert.isAbove(before.length, 0)
    for (const t of before) assert.isBelow(Number(t.task_id.slice(1)), 249)
    fs.writeFileSync(tasks, csvOf(300))
    const resumed = await run(["--tasks", tasks, "--map", map, ...sim, "--parallelism", "4", "--out", out, "--resume"])
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    assertExactlyOnce(readTrials(out), Array.from({ length: 300 }, (_, i) => `q${i}:1`))
  })

  it("--on-invalid skip: a bad CSV row is one failed trial of type InvalidTask, the rest run", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "q.csv")
    fs.writeFileSync(tasks, csvOf(10, 4))
    const out = path.join(dir, "out.jsonl")
    const r = await run(["--tasks", tasks, ...sim, "--on-invalid", "skip", "--out", out])
    assert.strictEqual(r.code, 0, describeResult(r))
    const trials = readTrials(out)
    assert.strictEqual(trials.length, 10)
    const invalid = trials.filter((t) => t.status === "failed")
    assert.strictEqual(invalid.length, 1)
    assert.strictEqual(invalid[0]!.error?.type, "InvalidTask")
    assert.include(invalid[0]!.error?.message ?? "", "row 4 (line 5): expected 4 fields (the header's), got 5")
  })

  it("JSON under --json-path and Parquet with nested columns run like JSONL", async () => {
    const dir = tempDir()
    const json = path.join(dir, "q.json")
    fs.writeFileSync(json, JSON.stringify({ meta: { n: 2 }, data: [{ id: "j1", inputs: { q: 1 } }, { id: "j2", question: "x", answer: "y" }] }))
    const parquet = path.join(dir, "q.parquet")
    fs.writeFileSync(parquet, new Uint8Array(parquetWriteBuffer({
      columnData: [
        { name: "id", data: ["p1", "p2", "p3"], type: "STRING" },
        { name: "steps", data: [[1, 2], [], [3]] },
        { name: "target", data: ["a", "b", "c"], type: "STRING" }
      ]
    })))
    const [jo, po] = ["j", "p"].map((n) => path.join(dir, `${n}.jsonl`))
    const [rj, rp] = await Promise.all([
      run(["--tasks", json, "--json-path", "data", ...echo, "--out", jo!]),
      run(["--tasks", parquet, ...echo, "--out", po!])
    ])
    assert.strictEqual(rj.code, 0, describeResult(rj))
    assert.strictEqual(rp.code, 0, describeResult(rp))
    assert.deepStrictEqual(readTrials(jo!).map(taskOf).sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)), [
      { id: "j1", inputs: { q: 1 } },
      { id: "j2", inputs: { question: "x" }, reference: "y" }
    ])
    const p = readTrials(po!).sort((a, b) => a.task_id.localeCompare(b.task_id))
    assert.deepStrictEqual(p.map(taskOf), [
      { id: "p1", inputs: { steps: [1, 2] }, reference: "a" },
      { id: "p2", inputs: { steps: [] }, reference: "b" },
      { id: "p3", inputs: { steps: [3] }, reference: "c" }
    ])
  })
})

const questions = (n: number) =>
  new Uint8Array(parquetWriteBuffer({
    columnData: [
      { name: "id", data: Array.from({ length: n }, (_, i) => `h${i}`), type: "STRING" },
      { name: "question", data: Array.from({ length: n }, (_, i) => `q ${i}`), type: "STRING" },
      { name: "answer", data: Array.from({ length: n }, (_, i) => `${i}`), type: "STRING" }
    ],
    rowGroupSize: 10
  }))

const TOKEN = "hf_SeCrEtToKeN123456"

const hub = () =>
  serveHub({
    "owner/qa": {
      refs: {
        main: {
          sha: sha("a"),
          files: new Map([["README.md", new TextEncoder().encode("# qa")], ["data/train-00000-of-00001.parquet", questions(25)]])
        }
      }
    },
    "owner/gated": {
      token: TOKEN,
      refs: { main: { sha: sha("b"), files: new Map([["data/train-00000-of-00001.parquet", questions(5)]]) } }
    }
  })

describe("agent-trials run: hf: datasets through HF_ENDPOINT", () => {
  it.live("the revision read is on the summary and on every record; a second run reads the cache", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const dir = tempDir()
      const cache = path.join(dir, "cache")
      const [a, b] = ["a", "b"].map((n) => path.join(dir, `${n}.jsonl`))
      const summary = path.join(dir, "summary.json")
      const args = ["--tasks", "hf:owner/qa", "--cache-dir", cache, ...echo]
      const env = { HF_ENDPOINT: server.endpoint }
      const r = yield* Effect.promise(() => run([...args, "--out", a!, "--summary", summary], { env }))
      assert.strictEqual(r.code, 0, describeResult(r))
      const trials = readTrials(a!)
      assertExactlyOnce(trials, Array.from({ length: 25 }, (_, i) => `h${i}:1`))
      for (const t of trials) assert.strictEqual(t.metadata?.dataset_revision, sha("a"), t.id)
      assert.deepStrictEqual(taskOf(trials.find((t) => t.task_id === "h3")!), { id: "h3", inputs: { question: "q 3" }, reference: "3" })
      const dataset = summaryOf(summary).dataset
      assert.strictEqual(dataset.source, "hf:owner/qa")
      assert.strictEqual(dataset.format, "hf")
      assert.strictEqual(dataset.revision, sha("a"))
      assert.include(r.stdout, `revision ${sha("a")}`)
      const file = `/datasets/owner/qa/resolve/${sha("a")}/data/train-00000-of-00001.parquet`
      assert.strictEqual(server.count(file), 1)
      assert.isTrue(fs.existsSync(path.join(cache, "hf", "owner", "qa", sha("a"), "data", "train-00000-of-00001.parquet")))
      const again = yield* Effect.promise(() => run([...args, "--out", b!], { env }))
      assert.strictEqual(again.code, 0, describeResult(again))
      assert.strictEqual(readTrials(b!).length, 25)
      assert.strictEqual(server.count(file), 1)
    })))

  it.live("a gated dataset: without HF_TOKEN exit 2 with a 401 message saying to set it; with it the run reads, the token in no output", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* hub()
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const args = ["--tasks", "hf:owner/gated", "--cache-dir", path.join(dir, "cache"), ...sim, "--out", out]
      const denied = yield* Effect.promise(() => run(args, { env: { HF_ENDPOINT: server.endpoint } }))
      assert.strictEqual(denied.code, 2, describeResult(denied))
      assert.include(denied.stderr, "401")
      assert.include(denied.stderr, "HF_TOKEN")
      assert.include(denied.stderr, "owner/gated")
      const allowed = yield* Effect.promise(() => run([...args, "--summary", path.join(dir, "s.json")], { env: { HF_ENDPOINT: server.endpoint, HF_TOKEN: TOKEN } }))
      assert.strictEqual(allowed.code, 0, describeResult(allowed))
      assert.strictEqual(readTrials(out).length, 5)
      for (const text of [allowed.stdout, allowed.stderr, fs.readFileSync(out, "utf8"), fs.readFileSync(path.join(dir, "s.json"), "utf8")]) {
        assert.notInclude(text, TOKEN)
      }
      const sent = server.received.filter((req) => req.headers.authorization === `Bearer ${TOKEN}`)
      assert.isAbove(sent.length, 0)
    })))
})

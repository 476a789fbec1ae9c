/**
 * `--resume` continues the same run, also where the flags read the same
 * but what they name changed: the real command against real files (a
 * pricing file, `module:` files, a symbolic link) and a local Hub through
 * `HF_ENDPOINT` whose `main` moves. Another pricing content, another module
 * file or another commit is refused (exit 2, both named, the file
 * untouched); a module whose content changed is warned of.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parquetWriteBuffer } from "hyparquet-writer"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"
import { type FakeRevision, serveHub, sha } from "./fixtures/hub-server.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const sim = ["--agent", "sim:latency=1ms,jitter=0ms,fail=0,tokens=100", "--no-progress"]

const questions = (n: number) =>
  new Uint8Array(parquetWriteBuffer({
    columnData: [
      { name: "id", data: Array.from({ length: n }, (_, i) => `h${i}`), type: "STRING" },
      { name: "question", data: Array.from({ length: n }, (_, i) => `q ${i}`), type: "STRING" }
    ]
  }))

describe("agent-trials run --resume: what the flags name", () => {
  it("another pricing content is refused naming both; the same content resumes", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const prices = path.join(dir, "prices.yaml")
    fs.writeFileSync(prices, "models:\n  sim: { input: 1, output: 2 }\n")
    const args = ["--synthetic", "6", ...sim, "--pricing", prices, "--out", out]
    const first = await run(args)
    assert.strictEqual(first.code, 0, describeResult(first))
    const before = fs.readFileSync(out, "utf8")

    fs.writeFileSync(prices, "models:\n  sim: { input: 3, output: 4 }\n")
    const changed = await run([...args, "--resume"])
    assert.strictEqual(changed.code, 2, describeResult(changed))
    assert.match(
      changed.stderr,
      new RegExp(`was written with --pricing ${prices} \\(content sha256 [0-9a-f]{12}\\), this run has --pricing ${prices} \\(content sha256 [0-9a-f]{12}\\)`)
    )
    const [then, now] = [...changed.stderr.matchAll(/content sha256 ([0-9a-f]{12})/g)].map((m) => m[1])
    assert.notStrictEqual(then, now)
    const none = await run(["--synthetic", "6", ...sim, "--out", out, "--resume"])
    assert.strictEqual(none.code, 2, describeResult(none))
    assert.include(none.stderr, "this run has no --pricing")
    assert.strictEqual(fs.readFileSync(out, "utf8"), before)

    fs.writeFileSync(prices, "models:\n  sim: { input: 1, output: 2 }\n")
    const same = await run([...args, "--resume"])
    assert.strictEqual(same.code, 0, describeResult(same))
  })

  it("a module: agent whose content changed is warned of; one that resolves to another file is refused naming both", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const agent = path.join(dir, "agent.mjs")
    const other = path.join(dir, "other.mjs")
    fs.writeFileSync(agent, "export const echo = async (task) => `echo ${task.id}`\n")
    fs.writeFileSync(other, "export const echo = async (task) => `other ${task.id}`\n")
    const scorer = path.join(dir, "scorer.mjs")
    fs.writeFileSync(scorer, "export default (_task, trial) => trial.output?.output_text.startsWith(\"echo\")\n")
    const args = ["--synthetic", "4", "--agent", `module:${agent}#echo`, "--score", `module:${scorer}`, "--no-progress", "--out", out]
    const first = await run(args)
    assert.strictEqual(first.code, 0, describeResult(first))

    fs.appendFileSync(agent, "// fixed a typo\n")
    const changed = await run([...args, "--resume"])
    assert.strictEqual(changed.code, 0, describeResult(changed))
    assert.match(
      changed.stderr,
      new RegExp(`--resume: --agent module ${agent} has changed since ${out} was started \\(content sha256 [0-9a-f]{12} then, [0-9a-f]{12} now\\)`)
    )
    const before = fs.readFileSync(out, "utf8")

    // The same flag, another file behind it.
    fs.rmSync(agent)
    fs.symlinkSync(other, agent)
    const moved = await run([...args, "--resume"])
    assert.strictEqual(moved.code, 2, describeResult(moved))
    assert.include(
      moved.stderr,
      `was written with --agent module ${agent}, --score module ${scorer}, this run has --agent module ${other}, --score module ${scorer}`
    )
    assert.strictEqual(fs.readFileSync(out, "utf8"), before)
  })

  it.live("an hf: revision that moved since the results were started is refused naming both commits; unmoved, it resumes", () =>
    Effect.scoped(Effect.gen(function*() {
      const refs: Record<string, FakeRevision> = {
        main: { sha: sha("a"), files: new Map([["data/train-00000-of-00001.parquet", questions(6)]]) }
      }
      const server = yield* serveHub({ "owner/qa": { refs } })
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const args = ["--tasks", "hf:owner/qa", "--cache-dir", path.join(dir, "cache"), ...sim, "--out", out]
      const env = { HF_ENDPOINT: server.endpoint }
      const first = yield* Effect.promise(() => run(args, { env }))
      assert.strictEqual(first.code, 0, describeResult(first))
      assert.strictEqual(readTrials(out)[0]!.metadata["dataset_revision"], sha("a"))
      const before = fs.readFileSync(out, "utf8")

      const same = yield* Effect.promise(() => run([...args, "--resume"], { env }))
      assert.strictEqual(same.code, 0, describeResult(same))

      // main moves: new rows, another commit.
      refs["main"] = { sha: sha("b"), files: new Map([["data/train-00000-of-00001.parquet", questions(9)]]) }
      const moved = yield* Effect.promise(() => run([...args, "--resume"], { env }))
      assert.strictEqual(moved.code, 2, describeResult(moved))
      assert.include(moved.stderr, `--resume: hf:owner/qa was at commit ${sha("a")} when the results were started and is at ${sha("b")} now`)
      assert.strictEqual(fs.readFileSync(out, "utf8"), before)
    })))
})

/**
 * Every record reads back (issue 37, items 4 and 5). An agent's output that
 * JSON cannot write (a cycle, a BigInt, a function, a `toJSON` that throws,
 * NaN) fails that trial alone, naming the field, before the writer; every
 * other trial of the batch is recorded and `--resume` finds the run
 * complete. The writer's own guard replaces any record that still cannot be
 * written (a cost that is not finite, a BigInt a later stage added) by a
 * failed one. A price so large that a cost could not be finite is refused
 * when the pricing file is read. The real command in a child process, a real
 * module agent in a temporary .mjs file, real files.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import * as Results from "../src/results/Results.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Pricing from "../src/summary/Pricing.ts"
import { describeResult, killAll, parseSummary, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// synthetic-N answers by N: 3 a cycle, 5 a BigInt, 7 a function, 9 a toJSON
// that throws, 11 NaN; the rest a good answer after a short wait (so the bad
// ones land in batches among good ones at parallelism 4).
const unwritableAgent = `
export const answer = async (task) => {
  const n = Number(task.id.split("-")[1])
  await new Promise((resolve) => setTimeout(resolve, n % 3))
  if (n === 3) { const r = { a: 1 }; r.self = r; return { output_text: "x", response: r } }
  if (n === 5) return { output_text: "x", response: { big: 10n } }
  if (n === 7) return { output_text: "x", metadata: { f: () => 1 } }
  if (n === 9) return { output_text: "x", response: { toJSON() { throw new Error("no JSON today") } } }
  if (n === 11) return { output_text: "x", response: { score: NaN } }
  return { output_text: "ok " + n, response: { shared: [1, 2], again: [1, 2], when: new Date(0) } }
}
`

const expectedProblems: Record<string, string> = {
  "synthetic-3": "output.response.self refers back to output.response (a cycle)",
  "synthetic-5": "output.response.big is a BigInt (10n), which JSON cannot hold",
  "synthetic-7": "output.metadata.f is a function, which JSON cannot hold",
  "synthetic-9": "output.response has a toJSON that threw (no JSON today)",
  "synthetic-11": "output.response.score is NaN, which JSON cannot hold (it would be written as null)"
}

describe("records JSON cannot write", () => {
  it("a module agent's unwritable outputs among good ones at parallelism 4: those trials fail naming why, the rest are recorded, --resume finds the run complete", async () => {
    const dir = tempDir()
    const agent = path.join(dir, "agent.mjs")
    fs.writeFileSync(agent, unwritableAgent)
    const out = path.join(dir, "out.jsonl")
    const args = ["--synthetic", "24", "--parallelism", "4", "--agent", `module:${agent}#answer`, "--score", "none", "--out", out, "--no-progress"]
    const result = await run(args)
    assert.strictEqual(result.code, 0, describeResult(result))
    const summary = parseSummary(result.stdout)
    assert.strictEqual(summary.outcome, "finished")
    assert.deepStrictEqual([summary.total, summary.completed, summary.failed], [24, 19, 5])
    const trials = readTrials(out)
    assert.lengthOf(trials, 24)
    const failed = Object.fromEntries(trials.filter((t) => t.status === "failed").map((t) => [t.task_id, t.error!]))
    assert.deepStrictEqual(Object.keys(failed).sort(), Object.keys(expectedProblems).sort())
    for (const [task, problem] of Object.entries(expectedProblems)) {
      assert.strictEqual(failed[task]!.type, "InvalidAgentOutput")
      assert.strictEqual(failed[task]!.message, `the agent's output cannot be written as JSON: ${problem}`)
    }
    // A good output is recorded as JSON writes it: a shared array twice, a Date as its string.
    const good = trials.find((t) => t.task_id === "synthetic-4")!
    assert.deepStrictEqual(good.output, { output_text: "ok 4", response: { shared: [1, 2], again: [1, 2], when: "1970-01-01T00:00:00.000Z" } })

    const before = fs.readFileSync(out, "utf8")
    const resumed = await run([...args, "--resume"])
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    const again = parseSummary(resumed.stdout)
    assert.deepStrictEqual([again.outcome, again.total, again.alreadyRecorded], ["finished", 0, 24])
    assert.strictEqual(fs.readFileSync(out, "utf8"), before)
  })

  it.live("the writer's guard: a part a later stage made unwritable (a cost of Infinity, a BigInt or cyclic label, a NaN score) is mended where it is, the output and status kept; an output JSON cannot write is a failed record naming the field", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const base = (i: number): AgentEvalTrial => ({
        id: `t-${i}:trial`,
        task_id: `t-${i}`,
        status: "completed",
        output: { output_text: `answer ${i}` },
        metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 }
      })
      const cyclic: Record<string, unknown> = {}
      cyclic["again"] = cyclic
      const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 }
      const bad: Record<number, AgentEvalTrial> = {
        1: { ...base(1), output: { output_text: "x", usage: { ...usage, cost_usd: Infinity } } },
        3: { ...base(3), metadata: { ...base(3).metadata, group: BigInt(7) } },
        4: { ...base(4), metadata: { ...base(4).metadata, cyclic } },
        5: { ...base(5), output: { output_text: "x", response: { n: BigInt(5) } } },
        6: { ...base(6), scores: { exact: { value: 1, passed: true }, odd: { value: NaN, passed: true } } }
      }
      const seen: Array<AgentEvalTrial> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const writer = yield* Results.writer(out, { onWritten: (t) => seen.push(t) })
        for (let i = 0; i < 7; i++) yield* writer.append(bad[i] ?? base(i))
        yield* writer.flush
      }))
      const trials = readTrials(out)
      assert.deepStrictEqual(trials.map((t) => t.status), ["completed", "completed", "completed", "completed", "completed", "failed", "completed"])
      const nulls = "which JSON cannot hold (it would be written as null)"
      // The paid output kept, the cost dropped and noted.
      assert.deepStrictEqual(trials[1]!.output, { output_text: "x", usage })
      assert.deepStrictEqual(trials[1]!.metadata, {
        ...base(1).metadata,
        unrecorded: [`record.output.usage.cost_usd is Infinity, ${nulls}: the cost is not recorded`]
      })
      // A label that cannot be written is dropped and noted.
      assert.deepStrictEqual([trials[3]!.output, trials[3]!.metadata], [base(3).output, {
        ...base(3).metadata,
        unrecorded: ["record.metadata.group is a BigInt (7n), which JSON cannot hold: the label is not recorded"]
      }])
      assert.deepStrictEqual(trials[4]!.metadata["unrecorded"], [
        "record.metadata.cyclic.again refers back to record.metadata.cyclic (a cycle): the label is not recorded"
      ])
      // The output itself cannot be written: a failed record naming it.
      assert.deepStrictEqual([trials[5]!.error?.type, trials[5]!.error?.message, trials[5]!.output], [
        "UnwritableRecord",
        "the trial's record cannot be written as JSON: record.output.response.n is a BigInt (5n), which JSON cannot hold",
        undefined
      ])
      // A NaN score is that scorer's error, never a pass; the output and the other score kept.
      assert.deepStrictEqual([trials[6]!.output, trials[6]!.scores], [base(6).output, {
        exact: { value: 1, passed: true },
        odd: {
          value: 0,
          passed: false,
          error: {
            type: "InvalidScore",
            message: `the odd scorer's score cannot be recorded: record.scores.odd.value is NaN, ${nulls}`,
            occurred_at: "2026-01-01T00:00:01.000Z"
          }
        }
      }])
      assert.deepStrictEqual(trials[2], base(2))
      // What the summary counts is what the file holds.
      assert.deepStrictEqual(seen, trials)
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("counts an agent made itself", () => {
  it.effect("an Effect agent's usage that no record could read back (1e300 tokens, which a cost would price to Infinity) fails its trial naming the field", () =>
    Effect.gen(function*() {
      const tasks = Stream.fromIterable([0, 1, 2].map((i) => ({ id: `t${i}`, inputs: {} })))
      const trials = yield* Stream.runCollect(runTrials(tasks, (task) =>
        Effect.succeed({
          output_text: "x",
          usage: task.id === "t1"
            ? { input_tokens: 1e300, output_tokens: 1, total_tokens: 1e300 }
            : { input_tokens: 1, output_tokens: 1, total_tokens: 2 }
        }), { parallelism: 2 }))
      const byTask = Object.fromEntries(trials.map((t) => [t.task_id, t]))
      assert.strictEqual(byTask["t0"]!.status, "completed")
      assert.strictEqual(byTask["t1"]!.status, "failed")
      assert.deepStrictEqual(
        { type: byTask["t1"]!.error!.type, message: byTask["t1"]!.error!.message },
        { type: "InvalidAgentOutput", message: "the agent's output would not read back: output.usage.input_tokens: Expected an integer" }
      )
    }))
})

describe("a failure's steps", () => {
  it.effect("a failed trial's message and steps are scrubbed; steps JSON cannot write are dropped, the message saying why", () =>
    Effect.gen(function*() {
      const key = "sk-SECRET-steps-key-5"
      // What the run knows (the CLI: its command line's; here, given to it).
      yield* Redactor.remember([key])
      const step = (content: unknown) => ({ type: "tool_result" as const, name: "peek", content, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 0 })
      const tasks = Stream.fromIterable([0, 1].map((i) => ({ id: `t${i}`, inputs: {} })))
      const trials = yield* Stream.runCollect(runTrials(tasks, (task) =>
        Effect.fail(Object.assign(new Error(`stopped after ${key}`), {
          _tag: "MaxTurns",
          trajectory: [step(task.id === "t0" ? `the key is ${key}` : { n: BigInt(1) })]
        })), { parallelism: 2 }))
      const byTask = Object.fromEntries(trials.map((t) => [t.task_id, t.error!]))
      assert.deepStrictEqual(
        [byTask["t0"]!.message, byTask["t0"]!.trajectory?.map((s) => s.content)],
        ["stopped after <redacted>", ["the key is <redacted>"]]
      )
      assert.deepStrictEqual([byTask["t1"]!.message, byTask["t1"]!.trajectory], [
        "stopped after <redacted> (its steps are not kept: error.trajectory[0].content.n is a BigInt (1n), which JSON cannot hold)",
        undefined
      ])
    }).pipe(Effect.provide(Redactor.Redactor.layer())))
})

describe("prices too large to make a finite cost", () => {
  // A usage-reporting agent (10 output tokens of model m a trial): priced at
  // 1e308 per million tokens, a cost would be Infinity, written as null.
  const tasks = (dir: string) => {
    const file = path.join(dir, "tasks.jsonl")
    fs.writeFileSync(file, [0, 1, 2].map((i) => JSON.stringify({ id: `t${i}`, inputs: { answer: "a", tokens: 100 } })).join("\n") + "\n")
    return file
  }
  const agent = "module:test/fixtures/agent-usage.ts#spends"

  it("run and score refuse a price over the cap when the pricing file is read: exit 2 naming the model and the field, nothing written; at the cap report and compare read the records back", async () => {
    const dir = tempDir()
    const prices = path.join(dir, "prices.yaml")
    fs.writeFileSync(prices, "models:\n  m: { input: 0.15, output: 1e308 }\n")
    const problem = `agent-trials: --pricing ${prices}: model "m", field output: 1e+308 USD per million tokens is over ` +
      "the largest price accepted, 1000000 (a dollar a token): its costs could be too large to record as numbers"
    const out = path.join(dir, "out.jsonl")
    const refused = await run(["--tasks", tasks(dir), "--agent", agent, "--score", "none", "--pricing", prices, "--out", out, "--no-progress"])
    assert.strictEqual(refused.code, 2, describeResult(refused))
    assert.include(refused.stderr, problem)
    assert.isFalse(fs.existsSync(out))

    // score reads the same file the same way.
    const first = await run(["--tasks", tasks(dir), "--agent", agent, "--score", "none", "--out", out, "--no-progress"])
    assert.strictEqual(first.code, 0, describeResult(first))
    const scored = path.join(dir, "scored.jsonl")
    const score = await run([out, "--tasks", tasks(dir), "--score", "exact", "--pricing", prices, "--out", scored], { command: "score" })
    assert.strictEqual(score.code, 2, describeResult(score))
    assert.include(score.stderr, problem)
    assert.isFalse(fs.existsSync(scored))

    // At the cap the run goes ahead, and every record reads back with its cost.
    fs.writeFileSync(prices, `models:\n  m: { input: ${Pricing.MAX_PRICE}, output: ${Pricing.MAX_PRICE} }\n`)
    const capped = path.join(dir, "capped.jsonl")
    const ok = await run(["--tasks", tasks(dir), "--agent", agent, "--score", "none", "--pricing", prices, "--out", capped, "--no-progress"])
    assert.strictEqual(ok.code, 0, describeResult(ok))
    assert.deepStrictEqual(readTrials(capped).map((t) => t.output?.usage?.cost_usd), [110, 110, 110])
    const [report, compare] = await Promise.all([
      run([capped, "--html", path.join(dir, "capped.html")], { command: "report" }),
      run([capped, capped], { command: "compare" })
    ])
    assert.strictEqual(report.code, 0, describeResult(report))
    assert.strictEqual(compare.code, 0, describeResult(compare))
  })

  it("under the cap a cost is finite for the largest usage a record can hold", () => {
    const most = Number.MAX_SAFE_INTEGER
    const price = { input: Pricing.MAX_PRICE, output: Pricing.MAX_PRICE, cached_input: Pricing.MAX_PRICE }
    const cost = Pricing.cost(price, { input_tokens: most, output_tokens: most, total_tokens: most, cached_input_tokens: most })
    assert.isTrue(Number.isFinite(cost) && cost > 0, String(cost))
    // Ten million such trials still sum to a finite number.
    assert.isTrue(Number.isFinite(cost * 1e7))
  })
})

describe("the in-place check (writable.ts)", () => {
  it("an API answer nested 8 deep with nothing to scrub is kept as it is, not copied; a wide self-reference is still a cycle named by its path", async () => {
    const { writable } = await import("../src/internal/writable.ts")
    const body = { choices: [{ message: { content: "42", tool_calls: [{ function: { arguments: { a: [1, { b: "c" }] } } }] } }] }
    const output = { output_text: "42", response: body }
    const kept = writable(output, "output", (s) => s)
    assert.strictEqual(kept._tag, "Writable")
    assert.strictEqual(kept._tag === "Writable" && kept.value, output)
    // A scrub that changes nothing keeps it too; a secret in a deep string is removed from a copy.
    const scrubbed = writable(output, "output", (s) => s.replaceAll("secret", "[x]"))
    assert.strictEqual(scrubbed._tag === "Writable" && scrubbed.value, output)
    const withSecret = { output_text: "42", response: { choices: [{ message: { tool_calls: [{ function: { arguments: { a: [1, { b: "secret" }] } } }] } }] } }
    const copied = writable(withSecret, "output", (s) => s.replaceAll("secret", "[x]"))
    assert.deepStrictEqual(copied, {
      _tag: "Writable",
      value: { output_text: "42", response: { choices: [{ message: { tool_calls: [{ function: { arguments: { a: [1, { b: "[x]" }] } } }] } }] } }
    })
    // Each key refers back to the object: 2^64 paths if every one were followed.
    const wide: Record<string, unknown> = { x: 1 }
    for (let i = 0; i < 8; i++) wide[`k${i}`] = wide
    assert.deepStrictEqual(writable({ output_text: "x", response: wide }, "output", (s) => s), {
      _tag: "Unwritable",
      at: "output.response.k0",
      why: "refers back to output.response (a cycle)"
    })
  })
})

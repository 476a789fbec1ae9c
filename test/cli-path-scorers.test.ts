/**
 * Scorers of the path through the real command: an `effect-ai:` agent (a
 * user's `LanguageModel.make` layer) calling plain module tools, scored by
 * `tool-called`, `tool-not-called`, `tool-sequence`, `tool-args`, `steps`
 * and `tool-calls` against `--expected-tools`; the run's definition records
 * where the expected calls were read, so a resume reading them elsewhere is
 * refused; `score --expected-tools` re-scores the same file; a bad flag exits
 * 2 naming it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => removeTempDirs())

// The fixture's model calls add(a, b) and fail() in its first turn, then answers.
const agent = ["--agent", "effect-ai:test/fixtures/model-layer.ts#layer", "--tools", "module:test/fixtures/tools-plain.ts"]

const tasks = (dir: string) =>
  writeJsonl(path.join(dir, "tasks.jsonl"), [
    // Both calls expected, as made.
    { id: "s1", inputs: { a: 2, b: 3 }, metadata: { calls: [{ name: "add", arguments: { a: 2, b: 3 } }, "fail"] } },
    // Expected add(10, 4): the call made was add(10, -4), and fail was not expected.
    { id: "s2", inputs: { a: 10, b: -4 }, metadata: { calls: [{ name: "add", arguments: { a: 10, b: 4 } }] } }
  ])

const scores = [
  "--score", "tool-called:add,max=1",
  "--score", "tool-not-called:fail",
  "--score", "tool-sequence:add>fail,exact",
  "--score", "tool-args:add,a=2",
  "--score", "steps:max=2",
  "--score", "tool-calls"
]

describe("path scorers from the CLI", () => {
  it("a run of an agent that acts, scored by its path; the definition records --expected-tools; score re-scores it", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const file = tasks(dir)
    const result = await run([...agent, "--tasks", file, "--out", out, "--no-progress", ...scores, "--expected-tools", "metadata.calls"])
    assert.strictEqual(result.code, 0, describeResult(result))
    // Each trial: two model turns, add and fail called, fail's result a tool error.
    assert.include(
      result.stdout,
      "\n  trajectories: 2 trials; steps per trial mean 2, p50 2, p95 2, max 2; tool calls per trial mean 2, p50 2, p95 2, max 2\n" +
        "  tool calls: 4 (2 tool errors); by tool: fail 2 (2 errors), add 2\n"
    )
    const trials = readTrials(out).sort((a, b) => a.task_id.localeCompare(b.task_id))
    const verdicts = trials.map((t) => Object.fromEntries(Object.entries(t.scores ?? {}).map(([name, s]) => [name, s.passed])))
    assert.deepStrictEqual(verdicts, [
      {
        "tool-called-add": true,
        "tool-not-called-fail": false,
        "tool-sequence": true,
        "tool-args-add": true,
        steps: true,
        "tool-calls": true
      },
      {
        "tool-called-add": true,
        "tool-not-called-fail": false,
        "tool-sequence": true,
        "tool-args-add": false,
        steps: true,
        "tool-calls": false
      }
    ])
    const s2 = trials[1]!.scores!
    assert.strictEqual(s2["tool-not-called-fail"]!.explanation, "fail was called once (expected never)")
    assert.strictEqual(s2["tool-args-add"]!.explanation, `no call of add had a = 2; its call had {"a":10,"b":-4}`)
    assert.strictEqual(s2["tool-calls"]!.value, 0)
    assert.strictEqual(
      s2["tool-calls"]!.explanation,
      `F1 0 (precision 0, recall 0; 0 of 1 expected call made, 2 made): missed: add {"a":10,"b":4}; ` +
        `not expected: add {"a":10,"b":-4}; fail {}`
    )
    const definition = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")) as { readonly scorers: ReadonlyArray<string> }
    assert.include(definition.scorers, "tool-calls:expected=metadata.calls")
    assert.include(definition.scorers, "tool-sequence:add>fail,exact")

    // Resuming with the expected calls read elsewhere is another run.
    const elsewhere = await run([...agent, "--tasks", file, "--out", out, "--no-progress", ...scores, "--resume"])
    assert.strictEqual(elsewhere.code, 2, describeResult(elsewhere))
    assert.include(elsewhere.stderr, "tool-calls:expected=metadata.calls")

    // score: the same trials against the reference's calls, which s1's task lacks.
    const scored = path.join(dir, "scored.jsonl")
    const rescored = await run([out, "--score", "tool-calls", "--tasks", file, "--out", scored, "--expected-tools", "metadata.calls"], {
      command: "score"
    })
    assert.strictEqual(rescored.code, 0, describeResult(rescored))
    assert.include(rescored.stdout, "\n  tool calls: 4 (2 tool errors); by tool: fail 2 (2 errors), add 2\n")
    assert.deepStrictEqual(
      readTrials(scored).sort((a, b) => a.task_id.localeCompare(b.task_id)).map((t) => t.scores?.["tool-calls"]?.value),
      [1, 0]
    )
    const unset = path.join(dir, "unset.jsonl")
    const noPath = await run([out, "--score", "tool-calls", "--tasks", file, "--out", unset], { command: "score" })
    assert.strictEqual(noPath.code, 0, describeResult(noPath))
    assert.deepStrictEqual(readTrials(unset).map((t) => t.scores?.["tool-calls"]?.error?.type), ["MissingReference", "MissingReference"])
  })

  it("a bad --expected-tools exits 2 naming the flag", async () => {
    const dir = tempDir()
    const result = await run([...agent, "--tasks", tasks(dir), "--out", path.join(dir, "o.jsonl"), "--score", "tool-calls", "--expected-tools", "calls"])
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.include(
      result.stderr,
      `Expected --expected-tools to be a dotted path into the task starting with id, inputs, intent, reference, metadata (like metadata.calls), got "calls"`
    )
  })
})

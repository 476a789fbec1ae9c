/**
 * Issue 22, rule 4: a new agent kind, dataset format, output format or
 * scorer kind is one file and one registry entry. The fakes of
 * test/fixtures/fake-kinds.ts are added to the registries alone; the CLI
 * made from them (a real child process) shows them in its help, parses
 * their specs and flags, and runs them. And the README's tables of kinds are
 * the registries' own.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentKinds from "../src/agents/AgentKinds.ts"
import * as DatasetFormats from "../src/datasets/DatasetFormats.ts"
import * as OutputFormats from "../src/programs/OutputFormats.ts"
import * as ResultsStores from "../src/results/ResultsStores.ts"
import * as ScorerKinds from "../src/scoring/ScorerKinds.ts"
import { describeResult, killAll, removeTempDirs, repoRoot, run, tempDir } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const script = "test/fixtures/fake-kinds.ts"

describe("the registries", () => {
  it("the README's tables of agent kinds, scorer kinds, dataset formats, outputs and results stores are the registries'", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    for (const table of [AgentKinds.docsTable(), DatasetFormats.docsTable(), OutputFormats.docsTable(), ResultsStores.docsTable(), ScorerKinds.docsTable(ScorerKinds.builtIn)]) {
      assert.include(readme, `\n${table}\n`)
    }
  })

  it("a fake kind of each, added to the registries alone, is in the CLI's help", async () => {
    const result = await run(["--help"], { script })
    assert.strictEqual(result.code, 0, describeResult(result))
    const help = result.stdout
    assert.include(help, "| openai:BASE_URL | anthropic:BASE_URL | effect-ai:PATH[#export] | echo[:upper] (default sim)")
    assert.include(
      help,
      "The --tasks file's format: jsonl (.jsonl, .ndjson, any other name), json (.json), csv (.csv), tsv (.tsv, .tab), " +
        "parquet (.parquet, .pq), hf (hf:...), lines (.txt)"
    )
    assert.include(help, "| module:PATH[#export] | not:SPEC | length:max=N, optionally NAME=SPEC")
    assert.match(help, /\n {2}--markdown string +Also write the run's counts as a Markdown table to this file \[env AGENT_TRIALS_MARKDOWN\]\n/)
  }, 60_000)

  it("runs them from the CLI: the dataset read by its format, the agent called, the output written", async () => {
    const dir = tempDir()
    const tasks = path.join(dir, "tasks.txt")
    fs.writeFileSync(tasks, "alpha\n\nbeta\ngamma\n")
    const out = path.join(dir, "out.jsonl")
    const md = path.join(dir, "run.md")
    const result = await run(
      [
        "--tasks", tasks, "--agent", "echo:upper", "--score", "exact", "--score", "short=length:max=4",
        "--out", out, "--markdown", md, "--no-progress"
      ],
      { script }
    )
    assert.strictEqual(result.code, 0, describeResult(result))
    const records = fs.readFileSync(out, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    assert.deepStrictEqual(
      records.map((r) => [r.task_id, r.output?.output_text, r.scores?.exact?.passed, r.scores?.short?.passed]).sort(),
      [["line-1", "ALPHA", true, false], ["line-2", "BETA", true, true], ["line-3", "GAMMA", true, false]]
    )
    assert.strictEqual(
      fs.readFileSync(md, "utf8"),
      "| outcome | completed | failed |\n| --- | --- | --- |\n| finished | 3 | 0 |\n"
    )
    // The run's definition records the fake agent and scorer by their kinds' own words.
    const definition = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8"))
    assert.strictEqual(definition.agent, "echo:upper")
    assert.deepStrictEqual(definition.scorers, ["exact", "short=length:max=4"])
  }, 60_000)

  it("keeps the trials in the store --out names: a fake store, chosen by the name alone", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.tsv")
    const args = ["--synthetic", "3", "--agent", "echo", "--score", "none", "--out", out, "--no-progress"]
    const result = await run(args, { script })
    assert.strictEqual(result.code, 0, describeResult(result))
    // Rows in completion order.
    assert.deepStrictEqual(fs.readFileSync(out, "utf8").split("\n").filter((row) => row !== "").sort(), [
      "synthetic-0:1\tcompleted\tWhat is 0 + 0?",
      "synthetic-1:1\tcompleted\tWhat is 1 + 1?",
      "synthetic-2:1\tcompleted\tWhat is 2 + 2?"
    ])
    // Its own refusal, through the run's: the store is there already.
    const again = await run(args, { script })
    assert.strictEqual(again.code, 2, describeResult(again))
    assert.include(again.stderr, `${out} is there already (this store cannot resume)`)
  }, 60_000)

  it("their refusals come from the kinds themselves, as usage errors (exit 2)", async () => {
    const bad = await run(["--agent", "echo:loud", "--synthetic", "1", "--no-progress"], { script })
    assert.strictEqual(bad.code, 2, describeResult(bad))
    assert.include(bad.stderr, "--agent echo:loud: expected echo or echo:upper")
    const unknown = await run(["--agent", "nope:x", "--synthetic", "1", "--no-progress"], { script })
    assert.strictEqual(unknown.code, 2, describeResult(unknown))
    assert.include(
      unknown.stderr,
      `unknown agent scheme "nope:" (expected sim[:...], module:PATH[#export], http(s)://URL, openai:BASE_URL, anthropic:BASE_URL, effect-ai:PATH[#export] or echo[:upper])`
    )
    const scorer = await run(["--score", "length:max=x", "--synthetic", "1", "--no-progress"], { script })
    assert.strictEqual(scorer.code, 2, describeResult(scorer))
    assert.include(scorer.stderr, "--score length:max=x: expected length:max=N, N an integer >= 0")
    const format = await run(["--tasks", "x.txt", "--format", "xlsx", "--no-progress"], { script })
    assert.strictEqual(format.code, 2, describeResult(format))
    assert.include(format.stderr, `Expected --format to be a dataset format (jsonl, json, csv, tsv, parquet, hf, lines), got "xlsx"`)
  }, 60_000)
})

/**
 * `--resume` continues the run that wrote the results file, not another:
 * the real command writes what defines a run beside its results
 * (`RESULTS.jsonl.run.json`), refuses a resume with another agent, scorer,
 * epoch count or dataset (exit 2, naming what differs, the file untouched),
 * accepts one that only runs trials differently (parallelism, timeout,
 * retries, the simulated latency), and resumes a file written before
 * definitions were recorded with a warning.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  readTrials,
  removeTempDirs,
  run,
  syntheticIds,
  tempDir,
  writeJsonl
} from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const oneLine = (stderr: string) => {
  const lines = stderr.trim().split("\n")
  assert.strictEqual(lines.length, 1, `expected one line on stderr:\n${stderr}`)
  return lines[0]!
}

describe("agent-trials run --resume: the same run only", () => {
  it("refuses another --epochs, --agent, --score or dataset naming it; resumes the same definition; warns without run.json", async () => {
    const dir = tempDir()
    const out = path.join(dir, "r.jsonl")
    const definitionFile = `${out}.run.json`
    const base = ["--synthetic", "20", "--epochs", "2", "--agent", "sim:latency=1ms", "--out", out, "--no-progress"]
    const first = await run(base)
    assert.strictEqual(first.code, 0, describeResult(first))
    const definition = JSON.parse(fs.readFileSync(definitionFile, "utf8"))
    assert.deepInclude(definition, {
      version: 1,
      agent: "sim:fail=0.02,seed=1",
      model: null,
      scorers: ["exact"],
      pass: null,
      epochs: 2,
      dataset: { synthetic: 20 },
      rows: "all"
    })
    // Half the trials lost, as a crash would leave it.
    const lines = fs.readFileSync(out, "utf8").split("\n").filter((l) => l !== "")
    fs.writeFileSync(out, lines.slice(0, 20).join("\n") + "\n")
    const before = fs.readFileSync(out)

    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [{ id: "t1", inputs: {} }])
    const refused: Array<[ReadonlyArray<string>, string]> = [
      [[...base, "--epochs", "3"], "--epochs 2, this run has --epochs 3"],
      [[...base, "--agent", "sim:latency=1ms,fail=0.5"], "--agent sim:fail=0.02,seed=1, this run has --agent sim:fail=0.5,seed=1"],
      [[...base, "--score", "includes"], "--score exact, this run has --score includes"],
      [["--tasks", tasks, ...base.slice(2), "--score", "exact"], `--synthetic 20, this run has --tasks ${tasks}`],
      // --retry-failed would rewrite the file: refused before it does.
      [[...base, "--epochs", "3", "--retry-failed"], "--epochs 2, this run has --epochs 3"]
    ]
    for (const [args, says] of refused) {
      // A flag given twice is refused: each list keeps the last value of each.
      const deduped = dedupe(args)
      const result = await run([...deduped, "--resume"])
      assert.strictEqual(result.code, 2, `${deduped.join(" ")}: ${describeResult(result)}`)
      assert.include(oneLine(result.stderr), `agent-trials: --resume: ${out} was written with ${says}`, result.stderr)
      assert.deepStrictEqual(fs.readFileSync(out), before, "the results file is untouched")
    }

    // What only changes how trials run may differ.
    const same = await run([
      ...dedupe([...base, "--agent", "sim:latency=3ms,jitter=0ms"]),
      "--parallelism", "3", "--timeout", "10s", "--retries", "0", "--resume"
    ])
    assert.strictEqual(same.code, 0, describeResult(same))
    assert.include(same.stdout, "resuming: 20 trials already recorded")
    assertExactlyOnce(readTrials(out), syntheticIds(20, 2))

    // A results file from before definitions were recorded: a warning, and the definition is written then.
    fs.rmSync(definitionFile)
    fs.writeFileSync(out, lines.slice(0, 30).join("\n") + "\n")
    const legacy = await run([...base, "--resume"])
    assert.strictEqual(legacy.code, 0, describeResult(legacy))
    assert.include(legacy.stderr, `agent-trials: --resume: ${out} has no ${definitionFile}`)
    assertExactlyOnce(readTrials(out), syntheticIds(20, 2))
    assert.deepInclude(JSON.parse(fs.readFileSync(definitionFile, "utf8")), { epochs: 2, dataset: { synthetic: 20 } })
  }, 300_000)

  it("the definition holds no credential of the agent's URL; none is written for a device", async () => {
    const dir = tempDir()
    const out = path.join(dir, "r.jsonl")
    const result = await run([
      "--synthetic", "2", "--agent", "http://agent-user:pw-Secret-77@127.0.0.1:1/agent?api_key=sk-Secret-88&mode=fast",
      "--retries", "0", "--out", out, "--no-progress"
    ])
    assert.strictEqual(result.code, 0, describeResult(result))
    const text = fs.readFileSync(`${out}.run.json`, "utf8")
    assert.strictEqual(JSON.parse(text).agent, "http://<redacted>@127.0.0.1:1/agent?api_key=<redacted>&mode=<redacted>")
    for (const secret of ["agent-user", "pw-Secret-77", "sk-Secret-88", "fast"]) assert.notInclude(text, secret)

    const toDevice = await run(["--synthetic", "2", "--agent", "sim:latency=1ms", "--out", "/dev/null", "--no-progress"])
    assert.strictEqual(toDevice.code, 0, describeResult(toDevice))
    assert.isFalse(fs.existsSync("/dev/null.run.json"))
  }, 120_000)
})

describe("agent-trials run --resume: the same world only", () => {
  it("refuses another --setup, --workspace-from or --sandbox naming both; resumes with another --workspace-dir; the setup's secret is not recorded", async () => {
    const dir = tempDir()
    const out = path.join(dir, "r.jsonl")
    const seed = path.join(dir, "seed")
    fs.mkdirSync(seed)
    const base = ["--synthetic", "4", "--agent", "sim:latency=1ms", "--out", out, "--no-progress", "--workspace"]
    // The setup quotes the run's own key: the definition must not.
    const setup = "echo token=sk-WorldSecret-123456 > .env"
    const key = { env: { OPENAI_API_KEY: "sk-WorldSecret-123456" } }
    const first = await run([...base, "--workspace-dir", path.join(dir, "a"), "--workspace-from", seed, "--setup", setup], key)
    assert.strictEqual(first.code, 0, describeResult(first))
    const recorded = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")) as { readonly world: ReadonlyArray<string> }
    assert.deepStrictEqual(recorded.world, ["--workspace", `--workspace-from ${seed}`, "--setup 'echo token=<redacted> > .env'", "--sandbox none"])
    const before = fs.readFileSync(out, "utf8")

    const otherSetup = await run([...base, "--resume", "--workspace-from", seed, "--setup", "true"], key)
    assert.strictEqual(otherSetup.code, 2, describeResult(otherSetup))
    assert.include(
      oneLine(otherSetup.stderr),
      `was written with --workspace --workspace-from ${seed} --setup 'echo token=<redacted> > .env' --sandbox none, ` +
        `this run has --workspace --workspace-from ${seed} --setup true --sandbox none`
    )
    const noWorld = await run(["--synthetic", "4", "--agent", "sim:latency=1ms", "--out", out, "--no-progress", "--resume"])
    assert.strictEqual(noWorld.code, 2, describeResult(noWorld))
    assert.include(oneLine(noWorld.stderr), "this run has no --workspace")
    assert.strictEqual(fs.readFileSync(out, "utf8"), before, "a refused resume changed the results")

    const otherSandbox = await run([...base, "--resume", "--workspace-from", seed, "--setup", setup, "--sandbox", "bwrap"], key)
    assert.strictEqual(otherSandbox.code, 2, describeResult(otherSandbox))
    assert.include(oneLine(otherSandbox.stderr), "--sandbox none, this run has --workspace")
    assert.include(oneLine(otherSandbox.stderr), "> .env' --sandbox bwrap (its definition")
    // Where the workspaces go only changes how trials are run.
    const same = await run([...base, "--resume", "--workspace-dir", path.join(dir, "b"), "--workspace-from", seed, "--setup", setup], key)
    assert.strictEqual(same.code, 0, describeResult(same))
    assert.strictEqual(readTrials(out).length, 4)
  }, 120_000)
})

// The last value of each flag that takes one wins, in the place of its first.
function dedupe(args: ReadonlyArray<string>): Array<string> {
  const out: Array<string> = []
  const at = new Map<string, number>()
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!
    const takesValue = flag.startsWith("--") && i + 1 < args.length && !args[i + 1]!.startsWith("--")
    if (!takesValue) {
      if (!out.includes(flag)) out.push(flag)
      continue
    }
    const value = args[++i]!
    const seen = at.get(flag)
    if (seen === undefined) {
      at.set(flag, out.length)
      out.push(flag, value)
    } else out[seen + 1] = value
  }
  return out
}

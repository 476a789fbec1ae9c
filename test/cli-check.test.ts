/**
 * `--score check:COMMAND` end to end, with real processes: a module agent
 * writes a file in its trial's workspace, then each check runs in that
 * workspace before it is removed. Exit 0 passes, another exit fails, a
 * number on the last line of stdout is the value, `{task.metadata.check}`
 * runs each task's own test, the explanation keeps the last lines of
 * output scrubbed of the run's secrets, a check past --sandbox-timeout is
 * killed and recorded as a scorer error naming it, under --sandbox bwrap a
 * check cannot write outside its workspace, and without --workspace (or in
 * `agent-trials score`) the spec is bad input.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { describeResult, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { alive } from "./pids.ts"

const outsideDirs: Array<string> = []
const pids: Array<number> = []
afterAll(() => {
  removeTempDirs()
  for (const dir of outsideDirs) fs.rmSync(dir, { recursive: true, force: true })
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL")
})

const AGENT = "module:test/fixtures/agent-workspace.ts"
const SECRET = "sk-check-secret-0123456789abcdef"

const tasks = (dir: string) =>
  writeJsonl(path.join(dir, "tasks.jsonl"), [
    { id: "a", inputs: {}, files: { "in.txt": "alpha" }, metadata: { check: "grep -qx a agent.txt" } },
    { id: "b", inputs: {}, files: { "in.txt": "beta" }, metadata: { check: `echo "b left $(cat agent.txt)" >&2; exit 1` } },
    { id: "c", inputs: {}, files: { "in.txt": "gamma" } },
    { id: "escape", inputs: {}, files: { "../evil.txt": "x" } }
  ])

// Tasks the agent answers (it reads in.txt).
const plain = (dir: string, n: number) =>
  writeJsonl(path.join(dir, "plain.jsonl"), Array.from({ length: n }, (_, i) => ({ id: `p${i}`, inputs: {}, files: { "in.txt": `p${i}` } })))

describe("run --score check:COMMAND", () => {
  it("runs in each trial's workspace: exit 0 passes, else fails, a last-line number is the value, per-task commands, output kept scrubbed", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const root = path.join(dir, "ws")
    const out = path.join(dir, "out.jsonl")
    const specs = [
      "tests=check:{task.metadata.check}",
      "part=check:pwd; echo {task_id} in {trial_id} saw $(cat agent.txt); echo 0.25",
      `leak=check:echo "token $OPENAI_API_KEY"; echo "on stderr $OPENAI_API_KEY" >&2; exit 3`
    ]
    const r = await run(
      ["--tasks", tasks(dir), "--agent", AGENT, "--out", out, "--no-progress", "--parallelism", "3", "--score-parallelism", "1",
        "--workspace", "--workspace-dir", root, ...specs.flatMap((spec) => ["--score", spec])],
      { env: { OPENAI_API_KEY: SECRET } }
    )
    assert.strictEqual(r.code, 0, describeResult(r))
    const byTask = new Map(readTrials(out).map((t) => [t.task_id, t]))
    const runId = JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")).run_id as string

    // The task's own test: a passes, b fails with its stderr kept, c has no test (a scorer error of that trial).
    assert.deepStrictEqual(byTask.get("a")!.scores?.["tests"], { value: 1, passed: true, explanation: "exit code 0" })
    assert.deepStrictEqual(byTask.get("b")!.scores?.["tests"], {
      value: 0,
      passed: false,
      explanation: "exit code 1\nstderr's last lines:\nb left b"
    })
    const c = byTask.get("c")!.scores?.["tests"]
    assert.strictEqual(c?.passed, false)
    assert.strictEqual(c?.error?.type, "CheckNotRun")
    assert.strictEqual(c?.error?.message, "check:{task.metadata.check} was not run: task c: {task.metadata.check} has no value")

    // The value from the last line; run in the trial's own workspace (its cwd), with its placeholders.
    for (const id of ["a", "b", "c"]) {
      const workspace = path.join(root, runId, `${id}:1`)
      assert.deepStrictEqual(byTask.get(id)!.scores?.["part"], {
        value: 0.25,
        passed: true,
        explanation: `exit code 0; value 0.25 from the last line of its stdout\nstdout's last lines:\n${workspace}\n${id} in ${id}:1 saw ${id}\n0.25`
      })
      // The secret the check printed is scrubbed from both streams.
      assert.deepStrictEqual(byTask.get(id)!.scores?.["leak"], {
        value: 0,
        passed: false,
        explanation: "exit code 3\nstdout's last lines:\ntoken <redacted>\nstderr's last lines:\non stderr <redacted>"
      })
    }
    assert.notInclude(fs.readFileSync(out, "utf8"), SECRET)

    // A failed trial is not scored, as with every scorer.
    const escape = byTask.get("escape")!
    assert.strictEqual(escape.status, "failed")
    assert.isUndefined(escape.scores)
    assert.include(r.stdout, "score tests: trials 3 (scored 3, failed trials 0, scorer errors 1)", r.stdout)

    // Bounded like every scorer: the scoring stage's parallelism, its calls counted by its probe.
    assert.include(r.stdout, "scoring parallelism 1: peak active scorer calls 1, peak outstanding 1")

    // Every workspace removed once scored.
    assert.deepStrictEqual(fs.readdirSync(root), [])
    assert.include(r.stdout, "workspaces: 4 made, 4 removed")

    // The run's definition records the specs as written; a resume with another check is refused.
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(`${out}.run.json`, "utf8")).scorers, specs)
    const changed = await run(
      ["--tasks", path.join(dir, "tasks.jsonl"), "--agent", AGENT, "--out", out, "--no-progress", "--workspace", "--workspace-dir", root,
        "--resume", "--score", "tests=check:true", "--score", specs[1]!, "--score", specs[2]!],
      { env: { OPENAI_API_KEY: SECRET } }
    )
    assert.strictEqual(changed.code, 2, describeResult(changed))
    assert.include(changed.stderr, "tests=check:{task.metadata.check}")
    assert.include(changed.stderr, "tests=check:true")
  })

  it("a check past --sandbox-timeout is killed and recorded as a scorer error naming it", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const pidFile = path.join(dir, "check.pid")
    const r = await run([
      "--tasks", plain(dir, 1), "--agent", AGENT, "--out", out, "--no-progress", "--workspace", "--workspace-dir", path.join(dir, "ws"),
      "--sandbox-timeout", "1s", "--score", `slow=check:echo $$ > ${pidFile}; exec sleep 300`
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const [trial] = readTrials(out)
    const score = trial!.scores?.["slow"]
    assert.strictEqual(score?.passed, false)
    assert.strictEqual(score?.value, 0)
    assert.strictEqual(score?.error?.type, "SandboxTimeout")
    assert.strictEqual(
      score?.error?.message,
      `sh -c 'echo $$ > ${pidFile}; exec sleep 300' did not finish within 1000ms: its process group was killed`
    )
    const pid = Number(fs.readFileSync(pidFile, "utf8").trim())
    pids.push(pid)
    assert.isFalse(alive(pid), `the check's process ${pid} is still running`)
  })

  it("under --sandbox bwrap a check writes in its workspace and cannot write outside it", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    // Outside the system temp folder: bubblewrap's private /tmp would hide a write there.
    const outside = fs.mkdtempSync(path.join(repoRoot, ".check-test-"))
    outsideDirs.push(outside)
    const target = path.join(outside, "escaped.txt")
    const r = await run([
      "--tasks", plain(dir, 2), "--agent", AGENT, "--out", out, "--no-progress", "--workspace", "--workspace-dir", path.join(dir, "ws"),
      "--sandbox", "bwrap",
      "--score", "inside=check:echo ok > made.txt && test -s agent.txt && cat made.txt",
      "--score", `outside=check:echo no > ${target}`
    ])
    assert.strictEqual(r.code, 0, describeResult(r))
    const trials = readTrials(out)
    assert.strictEqual(trials.length, 2)
    for (const trial of trials) {
      assert.deepStrictEqual(trial.scores?.["inside"], { value: 1, passed: true, explanation: "exit code 0\nstdout's last lines:\nok" })
      const refused = trial.scores?.["outside"]
      assert.strictEqual(refused?.passed, false)
      assert.include(refused?.explanation, "Read-only file system")
    }
    assert.isFalse(fs.existsSync(target), "the check wrote outside its workspace")
  })

  it("check: without --workspace, and in agent-trials score, is bad input naming the spec and --workspace", { timeout: 120_000 }, async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const r = await run(["--synthetic", "2", "--agent", AGENT, "--out", out, "--no-progress", "--score", "check:test -f agent.txt"])
    assert.strictEqual(r.code, 2, describeResult(r))
    assert.include(r.stderr, "--score check:test -f agent.txt: needs --workspace")
    assert.isFalse(fs.existsSync(out))

    const results = path.join(dir, "done.jsonl")
    const made = await run(["--synthetic", "2", "--agent", AGENT, "--out", results, "--no-progress"])
    assert.strictEqual(made.code, 0, describeResult(made))
    const scored = await run([results, "--score", "check:true", "--out", path.join(dir, "scored.jsonl")], { command: "score" })
    assert.strictEqual(scored.code, 2, describeResult(scored))
    assert.include(scored.stderr, "--score check:true: needs --workspace")
    assert.include(scored.stderr, "not agent-trials score: the workspaces are gone by then")
  })
})

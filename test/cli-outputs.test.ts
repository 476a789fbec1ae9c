/**
 * The files the commands write, through the real CLI: no output may be the
 * same file as an input or another output (exit 2, before anything runs);
 * every output besides the results file is written atomically, and a
 * temporary file a killed process left is removed by the next run on that
 * file; an output that cannot be written is exit 1 in every command, named
 * with the operating system's reason (`/dev/full`, a full tmpfs); an
 * unwritable `--out` is found before the first agent call; and a run that
 * stops on bad input prints only that error.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import {
  type CliResult,
  describeResult,
  killAll,
  parseSummary,
  readTrials,
  removeTempDirs,
  repoRoot,
  run,
  tempDir,
  writeJsonl
} from "./cli-helpers.ts"

const mounts: Array<string> = []
const mount = (dir: string, options: string): string | undefined => {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir], { stdio: "pipe" })
    mounts.push(dir)
    return undefined
  } catch (e) {
    return `mount -t tmpfs -o ${options} failed: ${String((e as { stderr?: unknown }).stderr ?? e).trim()}`
  }
}
const unmountAll = () => {
  for (const dir of mounts.splice(0).reverse()) spawnSync("umount", [dir])
}

afterAll(() => {
  killAll()
  unmountAll()
  removeTempDirs()
})

// A small tmpfs needs root (or CAP_SYS_ADMIN); without it those tests are skipped, saying why.
const mountProblem = (() => {
  const dir = tempDir()
  const problem = mount(dir, "size=64k")
  unmountAll()
  return problem
})()
if (mountProblem !== undefined) console.warn(`skipping the full and read-only file system tests: ${mountProblem}`)

const command = (name: string) => (args: ReadonlyArray<string>) => run(args, { command: name })
const score = command("score")
const report = command("report")
const compare = command("compare")

const stderrLines = (r: CliResult) => r.stderr.split("\n").filter((line) => line !== "")

const trial = (i: number, pass = true): AgentEvalTrial => ({
  id: `t${i}:1`,
  task_id: `t${i}`,
  status: "completed",
  output: { output_text: `answer ${i}` },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 },
  scores: { exact: { value: pass ? 1 : 0, passed: pass } }
})
const resultsFile = (file: string, n: number) => writeJsonl(file, Array.from({ length: n }, (_, i) => trial(i, i % 3 !== 0)))
const tasksFile = (file: string, n: number) =>
  writeJsonl(file, Array.from({ length: n }, (_, i) => ({ id: `t${i}`, inputs: { q: `question ${i}` }, reference: `answer ${i}` })))

// The pid of a process that has exited.
const deadPid = (): number => spawnSync("true").pid!

describe.concurrent("no output is the same file as an input or another output", () => {
  it("refused with exit 2 before anything runs, naming both flags; every input untouched", async () => {
    const dir = tempDir()
    const p = (name: string) => path.join(dir, name)
    const tasks = tasksFile(p("tasks.jsonl"), 3)
    const results = resultsFile(p("results.jsonl"), 3)
    const summary = p("summary.json")
    fs.writeFileSync(summary, JSON.stringify({ run_id: "x" }) + "\n")
    const agent = p("agent.ts")
    fs.writeFileSync(agent, "export default () => ({ output_text: 'x' })\n")
    fs.symlinkSync(tasks, p("tasks-link.jsonl"))
    fs.linkSync(tasks, p("tasks-hard.jsonl"))
    fs.symlinkSync(results, p("results-link.jsonl"))
    const same = (a: string, b: string, input = true) =>
      `agent-trials: ${a} is the same file as ${b}: ` +
      (input ? "writing it would destroy that input" : "one would overwrite the other") + "; choose another file"
    const out = p("out.jsonl")
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
      ["run", ["--tasks", tasks, "--report", tasks], same(`--report ${tasks}`, `--tasks ${tasks}`)],
      ["run", ["--tasks", tasks, "--out", p("tasks-link.jsonl")], same(`--out ${p("tasks-link.jsonl")}`, `--tasks ${tasks}`)],
      ["run", ["--tasks", tasks, "--summary", p("tasks-hard.jsonl")], same(`--summary ${p("tasks-hard.jsonl")}`, `--tasks ${tasks}`)],
      ["run", ["--agent", `module:${agent}`, "--report", agent], same(`--report ${agent}`, `--agent ${agent}`)],
      // Neither exists yet: the same path once resolved.
      ["run", ["--out", out, "--summary", p("no-dir/../out.jsonl")], same(`--summary ${p("no-dir/../out.jsonl")}`, `--out ${out}`, false)],
      ["run", ["--out", out, "--resume", "--summary", p("new.json"), "--report", p("new.json")], same(`--report ${p("new.json")}`, `--summary ${p("new.json")}`, false)],
      ["score", [results, "--score", "exact", "--out", out, "--summary", results], same(`--summary ${results}`, `RESULTS ${results}`)],
      ["score", [results, "--score", "exact", "--out", p("results-link.jsonl")], same(`--out ${p("results-link.jsonl")}`, `RESULTS ${results}`)],
      ["score", [results, "--score", "exact", "--tasks", tasks, "--out", p("tasks-hard.jsonl")], same(`--out ${p("tasks-hard.jsonl")}`, `--tasks ${tasks}`)],
      ["report", [results, "--html", results], same(`--html ${results}`, `RESULTS ${results}`)],
      ["report", [results, "--html", summary, "--summary", summary], same(`--html ${summary}`, `--summary ${summary}`)],
      ["report", [results, "--html", p("tasks-link.jsonl"), "--tasks", tasks], same(`--html ${p("tasks-link.jsonl")}`, `--tasks ${tasks}`)],
      ["compare", [results, tasks, "--json", tasks], same(`--json ${tasks}`, `NEW ${tasks}`)],
      ["compare", [results, results, "--json", p("c.json"), "--html", p("c.json")], same(`--html ${p("c.json")}`, `--json ${p("c.json")}`, false)]
    ]
    const before = new Map(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(p(name), "utf8")]))
    const outcomes = await Promise.all(cases.map(([name, args]) => command(name)(args)))
    outcomes.forEach((result, i) => {
      const [name, args, expected] = cases[i]!
      const what = `${name} ${args.join(" ")}: ${describeResult(result)}`
      assert.strictEqual(result.code, 2, what)
      assert.deepStrictEqual(stderrLines(result), [expected], what)
      assert.strictEqual(result.stdout, "", what)
    })
    // Nothing was written: every file as it was, no file made.
    assert.deepStrictEqual(new Map(fs.readdirSync(dir).map((name) => [name, fs.readFileSync(p(name), "utf8")])), before)
  })

  it("/dev/stdout is not a file to protect: --out and --summary both /dev/stdout, stdout a file, keep every line", async () => {
    // stdout redirected to a regular file (`>> log`): /dev/stdout then names that file.
    const log = path.join(tempDir(), "stdout.log")
    const fd = fs.openSync(log, "a")
    const bin = path.join(repoRoot, "node_modules", ".bin")
    const child = spawn(path.join(bin, "tsx"), [
      "scripts/trials.ts", "run", "--synthetic", "3", "--agent", "sim:latency=1ms,fail=0",
      "--out", "/dev/stdout", "--summary", "/dev/stdout", "--no-progress"
    ], { cwd: repoRoot, env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env["PATH"]}` }, stdio: ["ignore", fd, "pipe"] })
    fs.closeSync(fd)
    let stderr = ""
    child.stderr!.setEncoding("utf8").on("data", (text: string) => stderr += text)
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    const stdout = fs.readFileSync(log, "utf8")
    assert.strictEqual(code, 0, `${stdout}\n${stderr}`)
    const records = stdout.split("\n").filter((line) => line.startsWith("{\"id\":\"synthetic-"))
    assert.strictEqual(records.length, 3, stdout)
    assert.include(stdout, "\"run_id\": ", stdout)
  })
})

describe.concurrent("a file that cannot be written is exit 1 in every command, with the OS's reason", () => {
  const full = (flag: string) => `agent-trials: cannot write ${flag} /dev/full: ENOSPC: no space left on device, write`

  it("run --summary /dev/full and run --report /dev/full: the summary printed, the results whole, exit 1", async () => {
    const dir = tempDir()
    const [summaryRun, reportRun] = await Promise.all(["--summary", "--report"].map((flag) =>
      run(["--synthetic", "20", "--agent", "sim:latency=1ms,fail=0", "--out", path.join(dir, `${flag.slice(2)}.jsonl`), flag, "/dev/full", "--no-progress"])
    ))
    for (const [flag, result] of [["--summary", summaryRun!], ["--report", reportRun!]] as const) {
      assert.strictEqual(result.code, 1, describeResult(result))
      assert.deepStrictEqual(stderrLines(result), [full(flag)], describeResult(result))
      assert.strictEqual(parseSummary(result.stdout).outcome, "finished")
      assert.strictEqual(readTrials(path.join(dir, `${flag.slice(2)}.jsonl`)).length, 20)
    }
  })

  it("score --summary, report --html, compare --json and --html: exit 1, one line naming the file", async () => {
    const dir = tempDir()
    const results = resultsFile(path.join(dir, "results.jsonl"), 5)
    const scored = path.join(dir, "scored.jsonl")
    const missingDir = path.join(dir, "no", "such", "dir", "c.html")
    const [scoreRun, reportRun, compareRun, compareHtml] = await Promise.all([
      score([results, "--score", "exact", "--out", scored, "--summary", "/dev/full"]),
      report([results, "--html", "/dev/full"]),
      compare([results, results, "--json", "/dev/full"]),
      compare([results, results, "--html", missingDir])
    ])
    assert.strictEqual(scoreRun!.code, 1, describeResult(scoreRun!))
    assert.deepStrictEqual(stderrLines(scoreRun!), [full("--summary")], describeResult(scoreRun!))
    // score's own summary (issue 21 item 7): its header names the input and output.
    assert.match(scoreRun!.stdout, /^score .*results\.jsonl -> .*scored\.jsonl: finished$/m)
    assert.strictEqual(readTrials(scored).length, 5)
    assert.strictEqual(reportRun!.code, 1, describeResult(reportRun!))
    assert.deepStrictEqual(stderrLines(reportRun!), [full("--html")], describeResult(reportRun!))
    assert.strictEqual(compareRun!.code, 1, describeResult(compareRun!))
    assert.deepStrictEqual(stderrLines(compareRun!), [full("--json")], describeResult(compareRun!))
    assert.strictEqual(compareHtml!.code, 1, describeResult(compareHtml!))
    assert.deepStrictEqual(stderrLines(compareHtml!), [
      `agent-trials: cannot write --html ${missingDir}: ENOENT: no such file or directory, open '${missingDir}'`
    ])
  })
})

describe.concurrent("outputs are written atomically", () => {
  it("a temporary file a killed process left is removed by the next run on that file, which says so", async () => {
    const dir = tempDir()
    const out = resultsFile(path.join(dir, "out.jsonl"), 4)
    const html = path.join(dir, "report.html")
    const summary = path.join(dir, "summary.json")
    const dead = deadPid()
    const stale = [out, html, summary].map((file) => `${file}.rewrite-${dead}`)
    for (const file of stale) fs.writeFileSync(file, "half a file")
    // One of a process still running (this one) is not stale: it stays.
    const living = `${html}.rewrite-${process.pid}`
    fs.writeFileSync(living, "being written")
    const removed = (file: string) => `agent-trials: removed ${file}, a temporary file left by an interrupted run`

    const resumed = await run(["--tasks", tasksFile(path.join(dir, "tasks.jsonl"), 4), "--out", out, "--resume", "--summary", summary, "--no-progress"])
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    // The hand-made results file has no run definition beside it: resumed with that warning first.
    const [warning, ...rest] = stderrLines(resumed)
    assert.include(warning, `has no ${out}.run.json`, describeResult(resumed))
    assert.deepStrictEqual(rest, [removed(stale[0]!), removed(stale[2]!)], describeResult(resumed))
    const reported = await report([out, "--html", html])
    assert.strictEqual(reported.code, 0, describeResult(reported))
    assert.deepStrictEqual(stderrLines(reported), [removed(stale[1]!)], describeResult(reported))
    for (const file of stale) assert.isFalse(fs.existsSync(file), file)
    assert.strictEqual(fs.readFileSync(living, "utf8"), "being written")
    assert.strictEqual(readTrials(out).length, 4)
    assert.include(fs.readFileSync(html, "utf8"), "<html")
    assert.strictEqual(JSON.parse(fs.readFileSync(summary, "utf8")).outcome, "finished")
  })

  describe.skipIf(mountProblem !== undefined)("on a full file system (a 64 KB tmpfs)", () => {
    it("every failed write leaves the old file as it was and no temporary file; exit 1 naming ENOSPC", async () => {
      const dir = tempDir()
      const disk = path.join(dir, "disk")
      fs.mkdirSync(disk)
      assert.isUndefined(mount(disk, "size=64k"))
      const old = ["summary.json", "report.html", "scored-summary.json", "page.html", "c.json"]
      for (const name of old) fs.writeFileSync(path.join(disk, name), `old ${name}\n`)
      const results = resultsFile(path.join(dir, "results.jsonl"), 400)
      const page = path.join(disk, "page.html")

      // A report of 400 trials is larger than the whole disk: its write fails part-way.
      const big = await report([results, "--html", page])
      assert.strictEqual(big.code, 1, describeResult(big))
      assert.deepStrictEqual(stderrLines(big), [`agent-trials: cannot write --html ${page}: ENOSPC: no space left on device, write`])

      // Then fill what is left, so that every other write fails too.
      const filler = fs.openSync(path.join(disk, "filler"), "w")
      try {
        for (;;) fs.writeSync(filler, Buffer.alloc(4096))
      } catch (e) {
        assert.strictEqual((e as NodeJS.ErrnoException).code, "ENOSPC")
      } finally {
        fs.closeSync(filler)
      }
      const out = path.join(dir, "out.jsonl")
      const at = (name: string) => path.join(disk, name)
      const [ran, scored, compared] = await Promise.all([
        run(["--synthetic", "20", "--agent", "sim:latency=1ms,fail=0", "--out", out, "--summary", at("summary.json"), "--report", at("report.html"), "--no-progress"]),
        score([results, "--score", "exact", "--out", path.join(dir, "scored.jsonl"), "--summary", at("scored-summary.json")]),
        compare([results, results, "--json", at("c.json")])
      ])
      const enospc = (flag: string, name: string) =>
        `agent-trials: cannot write ${flag} ${at(name)}: ENOSPC: no space left on device, write`
      assert.strictEqual(ran!.code, 1, describeResult(ran!))
      assert.deepStrictEqual(stderrLines(ran!), [enospc("--summary", "summary.json"), enospc("--report", "report.html")])
      assert.strictEqual(readTrials(out).length, 20)
      assert.strictEqual(scored!.code, 1, describeResult(scored!))
      assert.deepStrictEqual(stderrLines(scored!), [enospc("--summary", "scored-summary.json")])
      assert.strictEqual(compared!.code, 1, describeResult(compared!))
      assert.deepStrictEqual(stderrLines(compared!), [enospc("--json", "c.json")])

      for (const name of old) assert.strictEqual(fs.readFileSync(at(name), "utf8"), `old ${name}\n`, name)
      assert.deepStrictEqual(fs.readdirSync(disk).sort(), [...old, "filler"].sort())
    })
  })
})

// An HTTP agent on 127.0.0.1 that counts its calls.
const countingAgent = async () => {
  let calls = 0
  const server = http.createServer((req, res) => {
    calls++
    req.resume()
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ output_text: "x" })))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe.concurrent("an unwritable --out is found before the first agent call", () => {
  const unwritable = async (out: string, reason: string) => {
    const dir = tempDir()
    const agent = await countingAgent()
    try {
      const result = await run(["--tasks", tasksFile(path.join(dir, "tasks.jsonl"), 20), "--agent", agent.url, "--out", out, "--no-progress"])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.deepStrictEqual(stderrLines(result), [`agent-trials: cannot write ${out}: ${reason}, open '${out}'`])
      assert.strictEqual(agent.calls(), 0)
    } finally {
      await agent.close()
    }
  }

  it("a file /proc will not create: exit 2, no agent call", () =>
    unwritable("/proc/agent-trials-out.jsonl", "ENOENT: no such file or directory"))

  it.skipIf(mountProblem !== undefined)("a read-only file system: exit 2, no agent call", async () => {
    const ro = path.join(tempDir(), "ro")
    fs.mkdirSync(ro)
    assert.isUndefined(mount(ro, "ro,size=64k"))
    await unwritable(path.join(ro, "out.jsonl"), "EROFS: read-only file system")
  })

  it("a writable --out is checked without leaving a file behind when the run stops on bad input", async () => {
    const dir = tempDir()
    const out = path.join(dir, "out.jsonl")
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), ["{not json"])
    const result = await run(["--tasks", tasks, "--out", out, "--no-progress"])
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.isFalse(fs.existsSync(out))
  })
})

describe("a run that stops on bad input prints only that error", () => {
  it("run --tasks missing.jsonl --report r.html: one stderr line, no report; the summary JSON says input_error", async () => {
    const dir = tempDir()
    const missing = path.join(dir, "missing.jsonl")
    const html = path.join(dir, "r.html")
    const summary = path.join(dir, "summary.json")
    const result = await run(["--tasks", missing, "--report", html, "--summary", summary, "--out", path.join(dir, "out.jsonl"), "--no-progress"])
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.strictEqual(result.stderr, `agent-trials: tasks file not found: ${missing}\n`)
    assert.isFalse(fs.existsSync(html))
    assert.strictEqual(JSON.parse(fs.readFileSync(summary, "utf8")).outcome, "input_error")
    assert.isFalse(fs.existsSync(path.join(dir, "out.jsonl")))
  })
})

/**
 * The config file (issue 40, section 1): every option of `run --help` is a
 * key, decoded as its flag is; a flag, then its variable, then the file,
 * then the default; an unknown key or a bad value is exit 2 naming the
 * file, the line and the key; relative paths resolve against the file's
 * folder; `./agent-trials.yaml` is read when there, and said so; `init`
 * writes one that runs as written and refuses to overwrite it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Option as O } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ConfigFile from "../src/programs/config/File.ts"
import * as Keys from "../src/programs/config/Keys.ts"
import * as Resolve from "../src/programs/config/Resolve.ts"
import * as RunOptions from "../src/programs/config/Run.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import * as Init from "../src/programs/config/Init.ts"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const parallelismOf = (stdout: string) => Number(/^ {2}parallelism (\d+):/m.exec(stdout)?.[1])

// `  --timeout DURATION   ...` between FLAGS and GLOBAL FLAGS.
const helpFlags = (help: string) =>
  help.slice(help.indexOf("\nFLAGS\n"), help.indexOf("\nGLOBAL FLAGS\n")).split("\n").flatMap((line) => {
    const m = /^ {2}--([a-z][a-z-]*)\b/.exec(line)
    return m === null ? [] : [m[1]]
  })

// A value each option of run accepts, as its flag's text.
const SAMPLE: Record<string, unknown> = {
  cluster: "postgres://u@localhost/db",
  tasks: "tasks.jsonl",
  format: "jsonl",
  map: "id=qid",
  "json-path": "data.rows",
  "cache-dir": "cache",
  "hub-timeout": "90s",
  "max-download": "5MB",
  ids: "ids.txt",
  limit: 7,
  sample: 6,
  shuffle: true,
  seed: 3,
  synthetic: 9,
  agent: "sim:latency=1ms",
  model: "m-1",
  parallelism: 5,
  epochs: 2,
  out: "out.jsonl",
  resume: true,
  "retry-failed": true,
  "no-progress": true,
  "on-invalid": "skip",
  timeout: "4s",
  retries: 1,
  backoff: "1s",
  "backoff-max": "9s",
  "retry-after-max": "8s",
  "rate-limit-wait-max": "7m",
  rate: "5/s",
  adaptive: true,
  "max-failures": "10%",
  pricing: "prices.yaml",
  "max-cost": 2.5,
  "max-tokens": 1000,
  "trial-max-tokens": 100,
  tools: ["module:./tools.ts#tools", "mcp:http://127.0.0.1:9/mcp"],
  "max-turns": 4,
  "tool-parallelism": 2,
  "mcp-per-trial": true,
  "mcp-timeout": "3s",
  estimate: true,
  "estimate-trials": 11,
  workspace: true,
  "workspace-dir": "ws",
  "workspace-from": "seed",
  setup: "make seed",
  "keep-workspaces": "failed",
  sandbox: "bwrap",
  "sandbox-network": "loopback",
  "sandbox-timeout": "2m",
  "sandbox-memory": "2GB",
  "exec-timeout": "2m",
  user: "module:./user.ts#play",
  system: "@system.txt",
  temperature: 0.3,
  "max-output-tokens": 500,
  "model-seed": 42,
  header: ["X-Team=evals"],
  request: "{\"top_p\": 0.9}",
  "user-model": "user-1",
  "user-instruction": "metadata.persona",
  "max-user-turns": 4,
  score: ["exact", "strict=module:./score.ts"],
  "score-parallelism": 3,
  "judge-model": "judge-1",
  "judge-system": "Grade strictly.",
  "judge-temperature": 0,
  "judge-max-output-tokens": 200,
  "judge-seed": 7,
  "judge-header": ["X-Judge=1"],
  "judge-request": "{\"top_p\": 0.5}",
  "expected-tools": "reference.calls",
  "judge-parallelism": 2,
  pass: "exact",
  "stderr-cluster": "none",
  "pass-k": "1,2",
  "fail-under": ["exact=0.5"],
  "task-pass": 0.5,
  "group-by": ["metadata.subject"],
  summary: "summary.json",
  report: "report.html",
  junit: "junit.xml",
  markdown: "summary.md",
  cache: "7d",
  cell: ["a"],
  "out-dir": "m"
}

const yamlOf = (values: Record<string, unknown>) =>
  Object.entries(values).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join("\n") + "\n"

describe("the config file: one key per option", () => {
  it("every flag of run --help is a key; each value is decoded as the flag's text and applied, paths against the file's folder", async () => {
    const help = await run(["--help"])
    assert.strictEqual(help.code, 0, describeResult(help))
    const flags = helpFlags(help.stdout).filter((f) => f !== "config")
    assert.isAtLeast(flags.length, 50)
    const kinds = Kinds.builtIn
    const known = Keys.known(kinds)
    for (const flag of flags) {
      assert.isTrue(known.has(flag), `--${flag} is no key of the config file`)
      assert.isTrue(flag in SAMPLE, `the test has no value for --${flag}`)
    }
    const dir = tempDir()
    const file = await Effect.runPromise(ConfigFile.parse(yamlOf(SAMPLE), "cfg.yaml", dir, known))
    const options = { ...RunOptions.options(kinds), ...RunOptions.outputs(kinds) }
    const none = Object.fromEntries(
      Object.entries(options).map(([k, o]) => [k, o.kind === "value" ? O.none() : o.kind === "switch" ? false : []])
    ) as { readonly [K in keyof typeof options]: Resolve.Given }
    const values = await Effect.runPromise(Resolve.resolve(options, none, file)) as Record<string, unknown>
    for (const [key, option] of Object.entries(options)) {
      if (!helpFlags(help.stdout).includes(option.name)) continue
      assert.notDeepEqual(values[key], option.fallback, `the file's ${option.name} was not applied`)
    }
    assert.strictEqual(values["parallelism"], 5)
    assert.strictEqual(values["tasks"], path.join(dir, "tasks.jsonl"))
    assert.strictEqual(values["out"], path.join(dir, "out.jsonl"))
    assert.strictEqual(values["cluster"], "postgres://u@localhost/db")
    assert.deepStrictEqual(values["score"], ["exact", `strict=module:${path.join(dir, "score.ts")}`])
    assert.deepStrictEqual((values["tools"] as ReadonlyArray<{ readonly spec?: string }>).length, 2)
    assert.strictEqual(values["shuffle"], true)
    assert.deepStrictEqual(values["groupBy"], ["metadata.subject"])
  }, 60_000)

  it("a flag, then its variable, then the file, then the default", async () => {
    const dir = tempDir()
    const cfg = path.join(dir, "cfg.yaml")
    fs.writeFileSync(cfg, "synthetic: 4\nparallelism: 3\nno-progress: true\n")
    const out = (n: number) => ["--out", path.join(dir, `o${n}.jsonl`)]
    const [flag, env, file, fallback] = await Promise.all([
      run(["--config", cfg, "--parallelism", "7", ...out(1)], { env: { AGENT_TRIALS_PARALLELISM: "5" } }),
      run(["--config", cfg, ...out(2)], { env: { AGENT_TRIALS_PARALLELISM: "5" } }),
      run(["--config", cfg, ...out(3)]),
      run(["--synthetic", "4", "--no-progress", ...out(4)])
    ])
    for (const r of [flag, env, file, fallback]) assert.strictEqual(r.code, 0, describeResult(r))
    assert.deepStrictEqual([flag, env, file, fallback].map((r) => parallelismOf(r.stdout)), [7, 5, 3, 8])
    assert.strictEqual(readTrials(path.join(dir, "o3.jsonl")).length, 4)
  }, 120_000)

  it("an unknown key is exit 2 naming the file, line and key and the closest key; a bad value, the flag's words with the file, line and key", async () => {
    const dir = tempDir()
    const unknown = path.join(dir, "unknown.yaml")
    fs.writeFileSync(unknown, "# a comment\nsynthetic: 2\nparalelism: 3\n")
    const badValue = path.join(dir, "bad.yaml")
    fs.writeFileSync(badValue, "synthetic: 2\n\ntimeout: 5\n")
    const badList = path.join(dir, "list.yaml")
    fs.writeFileSync(badList, "synthetic: 2\ngroup-by:\n  - metadata.subject\n  - {a: 1}\n")
    const notYaml = path.join(dir, "broken.yaml")
    fs.writeFileSync(notYaml, "synthetic: 2\nscore: [exact\n")
    const outFile = path.join(dir, "never.jsonl")
    const [u, b, flag, l, y] = await Promise.all([
      run(["--config", unknown, "--out", outFile]),
      run(["--config", badValue, "--out", outFile]),
      run(["--synthetic", "2", "--timeout", "5", "--out", outFile]),
      run(["--config", badList, "--out", outFile]),
      run(["--config", notYaml, "--out", outFile])
    ])
    assert.strictEqual(u.code, 2, describeResult(u))
    assert.include(u.stderr, `${unknown}:3: paralelism: unknown key (did you mean parallelism?)`)
    assert.strictEqual(b.code, 2, describeResult(b))
    const words = /Expected --timeout .*/.exec(flag.stderr)?.[0]
    assert.isDefined(words, flag.stderr)
    assert.include(b.stderr, `${badValue}:3: timeout: ${words}`)
    assert.strictEqual(l.code, 2, describeResult(l))
    assert.include(l.stderr, `${badList}:2: group-by: expected one value, got a map`)
    assert.strictEqual(y.code, 2, describeResult(y))
    assert.include(y.stderr, `${notYaml}:`)
    assert.include(y.stderr, "not valid YAML or JSON")
    assert.isFalse(fs.existsSync(outFile))
  }, 120_000)

  it("./agent-trials.yaml is read when there and said so; --config FILE reads that one instead; JSON is read too", async () => {
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "sub"))
    fs.writeFileSync(path.join(dir, "agent-trials.yaml"), "synthetic: 3\nno-progress: true\nout: here.jsonl\n")
    fs.writeFileSync(path.join(dir, "sub", "other.json"), JSON.stringify({ synthetic: 2, "no-progress": true, out: "there.jsonl" }))
    const [auto, other] = await Promise.all([
      run([], { cwd: dir }),
      run(["--config", "sub/other.json"], { cwd: dir })
    ])
    assert.strictEqual(auto.code, 0, describeResult(auto))
    assert.include(auto.stderr, "agent-trials: reading agent-trials.yaml")
    assert.strictEqual(readTrials(path.join(dir, "here.jsonl")).length, 3)
    assert.strictEqual(other.code, 0, describeResult(other))
    assert.notInclude(other.stderr, "reading agent-trials.yaml")
    // Relative to the file's folder, not the working directory.
    assert.strictEqual(readTrials(path.join(dir, "sub", "there.jsonl")).length, 2)
  }, 120_000)

  it("score, report and compare take their keys from the same file; a required flag may come from it", async () => {
    const dir = tempDir()
    const results = path.join(dir, "r.jsonl")
    const first = await run(["--synthetic", "6", "--no-progress", "--out", results])
    assert.strictEqual(first.code, 0, describeResult(first))
    fs.writeFileSync(
      path.join(dir, "agent-trials.yaml"),
      "score: exact\nout: scored.jsonl\nmax-rows: 2\nhtml: page.html\nsummary: s.json\n"
    )
    const [score, report] = await Promise.all([
      run(["r.jsonl"], { cwd: dir, command: "score" }),
      run(["r.jsonl", "--summary", "none.json", "--html", "report.html"], { cwd: dir, command: "report" })
    ])
    assert.strictEqual(score.code, 0, describeResult(score))
    assert.strictEqual(readTrials(path.join(dir, "scored.jsonl")).length, 6)
    assert.isTrue(fs.existsSync(path.join(dir, "s.json")))
    // The flag wins: the summary named on the command line is missing (exit 2 names it); the file's is not read.
    assert.strictEqual(report.code, 2, describeResult(report))
    assert.include(report.stderr, "none.json")
    const compare = await run(["r.jsonl", "scored.jsonl"], { cwd: dir, command: "compare" })
    assert.strictEqual(compare.code, 0, describeResult(compare))
    assert.isTrue(fs.existsSync(path.join(dir, "page.html")), "compare wrote the file's html")
    fs.writeFileSync(path.join(dir, "agent-trials.yaml"), "score: exact\n")
    const missing = await run(["r.jsonl"], { cwd: dir, command: "score" })
    assert.strictEqual(missing.code, 2, describeResult(missing))
    assert.include(missing.stderr, "Missing required flag: --out")
  }, 180_000)
})

describe("agent-trials init", () => {
  it("writes a commented agent-trials.yaml that runs as written, refuses to overwrite it without --force", async () => {
    const dir = tempDir()
    // The template turns the cache on: kept under this test's folder.
    const env = { XDG_CACHE_HOME: path.join(dir, "cache") }
    const init = await run([], { cwd: dir, command: "init" })
    assert.strictEqual(init.code, 0, describeResult(init))
    const file = path.join(dir, "agent-trials.yaml")
    assert.strictEqual(fs.readFileSync(file, "utf8"), Init.TEMPLATE)
    const ran = await run([], { cwd: dir, env })
    assert.strictEqual(ran.code, 0, describeResult(ran))
    assert.include(ran.stderr, "reading agent-trials.yaml")
    assert.match(ran.stdout, /trials this run: 100 /)
    fs.writeFileSync(file, "synthetic: 1\n")
    const again = await run([], { cwd: dir, command: "init" })
    assert.strictEqual(again.code, 2, describeResult(again))
    assert.include(again.stderr, "agent-trials.yaml exists: init leaves it as it is (--force overwrites it)")
    assert.strictEqual(fs.readFileSync(file, "utf8"), "synthetic: 1\n")
    const forced = await run(["--force"], { cwd: dir, command: "init" })
    assert.strictEqual(forced.code, 0, describeResult(forced))
    assert.strictEqual(fs.readFileSync(file, "utf8"), Init.TEMPLATE)
  }, 120_000)
})

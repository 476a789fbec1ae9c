/**
 * What CI reads, through the real CLI and real files: `--junit` (a testcase
 * per task, failed below `--task-pass`, a failed trial as `<error>`, hostile
 * ids and answers escaped, secrets scrubbed), `--markdown` for run, score
 * and compare, and `GITHUB_STEP_SUMMARY`, appended to by each command.
 * The XML is read by a strict reader (test/xml-strict.ts) and, when
 * Debian's chromium is installed, by the browser's own XML parser too.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { chromium } from "playwright-core"
import { describeResult, killAll, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { all, parseXml, type XmlElement } from "./xml-strict.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const AGENT = `module:${path.join(repoRoot, "test/fixtures/agent-ci.ts")}#answer`
const SECRET = "sk-ci-test-0123456789abcdef"
const HOSTILE = 'x<&"]]>y'

// The same four tasks in two runs: `half` passes one epoch of two; `flip`
// passes in the base run only; `boom` throws; the hostile id passes in the
// base and, in the new run, answers XML's and Markdown's specials, a
// control character and the key.
const tasks = (answers: { readonly flip: ReadonlyArray<string>; readonly hostile: ReadonlyArray<string> }) => [
  { id: "half", inputs: { answers: ["yes", "no"] }, reference: "yes" },
  { id: "flip", inputs: { answers: answers.flip }, reference: "yes" },
  { id: "boom", inputs: { answers: ["THROW"] }, reference: "yes" },
  { id: HOSTILE, inputs: { answers: answers.hostile }, reference: "yes" }
]

const CHROMIUM = "/usr/bin/chromium"
// The browser's XML parser, when the machine has Debian's chromium: a parser error names itself.
const browserParse = async (xml: string): Promise<string | undefined> => {
  if (!fs.existsSync(CHROMIUM)) return undefined
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
  try {
    const page = await browser.newPage()
    // Run in the page, where DOMParser is (this file is typed for Node).
    return await page.evaluate(`(() => {
      const doc = new DOMParser().parseFromString(${JSON.stringify(xml)}, "application/xml")
      const error = doc.querySelector("parsererror")
      return error === null ? "ok " + doc.querySelectorAll("testcase").length : "error " + error.textContent
    })()`) as string
  } finally {
    await browser.close()
  }
}

const testcase = (root: XmlElement, name: string): XmlElement => {
  const found = all(root, "testcase").find((t) => t.attrs["name"] === name)
  assert.isDefined(found, `a testcase named ${JSON.stringify(name)}`)
  return found!
}
const property = (root: XmlElement, name: string): string | undefined =>
  all(root, "property").find((p) => p.attrs["name"] === name)?.attrs["value"]

describe("--junit, --markdown and GITHUB_STEP_SUMMARY", () => {
  const dir = tempDir()
  const file = (name: string) => path.join(dir, name)
  const step = file("step-summary.md")
  const env = { OPENAI_API_KEY: SECRET, GITHUB_STEP_SUMMARY: step }
  const runArgs = (name: string, extra: ReadonlyArray<string>) => [
    "--tasks", file(`${name}-tasks.jsonl`), "--agent", AGENT, "--epochs", "2", "--score", "exact", "--retries", "0",
    "--out", file(`${name}.jsonl`), "--junit", file(`${name}.xml`), "--markdown", file(`${name}.md`), "--no-progress", ...extra
  ]

  it("run: a testcase per task, failed below --task-pass, errors, escaping, no secret; markdown; the step summary kept", async () => {
    fs.writeFileSync(step, "# before\n")
    writeJsonl(file("base-tasks.jsonl"), tasks({ flip: ["yes"], hostile: ["yes"] }))
    writeJsonl(file("new-tasks.jsonl"), tasks({ flip: ["no"], hostile: ['no <&"]]> | a\nb \u0001 SECRET'] }))
    const base = await run(runArgs("base", ["--fail-under", "exact=0.5"]), { env })
    assert.strictEqual(base.code, 0, describeResult(base))
    // A gate that fails: exit 1, and every output still written.
    const next = await run(runArgs("new", ["--task-pass", "0.5", "--fail-under", "exact=0.9"]), { env })
    assert.strictEqual(next.code, 1, describeResult(next))

    // The base run, every epoch needed: half (1 of 2) fails, boom is an error.
    const baseXml = fs.readFileSync(file("base.xml"), "utf8")
    const b = parseXml(baseXml)
    const suite = all(b, "testsuite")[0]!
    assert.deepStrictEqual(
      [suite.attrs["tests"], suite.attrs["failures"], suite.attrs["errors"]],
      ["4", "1", "1"],
      baseXml
    )
    assert.match(suite.attrs["name"]!, /^\S+ \(module:\S+\/test\/fixtures\/agent-ci\.ts#answer\)$/)
    assert.deepStrictEqual(all(b, "testcase").map((t) => t.attrs["name"]), ["boom", "flip", "half", HOSTILE])
    assert.strictEqual(testcase(b, "half").children[0]?.name, "failure")
    assert.strictEqual(testcase(b, "half").children[0]?.attrs["message"], "1 of 2 trials passed (needed 2)")
    assert.include(testcase(b, "half").children[0]?.text, 'half:2: exact = 0: expected "yes", got "no"')
    const boom = testcase(b, "boom").children[0]!
    assert.strictEqual(boom.name, "error")
    assert.strictEqual(boom.attrs["type"], "AgentError", baseXml)
    assert.include(boom.attrs["message"], 'agent broke on <&"]]> at boom')
    assert.deepStrictEqual(testcase(b, "flip").children, [])
    assert.deepStrictEqual(testcase(b, HOSTILE).children, [])
    assert.strictEqual(testcase(b, HOSTILE).attrs["classname"], file("base-tasks.jsonl"))
    // pass^k over the tasks' (trials, passed): half (2, 1), flip (2, 2), boom (2, 0), hostile (2, 2).
    assert.strictEqual(property(b, "pass^1"), "0.625")
    assert.strictEqual(property(b, "pass^2"), "0.5")
    assert.strictEqual(property(b, "pass_rate"), "0.625")

    // The new run with --task-pass 0.5: half passes; flip and the hostile task fail.
    const newXml = fs.readFileSync(file("new.xml"), "utf8")
    const n = parseXml(newXml)
    assert.deepStrictEqual(
      [all(n, "testsuite")[0]!.attrs["failures"], all(n, "testsuite")[0]!.attrs["errors"]],
      ["2", "1"],
      newXml
    )
    assert.deepStrictEqual(testcase(n, "half").children, [])
    assert.strictEqual(property(n, "task_pass"), "0.5")
    const hostile = testcase(n, HOSTILE).children[0]!
    assert.strictEqual(hostile.name, "failure")
    assert.strictEqual(hostile.attrs["message"], "0 of 2 trials passed (needed 1)")
    assert.include(hostile.text, `${HOSTILE}:1: exact = 0: expected "yes", got "no <&\\"]]> | a\\nb \\u0001 <redacted>"`)
    for (const text of [baseXml, newXml]) {
      assert.notInclude(text, SECRET)
      assert.notInclude(text, "]]>")
    }
    // Both readers refuse what XML refuses.
    assert.throws(() => parseXml(`<?xml version="1.0" encoding="UTF-8"?>\n<a>]]&gt;&</a>`))
    assert.throws(() => parseXml(`<?xml version="1.0" encoding="UTF-8"?>\n<a b="<"/>`))
    const refused = await browserParse(`<?xml version="1.0" encoding="UTF-8"?>\n<a>&</a>`)
    if (refused !== undefined) assert.match(refused, /^error /)
    for (const [xml, cases] of [[baseXml, 4], [newXml, 4]] as const) {
      const parsed = await browserParse(xml)
      if (parsed !== undefined) assert.strictEqual(parsed, `ok ${cases}`)
    }

    // Markdown: the summary table and its figures.
    const md = fs.readFileSync(file("new.md"), "utf8")
    assert.include(md, "| trials | 8 |")
    assert.include(md, "| completed / failed | 6 / 2 |")
    assert.include(md, "| pass rate (every scorer) | 12.5% [")
    assert.match(md, /\| exact \| 0\.1667 \| \[-[\d.]+, [\d.]+\] \| 12\.5% \[[\d.]+%, [\d.]+%\] \| 6 of 8 \|/)
    assert.notInclude(md, SECRET)
    assert.include(md, "| gate | value | verdict | why |")
    assert.match(md, /\n\| --fail-under exact=0\.9 \| 0\.1667 \| \*\*FAIL\*\* \| mean 0\.1667 &lt; 0\.9 \|\n/)
    assert.match(fs.readFileSync(file("base.md"), "utf8"), /\n\| --fail-under exact=0\.5 \| 0\.8333 \| PASS \| mean 0\.8333 &gt;= 0\.5 \|\n/)

    // compare --markdown: the paired table, the verdict, the flipped tasks with both answers, escaped.
    const compared = await run([file("base.jsonl"), file("new.jsonl"), "--markdown", file("compare.md")], { command: "compare", env })
    assert.strictEqual(compared.code, 0, describeResult(compared))
    const cmd = fs.readFileSync(file("compare.md"), "utf8")
    assert.include(cmd, "| scorer | paired | base | new | delta | 95% CI | p | p Holm | verdict |")
    assert.match(cmd, /\n\| exact \| 4 \| 0\.6250 \| 0\.1250 \| -0\.5000 \| \[-[\d.]+, \+[\d.]+\] \| [\d.]+ \| [\d.]+ \| no significant change \|\n/)
    assert.include(cmd, "No scorer regressed (1 scorer judged, family-wise 5%).")
    assert.include(cmd, "Flipped tasks: 2 pass → fail, 0 fail → pass")
    assert.include(cmd, "\n| flip | pass → fail | yes | no |\n")
    assert.include(
      cmd,
      '\n| x&lt;&amp;"\\]\\]&gt;y | pass → fail | yes | no &lt;&amp;"\\]\\]&gt; \\| a<br>b &lt;U+0001&gt; &lt;redacted&gt; |\n'
    )
    // Every row of the flipped table has its four cells: no `|` of an answer splits one.
    const rows = cmd.slice(cmd.indexOf("| task | flip |")).trim().split("\n")
    for (const row of rows) assert.strictEqual(row.replaceAll("\\|", "").split("|").length, 6, row)
    assert.notInclude(cmd, SECRET)

    // The step summary: what was there, then each run's Markdown and the comparison's, appended.
    const summary = fs.readFileSync(step, "utf8")
    assert.isTrue(summary.startsWith("# before\n"), summary)
    assert.strictEqual(summary.split("### agent-trials: run ").length - 1, 2, summary)
    assert.include(summary, fs.readFileSync(file("base.md"), "utf8"))
    assert.include(summary, md)
    assert.isTrue(summary.endsWith(cmd + "\n"), summary)
  }, 120_000)

  it("a GITHUB_STEP_SUMMARY that cannot be written is a warning naming it; the run and its outputs are as without it", async () => {
    const args = ["--synthetic", "3", "--agent", "sim:latency=0ms", "--no-progress"]
    const r = await run([...args, "--out", file("warn.jsonl"), "--markdown", file("warn.md")], {
      env: { GITHUB_STEP_SUMMARY: path.join(dir, "no-such-dir", "summary.md") }
    })
    assert.strictEqual(r.code, 0, describeResult(r))
    assert.include(r.stderr, `agent-trials: warning: cannot append the summary to GITHUB_STEP_SUMMARY ${path.join(dir, "no-such-dir", "summary.md")}: ENOENT`)
    assert.include(fs.readFileSync(file("warn.md"), "utf8"), "| trials | 3 |")
    const compared = await run([file("warn.jsonl"), file("warn.jsonl"), "--fail-on-regression"], {
      command: "compare",
      env: { GITHUB_STEP_SUMMARY: dir }
    })
    assert.strictEqual(compared.code, 0, describeResult(compared))
    assert.include(compared.stderr, `cannot append the summary to GITHUB_STEP_SUMMARY ${dir}: EISDIR`)
  }, 60_000)

  it("a matrix refuses --junit and --markdown (exit 2, naming the flag and what to do), running nothing", async () => {
    const config = file("matrix.yaml")
    fs.writeFileSync(config, "synthetic: 2\nno-progress: true\nout-dir: m\nmatrix:\n  agent: [\"sim:latency=0ms\", \"sim:latency=1ms\"]\n")
    for (const flag of ["--junit", "--markdown"]) {
      const result = await run(["--config", config, flag, file(`matrix-${flag.slice(2)}`)])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.include(result.stderr, `${flag} is not written for a matrix (only --summary and --report are): drop it, or write it for a cell's results file with score`)
      assert.isFalse(fs.existsSync(file(`matrix-${flag.slice(2)}`)))
      assert.isFalse(fs.existsSync(file("m")))
    }
  }, 60_000)

  it("an output that cannot be written is exit 1 naming its flag, file and reason, in run, score and compare", async () => {
    const r = await run(["--synthetic", "2", "--agent", "sim:latency=0ms", "--no-progress", "--out", file("full.jsonl"),
      "--junit", "/dev/full", "--markdown", "/dev/full"])
    assert.strictEqual(r.code, 1, describeResult(r))
    assert.include(r.stderr, "agent-trials: cannot write --junit /dev/full: ENOSPC: no space left on device, write")
    assert.include(r.stderr, "agent-trials: cannot write --markdown /dev/full: ENOSPC: no space left on device, write")
    const s = await run([file("full.jsonl"), "--score", "exact", "--out", file("full-scored.jsonl"), "--junit", "/dev/full"], { command: "score" })
    assert.strictEqual(s.code, 1, describeResult(s))
    assert.include(s.stderr, "agent-trials: cannot write --junit /dev/full: ENOSPC")
    const c = await run([file("full.jsonl"), file("full-scored.jsonl"), "--markdown", "/dev/full"], { command: "compare" })
    assert.strictEqual(c.code, 1, describeResult(c))
    assert.include(c.stderr, "agent-trials: cannot write --markdown /dev/full: ENOSPC")
  }, 60_000)

  it("--task-pass outside (0, 1] is exit 2 naming the flag or variable, before anything is written", async () => {
    for (const [args, env, named] of [
      [["--task-pass", "0"], {}, `--task-pass to be a fraction above 0 and at most 1, like 0.5 (1: every epoch), got "0"`],
      [["--task-pass", "half"], {}, `--task-pass to be a fraction above 0 and at most 1, like 0.5 (1: every epoch), got "half"`],
      [[], { AGENT_TRIALS_TASK_PASS: "1.5" }, `AGENT_TRIALS_TASK_PASS to be a fraction above 0 and at most 1, like 0.5 (1: every epoch), got "1.5"`]
    ] as const) {
      const r = await run(["--synthetic", "2", "--out", file("tp.jsonl"), ...args], { env })
      assert.strictEqual(r.code, 2, describeResult(r))
      assert.include(r.stderr, `agent-trials: Expected ${named}`)
      assert.isFalse(fs.existsSync(file("tp.jsonl")))
    }
  }, 60_000)

  it("score --junit and --markdown: from the scored file, --task-pass applied, a secret in the input scrubbed", async () => {
    // Written by hand, as another tool might: the key in an answer, unscrubbed.
    const trial = (task: string, epoch: number, answer: string) => ({
      id: `${task}:${epoch}`,
      task_id: task,
      status: "completed",
      output: { output_text: answer },
      metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000, epoch, epochs: 2 }
    })
    writeJsonl(file("hand.jsonl"), [
      trial("a", 1, "yes"), trial("a", 2, `no ${SECRET} <&"]]>`), trial(HOSTILE, 1, "no"), trial(HOSTILE, 2, "no")
    ])
    writeJsonl(file("hand-tasks.jsonl"), [{ id: "a", inputs: {}, reference: "yes" }, { id: HOSTILE, inputs: {}, reference: "yes" }])
    const args = (name: string, extra: ReadonlyArray<string>) => [
      file("hand.jsonl"), "--tasks", file("hand-tasks.jsonl"), "--score", "exact", "--out", file(`${name}.jsonl`),
      "--junit", file(`${name}.xml`), "--markdown", file(`${name}.md`), ...extra
    ]
    const strict = await run(args("scored", []), { command: "score", env: { OPENAI_API_KEY: SECRET } })
    assert.strictEqual(strict.code, 0, describeResult(strict))
    const half = await run(args("scored-half", ["--task-pass", "0.5"]), { command: "score", env: { OPENAI_API_KEY: SECRET } })
    assert.strictEqual(half.code, 0, describeResult(half))
    const xml = fs.readFileSync(file("scored.xml"), "utf8")
    const root = parseXml(xml)
    assert.deepStrictEqual(all(root, "testcase").map((t) => [t.attrs["name"], t.children[0]?.name]), [["a", "failure"], [HOSTILE, "failure"]])
    assert.include(testcase(root, "a").children[0]!.text, "a:2: exact = 0: expected \"yes\", got \"no <redacted> <&\\\"]]>\"")
    const halfRoot = parseXml(fs.readFileSync(file("scored-half.xml"), "utf8"))
    assert.deepStrictEqual(all(halfRoot, "testcase").map((t) => [t.attrs["name"], t.children[0]?.name]), [["a", undefined], [HOSTILE, "failure"]])
    const md = fs.readFileSync(file("scored.md"), "utf8")
    assert.include(md, "| trials | 4 |")
    assert.include(md, "| exact | 0.2500 |")
    for (const text of [xml, md]) assert.notInclude(text, SECRET)
  }, 60_000)
})

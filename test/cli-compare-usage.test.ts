/**
 * `agent-trials compare` of results files written by real `run`s of an agent
 * that reports token usage (test/fixtures/agent-usage.ts), priced by a
 * pricing file or not: tokens and cost per trial, before and after, and
 * their paired change in the text, `--json` and `--html`, against values
 * computed by hand; usage never decides the exit code.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { UsageChange } from "../src/programs/compare/Compare.ts"
import { describeResult, killAll, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const compare = (args: ReadonlyArray<string>) => run(args, { command: "compare" })

// t(0.975, 4) (scipy 1.17.1).
const T4 = 2.7764451051977934

// A change over the 5 tasks with these means, delta and SE, its interval on 4 df, p as in the test.
const assertChange = (
  u: UsageChange,
  want: { readonly base: number; readonly new: number; readonly delta: number; readonly se: number },
  what: string
) => {
  assert.deepInclude(u, { n: 5, df: 4 }, what)
  const near = (actual: number | null | undefined, expected: number, name: string) =>
    assert.approximately(actual!, expected, 1e-9 * Math.max(1, Math.abs(expected)), `${what} ${name}`)
  near(u.base_mean, want.base, "base_mean")
  near(u.new_mean, want.new, "new_mean")
  near(u.delta, want.delta, "delta")
  near(u.standard_error, want.se, "SE")
  near(u.ci95?.[0], want.delta - T4 * want.se, "ci95 low")
  near(u.ci95?.[1], want.delta + T4 * want.se, "ci95 high")
  near(u.p_value, 0.01323559956368269, "p")
}

describe("agent-trials compare: usage", () => {
  it("two real priced runs, tokens and cost per trial in the text, --json and --html; a drop judges nothing (exit 0)", async () => {
    // test/fixtures/agent-usage.ts: task ti reports 100(i+1) input tokens (`lean`: half) and 10 output
    // tokens; the pricing file charges $2 per million input tokens and $8 per million output tokens.
    //   tokens per trial: base 110 210 310 410 510 (mean 310), lean 60 110 160 210 260 (mean 160);
    //     d = -50(i+1): d̄ = -150, s² = 6250, SE = √1250; ci95 -150 ∓ t(0.975, 4)·√1250 = [-248.16, -51.84].
    //   cost: (2·input + 8·10)/1e6: base 280..1080 µ$ (mean $0.00068), lean 180..580 µ$ (mean $0.00038);
    //     d = -1e-4·(i+1): d̄ = -0.0003, SE = √5e-9; ci95 [-0.00049632, -0.00010368].
    //   p = 2·t.sf(150/√1250, 4) = 0.01323559956368269 for both (scipy 1.17.1).
    const dir = tempDir()
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [0, 1, 2, 3, 4].map((i) => ({
      id: `t${i}`,
      inputs: { tokens: 100 * (i + 1), answer: "x" },
      reference: "x"
    })))
    const pricing = path.join(dir, "pricing.yaml")
    fs.writeFileSync(pricing, "models:\n  m: { input: 2, output: 8 }\n")
    const runOf = (agent: string, out: string, priced: boolean) =>
      run([
        "--tasks", tasks, "--agent", `module:test/fixtures/agent-usage.ts#${agent}`, "--score", "exact",
        ...(priced ? ["--pricing", pricing] : []), "--out", path.join(dir, out), "--no-progress"
      ])
    const runs = await Promise.all([
      runOf("spends", "base.jsonl", true), runOf("lean", "lean.jsonl", true), runOf("lean", "unpriced.jsonl", false)
    ])
    for (const r of runs) assert.strictEqual(r.code, 0, describeResult(r))
    const [base, lean, unpriced] = ["base.jsonl", "lean.jsonl", "unpriced.jsonl"].map((f) => path.join(dir, f))

    const json = path.join(dir, "c.json")
    const html = path.join(dir, "c.html")
    const result = await compare([base, lean, "--json", json, "--html", html, "--fail-on-regression", "--non-inferiority", "0.01"])
    assert.strictEqual(result.code, 0, describeResult(result))
    assert.include(
      result.stdout,
      "  usage per trial, agent + judges (a task's value: its trials' mean; shown, never gated):\n" +
        "    measure  paired  base      new       delta     95% CI                      p\n" +
        "    tokens   5       310       160       -150      [-248.2, -51.8]             0.0132\n" +
        "    cost     5       $0.00068  $0.00038  -$0.0003  [-$0.0004963, -$0.0001037]  0.0132\n"
    )
    assert.include(result.stdout, "no scorer regressed (1 scorer judged;")
    const c = JSON.parse(fs.readFileSync(json, "utf8"))
    assert.deepStrictEqual(c.regressed, [])
    assert.deepStrictEqual(Object.keys(c.usage), ["base", "new", "tokens", "cost_usd"])
    assert.deepStrictEqual(c.usage.base, { trials: 5, priced_trials: 5 })
    assert.deepStrictEqual(Object.keys(c.usage.tokens), [
      "n", "base_mean", "new_mean", "delta", "sd", "standard_error", "df", "ci95", "p_value", "clusters", "design_effect"
    ])
    assertChange(c.usage.tokens, { base: 310, new: 160, delta: -150, se: Math.sqrt(1250) }, "tokens")
    assertChange(c.usage.cost_usd, { base: 0.00068, new: 0.00038, delta: -0.0003, se: Math.sqrt(5e-9) }, "cost")
    const page = fs.readFileSync(html, "utf8")
    assert.include(page, `<td>cost</td><td class="num">5</td><td class="num">$0.00068</td>`)

    // Unpriced on one side: tokens, and a line for the cost instead of its row.
    const half = await compare([base, unpriced, "--json", json])
    assert.strictEqual(half.code, 0, describeResult(half))
    assert.match(half.stdout, /^ {4}tokens {3}5 {7}310 {3}160 {2}-150 {3}\[-248\.2, -51\.8\] {2}0\.0132$/m)
    assert.notMatch(half.stdout, /^ {4}cost {2}/m)
    assert.include(half.stdout, `    cost: only ${base} is priced (run --pricing FILE): no change in cost\n`)
    assert.isNull(JSON.parse(fs.readFileSync(json, "utf8")).usage.cost_usd)
  }, 60_000)
})

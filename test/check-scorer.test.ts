/**
 * The `check:` scorer kind without the CLI: the value read from the last
 * line of its stdout, the score of an outcome, its spec (parsed, shown with
 * a URL's credentials redacted, named), and its refusal without a world
 * (no `--workspace`, or `agent-trials score`). The CLI runs it for real in
 * cli-check.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Check from "../src/scoring/kinds/check.ts"
import * as Scorers from "../src/scoring/Scorers.ts"
import * as ScorerSpec from "../src/scoring/Spec.ts"

describe("check: the value on the last line of stdout", () => {
  it("a plain decimal number from 0 to 1 on the last line that is not blank is the value", () => {
    const cases: ReadonlyArray<readonly [string, number | undefined]> = [
      ["0.25", 0.25],
      ["ran 4 tests\n0.75\n", 0.75],
      ["1", 1],
      ["0", 0],
      [".5", 0.5],
      ["+0.5", 0.5],
      ["1.0", 1],
      ["2.5e-1", 0.25],
      ["  0.5  \r\n\n  \n", 0.5],
      // Not a value: the exit code alone decides.
      ["", undefined],
      ["\n\n", undefined],
      ["0.5\nall good", undefined],
      ["3", undefined],
      ["1.01", undefined],
      ["-0.5", undefined],
      ["-0", undefined],
      ["NaN", undefined],
      ["Infinity", undefined],
      ["0x1", undefined],
      ["0.5%", undefined],
      ["1/2", undefined],
      ["score: 0.5", undefined]
    ]
    for (const [stdout, value] of cases) assert.strictEqual(Check.lastLineValue(stdout), value, JSON.stringify(stdout))
  })

  it("passed is exit 0; the value is the last line's number when there is one, else 1 or 0", () => {
    const outcome = (exitCode: number | null, stdout = "", stderr = "", signal: string | null = null) => ({ exitCode, signal, stdout, stderr })
    assert.deepStrictEqual(Check.scoreOf(outcome(0)), { value: 1, passed: true, explanation: "exit code 0" })
    assert.deepStrictEqual(Check.scoreOf(outcome(1, "", "boom")), {
      value: 0,
      passed: false,
      explanation: "exit code 1\nstderr's last lines:\nboom"
    })
    assert.deepStrictEqual(Check.scoreOf(outcome(0, "3 of 4\n0.75", "")), {
      value: 0.75,
      passed: true,
      explanation: "exit code 0; value 0.75 from the last line of its stdout\nstdout's last lines:\n3 of 4\n0.75"
    })
    assert.deepStrictEqual(Check.scoreOf(outcome(2, "0.5", "late")), {
      value: 0.5,
      passed: false,
      explanation: "exit code 2; value 0.5 from the last line of its stdout\nstdout's last lines:\n0.5\nstderr's last lines:\nlate"
    })
    assert.deepStrictEqual(Check.scoreOf(outcome(null, "", "", "SIGKILL")), { value: 0, passed: false, explanation: "ended by SIGKILL" })
  })
})

describe("check: its spec", () => {
  it("takes the whole rest as the command, named check or NAME=, a URL's credentials redacted where it is shown", () => {
    const plain = ScorerSpec.parse("check:test -f out.txt && grep -q a=1,b out.txt")
    assert.deepStrictEqual(plain, {
      _tag: "Check",
      name: "check",
      shown: "check:test -f out.txt && grep -q a=1,b out.txt",
      command: "test -f out.txt && grep -q a=1,b out.txt"
    })
    const named = ScorerSpec.parse("tests=check:{task.metadata.check}")
    assert.strictEqual(typeof named !== "string" && named.name, "tests")
    const url = ScorerSpec.parse("check:curl -sf https://user:hunter2secret@example.com/ok")
    assert.isTrue(typeof url !== "string")
    if (typeof url !== "string") {
      assert.notInclude(url.shown, "hunter2secret")
      assert.strictEqual((url as Check.CheckSpec).command, "curl -sf https://user:hunter2secret@example.com/ok")
    }
    assert.strictEqual(
      ScorerSpec.parse("check:"),
      "--score check:: expected check:COMMAND, a shell command run in each trial's workspace, e.g. check:test -f done.txt"
    )
    assert.strictEqual(
      ScorerSpec.parse("check"),
      "--score check: expected check:COMMAND, a shell command run in each trial's workspace, e.g. check:test -f done.txt"
    )
  })

  it("is refused without a world (no --workspace, or agent-trials score): the spec and the flag named", () =>
    Effect.gen(function*() {
      for (const spec of ["check:true", "not:check:true"]) {
        const error = yield* Effect.flip(Scorers.fromSpecs([spec], { cwd: process.cwd() }))
        assert.strictEqual(
          error.message,
          `--score ${spec}: needs --workspace: it runs in each trial's workspace once the agent is done, so only a run ` +
            "with --workspace can run it (not agent-trials score: the workspaces are gone by then)",
          spec
        )
      }
    }).pipe(Effect.runPromise))
})

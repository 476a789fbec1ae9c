/**
 * A URL on the command line gives every record its credentials to scrub, not
 * its words (issue 37, item 6, after review): a model name in `?model=`, a
 * user name or a `?sslmode=` value stays in an answer, so exact-match scoring
 * still passes; an `?api_key=` value and a password are scrubbed. The real
 * command in a child process, a real module agent, real files.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { commandLineSecrets } from "../src/internal/redact.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import { describeResult, killAll, readTrials, removeTempDirs, run, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const model = "SomeLongModelName"
const key = "sk-url-key-0123456789"

describe("words of a URL on the command line", () => {
  it("a judge URL carrying ?model=SomeLongModelName&api_key=...: an answer naming the model is still an exact pass, the key is scrubbed", async () => {
    const dir = tempDir()
    const agent = path.join(dir, "agent.mjs")
    fs.writeFileSync(agent, `export const answer = (task) => task.id === "leak" ? "the key is ${key}" : "${model}"\n`)
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), [
      { id: "name", inputs: {}, reference: model },
      { id: "leak", inputs: {}, reference: "x" }
    ])
    const out = path.join(dir, "out.jsonl")
    // Port 9 on 127.0.0.1: nothing listens, the judge's calls fail and do not matter here.
    const judge = `judge:http://127.0.0.1:9/v1?model=${model}&api_key=${key}`
    const result = await run([
      "--tasks", tasks, "--agent", `module:${agent}#answer`, "--score", "exact", "--score", judge,
      "--judge-model", "m", "--pass", "exact", "--out", out, "--no-progress", "--retries", "0"
    ])
    const trials = Object.fromEntries(readTrials(out).map((t) => [t.task_id, t]))
    const name = trials["name"]
    assert.isDefined(name, describeResult(result))
    assert.deepStrictEqual(
      [name!.status, name!.output?.output_text, name!.scores?.["exact"]?.passed],
      ["completed", model, true],
      describeResult(result)
    )
    assert.strictEqual(trials["leak"]!.output?.output_text, "the key is <redacted>")
    assert.notInclude(fs.readFileSync(out, "utf8"), key)
  })

  it("the reviewer's command line: postgres, verify-full and the model name stay, the password and an api_key are scrubbed", () => {
    const secrets = Redactor.make(commandLineSecrets([
      "--cluster", "postgres://postgres:s3cretpw@db/trials?sslmode=verify-full",
      "--agent", "http://localhost:8000/v1?model=Qwen2.5-7B-Instruct&api_key=k9"
    ], { AGENT_TRIALS_SCORE: "judge:http://h/v1?token=tok-0123456789&lang=english-us" }))
    assert.strictEqual(
      secrets.scrub("postgres with verify-full on Qwen2.5-7B-Instruct in english-us; s3cretpw, api_key=k9, tok-0123456789"),
      "postgres with verify-full on Qwen2.5-7B-Instruct in english-us; <redacted>, api_key=<redacted>, <redacted>"
    )
  })
})

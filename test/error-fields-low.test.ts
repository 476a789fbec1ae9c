/**
 * Issue 39, section 3: errors with fields, the low-level ones. Each error
 * below carries the fields a caller acts on (the task, the scorer, the file,
 * the size, the host) and computes its message from them, word for word the
 * text it carried before as a plain `message`.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvalidTask } from "../src/domain/Errors.ts"
import { HttpBodyError, NetworkError } from "../src/domain/HttpErrors.ts"
import { InvalidReference, InvalidScore, MissingReference, NoOutput } from "../src/domain/Scorer.ts"

describe("domain errors compute their message from their fields", () => {
  it("InvalidTask: the stand-in task's id, and the dataset's words for the line", () => {
    const error = new InvalidTask({ task_id: "tasks.jsonl:3", problem: "tasks.jsonl:3: not JSON" })
    assert.deepStrictEqual([error._tag, error.task_id, error.problem], ["InvalidTask", "tasks.jsonl:3", "tasks.jsonl:3: not JSON"])
    assert.strictEqual(error.message, "tasks.jsonl:3: not JSON")
  })

  it("MissingReference: the task and the scorer, and where the tool-calls scorer looked", () => {
    const whole = new MissingReference({ task_id: "t1", scorer: "exact" })
    assert.deepStrictEqual([whole.task_id, whole.scorer, whole.path], ["t1", "exact", undefined])
    assert.strictEqual(whole.message, "task t1 has no reference, which the exact scorer needs")
    const at = new MissingReference({ task_id: "t1", scorer: "tool-calls", path: "reference.tool_calls" })
    assert.strictEqual(at.path, "reference.tool_calls")
    assert.strictEqual(at.message, "task t1 has nothing at reference.tool_calls, the tool calls the tool-calls scorer expects")
  })

  it("InvalidReference: the task, the scorer, where in the task, the problem, and a pattern's syntax error", () => {
    const shape = new InvalidReference({
      task_id: "t1",
      scorer: "numeric",
      problem: "has the reference {\"a\":1}; the numeric scorer takes a number"
    })
    assert.deepStrictEqual([shape.task_id, shape.scorer, shape.path], ["t1", "numeric", undefined])
    assert.strictEqual(shape.message, "task t1 has the reference {\"a\":1}; the numeric scorer takes a number")
    const item = new InvalidReference({
      task_id: "t1",
      scorer: "tool-calls",
      path: "reference.tool_calls[2]",
      problem: "must be a tool's name or an object with a \"name\", got 3"
    })
    assert.strictEqual(item.message, "task t1: reference.tool_calls[2] must be a tool's name or an object with a \"name\", got 3")
    const pattern = new InvalidReference({
      task_id: "t1",
      scorer: "regex",
      problem: "is not a regular expression",
      syntax: "Invalid regular expression: /(/: Unterminated group"
    })
    assert.strictEqual(pattern.syntax, "Invalid regular expression: /(/: Unterminated group")
    assert.strictEqual(
      pattern.message,
      "task t1's reference is not a regular expression: Invalid regular expression: /(/: Unterminated group"
    )
  })

  it("InvalidScore: what the scorer returned, as shown", () => {
    const error = new InvalidScore({ returned: "\"yes\"" })
    assert.strictEqual(error.returned, "\"yes\"")
    assert.strictEqual(
      error.message,
      "the scorer returned \"yes\"; expected a boolean, a finite number or { value: number, passed: boolean, explanation?: string }"
    )
  })

  it("NoOutput: the trial and its status", () => {
    const error = new NoOutput({ trial_id: "t1:1", status: "failed" })
    assert.deepStrictEqual([error.trial_id, error.status], ["t1:1", "failed"])
    assert.strictEqual(error.message, "trial t1:1 has no output (status failed): only completed trials are scored")
  })

  it("NetworkError and HttpBodyError: the endpoint as shown, and the problem", () => {
    const network = new NetworkError({ url: "http://127.0.0.1:9/run", problem: "fetch failed: connect ECONNREFUSED 127.0.0.1:9" })
    assert.deepStrictEqual([network.url, network.problem], ["http://127.0.0.1:9/run", "fetch failed: connect ECONNREFUSED 127.0.0.1:9"])
    assert.strictEqual(network.message, "POST http://127.0.0.1:9/run failed: fetch failed: connect ECONNREFUSED 127.0.0.1:9")
    const body = new HttpBodyError({ url: "http://h/run", problem: "task.inputs.n: a BigInt" })
    assert.deepStrictEqual([body.url, body.problem], ["http://h/run", "task.inputs.n: a BigInt"])
    assert.strictEqual(body.message, "cannot send POST http://h/run: its body cannot be encoded as JSON: task.inputs.n: a BigInt")
  })
})

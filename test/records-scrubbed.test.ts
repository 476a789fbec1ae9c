/**
 * What a trial's record keeps of what came from outside (issue 37, items 3,
 * 4 and 6, after review): the text a module agent returned beside a schema
 * failure is scrubbed like its message; an output whose getter throws fails
 * its trial alone; a key of an object (a tool result keyed by a token) is
 * scrubbed like a value. The real runner over real callables.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { InvalidAgentOutput } from "../src/domain/Errors.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import { writable } from "../src/internal/writable.ts"
import * as Line from "../src/results/internal/line.ts"
import { runTrials } from "../src/runner/Runner.ts"

const tasks = (n: number) => Stream.fromIterable(Array.from({ length: n }, (_, i) => ({ id: `t${i}`, inputs: {} })))

describe("a failed trial's output_text", () => {
  it.effect("a module agent's text kept beside a schema failure is scrubbed of the process's secrets", () =>
    Effect.gen(function*() {
      const key = "sk-SECRET-output-text-1"
      // What the run knows (the CLI: its command line's; here, given to it).
      yield* Redactor.remember([key])
      const trials = yield* Stream.runCollect(runTrials(tasks(1), () =>
        Effect.fail(
          new InvalidAgentOutput({ message: "output.trajectory[0].started_at: Missing key", output_text: `the key is ${key}` })
        ), { parallelism: 1 }))
      const error = trials[0]!.error!
      assert.deepStrictEqual([trials[0]!.status, error.type, error.output_text], ["failed", "InvalidAgentOutput", "the key is <redacted>"])
      assert.notInclude(JSON.stringify(trials), key)
    }).pipe(Effect.provide(Redactor.Redactor.layer())))
})

describe("an output that throws when read", () => {
  it.effect("a getter that throws fails that trial alone (InvalidAgentOutput naming where); the others are recorded", () =>
    Effect.gen(function*() {
      const trials = yield* Stream.runCollect(runTrials(tasks(3), (task) =>
        Effect.succeed(
          task.id === "t1"
            ? {
              output_text: "x",
              response: Object.defineProperty({}, "boom", {
                enumerable: true,
                get() {
                  throw new Error("boom")
                }
              })
            }
            : { output_text: `answer ${task.id}` }
        ), { parallelism: 3 }))
      const byTask = Object.fromEntries(trials.map((t) => [t.task_id, t]))
      assert.deepStrictEqual(trials.map((t) => t.task_id).sort(), ["t0", "t1", "t2"])
      assert.deepStrictEqual([byTask["t0"]!.status, byTask["t2"]!.status], ["completed", "completed"])
      assert.deepStrictEqual([byTask["t1"]!.status, byTask["t1"]!.error?.type, byTask["t1"]!.error?.message], [
        "failed",
        "InvalidAgentOutput",
        "the agent's output cannot be written as JSON: output.response.boom cannot be walked (boom)"
      ])
    }))

  it("a Proxy that throws on every read is Unwritable, not a throw", () => {
    const hostile = new Proxy({}, {
      ownKeys() {
        throw new Error("no keys today")
      }
    })
    assert.deepStrictEqual(writable({ output_text: "x", response: hostile }, "output", (s) => s), {
      _tag: "Unwritable",
      at: "output.response",
      why: "cannot be walked (no keys today)"
    })
  })
})

describe("keys of an object", () => {
  it.effect("a tool result and an output keyed by a token: the key is scrubbed, __proto__ stays data", () =>
    Effect.gen(function*() {
      const key = "sk-SECRET-as-a-key-3"
      // What the run knows (the CLI: its command line's; here, given to it).
      yield* Redactor.remember([key])
      const response = JSON.parse(`{"${key}": {"ok": 1}, "__proto__": {"polluted": true}, "plain": "v"}`) as object
      const step = { type: "tool_result" as const, name: "peek", content: { [key]: "found" }, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 0 }
      const trials = yield* Stream.runCollect(runTrials(tasks(1), () =>
        Effect.succeed({ output_text: "x", response, trajectory: [step] }), { parallelism: 1 }))
      const output = trials[0]!.output!
      assert.strictEqual(trials[0]!.status, "completed")
      assert.notInclude(JSON.stringify(trials), key)
      assert.deepStrictEqual(Object.keys(output.response as object), ["<redacted>", "__proto__", "plain"])
      assert.deepStrictEqual(JSON.parse(JSON.stringify(output.response)), JSON.parse(`{"<redacted>": {"ok": 1}, "__proto__": {"polluted": true}, "plain": "v"}`))
      assert.strictEqual(Object.getPrototypeOf(output.response), Object.prototype)
      assert.deepStrictEqual(output.trajectory![0]!.content, { "<redacted>": "found" })
      assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
    }).pipe(Effect.provide(Redactor.Redactor.layer())))
})

describe("the writer's guard over a record that throws when read", () => {
  it("a label whose getter throws: the label is dropped naming where, the output kept, not a throw", () => {
    const trial = {
      id: "t:trial",
      task_id: "t",
      status: "completed" as const,
      output: { output_text: "x" },
      metadata: Object.defineProperty(
        { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 },
        "group",
        {
          enumerable: true,
          get() {
            throw new Error("boom")
          }
        }
      )
    }
    const { trial: written } = Line.of(trial)
    assert.deepStrictEqual([written.status, written.output, written.metadata["unrecorded"]], [
      "completed",
      { output_text: "x" },
      ["record.metadata.group cannot be walked (boom): the label is not recorded"]
    ])
  })
})

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
import { rememberSecrets } from "../src/internal/redact.ts"
import { runTrials } from "../src/runner/Runner.ts"

const tasks = (n: number) => Stream.fromIterable(Array.from({ length: n }, (_, i) => ({ id: `t${i}`, inputs: {} })))

describe("a failed trial's output_text", () => {
  it.effect("a module agent's text kept beside a schema failure is scrubbed of the process's secrets", () =>
    Effect.gen(function*() {
      const key = "sk-SECRET-output-text-1"
      rememberSecrets([key])
      const trials = yield* Stream.runCollect(runTrials(tasks(1), () =>
        Effect.fail(
          new InvalidAgentOutput({ message: "output.trajectory[0].started_at: Missing key", output_text: `the key is ${key}` })
        ), { parallelism: 1 }))
      const error = trials[0]!.error!
      assert.deepStrictEqual([trials[0]!.status, error.type, error.output_text], ["failed", "InvalidAgentOutput", "the key is <redacted>"])
      assert.notInclude(JSON.stringify(trials), key)
    }))
})

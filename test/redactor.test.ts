/**
 * Each run's secrets are its own (issue 39, section 5): two runs in one
 * process, each calling an OpenAI agent with a key of its own, scrub their
 * own key from their records and keep the other's; the Redactor provided
 * around a command (as `runOnNode` does) is what its last error line is
 * scrubbed with, knowing the key of every agent its run called. The real
 * runner, the real OpenAI agent and undici against a server on 127.0.0.1.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Stream } from "effect"
import { TestConsole } from "effect/testing"
import * as OpenAiAgent from "../src/agents/OpenAi.ts"
import { reportErrors, RunStopped } from "../src/cli/errors.ts"
import type { Agent } from "../src/domain/Agent.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Redactor from "../src/runner/Redactor.ts"
import { runTrials } from "../src/runner/Runner.ts"
import { json, serve } from "./http-server.ts"

const KEY_A = "sk-run-A-0123456789"
const KEY_B = "sk-run-B-0123456789"

const completion = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "tiny-1",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }
})

const openAi = (base: string, key: string) =>
  OpenAiAgent.make({ baseUrl: `${base}/v1`, model: "tiny-1", apiKey: Redacted.make(key) })

// The agent's answer and, beside it, what a tool echoed: both keys, in a
// string no agent's own scrubber saw (only the run's Redactor scrubs it).
const echoing = <E, R>(agent: Agent<E, R>): Agent<E, R> => (task, trial) =>
  Effect.map(agent(task, trial), (output) => ({ ...output, output_text: `${output.output_text}; the tool said ${KEY_A} and ${KEY_B}` }))

const one = <E, R>(agent: Agent<E, R>) =>
  Effect.map(
    Stream.runCollect(runTrials(Stream.make({ id: "t", inputs: { instruction: "hi" } }), agent, { parallelism: 1 })),
    (trials): AgentEvalTrial => trials[0]!
  )

describe("a run's Redactor", () => {
  it.live("two runs in one process: each scrubs the key its agent was called with, not the other run's", () =>
    Effect.gen(function*() {
      const server = yield* serve((_request, res) => json(res, 200, completion("hello")))
      // Both agents made before either run: making one does not hand its key to every run.
      const agentA = echoing(openAi(server.base, KEY_A))
      const agentB = echoing(openAi(server.base, KEY_B))
      const a = yield* one(agentA)
      const b = yield* one(agentB)
      assert.strictEqual(a.output?.output_text, `hello; the tool said <redacted> and ${KEY_B}`)
      assert.strictEqual(b.output?.output_text, `hello; the tool said ${KEY_A} and <redacted>`)
      // And a third run, of an agent with no key, inherits neither.
      const c = yield* one(echoing(() => Effect.succeed({ output_text: "plain" })))
      assert.strictEqual(c.output?.output_text, `plain; the tool said ${KEY_A} and ${KEY_B}`)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.live("runs inside one provided Redactor (a command's) share it: the second knows the first's key", () =>
    Effect.gen(function*() {
      const server = yield* serve((_request, res) => json(res, 200, completion("hello")))
      const a = yield* one(echoing(openAi(server.base, KEY_A)))
      const b = yield* one(echoing(() => Effect.succeed({ output_text: "plain" })))
      assert.strictEqual(a.output?.output_text, `hello; the tool said <redacted> and ${KEY_B}`)
      assert.strictEqual(b.output?.output_text, `plain; the tool said <redacted> and ${KEY_B}`)
    }).pipe(Effect.provide(Redactor.Redactor.layer()), Effect.provide(NodeHttpClient.layerUndici)))

  it.live("a command's last error line is scrubbed of its command line's secrets and of the keys its run's agents were called with", () =>
    Effect.gen(function*() {
      const server = yield* serve((_request, res) => json(res, 200, completion("hello")))
      yield* one(openAi(server.base, KEY_A))
      const stopped = new RunStopped({ message: `stopped: the server said ${KEY_A}, then ${KEY_B}, then sk-command-line-0123` })
      yield* Effect.flip(reportErrors(Effect.fail(stopped)))
      assert.deepStrictEqual(yield* TestConsole.errorLines, [
        `agent-trials: stopped: the server said <redacted>, then ${KEY_B}, then <redacted>`
      ])
    }).pipe(
      Effect.provide(Redactor.Redactor.layer(["sk-command-line-0123"])),
      Effect.provide(TestConsole.layer),
      Effect.provide(NodeHttpClient.layerUndici)
    ))

  it("a Redactor scrubs nothing until given a secret of 8 characters or more", () => {
    const secrets = Redactor.make()
    assert.isTrue(secrets.nothing())
    secrets.add(["short"])
    assert.isTrue(secrets.nothing())
    secrets.add(["sk-0123456789"])
    assert.isFalse(secrets.nothing())
    assert.strictEqual(secrets.scrub("a sk-0123456789 b short"), "a <redacted> b short")
  })
})

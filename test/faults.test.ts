/**
 * The real HTTP agent and the real undici client against a fault-injecting
 * server, through the runner with a timeout and retries, on real time with
 * small durations: every task ends with exactly one trial, the right status
 * and error type, and as many requests as the retry schedule implies.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as HttpAgent from "../src/agents/Http.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { checkTrial, expectations, faultServer, routeOf } from "./fault-server.ts"

const TIMEOUT_MS = 1000
const BASE_MS = 10
const MAX_MS = 40
const RETRY_AFTER_MAX_MS = 1200
const RATE_LIMIT_WAIT_MAX_MS = 2000

describe("HTTP agent under injected faults", () => {
  it.live("429, 500, 503, hang, reset, slow body, malformed JSON, wrong shape: one record each, retried as the schedule says", () =>
    Effect.gen(function*() {
      const server = yield* faultServer
      const expected = expectations(RETRY_AFTER_MAX_MS, RATE_LIMIT_WAIT_MAX_MS)
      const ids = [...Object.keys(expected).filter((route) => route !== "flaky").map((route) => `${route}-1`), "flaky-2"]
      const tasks: Array<AgentEvalTask> = ids.map((id) => ({ id, inputs: { fault: routeOf(id) } }))
      const agent = HttpAgent.make(server.url)
      // A cold client's first requests can take longer than the timeout on a
      // busy machine (module and JIT warm-up, new connections); warm it first.
      const warmUp = Array.from({ length: 16 }, (_, i): AgentEvalTask => ({ id: `ok-warm${i}`, inputs: {} }))
      const warm = yield* Stream.runCollect(runTrials(Stream.fromIterable(warmUp), agent, { parallelism: 16 }))
      assert.isTrue(warm.every((t) => t.status === "completed"))

      const probe = new MutableProbe()
      const trials = yield* runTrials(Stream.fromIterable(tasks), agent, {
        parallelism: 16,
        probe,
        timeout: TIMEOUT_MS,
        retry: {
          retries: 2,
          base: BASE_MS,
          max: MAX_MS,
          retryAfterMax: RETRY_AFTER_MAX_MS,
          rateLimitWaitMax: RATE_LIMIT_WAIT_MAX_MS
        }
      }).pipe(Stream.runCollect)

      assert.sameMembers(trials.map((t) => t.task_id), ids, "exactly one trial per task")
      assert.strictEqual(trials.length, ids.length)
      for (const trial of trials) {
        checkTrial(trial, expected[routeOf(trial.task_id)]!, server.counts.get(trial.task_id), {
          baseMs: BASE_MS,
          maxMs: MAX_MS
        })
      }
      const timeouts = trials.filter((t) => t.error?.type === "Timeout")
      for (const t of timeouts) assert.strictEqual(t.error!.message, "the agent call did not finish within 1s")
      // Each timed-out request was aborted: the server saw its connection
      // close before it had answered (the close may land just after the run).
      const cutOff = (id: string) => server.cutOff.get(id) ?? 0
      yield* Effect.sleep("20 millis").pipe(
        Effect.repeat({ until: () => cutOff("hang-1") === 3 && cutOff("slowbody-1") === 3, times: 250 })
      )
      assert.deepStrictEqual(
        Object.fromEntries(ids.map((id) => [id, cutOff(id)])),
        Object.fromEntries(ids.map((id) => [id, ["hang", "slowbody", "reset"].includes(routeOf(id)) ? 3 : 0]))
      )
      assert.include(trials.find((t) => t.task_id === "reset-1")!.error!.message, `POST ${server.url} failed`)
      assert.include(trials.find((t) => t.task_id === "badjson-1")!.error!.message, "is not JSON")
      assert.include(trials.find((t) => t.task_id === "shape-1")!.error!.message, "is not { output_text: string")
      const attempts = trials.reduce((n, t) => n + (t.metadata["attempts"] as number), 0)
      assert.strictEqual(probe.started, attempts)
      assert.strictEqual(probe.retries, attempts - trials.length)
      assert.strictEqual(probe.active, 0)
      assert.strictEqual(probe.outstanding, 0)
      assert.strictEqual(probe.liveFibers, 0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

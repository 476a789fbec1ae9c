/**
 * Messages a user reads (issue 37, item 20): the epochs line prints no
 * second pass@1 over completed trials beside the scored one; an HTTP body
 * that cannot be encoded says what and where; a line longer than V8's string
 * limit is `FILE:LINE: line longer than 512 MB`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as HttpAgent from "../src/agents/Http.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import { runTrials } from "../src/runner/Runner.ts"
import * as Summary from "../src/scoring/Summary.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../src/domain/Trial.ts"
import { json, serve } from "./http-server.ts"

const at = "2026-01-01T00:00:00.000Z"

// A completed trial whose answer the `exact` scorer failed.
const wrong = (task: string, epoch: number): AgentEvalTrial => ({
  id: `${task}:${epoch}`,
  task_id: task,
  status: "completed",
  output: { output_text: "wrong" },
  metadata: { started_at: at, finished_at: at, latency_ms: 1, epoch },
  scores: { exact: { value: 0, passed: false } }
})

const summaryOf = (scorers: ReadonlyArray<string>, trials: ReadonlyArray<AgentEvalTrial>) => {
  const acc = new Summary.Accumulator(3, scorers.length === 0 ? undefined : { scorers })
  for (const trial of trials) acc.add(trial)
  return Summary.format(Summary.make({
    runId: "r",
    resultsFile: "out.jsonl",
    outcome: "finished",
    acc,
    probe: new MutableProbe().snapshot(),
    wallMs: 10,
    parallelism: 4,
    ...(scorers.length === 0 ? {} : { scoring: { probe: new MutableProbe().snapshot(), parallelism: 4 } })
  }))
}

describe("the epochs line", () => {
  const trials = ["a", "b"].flatMap((task) => [1, 2, 3].map((epoch) => wrong(task, epoch)))

  it("with scorers: one pass@1, the scored one, labelled; no pass@1 1 [1, 1] over completed trials", () => {
    const text = summaryOf(["exact"], trials)
    const pass1 = text.split("\n").filter((line) => line.includes("pass@1"))
    assert.deepStrictEqual(pass1.length, 1, text)
    assert.match(pass1[0]!, /^ {2}pass@k counting passed trials: pass@1 0 /)
    assert.include(
      text,
      "  3 epochs, counting completed trials: 2 tasks with every trial recorded (0 incomplete); pass@k below counts passed trials"
    )
  })

  it("without scorers: the estimates over completed trials, as the only pass@1", () => {
    const text = summaryOf([], trials)
    const pass1 = text.split("\n").filter((line) => line.includes("pass@1"))
    assert.strictEqual(pass1.length, 1, text)
    assert.match(pass1[0]!, /^ {2}3 epochs, counting completed trials: 2 tasks .*; pass@1 1 /)
  })
})

describe("HttpBodyError", () => {
  it.live("a task JSON cannot hold: a failed trial naming the field and the endpoint, no request sent, not retried", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, res) => json(res, 200, { output_text: "ok" }))
      const cycle: Record<string, unknown> = { a: 1 }
      cycle["self"] = cycle
      const tasks: ReadonlyArray<AgentEvalTask> = [
        { id: "big", inputs: { n: BigInt(10) } },
        { id: "cycle", inputs: { c: cycle } },
        { id: "fine", inputs: { n: 10 } }
      ]
      const agent = HttpAgent.make(`${server.base}/agent?api_key=k-0123456789abcdef`)
      const trials = yield* Stream.runCollect(
        runTrials(Stream.fromIterable(tasks), agent, { parallelism: 3, retry: { retries: 2, base: "1 millis", max: "1 millis" } })
      )
      const byTask = new Map(trials.map((t) => [t.task_id, t]))
      const where = `POST ${server.base}/agent?api_key=<redacted>`
      assert.deepInclude(byTask.get("big")!.error, {
        type: "HttpBodyError",
        message: `cannot send ${where}: its body cannot be encoded as JSON: field inputs.n is a BigInt (10), which JSON cannot hold`
      })
      assert.deepInclude(byTask.get("cycle")!.error, {
        type: "HttpBodyError",
        message: `cannot send ${where}: its body cannot be encoded as JSON: field inputs.c.self refers back to inputs.c (a cycle), which JSON cannot hold`
      })
      for (const id of ["big", "cycle"]) assert.strictEqual(byTask.get(id)!.metadata["attempts"], 1)
      assert.strictEqual(byTask.get("fine")!.status, "completed")
      // Only the task that could be encoded reached the server, as JSON.
      assert.deepStrictEqual(server.received.map((r) => [r.headers["content-type"], JSON.parse(r.body)]), [
        ["application/json", { id: "fine", inputs: { n: 10 } }]
      ])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

/**
 * `compare` shows response-cache hits as such (issue 40, part 3): a file
 * whose trials say `metadata.cache: "hit"` is counted under
 * `usage.new.cached_trials` and the text says how many trials of each side
 * were served; files without hits say nothing of it.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Compare from "../src/programs/compare/Compare.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import { removeTempDirs, tempDir, writeJsonl } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const trial = (task: string, cache?: string): AgentEvalTrial => ({
  id: `${task}:1`,
  task_id: task,
  status: "completed",
  output: { output_text: "x", usage: { input_tokens: 90, output_tokens: 10, total_tokens: 100, model: "m" } },
  metadata: {
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:00:01.000Z",
    latency_ms: 1000,
    ...(cache === undefined ? {} : { cache })
  },
  scores: { exact: { value: 1, passed: true } }
})

const file = (name: string, trials: ReadonlyArray<AgentEvalTrial>) => writeJsonl(path.join(tempDir(), name), trials)
const compare = (a: string, b: string) => Compare.compare(a, b).pipe(Effect.provide([NodeServices.layer, Kinds.layer()]))

describe("compare: response-cache hits", () => {
  it.effect("counts each side's hits and says so; without hits, nothing", () =>
    Effect.gen(function*() {
      const tasks = ["t1", "t2", "t3", "t4"]
      const base = file("base.jsonl", tasks.map((t) => trial(t, "miss")))
      const next = file("new.jsonl", tasks.map((t, i) => trial(t, i < 3 ? "hit" : "partial")))
      const c = yield* compare(base, next)
      assert.deepStrictEqual(c.usage?.base, { trials: 4, priced_trials: 0 })
      assert.deepStrictEqual(c.usage?.new, { trials: 4, priced_trials: 0, cached_trials: 3 })
      assert.include(
        Compare.format(c),
        "served from the response cache (run --cache): base 0 trials, new 3 (their usage is the answers' when first asked, not spent again)"
      )
      const plain = yield* compare(file("a.jsonl", tasks.map((t) => trial(t))), file("b.jsonl", tasks.map((t) => trial(t))))
      assert.deepStrictEqual(plain.usage?.new, { trials: 4, priced_trials: 0 })
      assert.notInclude(Compare.format(plain), "response cache")
    }))
})

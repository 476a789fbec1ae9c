/**
 * compare's JSON as a Schema: `--json FILE` is the comparison encoded by
 * `Compare.Comparison` (its fields in the order written before the Schema,
 * the paired fields each change takes from the one `PairedChange`), and the
 * file decodes back to the comparison `Compare.compare` returns.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Compare from "../src/programs/compare/Compare.ts"
import { removeTempDirs, tempDir, writeJsonl } from "./cli-helpers.ts"
import * as Kinds from "../src/programs/Kinds.ts"

afterAll(removeTempDirs)

const trial = (task: number, value: number, tokens: number): AgentEvalTrial => ({
  id: `t${task}:1`,
  task_id: `t${task}`,
  status: "completed",
  output: { output_text: "x", usage: { input_tokens: tokens - 5, output_tokens: 5, total_tokens: tokens, cost_usd: tokens / 1e6 } },
  metadata: {
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:00:01.000Z",
    latency_ms: 1000,
    groups: { "metadata.subject": task % 2 === 0 ? "math" : "bio" }
  },
  scores: { exact: { value, passed: value === 1 }, sim: { value: value / 2 + task / 20, passed: true } }
})

const CHANGE = ["n", "base_mean", "new_mean", "delta", "sd", "standard_error", "df", "ci95", "p_value"]

describe("compare --json as a Schema", () => {
  it.effect("writes the fields in their order as before, and decodes back to the comparison", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const base = writeJsonl(path.join(dir, "base.jsonl"), [1, 2, 3, 4, 5, 6].map((t) => trial(t, t % 3 === 0 ? 0 : 1, 100 * t)))
      const next = writeJsonl(path.join(dir, "new.jsonl"), [1, 2, 3, 4, 5, 6].map((t) => trial(t, t % 2 === 0 ? 0 : 1, 90 * t)))
      const json = path.join(dir, "c.json")
      const comparison = yield* Compare.run({ base, new: next, pass: undefined, json, html: undefined, failOnRegression: false })
      const text = fs.readFileSync(json, "utf8")
      const written = JSON.parse(text)
      assert.deepStrictEqual(Object.keys(written), [
        "base", "new", "measure", "pass_rule", "tasks", "scorers", "scorers_only_in_base", "scorers_only_in_new", "pass_at_1",
        "flips", "judged", "regressed", "notes", "stderr_cluster", "groups", "usage"
      ])
      assert.deepStrictEqual(Object.keys(written.scorers[0]), [
        "name", ...CHANGE, "p_holm", "mcnemar_p", "mde80", "verdict", "reason", "clusters", "design_effect"
      ])
      assert.deepStrictEqual(Object.keys(written.pass_at_1), [
        "tasks", "base", "new", "delta", "ci95", "p_value", "mcnemar_p", "mde80", "base_all", "new_all"
      ])
      const group = written.groups["metadata.subject"].math
      assert.deepStrictEqual(Object.keys(group.scorers.exact), [...CHANGE.filter((k) => k !== "sd"), "clusters"])
      assert.deepStrictEqual(Object.keys(group.pass_at_1), ["tasks", "base", "new", "delta", "standard_error", "ci95", "p_value"])
      assert.deepStrictEqual(Object.keys(written.usage.tokens), [...CHANGE, "clusters", "design_effect"])
      assert.deepStrictEqual(Object.keys(written.base.scoring.scorers.exact).slice(0, 5), ["trials", "scored", "failed_trials", "errors", "values"])
      const decoded = Schema.decodeUnknownSync(Compare.Comparison)(written, { onExcessProperty: "error" })
      assert.deepStrictEqual(decoded, comparison)
      assert.strictEqual(text, JSON.stringify(Schema.encodeSync(Compare.Comparison)(comparison), null, 2) + "\n")
    }).pipe(Effect.provide([NodeServices.layer, Kinds.layer()])))
})

/**
 * What a record says of its statistics (src/summary/Labels.ts): paths into
 * a task, values as text, the labels `run` writes, and how readers key
 * clusters and groups off them; and the option Schemas of their flags.
 */
import { assert, describe, it } from "@effect/vitest"
import { Exit, Result, Schema } from "effect"
import * as Options from "../src/programs/Options.ts"
import * as Labels from "../src/summary/Labels.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"

const task = {
  id: "t1",
  inputs: { lang: "fr", nested: { level: 3 } },
  metadata: { subject: "math", tags: ["a", "b"], empty: null, passage_id: 7 }
}

const at = "2026-01-01T00:00:00.000Z"
const record = (metadata: Record<string, unknown>, taskId = "t1"): AgentEvalTrial => ({
  id: `${taskId}:1`,
  task_id: taskId,
  status: "completed",
  metadata: { started_at: at, finished_at: at, latency_ms: 1, ...metadata }
})

describe("Labels", () => {
  it("parsePath: dotted, non-empty segments starting with a task field; the refusal says what is expected", () => {
    assert.deepStrictEqual(Labels.parsePath("metadata.subject"), Result.succeed("metadata.subject"))
    assert.deepStrictEqual(Labels.parsePath("id"), Result.succeed("id"))
    const refused = (text: string) => {
      const r = Labels.parsePath(text)
      if (Result.isSuccess(r)) assert.fail(`${text} accepted`)
      return r.failure
    }
    assert.include(refused("subject"), "starting with id, inputs, intent, reference, metadata (like metadata.subject)")
    assert.include(refused("metadata..x"), "like metadata.subject")
    assert.include(refused(""), "like metadata.subject")
    assert.include(refused(" metadata.x"), "like metadata.subject")
  })

  it("valueAt: strings as they are, other values as JSON, null where there is none", () => {
    assert.strictEqual(Labels.valueAt(task, "metadata.subject"), "math")
    assert.strictEqual(Labels.valueAt(task, "metadata.passage_id"), "7")
    assert.strictEqual(Labels.valueAt(task, "metadata.tags"), "[\"a\",\"b\"]")
    assert.strictEqual(Labels.valueAt(task, "inputs.nested.level"), "3")
    assert.strictEqual(Labels.valueAt(task, "metadata.empty"), null)
    assert.strictEqual(Labels.valueAt(task, "metadata.missing"), null)
    assert.strictEqual(Labels.valueAt(task, "metadata.subject.deeper"), null)
    // Only own keys: a path cannot reach the prototype.
    assert.strictEqual(Labels.valueAt(task, "metadata.constructor"), null)
  })

  it("ofTask: the labels run writes; clusterBy: by task only with epochs > 1 unless given", () => {
    assert.deepStrictEqual(Labels.ofTask(task, { epochs: 4, clusterBy: "task", groupBy: ["metadata.subject", "inputs.x"] }), {
      epochs: 4,
      stderr_cluster: { by: "task", value: "t1" },
      groups: { "metadata.subject": "math", "inputs.x": null },
      group_keys: { "metadata.subject": "\"math\"", "inputs.x": null }
    })
    assert.deepStrictEqual(Labels.ofTask(task, { epochs: 1, clusterBy: "metadata.passage_id", groupBy: [] }), {
      epochs: 1,
      stderr_cluster: { by: "metadata.passage_id", value: "7" }
    })
    assert.deepStrictEqual(Labels.ofTask(task, { epochs: 2, clusterBy: null, groupBy: [] }), { epochs: 2, stderr_cluster: null })
    assert.strictEqual(Labels.clusterBy(undefined, 1), null)
    assert.strictEqual(Labels.clusterBy(undefined, 2), "task")
    assert.strictEqual(Labels.clusterBy(null, 5), null)
    assert.strictEqual(Labels.clusterBy("metadata.x", 1), "metadata.x")
  })

  it("readers: epochs, clustering and keys off a record; values and task ids never share a key", () => {
    assert.strictEqual(Labels.epochsOf(record({ epochs: 3 })), 3)
    assert.strictEqual(Labels.epochsOf(record({})), undefined)
    assert.strictEqual(Labels.epochsOf(record({ epochs: 0 })), undefined)
    assert.strictEqual(Labels.clusterByOf(record({})), undefined)
    assert.strictEqual(Labels.clusterByOf(record({ stderr_cluster: null })), null)
    assert.strictEqual(Labels.clusterByOf(record({ stderr_cluster: { by: "metadata.p", value: "x" } })), "metadata.p")
    const byValue = record({ stderr_cluster: { by: "metadata.p", value: "t1" } }, "other")
    const ownTask = record({ stderr_cluster: { by: "metadata.p", value: null } }, "t1")
    // A value "t1" and a task "t1" without a value are different clusters.
    assert.notStrictEqual(Labels.clusterKey(byValue, "metadata.p"), Labels.clusterKey(ownTask, "metadata.p"))
    assert.strictEqual(Labels.clusterKey(ownTask, "task"), Labels.clusterKey(ownTask, "metadata.p"))
    assert.strictEqual(Labels.clusterKey(ownTask, null), undefined)
    assert.deepStrictEqual(Labels.groupsOf(record({ groups: { a: "x", b: null, c: 3 } })), { a: "x", b: null, c: null })
    assert.deepStrictEqual(Labels.groupsOf(record({ groups: ["x"] })), {})
  })

  it("keyAt and groupKeysOf: groups keyed by JSON text; no value, a null and the text (missing) apart, 1 and \"1\" apart", () => {
    const t = { id: "t", inputs: {}, metadata: { one: 1, text: "1", none: null, word: "(missing)", deep: { a: [1] } } }
    assert.strictEqual(Labels.keyAt(t, "metadata.one"), "1")
    assert.strictEqual(Labels.keyAt(t, "metadata.text"), "\"1\"")
    assert.strictEqual(Labels.keyAt(t, "metadata.none"), "null")
    assert.strictEqual(Labels.keyAt(t, "metadata.word"), "\"(missing)\"")
    assert.strictEqual(Labels.keyAt(t, "metadata.deep"), "{\"a\":[1]}")
    assert.strictEqual(Labels.keyAt(t, "metadata.absent"), null)
    assert.strictEqual(Labels.keyAt(t, "metadata.one.below"), null)
    const paths = ["metadata.one", "metadata.text", "metadata.none", "metadata.word", "metadata.absent"]
    const labels = Labels.ofTask(t, { epochs: 1, clusterBy: null, groupBy: paths })
    assert.deepStrictEqual(Labels.groupKeysOf(record(labels)), {
      "metadata.one": "1",
      "metadata.text": "\"1\"",
      "metadata.none": "null",
      "metadata.word": "\"(missing)\"",
      "metadata.absent": Labels.MISSING
    })
    // Five keys, five groups.
    assert.strictEqual(new Set(Object.values(Labels.groupKeysOf(record(labels)))).size, 5)
    // A record written before group_keys: by its values, a null as missing.
    assert.deepStrictEqual(Labels.groupKeysOf(record({ groups: { a: "x", b: null } })), { a: "x", b: Labels.MISSING })
  })
})

describe("the flags' Schemas", () => {
  const decode = <A>(schema: Schema.Codec<A, string>) => Schema.decodeUnknownExit(schema)
  const message = <A>(schema: Schema.Codec<A, string>, text: string) => {
    const exit = decode(schema)(text)
    assert.isTrue(Exit.isFailure(exit), `${text} accepted`)
    return String(exit)
  }

  it("--stderr-cluster: a path or none (null)", () => {
    assert.deepStrictEqual(decode(Options.StderrCluster)("metadata.passage_id"), Exit.succeed("metadata.passage_id"))
    assert.deepStrictEqual(decode(Options.StderrCluster)("none"), Exit.succeed(null))
    assert.include(message(Options.StderrCluster, "passage"), "Expected none or a dotted path into the task starting with id")
  })

  it("--pass-k: integers from 1, sorted, without repeats; a bad entry is named", () => {
    assert.deepStrictEqual(decode(Options.PassK)("10, 1,2,2"), Exit.succeed([1, 2, 10]))
    assert.match(message(Options.PassK, "1,0"), /0\W* is not one\)/)
    assert.include(message(Options.PassK, "1,x"), "like 1,2,10")
    assert.include(message(Options.PassK, ""), "like 1,2,10")
  })

  it("--group-by: a path into the task", () => {
    assert.deepStrictEqual(decode(Options.TaskPath)("metadata.subject"), Exit.succeed("metadata.subject"))
    assert.include(message(Options.TaskPath, "subject"), "like metadata.subject")
  })
})

/**
 * The source stage (programs/run/stages/Source.ts): each task gives one
 * unit per epoch and each bad line one unit carrying its message, counted
 * in `invalidLines`; read from a real task file with a bad line.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Dataset from "../src/datasets/Dataset.ts"
import * as Revisions from "../src/programs/run/Revisions.ts"
import { MutableCounts } from "../src/programs/run/internal/counts.ts"
import * as Source from "../src/programs/run/stages/Source.ts"
import { configOf, drain } from "./run-stages.ts"
import * as Kinds from "../src/programs/Kinds.ts"

const items: ReadonlyArray<Dataset.Item> = [
  { _tag: "Task", task: { id: "a", inputs: {} } },
  { _tag: "Invalid", taskId: "line 2", message: "line 2: not JSON" },
  { _tag: "Task", task: { id: "c", inputs: {} } }
]
const shape = (units: ReadonlyArray<{ readonly task: { readonly id: string }; readonly epoch?: number | undefined; readonly invalid?: string | undefined }>) =>
  units.map((u) => [u.task.id, u.epoch, u.invalid])

describe("Source", () => {
  it.effect("fromItems: one unit per epoch of a task, one per bad line with its message, bad lines counted (piped)", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      const { out } = yield* drain(Stream.fromIterable(items).pipe(Source.fromItems({ epochs: 2, counts })))
      assert.deepStrictEqual(shape(out), [
        ["a", 1, undefined],
        ["a", 2, undefined],
        ["line 2", 1, "line 2: not JSON"],
        ["c", 1, undefined],
        ["c", 2, undefined]
      ])
      assert.strictEqual(counts.invalidLines, 1)
    }))

  it.effect("fromItems called directly gives the same units", () =>
    Effect.gen(function*() {
      const counts = new MutableCounts(undefined)
      const { out } = yield* drain(Source.fromItems(Stream.fromIterable(items), { epochs: 1, counts }))
      assert.deepStrictEqual(shape(out), [["a", 1, undefined], ["line 2", 1, "line 2: not JSON"], ["c", 1, undefined]])
      assert.strictEqual(counts.invalidLines, 1)
    }))

  it.effect("units: a --tasks file with a bad line skipped, --limit applied, the bad line counted", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-source-"))
      const tasks = path.join(dir, "tasks.jsonl")
      fs.writeFileSync(tasks, ["{\"id\":\"a\",\"inputs\":{}}", "not json", "{\"id\":\"c\",\"inputs\":{}}", "{\"id\":\"d\",\"inputs\":{}}"].join("\n") + "\n")
      const counts = new MutableCounts(undefined)
      const config = { ...configOf({ tasks, onInvalid: "skip", limit: 3, epochs: 2, cwd: dir }), kinds: Kinds.builtIn }
      const { out, ok } = yield* drain(Source.units({ config, ids: undefined, revisions: new Revisions.Revisions(tasks), counts }))
      assert.isTrue(ok)
      assert.deepStrictEqual(out.map((u) => [u.task.id, u.epoch, u.invalid !== undefined]), [
        ["a", 1, false],
        ["a", 2, false],
        [out[2]!.task.id, 1, true],
        ["c", 1, false],
        ["c", 2, false]
      ])
      assert.strictEqual(counts.invalidLines, 1)
    }).pipe(Effect.provide(NodeServices.layer)))
})

/**
 * Issue 39, part 2: the kinds a program knows are a service (`Kinds.Registry`),
 * provided once (`Kinds.layer()`, `Kinds.layer(extra)`), and every program
 * reads it, so a function reached without passing kinds still sees a user's
 * own (the fakes of test/fixtures/fake-kinds.ts). A `RunConfig.kinds` given
 * (deprecated) wins over the service.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as AgentKinds from "../src/agents/AgentKinds.ts"
import * as Cluster from "../src/programs/Cluster.ts"
import * as Compare from "../src/programs/compare/Compare.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { AgentBuildError } from "../src/agents/Kind.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import { ResultsError } from "../src/results/Results.ts"
import type * as ResultsStores from "../src/results/ResultsStores.ts"
import * as Report from "../src/programs/Report.ts"
import * as Rescore from "../src/programs/Rescore.ts"
import * as Run from "../src/programs/run/Run.ts"
import { removeTempDirs, tempDir } from "./cli-helpers.ts"
import { echo, kinds as fakeKinds, length, lines, markdown, tsv } from "./fixtures/fake-kinds.ts"
import { configOf } from "./run-stages.ts"

afterAll(() => removeTempDirs())

const extra = { agents: [echo], scorers: [length], datasets: [lines], outputs: [markdown], stores: [tsv] }

// A run of `tasks` (a `lines` file) through the echo agent into `out`, with `--markdown md`.
const runConfig = (options: { readonly tasks: string; readonly out: string; readonly md: string }): Run.RunConfig =>
  configOf({
    tasks: options.tasks,
    agent: { _tag: "Echo", upper: true },
    out: options.out,
    outputs: { markdown: options.md },
    score: ["none"]
  })

const platform = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

const files = () => {
  const dir = tempDir()
  const tasks = path.join(dir, "tasks.txt")
  fs.writeFileSync(tasks, "alpha\n\nbeta\ngamma\n")
  return { dir, tasks, out: path.join(dir, "out.tsv"), md: path.join(dir, "run.md"), html: path.join(dir, "report.html") }
}

const rows = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((row) => row !== "").sort()

describe("Kinds as a service", () => {
  it("extend adds each list after the built-in ones, the stores before (the JSONL store takes any name)", () => {
    assert.deepStrictEqual(Kinds.extend(extra), fakeKinds)
    assert.deepStrictEqual(Kinds.extend({}), Kinds.builtIn)
    assert.deepStrictEqual(Kinds.extend({ stores: [tsv] }).stores.map((s) => s.name), ["tsv", "jsonl"])
  })

  it.effect("Kinds.layer() holds the built-in kinds, layer(extra) them and extra, layerOf(kinds) exactly kinds", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Effect.provide(Effect.service(Kinds.Registry), Kinds.layer()), Kinds.builtIn)
      assert.deepStrictEqual(yield* Effect.provide(Effect.service(Kinds.Registry), Kinds.layer(extra)), fakeKinds)
      assert.strictEqual(yield* Effect.provide(Effect.service(Kinds.Registry), Kinds.layerOf(fakeKinds)), fakeKinds)
    }))

  it.live("a run given no kinds reads the service: the agent, dataset format, store and output of layer(extra)", () =>
    Effect.gen(function*() {
      const f = files()
      yield* Run.run(runConfig(f)).pipe(Effect.provide(Layer.mergeAll(platform, Kinds.layer(extra))))
      assert.deepStrictEqual(rows(f.out), [
        "line-1:1\tcompleted\tALPHA",
        "line-2:1\tcompleted\tBETA",
        "line-3:1\tcompleted\tGAMMA"
      ])
      assert.strictEqual(
        fs.readFileSync(f.md, "utf8"),
        "| outcome | completed | failed |\n| --- | --- | --- |\n| finished | 3 | 0 |\n"
      )
    }))

  it.live("RunConfig.kinds, when given, wins over the service", () =>
    Effect.gen(function*() {
      const f = files()
      // The service alone knows the tsv store; the config's kinds do not, so the JSONL store writes out.tsv.
      const given = Kinds.extend({ agents: [echo], datasets: [lines], outputs: [markdown] })
      yield* Run.run({ ...runConfig(f), kinds: given }).pipe(Effect.provide(Layer.mergeAll(platform, Kinds.layer(extra))))
      const records = rows(f.out).map((line) => JSON.parse(line))
      assert.deepStrictEqual(records.map((r) => [r.task_id, r.output?.output_text]).sort(), [
        ["line-1", "ALPHA"],
        ["line-2", "BETA"],
        ["line-3", "GAMMA"]
      ])
    }))

  it.live("report reads the results store and the task format of the service (the old default knew the built-in ones alone)", () =>
    Effect.gen(function*() {
      const f = files()
      fs.writeFileSync(f.out, "line-1:1\tcompleted\tALPHA\nline-2:1\tfailed\t\n")
      const written = yield* Report.report({ results: f.out, html: f.html, maxRows: 10, tasks: f.tasks }).pipe(
        Effect.provide(Layer.mergeAll(platform, Kinds.layer(extra)))
      )
      assert.strictEqual(written.trials, 2)
      assert.strictEqual(written.rows, 2)
      // The failed row shows its task's input, read from the lines file by the `lines` format.
      assert.include(fs.readFileSync(f.html, "utf8"), "beta")
    }))

  it.live("score reads the results store and the scorer kinds of the service", () =>
    Effect.gen(function*() {
      const f = files()
      fs.writeFileSync(f.out, "line-1:1\tcompleted\tALPHA\nline-2:1\tcompleted\tGAMMA-RAY\n")
      const scored = path.join(f.dir, "scored.jsonl")
      yield* Rescore.score({
        input: f.out,
        score: ["short=length:max=5"],
        out: scored,
        tasks: undefined,
        resume: false,
        parallelism: 2,
        judgeModel: undefined,
        judgeParallelism: undefined,
        pass: undefined,
        summary: undefined,
        apiKey: undefined,
        cwd: process.cwd()
      }).pipe(Effect.provide(Layer.mergeAll(platform, Kinds.layer(extra))))
      const records = rows(scored).map((line) => JSON.parse(line))
      assert.deepStrictEqual(records.map((r) => [r.id, r.scores?.short?.passed]).sort(), [["line-1:1", true], ["line-2:1", false]])
    }))

  it.live("compare reads both files by a store of the service (a JSON array of trials, which the JSONL store refuses)", () =>
    Effect.gen(function*() {
      const f = files()
      const trial = (id: string, passed: boolean): AgentEvalTrial => ({
        id,
        task_id: id.slice(0, id.indexOf(":")),
        status: "completed",
        output: { output_text: "x" },
        metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1000 },
        scores: { exact: { value: passed ? 1 : 0, passed } }
      })
      const base = path.join(f.dir, "base.array")
      const next = path.join(f.dir, "new.array")
      fs.writeFileSync(base, JSON.stringify([trial("t1:1", true), trial("t2:1", true)]))
      fs.writeFileSync(next, JSON.stringify([trial("t1:1", true), trial("t2:1", false)]))
      const comparison = yield* Compare.compare(base, next).pipe(
        Effect.provide(Layer.mergeAll(platform, Kinds.layer({ stores: [arrays] })))
      )
      assert.strictEqual(comparison.tasks.paired, 2)
      assert.deepStrictEqual(comparison.scorers.map((s) => s.name), ["exact"])
      assert.deepStrictEqual(comparison.flips.pass_to_fail, ["t2"])
    }))

  it.live("a worker given no kinds builds its agent by a kind of the service", () =>
    Effect.gen(function*() {
      // Refused when built, before the worker reaches its cluster: the refusal is the kind's own.
      const refusing: AgentKinds.AgentKind<{ readonly _tag: "Refusing" }> = {
        tag: "Refusing",
        doc: "Builds no agent",
        matches: (text) => text === "refusing",
        usage: "refusing",
        help: "refusing",
        parse: () => ({ _tag: "Refusing" }),
        format: () => "refusing",
        recorded: () => "refusing",
        build: () => Effect.fail(new AgentBuildError({ where: "refusing", problem: "this kind builds no agent" }))
      }
      const error = yield* Cluster.worker({
        cluster: "postgres://user@127.0.0.1:1/db",
        agent: { _tag: "Refusing" },
        model: undefined,
        apiKey: undefined,
        parallelism: 1,
        host: "127.0.0.1",
        port: 1,
        cwd: process.cwd()
      }).pipe(Effect.flip, Effect.provide(Layer.mergeAll(platform, Kinds.layer({ agents: [refusing] }))))
      assert.strictEqual(error.message, "refusing: this kind builds no agent")
    }))
})

// A read-only store of `.array` files: the trials as one JSON array.
const arrays: ResultsStores.ResultsStore = {
  name: "array",
  doc: "A JSON array of trials",
  matches: (out) => out.endsWith(".array"),
  prepare: (out) => Effect.fail(new ResultsError({ path: out, message: "read only" })),
  writer: () => Effect.die("read only"),
  read: (out) =>
    Stream.suspend(() =>
      Stream.fromIterable((JSON.parse(fs.readFileSync(out, "utf8")) as Array<AgentEvalTrial>).map((trial, i) => ({ trial, line: i + 1 })))
    )
}

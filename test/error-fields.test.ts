/**
 * Issue 39, section 3: errors with fields. The exit code rides on the error's
 * class (`exitCode`, read by `Errors.exitCodeOf` and the CLI's `exitFor`);
 * the plug-in ports fail with tagged errors of their own (`AgentBuildError`,
 * `ToolConnectError`, `OutputWriteError`), their messages computed from
 * their fields with the words of before; a run's bad input names the flag,
 * the file and the line at fault, and the CLI's `UsageError` keeps them.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Runtime } from "effect"
import * as TestConsole from "effect/testing/TestConsole"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentKinds from "../src/agents/AgentKinds.ts"
import * as ModuleTools from "../src/agents/tools/Module.ts"
import * as ToolSources from "../src/agents/tools/Sources.ts"
import { BoundsViolated, exitFor, reportErrors, RunStopped, UsageError } from "../src/cli/errors.ts"
import { DatasetError } from "../src/datasets/Source.ts"
import * as Errors from "../src/domain/Errors.ts"
import * as Compare from "../src/programs/compare/Compare.ts"
import { CompareInputError } from "../src/programs/compare/Tally.ts"
import * as OutputFormats from "../src/programs/OutputFormats.ts"
import * as Report from "../src/programs/Report.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import * as Rescore from "../src/programs/Rescore.ts"
import * as Budget from "../src/programs/run/Budget.ts"
import * as Run from "../src/programs/run/Run.ts"
import * as ToolsStop from "../src/programs/run/ToolsStop.ts"
import * as SummaryOutput from "../src/programs/SummaryOutput.ts"
import * as Results from "../src/results/Results.ts"
import * as Policy from "../src/runner/Policy.ts"
import { removeTempDirs, tempDir } from "./cli-helpers.ts"
import { MutableProbe } from "../src/runner/internal/probe.ts"
import * as Gates from "../src/summary/Gates.ts"
import * as Summary from "../src/summary/Summary.ts"
import { configOf as runConfigOf } from "./run-stages.ts"

afterAll(removeTempDirs)

const services = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici, Kinds.layer())

describe("the exit code rides on the error's class", () => {
  it("bad input is 2, a stop on the way 1, an error of no class of ours 1", () => {
    const badInput = [
      new Run.RunInputError({ message: "m" }),
      new CompareInputError({ message: "m" }),
      new Report.ReportInputError({ message: "m" }),
      new Rescore.ScoreInputError({ message: "m" }),
      new UsageError({ message: "m" }),
      new AgentKinds.AgentBuildError({ problem: "p" }),
      new ToolSources.ToolConnectError({ problem: "p" })
    ]
    for (const error of badInput) assert.strictEqual(Errors.exitCodeOf(error), 2, error._tag)
    const stops = [
      new Run.RunWriteError({ problem: "m" }),
      new Run.RunGateFailed({ results: [] }),
      new ToolsStop.ToolServerFailed({ problem: "m" }),
      new Budget.BudgetExceeded({ message: "m", budget: "max_cost", spent: 2, limit: 1 }),
      new Policy.MaxFailuresExceeded({ message: "m", failed: 3, finished: 4 }),
      new Results.ResultsWriteError({ path: "out.jsonl", message: "m", lost: 1 }),
      new OutputFormats.OutputWriteError({ flag: "--summary", path: "s.json", message: "m" }),
      new Rescore.ScoreWriteError({ flag: "--summary", path: "s.json", problem: "m" }),
      new Report.ReportWriteError({ flag: "--html", path: "r.html", problem: "m" }),
      new Compare.CompareWriteError({ flag: "--json", path: "c.json", problem: "m" }),
      new Compare.Regressed({ message: "m", scorers: ["exact"] }),
      new RunStopped({ message: "m" }),
      new BoundsViolated({ message: "m" }),
      new DatasetError({ path: "hf:a/b", message: "m", transient: true })
    ]
    for (const error of stops) assert.strictEqual(Errors.exitCodeOf(error), 1, error._tag)
    assert.strictEqual(Errors.exitCodeOf(new Error("boom")), 1)
    assert.strictEqual(Errors.exitCodeOf("a string"), 1)
  })

  it("exitFor: bad input becomes UsageError (exit 2) keeping its flag, file and line; any other stop RunStopped (exit 1); the words kept", () => {
    const usage = exitFor(new Run.RunInputError({ message: "t.jsonl:3: not JSON", file: "t.jsonl", line: 3 }))
    assert.instanceOf(usage, UsageError)
    assert.strictEqual(usage.message, "t.jsonl:3: not JSON")
    assert.strictEqual(usage[Runtime.errorExitCode], 2)
    assert.deepStrictEqual([usage.flag, usage.file, usage.line], [undefined, "t.jsonl", 3])
    const flagged = exitFor(new Run.RunInputError({ message: "--retry-failed needs --resume", flag: "--retry-failed" }))
    assert.strictEqual((flagged as UsageError).flag, "--retry-failed")
    for (const input of [new CompareInputError({ message: "c" }), new Report.ReportInputError({ message: "r" }), new Rescore.ScoreInputError({ message: "s" })]) {
      const exit = exitFor(input)
      assert.strictEqual(exit._tag, "UsageError")
      assert.strictEqual(exit[Runtime.errorExitCode], 2)
      assert.strictEqual(exit.message, input.message)
    }
    for (const stop of [new Run.RunWriteError({ problem: "w" }), new DatasetError({ path: "hf:a/b", message: "d", transient: true })]) {
      const exit = exitFor(stop)
      assert.instanceOf(exit, RunStopped)
      assert.strictEqual(exit[Runtime.errorExitCode], 1)
      assert.strictEqual(exit.message, stop.message)
    }
  })

  it.effect("reportErrors prints a UsageError not told yet, a RunStopped and a BoundsViolated, by tag; nothing else", () =>
    Effect.gen(function*() {
      const shown = (error: unknown) => Effect.ignore(reportErrors(Effect.fail(error)))
      yield* shown(new UsageError({ message: "bad flag" }))
      yield* shown(new UsageError({ message: "told already", told: true }))
      yield* shown(new RunStopped({ message: "stopped" }))
      yield* shown(new BoundsViolated({ message: "out of bounds" }))
      yield* shown(new Run.RunInputError({ message: "not mapped yet" }))
      yield* shown("a string")
      assert.deepStrictEqual(yield* TestConsole.errorLines, [
        "agent-trials: bad flag",
        "agent-trials: stopped",
        "agent-trials: out of bounds"
      ])
    }))
})

describe("the ports fail with tagged errors of their own", () => {
  it.effect("an agent kind: AgentBuildError, its message the flag and spec at fault joined to the problem", () =>
    Effect.gen(function*() {
      const sim = AgentKinds.parse("sim")
      assert.isFalse(typeof sim === "string")
      const tools = ToolSources.parse("module:tools.ts")
      assert.isFalse(typeof tools === "string")
      const noLoop = yield* Effect.flip(
        AgentKinds.build(sim as AgentKinds.Spec, { model: undefined, apiKey: undefined, cwd: ".", tools: [tools as ToolSources.Spec] })
      )
      assert.strictEqual(noLoop._tag, "AgentBuildError")
      assert.match(noLoop.message, /^--tools needs an agent that runs a tool loop \(openai:BASE_URL or anthropic:BASE_URL or effect-ai:PATH\[#export\]\), not sim/)

      const openai = AgentKinds.parse("openai:https://user:secret@api.example.com/v1")
      const noModel = yield* Effect.flip(AgentKinds.build(openai as AgentKinds.Spec, { model: undefined, apiKey: undefined, cwd: "." }))
      assert.strictEqual(noModel._tag, "AgentBuildError")
      assert.strictEqual(noModel.message, "--agent openai:https://<redacted>@api.example.com/v1 needs --model NAME")

      const missing = path.join(tempDir(), "missing.mjs")
      const module = AgentKinds.parse(`module:${missing}`)
      const notThere = yield* Effect.flip(AgentKinds.build(module as AgentKinds.Spec, { model: undefined, apiKey: undefined, cwd: "." }))
      assert.strictEqual(notThere._tag, "AgentBuildError")
      const built = notThere as AgentKinds.AgentBuildError
      assert.strictEqual(built.where, `--agent module:${missing}`)
      assert.match(built.problem, /^cannot load agent module /)
      assert.strictEqual(built.message, `${built.where}: ${built.problem}`)
    }).pipe(Effect.provide(services)))

  it.effect("a tool source: ToolConnectError, naming where (--tools SPEC) and the problem", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(ModuleTools.fromExport(42, "--tools m.ts"))
      assert.strictEqual(refused._tag, "ToolConnectError")
      assert.strictEqual(refused.where, "--tools m.ts")
      assert.strictEqual(refused.problem, "expected a toolkit with its layer or an object of tools, got a number")
      assert.strictEqual(refused.message, "--tools m.ts: expected a toolkit with its layer or an object of tools, got a number")
      const noExecute = yield* Effect.flip(ModuleTools.fromExport({ lookup: { parameters: {} } }, "--tools m.ts"))
      assert.strictEqual(noExecute.message, "--tools m.ts: tool \"lookup\" needs an execute function ({ description?, parameters, execute })")
      // Two sources with a tool of one name: the registry's own refusal.
      const dir = tempDir()
      for (const name of ["a.mjs", "b.mjs"]) {
        fs.writeFileSync(path.join(dir, name), "export default { add: { parameters: { type: \"object\" }, execute: () => 1 } }\n")
      }
      const specs = ["module:a.mjs", "module:b.mjs"].map((text) => ToolSources.parse(text) as ToolSources.Spec)
      const twice = yield* Effect.flip(Effect.scoped(ToolSources.connectAll(specs, { cwd: dir })))
      assert.strictEqual(twice._tag, "ToolConnectError")
      assert.strictEqual((twice as ToolSources.ToolConnectError).where, "--tools")
      assert.strictEqual(twice.message, "--tools: the tool \"add\" is in both module:a.mjs and module:b.mjs")
    }).pipe(Effect.provide(services)))

  it.effect("an output: OutputWriteError, with its flag and path", () =>
    Effect.gen(function*() {
      const folder = tempDir()
      // A summary that fits its Schema: what fails is the write into a folder.
      const made = Summary.make({
        runId: "run-1",
        resultsFile: "out.jsonl",
        outcome: "finished",
        acc: new Summary.Accumulator(1, undefined),
        probe: new MutableProbe().snapshot(),
        wallMs: 1,
        parallelism: 1,
        usage: { priced: false, unpriced: [], budget: undefined }
      })
      const context = { gated: Gates.withGates(made, []) } as unknown as OutputFormats.Context
      const error = yield* Effect.flip(SummaryOutput.format.write(folder, context))
      assert.strictEqual(error._tag, "OutputWriteError")
      assert.deepStrictEqual([error.flag, error.path], ["--summary", folder])
      assert.strictEqual(error.message, `cannot write --summary ${folder}: it is a folder`)
    }).pipe(Effect.provide(services)))
})

// A run of a few synthetic trials, changed by `patch`.
const configOf = (patch: Partial<Run.RunConfig>): Run.RunConfig => runConfigOf({ synthetic: 3, ...patch })

const refusal = (config: Run.RunConfig) =>
  Effect.flip(Run.run(config)).pipe(
    Effect.provide(services),
    Effect.map((error) => {
      assert.strictEqual(error._tag, "RunInputError")
      return error as Run.RunInputError
    })
  )

describe("a run's bad input names the flag, the file and the line", () => {
  it.effect("a combination of flags: the flag to change", () =>
    Effect.gen(function*() {
      const error = yield* refusal(configOf({ retryFailed: true }))
      assert.strictEqual(error.message, "--retry-failed needs --resume")
      assert.strictEqual(error.flag, "--retry-failed")
      assert.strictEqual(exitFor(error)._tag, "UsageError")
    }))

  it.effect("a bad line of --tasks: the file and its line", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const tasks = path.join(dir, "tasks.jsonl")
      fs.writeFileSync(tasks, "{\"id\":\"t1\",\"inputs\":{\"instruction\":\"a\"}}\nnot json\n")
      const error = yield* refusal(configOf({ synthetic: undefined, tasks, out: path.join(dir, "out.jsonl") }))
      assert.strictEqual(error.file, tasks)
      assert.strictEqual(error.line, 2)
      assert.include(error.message, `${tasks}:2`)
      const usage = exitFor(error) as UsageError
      assert.deepStrictEqual([usage.file, usage.line], [tasks, 2])
    }))

  it.effect("an output that is its input: the output's flag and file", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const tasks = path.join(dir, "tasks.jsonl")
      fs.writeFileSync(tasks, "{\"id\":\"t1\",\"inputs\":{\"instruction\":\"a\"}}\n")
      const error = yield* refusal(configOf({ synthetic: undefined, tasks, out: tasks }))
      assert.strictEqual(error.message, `--out ${tasks} is the same file as --tasks ${tasks}: writing it would destroy that input; choose another file`)
      assert.deepStrictEqual([error.flag, error.file], ["--out", tasks])
    }))

  it.effect("an agent that cannot be built is bad input, routed by its tag (a --score scorer too)", () =>
    Effect.gen(function*() {
      const missing = path.join(tempDir(), "missing.mjs")
      const agent = AgentKinds.parse(`module:${missing}`) as AgentKinds.Spec
      const error = yield* refusal(configOf({ agent }))
      assert.match(error.message, new RegExp(`^--agent module:${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: cannot load agent module `))
      assert.strictEqual(Errors.exitCodeOf(error), 2)
      const scored = yield* refusal(configOf({ score: ["nope"] }))
      assert.strictEqual(scored.flag, "--score")
    }))
})

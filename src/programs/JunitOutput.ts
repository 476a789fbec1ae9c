/**
 * `--junit FILE`: the run as JUnit XML, a `<testcase>` per task, for a CI
 * test reporter (`report/ci/Junit.ts` says what it holds). It reads the
 * results file back, a trial at a time, and keeps a few counts a task;
 * the testcases are in the order of their task ids.
 *
 * @since 0.9.0
 */
import { Effect, Stream } from "effect"
import { writeOutput } from "../internal/outputs.ts"
import * as Junit from "../report/ci/Junit.ts"
import { Tasks } from "../report/ci/Tasks.ts"
import * as ResultsStores from "../results/ResultsStores.ts"
import type { ScoringSummary } from "../summary/Summary.ts"
import { scrubber } from "./internal/ci.ts"
import { Registry } from "./internal/kinds.ts"
import * as Recorded from "./Recorded.ts"
import { type OutputFormat, OutputWriteError, type Services } from "./Output.ts"

/**
 * The scorers that decide whether a trial passed, as the summary judged it.
 *
 * @category formats
 * @since 0.9.0
 */
export const decisive = (scoring: ScoringSummary | undefined): ReadonlyArray<string> =>
  scoring === undefined ? [] : scoring.pass_rule === "every scorer" ? Object.keys(scoring.scorers) : [scoring.pass_rule]

/**
 * What `writeJunit` is made from.
 *
 * @category models
 * @since 0.9.0
 */
export interface JunitInput {
  /** The flag that asked for it, `--junit`. */
  readonly flag: string
  readonly path: string
  /** The results file read back. */
  readonly results: string
  /** The results file whose run definition names the agent (`results` when undefined). */
  readonly definitionOf?: string | undefined
  /** The suite's name: the run's id (the agent and model its run definition records are added). */
  readonly name: string
  /** Each testcase's classname: the dataset. */
  readonly classname: string
  readonly epochs: number
  readonly wallSeconds: number
  readonly scoring: ScoringSummary | undefined
  /** A task passes when at least this fraction of its trials passed. */
  readonly taskPass: number
}

/**
 * Reads `results` and writes its JUnit XML to `path`; a failure (the file
 * unreadable, the output unwritable) is `OutputWriteError` naming the flag.
 *
 * @category formats
 * @since 0.9.0
 */
export const writeJunit = (input: JunitInput): Effect.Effect<void, OutputWriteError, Services> =>
  Effect.gen(function*() {
    const kinds = yield* Registry
    const tasks = new Tasks(decisive(input.scoring))
    yield* ResultsStores.storeOf(input.results, kinds.stores).read(input.results).pipe(
      Stream.runForEach(({ trial }) => Effect.sync(() => tasks.add(trial))),
      Effect.mapError((e) => ({ message: `cannot write ${input.flag} ${input.path}: ${e.message}` }))
    )
    const scrub = yield* scrubber
    // The agent (and model) the run recorded beside its results, when it did.
    const recorded = yield* Recorded.definitionOf(input.definitionOf ?? input.results)
    const agent = recorded === undefined ? "" : ` (${recorded.agent}${recorded.model === null ? "" : ` ${recorded.model}`})`
    const xml = Junit.toXml({
      name: `${input.name}${agent}`,
      classname: input.classname,
      epochs: input.epochs,
      wallSeconds: input.wallSeconds,
      passRate: input.scoring?.pass_rate ?? null,
      taskPass: input.taskPass,
      scrub
    }, [...tasks.byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    yield* writeOutput(input.flag, input.path, xml)
  }).pipe(Effect.mapError((e) => new OutputWriteError({ flag: input.flag, path: input.path, message: e.message })))

/**
 * The output format.
 *
 * @category formats
 * @since 0.9.0
 */
export const format: OutputFormat = {
  flag: "junit",
  description: "Also write JUnit XML to this file: a testcase per task, failed below --task-pass (for CI test reporters)",
  doc: "JUnit XML: a `<testsuite>` for the run (pass rate and pass^k in its properties), a `<testcase>` per task, " +
    "failed when fewer than `--task-pass` of its epochs passed, with the failing scores in `<failure>` and a failed trial's error in `<error>`",
  readsResults: true,
  write: (path, context) =>
    writeJunit({
      flag: "--junit",
      path,
      results: context.out,
      name: context.summary.run_id,
      classname: context.summary.dataset?.source ?? "agent-trials",
      epochs: context.summary.epochs,
      wallSeconds: context.summary.wall_time_s,
      scoring: context.summary.scoring,
      taskPass: context.taskPass ?? 1
    }),
  writeScore: (path, context) =>
    writeJunit({
      flag: "--junit",
      path,
      results: context.out,
      name: context.summary.run_id,
      definitionOf: context.summary.input_file,
      classname: context.summary.input_file,
      epochs: context.summary.epochs,
      wallSeconds: context.summary.wall_time_s,
      scoring: context.summary.scoring,
      taskPass: context.taskPass ?? 1
    })
}

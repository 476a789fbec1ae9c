/**
 * The end of a run, whatever the outcome: the summary, the outputs and the
 * gates (`finish`), then the exit (`exitDecision`): a write failure first,
 * then an output that could not be written, then a failed gate.
 *
 * @since 0.7.0
 */
import { Clock, Console, Effect, Exit, FileSystem, Schema } from "effect"
import * as Results from "../../results/Results.ts"
import * as Stage from "../../scoring/Stage.ts"
import * as Gates from "../../summary/Gates.ts"
import * as Workspaces from "./stages/Workspaces.ts"
import * as Summary from "../../summary/Summary.ts"
import * as BadInput from "../BadInput.ts"
import { appendStepSummary } from "../internal/ci.ts"
import * as MarkdownOutput from "../MarkdownOutput.ts"
import type { OutputWriteError } from "../Output.ts"
import { outputPath } from "./Config.ts"
import * as End from "./End.ts"
import { itemsOf } from "./Inputs.ts"
import type { MutableCounts } from "./internal/counts.ts"
import type { RunPlan } from "./Prepare.ts"

/**
 * The results file, or an output, could not be written (exit code 1; the
 * input was fine). `flag` and `path` name the file when known (`--out` for
 * the results file, an output's own flag), `problem` is the write's own
 * error, and `lost` the trials the results file lost: only when it is the
 * results file that failed, which stopped the run.
 *
 * @category errors
 * @since 0.1.0
 */
export class RunWriteError extends Schema.TaggedError<RunWriteError>()("RunWriteError", {
  flag: Schema.optionalKey(Schema.String),
  path: Schema.optionalKey(Schema.String),
  lost: Schema.optionalKey(Schema.Number),
  problem: Schema.String
}) {
  override get message(): string {
    return this.lost === undefined
      ? this.problem
      : `${this.problem}; the run stopped (the summary counts what the file holds; --resume runs the rest)`
  }
}

/**
 * A `--fail-under` gate failed on a run that otherwise finished (exit code 1):
 * `results` are every gate's result, the failed ones among them.
 *
 * @category errors
 * @since 0.1.0
 */
export class RunGateFailed extends Schema.TaggedError<RunGateFailed>()("RunGateFailed", {
  results: Schema.Array(Gates.GateResult)
}) {
  override get message(): string {
    return new Gates.GatesFailed({ results: this.results }).message
  }
}

/**
 * How a run ended: its exit, and what it counted.
 *
 * @category models
 * @since 0.7.0
 */
export interface Outcome {
  readonly exit: Exit.Exit<unknown, unknown>
  readonly counts: MutableCounts
}

/**
 * Prints the summary (and the gates), writes the outputs, and notes in
 * `counts` a failed gate and the outputs that could not be written, for
 * `exitDecision`.
 *
 * @category running
 * @since 0.7.0
 */
export const finish = (plan: RunPlan, ended: Outcome) =>
  Effect.gen(function*() {
    const { exit, counts } = ended
    const { config, kinds, scorers, scoreParallelism, pricing, budgets, budgeted, spent, gates, runId, out, say, acc } = plan
    const { rows, read, revisions, named, estimateTotal, started } = plan
    const outcome = Summary.outcomeOf(exit, counts.writeFailure !== undefined)
    if (plan.wroteDefinition) yield* BadInput.dropLoneDefinition(out)
    const told = yield* BadInput.tellFirst(exit, outcome)
    const made = Summary.make({
      runId,
      resultsFile: out,
      outcome,
      acc,
      probe: counts.probe.snapshot(),
      wallMs: (yield* Clock.currentTimeMillis) - started,
      parallelism: config.parallelism,
      passK: config.passK,
      // A --cluster run's scorers run on the workers: no scoring stage here to report.
      scoring: scorers.length === 0 || config.remote !== undefined ? undefined : {
        probe: counts.scoreProbe.snapshot(),
        parallelism: scoreParallelism,
        judgeParallelism: scorers.some(Stage.isJudge) ? config.judgeParallelism ?? scoreParallelism : undefined
      },
      usage: { priced: pricing !== undefined, unpriced: pricing?.unpriced() ?? [], budget: budgeted ? spent.of(budgets) : undefined }
    })
    const withDataset = read === undefined || config.tasks === undefined ? made : {
      ...made,
      dataset: { source: config.tasks, ...read, rows, ...(revisions.now === undefined ? {} : { revision: revisions.now }) }
    }
    const summary = config.estimate !== true ? withDataset : {
      ...withDataset,
      estimate: Summary.estimateSummary(acc.usage.sample, estimateTotal, pricing !== undefined)
    }
    const gated = Gates.withGates(summary, gates)
    counts.gateFailure = Gates.failed(gated.gates ?? [])
    yield* named.sayWhenWritten(() => counts.written)
    if (!told || acc.thisRun.completed + acc.thisRun.failed + acc.thisRun.partial > 0) {
      yield* say(Summary.format(summary) + Gates.formatText(gated.gates))
      for (const line of Workspaces.summaryLines(counts)) yield* say(line)
    }
    const lost = (e: OutputWriteError) =>
      Exit.isSuccess(exit)
        ? Effect.sync(() => {
          counts.unwritten.push(e.message)
          counts.unwrittenOutputs.push(e)
        })
        : Console.error(`agent-trials: ${e.message}`)
    // The run's tasks are read again only by an output that asks for them.
    const context = {
      out,
      summary,
      gated,
      tasks: config.tasks === "-" ? undefined : itemsOf(config, { chosen: false }),
      say,
      taskPass: config.taskPass
    }
    for (const output of kinds.outputs) {
      const file = outputPath(config, output)
      // A run stopped by bad input is reported on only by the outputs that
      // say so (a summary, not a report of a run that never ran as asked).
      if (file === undefined || (outcome === "input_error" && output.afterInputError !== true)) continue
      yield* output.write(file, context).pipe(Effect.catchTag("OutputWriteError", lost))
    }
    // GitHub Actions shows what a step appends to this file on the job's page.
    if (outcome !== "input_error") {
      yield* appendStepSummary(yield* MarkdownOutput.render({ ...gated, title: `run ${summary.run_id}` }))
    }
    // Last, so a reader seeing it knows the file is complete: how the run ended (a marker beside the results).
    // Beside a regular file only (not a device or a pipe such as /dev/stdout), as the run's definition.
    const regular = yield* (yield* FileSystem.FileSystem).stat(out).pipe(Effect.map((info) => info.type === "File"), Effect.orElseSucceed(() => false))
    if (outcome !== "input_error" && regular) {
      const endedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
      yield* End.write(out, { run_id: runId, ended_at: endedAt, outcome, written: counts.written }).pipe(
        Effect.catch((e) => Console.error(`agent-trials: warning: cannot write ${End.pathOf(out)}: ${e.message}`))
      )
    }
  })

/**
 * The run's exit, once `finish` has run: a write failure decides it whatever
 * else went wrong (trials were lost); then an output that could not be
 * written; last, a failed gate.
 *
 * @category running
 * @since 0.7.0
 */
export const exitDecision = (counts: MutableCounts) => <A, E extends { readonly _tag: string; readonly message: string }, R>(self: Effect.Effect<A, E, R>) =>
  self.pipe(
    // A write failure decides the exit whatever else went wrong: trials were lost.
    Effect.mapError((e): E | Results.ResultsWriteError => counts.writeFailure ?? e),
    Effect.catchIf(
      (e): e is Results.ResultsWriteError => e instanceof Results.ResultsWriteError,
      (e) => Effect.fail(new RunWriteError({ flag: "--out", path: e.path, lost: e.lost, problem: e.message }))
    ),
    Effect.andThen(Effect.suspend(() => {
      const last = counts.unwritten[counts.unwritten.length - 1]
      if (last === undefined) return Effect.void
      const output = counts.unwrittenOutputs.filter((o) => o.message === last).pop()
      return Effect.andThen(
        Effect.forEach(counts.unwritten.slice(0, -1), (message) => Console.error(`agent-trials: ${message}`)),
        new RunWriteError({ ...(output === undefined ? undefined : { flag: output.flag, path: output.path }), problem: last })
      )
    })),
    // Last: a run that finished and wrote everything, below a --fail-under gate.
    Effect.andThen(Effect.suspend(() =>
      counts.gateFailure === undefined ? Effect.void : Effect.fail(new RunGateFailed({ results: counts.gateFailure.results }))
    ))
  )

/**
 * `agent-trials run`: a dataset streamed through an agent by the bounded
 * runner, every trial appended to a results file as it finishes, resumable
 * after a crash, with progress and a summary.
 *
 * Data flows one way: dataset -> (skip what is recorded) -> runner ->
 * scoring stage (when there are scorers) -> writer, with the probes read by
 * progress and summary.
 *
 * @since 0.1.0
 */
import { Clock, Console, Effect, Exit, Metric, Schema, Stream } from "effect"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import { MutableCounts } from "./internal/counts.ts"
import * as Policy from "../../runner/Policy.ts"
import { RunInputError } from "../../runner/Remote.ts"
import * as Progress from "./Progress.ts"
import * as Results from "../../results/Results.ts"
import { DEFAULT_ESTIMATE_TRIALS, DEFAULT_SYNTHETIC, outputPath, policyOptions, type RunConfig, scoreSpecs } from "./Config.ts"
import * as Budget from "./Budget.ts"
import * as BadInput from "../BadInput.ts"
import * as ToolsStop from "./ToolsStop.ts"
import * as Pricing from "../../summary/Pricing.ts"
import * as Telemetry from "../../runner/Telemetry.ts"
import * as Usage from "../../domain/Usage.ts"
import { itemsOf, runSize, sourceError, toUnits } from "./Inputs.ts"
import { prepare } from "./Prepare.ts"
import { runPaired } from "../../runner/Runner.ts"
import * as Gates from "../../summary/Gates.ts"
import * as Labels from "../../summary/Labels.ts"
import * as Stage from "../../scoring/Stage.ts"
import * as Summary from "../../summary/Summary.ts"
import { trialId } from "../../domain/Trial.ts"

// Declared beside what uses them; `Run.*` is still the way in for the CLI and the tests.
export { DEFAULT_SYNTHETIC, type RunConfig, scoreSpecs } from "./Config.ts"
export { InvalidTask, type Remote, type RemoteConfig, RunInputError } from "../../runner/Remote.ts"

/**
 * The results file could not be written: the run stopped (exit code 1; the
 * input was fine).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunWriteError extends Schema.TaggedError<RunWriteError>()("RunWriteError", {
  message: Schema.String
}) {}

/**
 * A `--fail-under` gate failed on a run that otherwise finished (exit code 1).
 *
 * @category errors
 * @since 0.1.0
 */
export class RunGateFailed extends Schema.TaggedError<RunGateFailed>()("RunGateFailed", {
  message: Schema.String
}) {}

export { makeRunId } from "./Prepare.ts"

/**
 * Runs the job. Fails with `RunInputError` on bad flags or input (after
 * recording what was done), and is interruptible at any point: in-flight calls
 * are interrupted, every finished trial is flushed, the summary is printed.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.fn("Run.run")(function*(config: RunConfig) {
  // What the stages count, owned by the run: written by its stages, read by progress and the end.
  const counts = new MutableCounts(config.tasks === undefined ? (config.synthetic ?? DEFAULT_SYNTHETIC) * config.epochs : undefined)
  const plan = yield* prepare(config, counts)
  const {
    kinds,
    agent,
    scorers,
    scoreParallelism,
    pricing,
    sayUnpriced,
    budgets,
    budgeted,
    spent,
    gates,
    runId,
    out,
    say,
    labelOptions,
    acc,
    ids,
    rows,
    read,
    revisions,
    store,
    recorded,
    named,
    estimateTotal,
    started
  } = plan
  const input = (e: { readonly message: string }) => new RunInputError({ message: e.message })

  const units = itemsOf(config, { chosen: true, ids, onSource: revisions.onSource }).pipe(
    Stream.mapError(sourceError),
    (items) => revisions.check(items),
    Stream.mapArray((items) => {
      for (const item of items) if (item._tag === "Invalid") counts.invalidLines++
      return toUnits(items, config.epochs)
    }),
    Stream.filter((unit) => {
      if (!recorded.ids.has(trialId(unit.task.id, unit.epoch))) return true
      counts.skipped++
      return false
    }),
    // An estimate runs the first trials not yet recorded, then stops.
    (all) => config.estimate === true ? Stream.take(all, config.estimateTrials ?? DEFAULT_ESTIMATE_TRIALS) : all,
    (all) => budgeted ? Budget.admitWithin(all, budgets, spent) : all
  )
  const finish = (exit: Exit.Exit<unknown, unknown>) =>
    Effect.gen(function*() {
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
      }
      const lost = (message: string) =>
        Exit.isSuccess(exit) ? Effect.sync(() => counts.unwritten.push(message)) : Console.error(`agent-trials: ${message}`)
      // The run's tasks are read again only by an output that asks for them.
      const context = { out, summary, gated, tasks: config.tasks === "-" ? undefined : itemsOf(config, { chosen: false }), say }
      for (const output of kinds.outputs) {
        const file = outputPath(config, output)
        // A run stopped by bad input is reported on only by the outputs that
        // say so (a summary, not a report of a run that never ran as asked).
        if (file === undefined || (outcome === "input_error" && output.afterInputError !== true)) continue
        yield* output.write(file, context).pipe(Effect.catch(lost))
      }
    })

  return yield* Effect.scoped(Effect.gen(function*() {
    // Forked before the writer, so the scope stops it after the writer's
    // final flush: its last line counts every trial that reached the file.
    if (config.progress) {
      if (config.tasks !== undefined) {
        yield* DatasetFormats.count(config.tasks, config.format, kinds.datasets, config).pipe(
          Effect.tap((n) => Effect.sync(() => void (counts.total = runSize(config, ids, n)))),
          Effect.forkScoped
        )
      }
      yield* Progress.display(
        {
          probe: counts.probe,
          recorded: acc.thisRun,
          skipped: () => counts.skipped,
          // A bad line is one record whatever the epochs; the count saw it as a task.
          total: () => counts.total === undefined ? undefined : counts.total - counts.invalidLines * (config.epochs - 1),
          parallelism: config.parallelism
        },
        // The live line is redrawn in place: written as it is, without the
        // newline `Console.error` would add.
        { tty: config.tty, interval: config.progressInterval, write: (text) => process.stderr.write(text) }
      ).pipe(Effect.forkScoped)
    }
    // The summary counts a trial once its line is on disk, so it never
    // reports trials that a failed write lost.
    const sink = counts.writer = yield* store.writer(out, { onWritten: (trial) => acc.add(trial) })
    const announce = named.sayWhenWritten(sink.written)
    const remote = config.remote
    // Each trial with its task, its record carrying what it says of the task
    // (Labels: epochs, cluster, groups).
    const finished = Stream.map(
      remote !== undefined
        ? remote(units, { config, out, scoreSpecs: scoreSpecs(config), probe: counts.probe })
        : runPaired(units, agent, { parallelism: config.parallelism, probe: counts.probe, ...policyOptions(config) }),
      ({ trial, unit }): Stage.Finished => ({
        task: unit.task,
        trial: {
          ...trial,
          metadata: {
            ...trial.metadata,
            ...Labels.ofTask(unit.task, labelOptions),
            ...(revisions.now === undefined ? {} : { dataset_revision: revisions.now })
          }
        }
      })
    )
    // Written once, after scoring: a recorded trial carries its scores, so a
    // resume never scores a trial twice nor records one unscored.
    const scored = scorers.length === 0 || remote !== undefined
      ? Stream.map(finished, (f) => f.trial)
      : Stage.scoreTrials(finished, {
        scorers,
        parallelism: scoreParallelism,
        judgeParallelism: config.judgeParallelism,
        probe: counts.scoreProbe
      })
    // Priced (with --pricing) before the budgets count them and the file records them.
    const priced = pricing === undefined
      ? scored
      : Stream.tap(Stream.map(scored, (trial) => Pricing.priceTrial(pricing, trial)), (trial) => {
        const cost = (Usage.ofTrial(trial)?.cost_usd ?? 0) + (Usage.ofScores(trial)?.cost_usd ?? 0)
        return cost > 0 ? Effect.andThen(sayUnpriced, Metric.update(Telemetry.costUsd, cost)) : sayUnpriced
      })
    const tooled = config.tools === undefined || config.tools.length === 0 ? priced : ToolsStop.stopOnDeadServer(priced)
    yield* (budgeted ? Budget.stopOnBudget(tooled, budgets, spent) : tooled).pipe(
      Stream.runForEach((trial) => Effect.andThen(sink.append(trial), announce)),
      Effect.mapError((e) =>
        e instanceof RunInputError || e instanceof Policy.MaxFailuresExceeded || e instanceof Results.ResultsWriteError || e._tag === "DatasetError" ||
          e instanceof Budget.BudgetExceeded || e instanceof ToolsStop.ToolServerFailed
          ? e
          : input(e)
      )
    )
    yield* sink.flush
  })).pipe(
    // The writer's scope is closed (every finished trial flushed) before the
    // summary is printed, whatever the outcome.
    Effect.onExit((exit) => finish(exit)),
    // A write failure decides the exit whatever else went wrong: trials were lost.
    Effect.mapError((e) => counts.writeFailure ?? e),
    Effect.mapError((e) =>
      e instanceof Results.ResultsWriteError
        ? new RunWriteError({
          message: `${e.message}; the run stopped (the summary counts what the file holds; --resume runs the rest)`
        })
        : e
    ),
    Effect.andThen(Effect.suspend(() =>
      counts.unwritten.length === 0 ? Effect.void : Effect.andThen(
        Effect.forEach(counts.unwritten.slice(0, -1), (message) => Console.error(`agent-trials: ${message}`)),
        new RunWriteError({ message: counts.unwritten[counts.unwritten.length - 1]! })
      )
    )),
    // Last: a run that finished and wrote everything, below a --fail-under gate.
    Effect.andThen(Effect.suspend(() =>
      counts.gateFailure === undefined ? Effect.void : Effect.fail(new RunGateFailed({ message: counts.gateFailure.message }))
    ))
  )
}, Effect.scoped)

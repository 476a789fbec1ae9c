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
import { Effect, Metric, Stream } from "effect"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import { MutableCounts } from "./internal/counts.ts"
import * as Policy from "../../runner/Policy.ts"
import { RunInputError } from "../../runner/Remote.ts"
import * as Progress from "./Progress.ts"
import * as Results from "../../results/Results.ts"
import { DEFAULT_ESTIMATE_TRIALS, DEFAULT_SYNTHETIC, policyOptions, type RunConfig, scoreSpecs } from "./Config.ts"
import * as Budget from "./Budget.ts"
import * as ToolsStop from "./ToolsStop.ts"
import * as Pricing from "../../summary/Pricing.ts"
import * as Telemetry from "../../runner/Telemetry.ts"
import * as Usage from "../../domain/Usage.ts"
import { itemsOf, runSize, sourceError, toUnits } from "./Inputs.ts"
import { prepare } from "./Prepare.ts"
import { exitDecision, finish } from "./Finish.ts"
import { runPaired } from "../../runner/Runner.ts"
import * as Labels from "../../summary/Labels.ts"
import * as Stage from "../../scoring/Stage.ts"
import { trialId } from "../../domain/Trial.ts"

// Declared beside what uses them; `Run.*` is still the way in for the CLI and the tests.
export { DEFAULT_SYNTHETIC, type RunConfig, scoreSpecs } from "./Config.ts"
export { InvalidTask, type Remote, type RemoteConfig, RunInputError } from "../../runner/Remote.ts"
export { RunGateFailed, RunWriteError } from "./Finish.ts"
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
    out,
    labelOptions,
    acc,
    ids,
    revisions,
    store,
    recorded,
    named
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
    Effect.onExit((exit) => finish(plan, { exit, counts })),
    exitDecision(counts)
  )
}, Effect.scoped)

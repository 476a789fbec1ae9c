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
import { Clock, Console, Effect, Exit, Metric, Path, Random, Schema, Stream } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../../domain/Agent.ts"
import * as AgentKinds from "../../agents/AgentKinds.ts"
import * as Choose from "../../datasets/Choose.ts"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import * as Mapping from "../../datasets/Mapping.ts"
import { checkDistinct } from "../../internal/outputs.ts"
import { MutableCounts } from "./internal/counts.ts"
import * as Policy from "../../runner/Policy.ts"
import { RunInputError } from "../../runner/Remote.ts"
import * as Kinds from "../Kinds.ts"
import * as Progress from "./Progress.ts"
import * as Results from "../../results/Results.ts"
import * as ResultsStores from "../../results/ResultsStores.ts"
import * as RunDefinition from "./Definition.ts"
import { DEFAULT_ESTIMATE_TRIALS, DEFAULT_SYNTHETIC, outputPath, policyOptions, type RunConfig, scoreSpecs, validate } from "./Config.ts"
import * as Budget from "./Budget.ts"
import * as BadInput from "../BadInput.ts"
import * as ToolsStop from "./ToolsStop.ts"
import * as Pricing from "../../summary/Pricing.ts"
import * as Telemetry from "../../runner/Telemetry.ts"
import * as Usage from "../../domain/Usage.ts"
import { buildScorers, itemsOf, runSize, selectionOf, sourceError, toUnits } from "./Inputs.ts"
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

/**
 * A run id: UTC time to the second plus a random suffix of six base-36
 * digits from `suffix`, a draw in [0, 1).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeRunId = (now: Date, suffix: number): string =>
  `${now.toISOString().slice(0, 19).replace(/[:]/g, "-")}-${Math.floor(suffix * 36 ** 6).toString(36).padStart(6, "0")}`

// A fresh run id from the Clock and Random services.
const newRunIdOf = Effect.gen(function*() {
  return makeRunId(new Date(yield* Clock.currentTimeMillis), yield* Random.next)
})

/**
 * Runs the job. Fails with `RunInputError` on bad flags or input (after
 * recording what was done), and is interruptible at any point: in-flight calls
 * are interrupted, every finished trial is flushed, the summary is printed.
 *
 * @category running
 * @since 0.1.0
 */
export const run = Effect.fn("Run.run")(function*(config: RunConfig) {
  const invalidConfig = validate(config)
  if (invalidConfig) return yield* invalidConfig
  const path = yield* Path.Path
  // What the stages count, owned by the run: written by its stages, read by progress and the end.
  const counts = new MutableCounts(config.tasks === undefined ? (config.synthetic ?? DEFAULT_SYNTHETIC) * config.epochs : undefined)
  const kinds = config.kinds ?? Kinds.builtIn
  const input = (e: { readonly message: string }) => new RunInputError({ message: e.message })
  yield* checkDistinct({
    inputs: [
      { flag: "--tasks", path: config.tasks },
      { flag: "--agent", path: AgentKinds.kindOf(config.agent, kinds.agents).input?.(config.agent) }
    ],
    outputs: [
      { flag: "--out", path: config.out },
      ...kinds.outputs.map((o) => ({ flag: `--${o.flag}`, path: outputPath(config, o) }))
    ],
    cwd: config.cwd
  }).pipe(Effect.mapError(input))

  // A --cluster run's agent is the workers' own.
  const agent: Agent<unknown, HttpClient.HttpClient> = config.remote === undefined
    ? yield* AgentKinds.build(config.agent, { ...config, retry: Policy.retryOf(config) }, kinds.agents)
      .pipe(Effect.mapError((e) =>
        // A tool server that does not answer is not bad input: exit 1, not 2.
        typeof e === "string"
          ? new RunInputError({ message: e })
          : new ToolsStop.ToolServerFailed({ message: `${e.message}; the run stopped before its first trial` })
      ))
    : () => Effect.die("a --cluster run calls no agent here")
  const scorers = yield* buildScorers(config)
  const pricing = config.pricing === undefined ? undefined : Pricing.make(
    config.pricing,
    yield* Pricing.load(path.resolve(config.cwd, config.pricing)).pipe(Effect.mapError(input)),
    (model) => counts.unpricedPending.push(model)
  )
  const sayUnpriced = Effect.suspend(() =>
    counts.unpricedPending.length === 0 ? Effect.void : Effect.forEach(counts.unpricedPending.splice(0), (model) =>
      Console.error(
        `agent-trials: warning: model ${JSON.stringify(model)} is not in --pricing ${config.pricing}: its tokens are priced at $0`
      ))
  )
  const budgets: Budget.Budgets = { maxCost: config.maxCost, maxTokens: config.maxTokens }
  const budgeted = budgets.maxCost !== undefined || budgets.maxTokens !== undefined
  const spent = new Budget.Spent()
  const gates = config.failUnder ?? []
  yield* Effect.fromResult(Gates.check(gates, scorers.map((s) => s.name))).pipe(Effect.mapError(input))
  const newRunId = yield* newRunIdOf
  const out = config.out === undefined ? path.join("runs", `${newRunId}.jsonl`) : Results.outPath(config.out)
  // With the results on stdout, every other line goes to stderr.
  const say = Results.isStdout(out) ? Console.error : Console.log
  const labelOptions = {
    epochs: config.epochs,
    clusterBy: Labels.clusterBy(config.stderrCluster, config.epochs),
    groupBy: config.groupBy ?? []
  }
  const acc = new Summary.Accumulator(
    config.epochs,
    scorers.length === 0
      ? undefined
      : { scorers: scorers.map((s) => s.name), pass: config.pass, stderrCluster: labelOptions.clusterBy }
  )
  const scoreParallelism = config.scoreParallelism ?? config.parallelism
  // What the dataset is and which of its rows the run takes: recorded in
  // the definition and the summary. The --ids file is read once, here.
  const ids = config.ids === undefined ? undefined : yield* Choose.readIds(path.resolve(config.cwd, config.ids)).pipe(Effect.mapError(input))
  const rows = Choose.recorded(selectionOf(config, ids))
  const format = config.tasks === undefined ? undefined : DatasetFormats.formatOf(config.tasks, config.format, kinds.datasets)
  const read = format === undefined || typeof format === "string"
    ? undefined
    : { format: format.name, map: Mapping.recorded(config.map), json_path: config.jsonPath ?? null }
  const revisions = new RunDefinition.Revisions(config.tasks)
  // Checked before the results file is touched (a refused --retry-failed
  // must not have rewritten it); written once it is ready for appending.
  const definition = yield* RunDefinition.make({
    ...config,
    agents: kinds.agents,
    scorerKinds: kinds.scorers,
    scorers: scoreSpecs(config),
    synthetic: config.synthetic ?? DEFAULT_SYNTHETIC,
    read,
    rows
  }, newRunId)
  const checked = yield* RunDefinition.check(out, definition, config.resume).pipe(Effect.mapError(input))
  // A resume continues its run: the summary names the run the file belongs to.
  const runId = checked.runId ?? newRunId
  const store = ResultsStores.storeOf(out, kinds.stores)
  const recorded = yield* store.prepare(out, {
    resume: config.resume,
    retryFailed: config.retryFailed,
    // Priced as this run prices, so a budget counts what they spent.
    onPrior: (recorded) => {
      const trial = pricing === undefined ? recorded : Pricing.priceTrial(pricing, recorded)
      acc.add(trial, true)
      spent.add(trial)
      revisions.onPrior(trial)
    }
  }).pipe(Effect.mapError(input))
  yield* sayUnpriced
  if (checked.write && definition !== undefined) yield* RunDefinition.write(out, definition).pipe(Effect.mapError(input))
  const named = yield* BadInput.resultsLine(out, say)
  if (recorded.kept + recorded.droppedFailed > 0 || recorded.repairedBytes > 0) {
    yield* say(
      `resuming: ${recorded.kept} trials already recorded` +
        (recorded.droppedFailed > 0 ? `, ${recorded.droppedFailed} failed ones to run again` : "") +
        (recorded.repairedBytes > 0 ? `, ${recorded.repairedBytes} bytes of a torn last line removed` : "")
    )
  }

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
  // The whole run's size, which an estimate projects to.
  const estimateTotal = config.estimate !== true
    ? undefined
    : config.tasks === undefined
    ? (config.synthetic ?? DEFAULT_SYNTHETIC) * config.epochs
    : yield* DatasetFormats.count(config.tasks, config.format, kinds.datasets, config).pipe(Effect.map((n) => runSize(config, ids, n)))

  const started = yield* Clock.currentTimeMillis
  const finish = (exit: Exit.Exit<unknown, unknown>) =>
    Effect.gen(function*() {
      const outcome = Summary.outcomeOf(exit, counts.writeFailure !== undefined)
      if (checked.write) yield* BadInput.dropLoneDefinition(out)
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

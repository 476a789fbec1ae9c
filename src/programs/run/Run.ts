/**
 * `agent-trials run`: a dataset streamed through an agent by the bounded
 * runner, every trial appended to a results file as it finishes, resumable
 * after a crash, with progress and a summary.
 *
 * `prepare` checks and builds everything first (a `RunPlan`); then data
 * flows one way through the stages of stages/: source -> choose -> execute
 * -> label -> score -> price -> stop -> record, each counting what it sees
 * in the run's `Counts`, read by progress and by `finish`, which prints the
 * summary, writes the outputs and decides the exit.
 *
 * @since 0.1.0
 */
import { Effect, Function } from "effect"
import * as ResponseCache from "../../cache/ResponseCache.ts"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import { RunInputError } from "../../runner/Remote.ts"
import * as Progress from "./Progress.ts"
import { DEFAULT_ESTIMATE_TRIALS, policyOptions, type RunConfig, scoreSpecs } from "./Config.ts"
import { runSize } from "./Inputs.ts"
import { prepare } from "./Prepare.ts"
import { exitDecision, finish } from "./Finish.ts"
import * as Cached from "./stages/Cached.ts"
import * as Choose from "./stages/Choose.ts"
import * as Execute from "./stages/Execute.ts"
import * as Label from "./stages/Label.ts"
import * as Price from "./stages/Price.ts"
import * as Record from "./stages/Record.ts"
import * as Score from "./stages/Score.ts"
import * as Source from "./stages/Source.ts"
import * as Stop from "./stages/Stop.ts"
import * as Workspaces from "./stages/Workspaces.ts"

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
export const run = Effect.fn("Run.run")(function*(options: RunConfig) {
  const plan = yield* prepare(options)
  const {
    // What the stages count, owned by the run: written by its stages, read by progress and the end.
    counts,
    config,
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
  const input = (e: { readonly message: string }) => RunInputError.from(e)

  const budget = budgeted ? { budgets, spent } : undefined
  // The units are read as the runner asks for them: built here, read in the scope below.
  const units = Source.units({ config, ids, revisions, counts }).pipe(
    Choose.choose({
      recorded: recorded.ids,
      take: config.estimate === true ? config.estimateTrials ?? DEFAULT_ESTIMATE_TRIALS : undefined,
      budget,
      counts
    })
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
    // `--cache`: opened for the run, closed with its scope; a cache that cannot be opened is bad input.
    const cache = yield* Cached.open(config).pipe(Effect.mapError(input))
    const announce = named.sayWhenWritten(sink.written)
    const remote = config.remote
    const paced = Cached.paceMisses(agent, config, cache)
    // `--workspace`: opened after the writer, so it is closed (the workspaces
    // of interrupted trials removed) before the writer's last flush.
    const pool = yield* Workspaces.open(config, plan.runId, counts, plan.sandbox).pipe(
      // A folder the workspaces cannot go under is bad input.
      Effect.mapError((e) => new RunInputError({ message: `--workspace-dir: ${e.message}`, flag: "--workspace-dir", file: e.path }))
    )
    yield* units.pipe(
      Execute.execute({
        agent: paced.agent,
        runner: { parallelism: config.parallelism, ...policyOptions(config), rate: paced.rate },
        probe: counts.probe,
        admit: Workspaces.admit(pool),
        remote: remote === undefined ? undefined : { run: remote, config, out, scoreSpecs: scoreSpecs(config) }
      }),
      Label.label({ labels: labelOptions, revisions }),
      // No scoring stage here without scorers, nor on a --cluster run (its workers score).
      Score.score(
        scorers.length === 0 || remote !== undefined ? undefined : {
          scorers,
          parallelism: scoreParallelism,
          judgeParallelism: config.judgeParallelism,
          probe: counts.scoreProbe
        }
      ),
      Workspaces.release(pool),
      Cached.mark(cache?.tallies),
      Price.price({ pricing, sayUnpriced }),
      Stop.stop({ deadServer: config.tools !== undefined && config.tools.length > 0, budget }),
      Record.record({ sink, announce }),
      // Every failure of the pipeline is routed here, once: a scoring parallelism or a dataset
      // revision refused is bad input; the rest stop the run as they are.
      Effect.catchTags({ InvalidParallelism: (e) => Effect.fail(input(e)), RunDefinitionError: (e) => Effect.fail(input(e)) }),
      cache === undefined ? Function.identity : Effect.provideService(ResponseCache.ResponseCache, cache)
    )
    yield* sink.flush
  })).pipe(
    // The writer's scope is closed (every finished trial flushed) before the
    // summary is printed, whatever the outcome.
    Effect.onExit((exit) => finish(plan, { exit, counts })),
    exitDecision(counts)
  )
}, Effect.scoped)

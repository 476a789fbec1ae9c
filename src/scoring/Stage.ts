/**
 * The scoring stage: a second bounded `Stream.mapEffect` after the agent
 * stage. Each trial that reaches it is scored by every scorer and leaves with
 * its `scores`, so its record is written once, after scoring (resume stays
 * exactly-once). At most `parallelism` trials are admitted to the stage at a
 * time, and it pulls the next trial from upstream only when a slot frees, so
 * outstanding work stays bounded in both stages while they run side by side.
 *
 * A failed trial is not sent to scorers: it passes through unchanged (it
 * counts as not passed in the statistics). Judges (scorers made by
 * `Judge.make`) share one further limit, `judgeParallelism`, across the run.
 *
 * @since 0.1.0
 */
import { Effect, Exit, Semaphore, Stream } from "effect"
import { checkParallelism, type InvalidParallelism } from "../domain/Errors.ts"
import { trackStreamFibers, unwrapAtStart } from "../runner/internal/bounded.ts"
import { type MutableProbe, toMutable } from "../runner/internal/probe.ts"
import type * as Probe from "../runner/Probe.ts"
import type { AgentEvalTask, AgentEvalTrial, Score } from "../domain/Trial.ts"
import { isLocal, type Scorer } from "../domain/Scorer.ts"

/**
 * A finished trial with the task it was run on (the scorers read its
 * reference).
 *
 * @category models
 * @since 0.1.0
 */
export interface Finished {
  readonly task: AgentEvalTask
  readonly trial: AgentEvalTrial
}

/**
 * Options of the scoring stage.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options<R> {
  readonly scorers: ReadonlyArray<Scorer<R>>
  /** Trials being scored at most (an integer >= 1). */
  readonly parallelism: number
  /** Judge calls in flight at most, across the stage; `parallelism` when omitted. */
  readonly judgeParallelism?: number | undefined
  /**
   * The stage's counts: `outstanding` trials admitted and not yet scored,
   * `active` scorer calls in flight, `completed` / `failed` trials that left
   * the stage. Its `liveFibers` counts the fibers of the whole pipeline up to
   * here (the agent stage's included): the stage's fiber metrics forward to
   * those installed around it.
   */
  readonly probe?: Probe.Probe | undefined
}

/**
 * Whether a scorer is a judge (an LLM call): judges share the judge limit.
 *
 * @category guards
 * @since 0.1.0
 */
export const isJudge = (scorer: Scorer<unknown>): boolean =>
  typeof (scorer as { readonly counts?: unknown }).counts === "function"

/**
 * Scores a stream of finished trials, at most `parallelism` at a time,
 * emitting each trial (with `scores` when it was scored) as soon as it is
 * scored.
 *
 * **Example** (Score a run's trials with `exact`)
 *
 * ```ts
 * import { Stream } from "effect"
 * import { Match, Stage } from "agent-trials"
 *
 * const finished = Stream.make({
 *   task: { id: "t1", inputs: {}, reference: "4" },
 *   trial: {
 *     id: "t1:trial",
 *     task_id: "t1",
 *     status: "completed" as const,
 *     output: { output_text: "4" },
 *     metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
 *   }
 * })
 * const scored = Stage.scoreTrials(finished, { scorers: [Match.exact()], parallelism: 8 })
 * ```
 *
 * @category running
 * @since 0.1.0
 */
export const scoreTrials = <E, R, SR>(
  items: Stream.Stream<Finished, E, R>,
  options: Options<SR>
): Stream.Stream<AgentEvalTrial, E | InvalidParallelism, R | SR> =>
  scoring(items, options, [options.scorers], undefined, (_, trial) => trial)

/**
 * A finished trial of one cell of a matrix run (`cell`: the index of its
 * cell), whose scorers are that cell's.
 *
 * @category models
 * @since 0.8.0
 */
export interface CellFinished extends Finished {
  readonly cell: number
}

/**
 * Like `scoreTrials`, over the trials of several cells in one stage: each
 * trial is scored by its own cell's scorers (`scorers[item.cell]`) and
 * emitted as it came with its trial scored, while `parallelism`, the
 * judge limit and the probe are the stage's, shared by every cell.
 *
 * **Example** (Two cells, one scored by `exact`, one by nothing)
 *
 * ```ts
 * import { Stream } from "effect"
 * import { Match, Stage } from "agent-trials"
 *
 * declare const finished: Stream.Stream<Stage.CellFinished>
 * const scored = Stage.scoreCells(finished, { scorers: [[Match.exact()], []], parallelism: 8 })
 * ```
 *
 * @category running
 * @since 0.8.0
 */
export const scoreCells = <F extends CellFinished, E, R, SR>(
  items: Stream.Stream<F, E, R>,
  options: Omit<Options<SR>, "scorers"> & { readonly scorers: ReadonlyArray<ReadonlyArray<Scorer<SR>>> }
): Stream.Stream<F, E | InvalidParallelism, R | SR> =>
  scoring(items, options, options.scorers, (item) => item.cell, (item, trial): F => ({ ...item, trial }))

// The stage over `items`, each scored by the list `listOf` picks (the first when undefined) and emitted by `emit`.
const scoring = <F extends Finished, B, E, R, SR>(
  items: Stream.Stream<F, E, R>,
  options: Omit<Options<SR>, "scorers">,
  lists: ReadonlyArray<ReadonlyArray<Scorer<SR>>>,
  listOf: ((item: F) => number) | undefined,
  emit: (item: F, trial: AgentEvalTrial) => B
): Stream.Stream<B, E | InvalidParallelism, R | SR> =>
  unwrapAtStart(Effect.gen(function*() {
    const invalid = checkParallelism(options.parallelism, "score parallelism") ??
      (options.judgeParallelism === undefined ? undefined : checkParallelism(options.judgeParallelism, "judge parallelism"))
    if (invalid) return yield* invalid
    const probe = toMutable(options.probe)
    probe.limit = probe.lowestLimit = probe.highestLimit = options.parallelism
    const judges = yield* Semaphore.make(options.judgeParallelism ?? options.parallelism)
    const prepared = lists.map((list) => ({
      names: list.map((scorer) => scorer.name),
      scorers: list.map((scorer) => counted(scorer, isJudge(scorer) ? judges : undefined, probe))
    }))
    const scoreOne = (item: F): Effect.Effect<B, never, SR> => {
      probe.unitStarted()
      const { task, trial } = item
      const { names, scorers } = prepared[listOf === undefined ? 0 : listOf(item)]
      const failed = trial.status === "failed" || trial.output === undefined
      // One scorer (the common case) without `forEach`'s per-trial machinery. A cell
      // without scorers passes its trials on unscored, as a run without a scoring stage does.
      const scored = failed || (listOf !== undefined && scorers.length === 0)
        ? Effect.succeed(emit(item, trial))
        : scorers.length === 1
        ? Effect.map(scorers[0](task, trial), (score) => emit(item, { ...trial, scores: { [names[0]]: score } }))
        : Effect.map(
          Effect.forEach(scorers, (scorer) => scorer(task, trial)),
          (scores) => {
            const byName: Record<string, Score> = {}
            for (let i = 0; i < scores.length; i++) byName[names[i]] = scores[i]
            return emit(item, { ...trial, scores: byName })
          }
        )
      // Counts settled in place, no finalizer effect (as in the agent stage).
      return Effect.onExitPrimitive(scored, (exit) => {
        probe.unitEnded(Exit.isSuccess(exit) ? failed : undefined)
        return undefined
      })
    }
    // Scorers that only compute (`Scorer.makeLocal`) finish as they start: scored
    // in the stage's own fiber, one trial after another, with no fiber per trial.
    const inPlace = lists.every((list) => list.every(isLocal))
    return items.pipe(
      Stream.mapEffect(scoreOne, { concurrency: inPlace ? 1 : options.parallelism, unordered: true }),
      trackStreamFibers(probe)
    )
  }))

// A scorer call counted in `active` while it runs (and, for a judge, while it
// holds one of the judge permits, not while it waits for one).
const counted = <R>(scorer: Scorer<R>, limit: Semaphore.Semaphore | undefined, probe: MutableProbe) => {
  const call = (task: AgentEvalTask, trial: AgentEvalTrial): Effect.Effect<Score, never, R> =>
    Effect.suspend(() => {
      probe.callStarted()
      return Effect.onExitPrimitive(scorer.score(task, trial), () => {
        probe.callEnded()
        return undefined
      })
    })
  return limit === undefined ? call : (task: AgentEvalTask, trial: AgentEvalTrial) => limit.withPermit(call(task, trial))
}

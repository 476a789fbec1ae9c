/**
 * A matrix run: several cells (agents, models, policies) over one dataset in
 * ONE bounded pipeline. Each cell is prepared as a run of its own
 * (`Prepare.prepare`: its agent, scorers, pricing, run definition, resume),
 * with its results file `<outDir>/<cell>.jsonl`, an ordinary results file
 * that `report`, `score`, `compare` and `run --resume` read alone. The
 * dataset is read once; each unit is fanned out task-major to every cell
 * (a task's cells next to each other), so a matrix stopped early leaves
 * comparable partial cells; one runner with the shared `parallelism` bounds
 * the calls and outstanding trials of every cell together, each unit run by
 * its cell's agent under its cell's policy; one budget (`max-cost`,
 * `max-tokens`) is spent by every cell; a resume skips each cell's recorded
 * trials. `matrix.json` names the cells, their values and files; the end
 * prints a line per cell, a table of cells by scorers and each cell compared
 * with the first, and writes the summary JSON and the HTML page when asked.
 *
 * @since 0.8.0
 */
import { Clock, Console, Effect, FileSystem, Path, Random, Result, Schema, Stream } from "effect"
import { checkDistinct, writeOutput } from "../../internal/outputs.ts"
import { redactText } from "../../internal/redact.ts"
import { RunInputError } from "../../runner/Remote.ts"
import type * as Probe from "../../runner/Probe.ts"
import * as Runner from "../../runner/Runner.ts"
import * as Stage from "../../scoring/Stage.ts"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import * as BadInput from "../BadInput.ts"
import * as Budget from "../run/Budget.ts"
import { DEFAULT_SYNTHETIC, policyOptions } from "../run/Config.ts"
import { exitDecision } from "../run/Finish.ts"
import type * as Dataset from "../../datasets/Dataset.ts"
import * as RunDefinition from "../run/Definition.ts"
import { itemsOf, runSize, sourceError } from "../run/Inputs.ts"
import * as Progress from "../run/Progress.ts"
import { MutableCounts } from "../run/internal/counts.ts"
import { makeRunId, prepare, type RunPlan } from "../run/Prepare.ts"
import * as Choose from "../run/stages/Choose.ts"
import * as Source from "../run/stages/Source.ts"
import * as End from "./End.ts"
import { type CellEntry, MatrixFile } from "./Model.ts"
import * as Shared from "./Shared.ts"
import * as Stages from "./Stages.ts"

export type { MatrixCell } from "./Shared.ts"

/**
 * What `Matrix.run` is given.
 *
 * @category models
 * @since 0.8.0
 */
export interface Options {
  /** The cells, in order: the first is the baseline. Each `config` is a whole run's (shared keys and the cell's). */
  readonly cells: ReadonlyArray<Shared.MatrixCell>
  /** Where the cells' files and `matrix.json` go; `runs/<matrix-id>/` when undefined. */
  readonly outDir?: string | undefined
  /** `--summary FILE`: the `MatrixSummary` as JSON. */
  readonly summary?: string | undefined
  /** `--report FILE`: the matrix as one HTML page. */
  readonly report?: string | undefined
  /**
   * Where the live progress line goes when the cells' config asks for it
   * (`progress`): the CLI passes stderr's write; no line when undefined.
   */
  readonly progress?: ((text: string) => void) | undefined
  /** Where the one runner counts the calls and trials of every cell (a gate test reads it); a fresh one when undefined. */
  readonly probe?: Probe.Probe | undefined
}

/**
 * The file naming a matrix's cells, in its output folder.
 *
 * @category constants
 * @since 0.8.0
 */
export const MATRIX_FILE = "matrix.json"

// Values as a file may show them: every URL's credentials and query values, and every known secret, redacted.
const scrubbed = (value: unknown): unknown =>
  typeof value === "string"
    ? redactText(value)
    : Array.isArray(value)
    ? value.map(scrubbed)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v)]))
    : value

const decodeMatrixFile = Schema.decodeUnknownResult(Schema.fromJsonString(MatrixFile))

/**
 * Runs every cell of a matrix in one bounded pipeline and returns its
 * summary. Fails with `MatrixCellError` or `RunInputError` on bad input
 * (before any call), and stops as a run stops (a budget reached, too many
 * failures, a write failure), every finished trial recorded in its cell's
 * file and the summary printed. For example `Matrix.run({ cells, outDir:
 * "runs/agents" })` writes `runs/agents/<cell>.jsonl` per cell and
 * `runs/agents/matrix.json`.
 *
 * @category running
 * @since 0.8.0
 */
export const run = Effect.fn("Matrix.run")(function*(options: Options) {
  yield* Effect.fromResult(Shared.check(options.cells))
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const shared = options.cells[0].config
  const input = (flag: string) => (e: { readonly message: string }) => new RunInputError({ message: e.message, flag })
  const fresh = makeRunId(new Date(yield* Clock.currentTimeMillis), yield* Random.next)
  if (shared.resume && options.outDir === undefined) {
    return yield* new RunInputError({ message: "--resume needs --out-dir DIR: the matrix folder to continue", flag: "--resume" })
  }
  const outDir = options.outDir ?? path.join("runs", fresh)
  const matrixPath = path.join(outDir, MATRIX_FILE)
  // No output of the matrix overwrites its tasks, another output or a cell's file.
  yield* checkDistinct({
    inputs: [{ flag: "--tasks", path: shared.tasks }],
    outputs: [
      { flag: "--out-dir", path: matrixPath },
      ...options.cells.map((cell) => ({ flag: `--out-dir (cell ${cell.name})`, path: path.join(outDir, `${cell.name}.jsonl`) })),
      { flag: "--summary", path: options.summary },
      { flag: "--report", path: options.report }
    ],
    cwd: shared.cwd
  }).pipe(Effect.mapError((e) => RunInputError.from(e)))
  // A resume continues the matrix its folder names.
  const before = yield* fs.readFileString(matrixPath).pipe(Effect.option)
  const recorded = before._tag === "None" ? undefined : decodeMatrixFile(before.value)
  if (recorded !== undefined && Result.isFailure(recorded)) {
    return yield* new RunInputError({ message: `${matrixPath}: not a matrix file: ${recorded.failure.message}`, flag: "--out-dir", file: matrixPath })
  }
  const matrixId = recorded !== undefined && Result.isSuccess(recorded) ? recorded.success.matrix_id : fresh
  yield* fs.makeDirectory(outDir, { recursive: true }).pipe(Effect.mapError(input("--out-dir")))

  // Each cell prepared as a run of its own: its bad input is named with the cell.
  const counts = new MutableCounts(undefined)
  const runnerProbe = options.probe ?? counts.probe
  const plans: Array<RunPlan> = []
  for (const cell of options.cells) {
    const out = path.join(outDir, `${cell.name}.jsonl`)
    plans.push(
      yield* prepare({ ...cell.config, out, outputs: undefined, progress: false }, new MutableCounts(undefined)).pipe(
        Effect.mapError((e) => e._tag === "RunInputError" ? new RunInputError({ ...e, message: `cell ${cell.name}: ${e.message}` }) : e),
        // The cells prepared before it leave no definition beside no results file.
        Effect.tapError(() => Effect.forEach(plans, (plan) => plan.wroteDefinition ? BadInput.dropLoneDefinition(plan.out) : Effect.void))
      )
    )
  }
  const entries = options.cells.map((cell, i): CellEntry => ({
    name: cell.name,
    values: scrubbed(cell.values ?? {}) as Record<string, unknown>,
    results_file: plans[i].out,
    definition_file: RunDefinition.pathOf(plans[i].out)
  }))
  // The cells this run leaves out (`--cell`) stay named, in their place.
  const kept = recorded !== undefined && Result.isSuccess(recorded) ? recorded.success.cells : []
  const all = [...kept.map((old) => entries.find((e) => e.name === old.name) ?? old), ...entries.filter((e) => !kept.some((old) => old.name === e.name))]
  yield* writeOutput("--out-dir", matrixPath, JSON.stringify({ matrix_id: matrixId, cells: all }, null, 2) + "\n")
    .pipe(Effect.mapError(input("--out-dir")))

  // One budget for every cell, the spend of each cell's recorded trials in it.
  const budgets: Budget.Budgets = { maxCost: shared.maxCost, maxTokens: shared.maxTokens }
  const spent = new Budget.Spent()
  for (const plan of plans) {
    spent.tokens += plan.spent.tokens
    spent.cost += plan.spent.cost
    spent.trials += plan.spent.trials
  }
  if (spent.trials > 0) spent.counted.openUnsafe()
  const budget = budgets.maxCost !== undefined || budgets.maxTokens !== undefined ? { budgets, spent } : undefined
  const first = plans[0]
  const started = yield* Clock.currentTimeMillis

  // Each cell's trials admitted and finished by the runner, whose probe counts every cell's together.
  const perCell = plans.map(() => ({ started: 0, finished: 0 }))
  // The dataset read once; each cell's resume checks its commit.
  let items: Stream.Stream<Dataset.Item, Dataset.DatasetError | RunInputError | RunDefinition.RunDefinitionError, Dataset.Services> = itemsOf(
    first.config,
    { chosen: true, ids: first.ids, onSource: (read) => plans.forEach((p) => p.revisions.onSource(read)) }
  ).pipe(Stream.mapError(sourceError))
  for (const plan of plans) items = plan.revisions.check(items)
  const units = items.pipe(
    Source.fromItems({ epochs: shared.epochs, counts }),
    // Task-major: each unit's cells next to each other.
    Stream.mapArray((chunk) =>
      chunk.flatMap((unit) => plans.map((_, cell): Runner.CellUnit => ({ ...unit, cell }))) as [Runner.CellUnit, ...Array<Runner.CellUnit>]
    ),
    Choose.choose<Runner.CellUnit>({ recorded: { has: (id, unit) => plans[unit.cell].recorded.ids.has(id) }, take: undefined, budget, counts })
  )
  const scored = plans.some((plan) => plan.scorers.length > 0)

  let ended: End.Ended | undefined
  yield* Effect.scoped(Effect.gen(function*() {
    // Forked before the writers, so the scope stops it after their final flush.
    if (shared.progress && options.progress !== undefined) yield* progress(plans, counts, runnerProbe, options.progress).pipe(Effect.forkScoped)
    const sinks = yield* Effect.forEach(plans, (plan) =>
      Effect.gen(function*() {
        const sink = plan.counts.writer = yield* plan.store.writer(plan.out, { onWritten: (trial) => plan.acc.add(trial) })
        return { sink, announce: plan.named.sayWhenWritten(sink.written) }
      }))
    const { adaptive, maxFailures, rate } = policyOptions(shared)
    yield* Runner.runCells(
      units,
      plans.map((plan) => {
        const { retry, timeout, trialMaxTokens } = policyOptions(plan.config)
        return { agent: plan.agent, policy: { retry, timeout, trialMaxTokens } }
      }),
      {
        parallelism: shared.parallelism,
        probe: runnerProbe,
        rate,
        adaptive,
        maxFailures,
        onStart: (unit) => void perCell[unit.cell].started++
      }
    ).pipe(
      Stream.map((paired) => {
        perCell[paired.unit.cell].finished++
        return paired
      }),
      Stages.label(plans, first.revisions),
      (labelled) =>
        scored
          ? Stage.scoreCells(labelled, {
            scorers: plans.map((plan) => plan.scorers),
            parallelism: first.scoreParallelism,
            judgeParallelism: shared.judgeParallelism,
            probe: counts.scoreProbe
          })
          : labelled,
      Stages.price(plans),
      Stages.stop(plans, budget),
      Stages.record(sinks),
      Effect.catchTags({
        InvalidParallelism: (e) => Effect.fail(RunInputError.from(e)),
        RunDefinitionError: (e) => Effect.fail(RunInputError.from(e))
      })
    )
    yield* Effect.forEach(sinks, ({ sink }) => sink.flush, { discard: true })
  })).pipe(
    // Whatever the outcome (Ctrl-C too): each cell's summary, the comparisons, the outputs.
    Effect.onExit((exit) =>
      Effect.map(
        End.finish({ exit, cells: options.cells, plans, counts, probe: runnerProbe, perCell, started, matrixId, outDir, budget, outputs: options }),
        (e) => void (ended = e)
      )
    ),
    exitDecision(counts)
  )
  // The matrix ended well: an output that could not be written fails it (exit 1), as a run's does.
  const last = ended!.unwritten.at(-1)
  if (last !== undefined) {
    yield* Effect.forEach(ended!.unwritten.slice(0, -1), (e) => Console.error(`agent-trials: ${e.message}`), { discard: true })
    return yield* last
  }
  return ended!.summary
}, Effect.scoped)

// The live line over every cell: their trials recorded this run, of the dataset's units times the cells.
const progress = (plans: ReadonlyArray<RunPlan>, counts: MutableCounts, probe: Probe.Probe, write: (text: string) => void) =>
  Effect.gen(function*() {
    const { config, ids, kinds } = plans[0]
    const sum = (key: "completed" | "failed" | "partial") => plans.reduce((n, plan) => n + plan.acc.thisRun[key], 0)
    let units = config.tasks === undefined ? (config.synthetic ?? DEFAULT_SYNTHETIC) * config.epochs : undefined
    if (config.tasks !== undefined) {
      yield* DatasetFormats.count(config.tasks, config.format, kinds.datasets, config).pipe(
        Effect.tap((n) => Effect.sync(() => void (units = runSize(config, ids, n)))),
        Effect.ignore,
        Effect.forkScoped
      )
    }
    return yield* Progress.display(
      {
        probe,
        recorded: {
          get completed() {
            return sum("completed")
          },
          get failed() {
            return sum("failed")
          },
          get partial() {
            return sum("partial")
          }
        },
        skipped: () => counts.skipped,
        total: () => units === undefined ? undefined : units * plans.length,
        parallelism: config.parallelism
      },
      { tty: config.tty, interval: config.progressInterval, write }
    )
  })

/**
 * The end of a matrix run, whatever the outcome (Ctrl-C too): each cell's
 * own run summary, its `--fail-under` gates named with the cell, each cell
 * compared with the first (read from the files as `compare` reads them), the
 * text on stdout, and the summary JSON and HTML page when asked; and, in the
 * matrix's counts, what decides the exit (a write failure, a failed gate).
 *
 * @since 0.8.0
 */
import { Clock, Console, Effect, type Exit, FileSystem, Schema } from "effect"
import { writeOutput } from "../../internal/outputs.ts"
import type * as Probe from "../../runner/Probe.ts"
import * as Gates from "../../summary/Gates.ts"
import * as Summary from "../../summary/Summary.ts"
import * as BadInput from "../BadInput.ts"
import type * as Budget from "../run/Budget.ts"
import { RunWriteError } from "../run/Finish.ts"
import type { MutableCounts } from "../run/internal/counts.ts"
import type { RunPlan } from "../run/Prepare.ts"
import { toHtml } from "./Html.ts"
import { MatrixSummary } from "./Model.ts"
import type { MatrixCell } from "./Shared.ts"
import * as Text from "./Summary.ts"

const encodeSummary = Schema.encodeEffect(MatrixSummary)

/**
 * What the end made: the summary, and the outputs that could not be
 * written when the matrix otherwise ended well (after any other end each
 * was told on stderr).
 *
 * @category models
 * @since 0.8.0
 */
export interface Ended {
  readonly summary: MatrixSummary
  readonly unwritten: ReadonlyArray<RunWriteError>
}

/**
 * Ends a matrix run: never fails. Sets `counts.writer` to the writer that
 * failed, if any, and `counts.gateFailure`, for `exitDecision(counts)`.
 *
 * @category running
 * @since 0.8.0
 */
export const finish = Effect.fnUntraced(function*(input: {
  readonly exit: Exit.Exit<unknown, unknown>
  readonly cells: ReadonlyArray<MatrixCell>
  readonly plans: ReadonlyArray<RunPlan>
  /** The matrix's own counts. */
  readonly counts: MutableCounts
  /** The one runner's probe, every cell's calls and trials. */
  readonly probe: Probe.Probe
  /** Each cell's trials admitted and finished by the runner. */
  readonly perCell: ReadonlyArray<{ readonly started: number; readonly finished: number }>
  readonly started: number
  readonly matrixId: string
  readonly outDir: string
  readonly budget: { readonly budgets: Budget.Budgets; readonly spent: Budget.Spent } | undefined
  readonly outputs: { readonly summary?: string | undefined; readonly report?: string | undefined }
}) {
  const { budget, counts, exit, perCell, plans } = input
  const fs = yield* FileSystem.FileSystem
  const shared = plans[0]
  const writeFailure = plans.find((plan) => plan.counts.writeFailure !== undefined)
  if (writeFailure !== undefined) counts.writer = writeFailure.counts.writer
  const outcome = Summary.outcomeOf(exit, writeFailure !== undefined)
  for (const plan of plans) if (plan.wroteDefinition) yield* BadInput.dropLoneDefinition(plan.out)
  yield* BadInput.tellFirst(exit, outcome)
  const wallMs = (yield* Clock.currentTimeMillis) - input.started
  const probe = input.probe.snapshot()
  const cells: Record<string, Summary.Summary> = {}
  input.cells.forEach((cell, i) => {
    const plan = plans[i]
    cells[cell.name] = Summary.make({
      runId: plan.runId,
      resultsFile: plan.out,
      outcome,
      acc: plan.acc,
      // The peaks, retries and limits are the one runner's; what was finished and interrupted, the cell's.
      probe: { ...probe, started: perCell[i].started, completed: perCell[i].finished, interrupted: perCell[i].started - perCell[i].finished },
      wallMs,
      parallelism: shared.config.parallelism,
      passK: plan.config.passK,
      scoring: plan.scorers.length === 0 ? undefined : {
        probe: counts.scoreProbe.snapshot(),
        parallelism: shared.scoreParallelism,
        judgeParallelism: shared.config.judgeParallelism
      },
      usage: {
        priced: plan.pricing !== undefined,
        unpriced: plan.pricing?.unpriced() ?? [],
        budget: budget === undefined ? undefined : budget.spent.of(budget.budgets)
      }
    })
  })
  // Each cell's --fail-under gates, named with their cell.
  const gates = input.cells.flatMap((cell, i) =>
    (Gates.withGates(cells[cell.name], plans[i].gates).gates ?? []).map((r) => ({ ...r, gate: `${cell.name}: ${r.gate}` }))
  )
  counts.gateFailure = Gates.failed(gates)
  const written = yield* Effect.forEach(plans, (plan, i) =>
    Effect.map(
      fs.exists(plan.out).pipe(Effect.orElseSucceed(() => false)),
      (exists) => exists ? [{ name: input.cells[i].name, file: plan.out }] : []
    ))
  const compared = yield* Text.compareCells(written.flat())
  const summary: MatrixSummary = {
    matrix_id: input.matrixId,
    out_dir: input.outDir,
    outcome,
    baseline: input.cells[0].name,
    cells,
    comparisons: compared.comparisons,
    judged: compared.judged,
    gates,
    notes: compared.notes
  }
  yield* Console.log(Text.format(summary) + Gates.formatText(gates))
  const unwritten: Array<RunWriteError> = []
  const write = (flag: string, file: string | undefined, text: () => string) =>
    file === undefined ? Effect.void : writeOutput(flag, file, text()).pipe(
      Effect.catch((e) => Effect.sync(() => void unwritten.push(new RunWriteError({ flag, path: file, problem: e.message }))))
    )
  const json = yield* encodeSummary(summary).pipe(Effect.orDie)
  yield* write("--summary", input.outputs.summary, () => JSON.stringify(json, null, 2) + "\n")
  yield* write("--report", input.outputs.report, () => toHtml(summary))
  if (exit._tag === "Success") return { summary, unwritten }
  yield* Effect.forEach(unwritten, (e) => Console.error(`agent-trials: ${e.message}`), { discard: true })
  return { summary, unwritten: [] }
})

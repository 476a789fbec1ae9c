/**
 * `--markdown FILE`: the run's (or the scoring's) summary as Markdown,
 * gates included, or `compare`'s paired table, verdicts and flipped tasks,
 * ready to post as a pull-request comment (`report/ci/Markdown.ts` says what
 * it holds).
 *
 * @since 0.9.0
 */
import { Effect, Option, Stream } from "effect"
import type { AgentEvalTrial } from "../domain/Trial.ts"
import { writeOutput } from "../internal/outputs.ts"
import * as Markdown from "../report/ci/Markdown.ts"
import * as ResultsStores from "../results/ResultsStores.ts"
import { scrubber } from "./internal/ci.ts"
import { Registry } from "./internal/kinds.ts"
import { type CompareContext, type OutputFormat, OutputWriteError } from "./Output.ts"

/**
 * The Markdown of a run's (or a scoring's) summary, scrubbed.
 *
 * @category formats
 * @since 0.9.0
 */
export const render = (facts: Markdown.Facts): Effect.Effect<string> =>
  Effect.map(scrubber, (scrub) => Markdown.summary(facts, scrub))

// A trial's answer as the flipped tasks' table shows it.
const answerOf = (trial: AgentEvalTrial): string =>
  trial.output?.output_text ??
    (trial.error === undefined ? "(no answer)" : `(failed: ${trial.error.type}: ${trial.error.message})`)

/**
 * The Markdown of a comparison, scrubbed, with the answers of the flipped
 * tasks it shows: each task's first trial in each file, read back a line at
 * a time (only those tasks' answers are kept).
 *
 * @category formats
 * @since 0.9.0
 */
export const renderComparison = (context: CompareContext) =>
  Effect.gen(function*() {
    const c = context.comparison
    const ids = new Set([
      ...c.flips.pass_to_fail.slice(0, Markdown.FLIPS_SHOWN),
      ...c.flips.fail_to_pass.slice(0, Markdown.FLIPS_SHOWN)
    ])
    const stores = Option.match(yield* Effect.serviceOption(Registry), {
      onNone: () => ResultsStores.builtIn,
      onSome: (kinds) => kinds.stores
    })
    const answers = new Map<string, { base: string | undefined; new: string | undefined }>()
    for (const side of ids.size === 0 ? [] : (["base", "new"] as const)) {
      const file = context[side]
      yield* ResultsStores.storeOf(file, stores).read(file).pipe(
        Stream.runForEach(({ trial }) =>
          Effect.sync(() => {
            if (!ids.has(trial.task_id)) return
            const entry = answers.get(trial.task_id) ?? { base: undefined, new: undefined }
            entry[side] ??= answerOf(trial)
            answers.set(trial.task_id, entry)
          })
        )
      )
    }
    return Markdown.comparison(c, answers, yield* scrubber)
  })

/**
 * Writes `text` to `path` for `flag`; a failure is `OutputWriteError`.
 *
 * @category formats
 * @since 0.9.0
 */
export const writeMarkdown = (flag: string, path: string, text: string) =>
  writeOutput(flag, path, text).pipe(Effect.mapError((e) => new OutputWriteError({ flag, path, message: e.message })))

/**
 * The output format.
 *
 * @category formats
 * @since 0.9.0
 */
export const format: OutputFormat = {
  flag: "markdown",
  description: "Also write the summary as Markdown to this file: the figures and the gates (compare: the paired table and the flipped tasks), for a pull-request comment",
  doc: "The summary as Markdown: trials, each scorer's mean with its 95% CI and pass rate, tokens, cost, wall time, and the gates with PASS/FAIL",
  write: (path, context) =>
    render({ ...context.gated, title: `run ${context.summary.run_id}` }).pipe(
      Effect.flatMap((text) => writeMarkdown("--markdown", path, text))
    ),
  writeComparison: (path, context) =>
    renderComparison(context).pipe(
      Effect.mapError((e) => new OutputWriteError({ flag: "--markdown", path, message: `cannot write --markdown ${path}: ${e.message}` })),
      Effect.flatMap((text) => writeMarkdown("--markdown", path, text))
    ),
  writeScore: (path, context) =>
    render({ ...context.gated, title: `score ${context.summary.input_file} -> ${context.summary.results_file}` }).pipe(
      Effect.flatMap((text) => writeMarkdown("--markdown", path, text))
    )
}

/**
 * `--markdown FILE`: the run's summary as Markdown, gates included, ready
 * to post as a pull-request comment (`report/ci/Markdown.ts` says what it
 * holds).
 *
 * @since 0.9.0
 */
import { Effect } from "effect"
import { writeOutput } from "../internal/outputs.ts"
import * as Markdown from "../report/ci/Markdown.ts"
import { scrubber } from "./internal/ci.ts"
import { type OutputFormat, OutputWriteError } from "./Output.ts"

/**
 * The Markdown of a run's (or a scoring's) summary, scrubbed.
 *
 * @category formats
 * @since 0.9.0
 */
export const render = (facts: Markdown.Facts): Effect.Effect<string> =>
  Effect.map(scrubber, (scrub) => Markdown.summary(facts, scrub))

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
  writeScore: (path, context) =>
    render({ ...context.gated, title: `score ${context.summary.input_file} -> ${context.summary.results_file}` }).pipe(
      Effect.flatMap((text) => writeMarkdown("--markdown", path, text))
    )
}

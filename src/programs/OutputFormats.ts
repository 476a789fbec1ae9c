/**
 * The registry of output formats: the files `run` writes at its end, each
 * asked for by its own `--FLAG FILE`. `run`'s output flags, their help and
 * the README's table of outputs are derived from it. A new output is its
 * file (an `OutputFormat`) and one entry in `builtIn`.
 *
 * @since 0.3.0
 */
import type { OutputFormat } from "./Output.ts"
import * as RunReport from "./run/Report.ts"
import * as SummaryOutput from "./SummaryOutput.ts"

export { type Context, type OutputFormat, OutputWriteError, type Services } from "./Output.ts"

/**
 * The outputs this package writes, in the order they are written.
 *
 * @category registry
 * @since 0.3.0
 */
export const builtIn: ReadonlyArray<OutputFormat> = [SummaryOutput.format, RunReport.format]

/**
 * The README's table of outputs.
 *
 * @category docs
 * @since 0.3.0
 */
export const docsTable = (formats: ReadonlyArray<OutputFormat> = builtIn): string =>
  ["| flag | What it writes |", "| --- | --- |", ...formats.map((f) => `| \`--${f.flag} FILE\` | ${f.doc} |`)].join("\n")

/**
 * The registry of output formats: the files `run` writes at its end, each
 * asked for by its own `--FLAG FILE`. `run`'s output flags, their help and
 * the README's table of outputs are derived from it. A new output is its
 * file (an `OutputFormat`) and one entry in `builtIn`.
 *
 * @since 0.3.0
 */
import type { OutputFormat } from "./Output.ts"
import * as JunitOutput from "./JunitOutput.ts"
import * as MarkdownOutput from "./MarkdownOutput.ts"
import * as RunReport from "./run/Report.ts"
import * as SummaryOutput from "./SummaryOutput.ts"

export { type Context, type OutputFormat, OutputWriteError, type Services } from "./Output.ts"

/**
 * The outputs this package writes, in the order they are written.
 *
 * @category registry
 * @since 0.3.0
 */
export const builtIn: ReadonlyArray<OutputFormat> = [
  SummaryOutput.format,
  RunReport.format,
  JunitOutput.format,
  MarkdownOutput.format
]

/**
 * The README's table of outputs.
 *
 * @category docs
 * @since 0.3.0
 */
export const docsTable = (formats: ReadonlyArray<OutputFormat> = builtIn): string =>
  ["| flag | What it writes |", "| --- | --- |", ...formats.map((f) => `| \`--${f.flag} FILE\` | ${f.doc} |`)].join("\n")

/**
 * `formats` with one format per flag: of two with the same flag, the later
 * one (a program's own, after the built-in ones) is kept, as the flag that
 * asks for it is the later one's.
 *
 * @category registry
 * @since 0.9.0
 */
export const distinct = (formats: ReadonlyArray<OutputFormat>): ReadonlyArray<OutputFormat> =>
  formats.filter((format, i) => !formats.slice(i + 1).some((later) => later.flag === format.flag))

/**
 * `run` over a config file's `matrix:`: each cell's options are the file's
 * keys with the cell's values over them, read as `run` reads its own; the
 * cells then run in one bounded pipeline (`Matrix.run`).
 *
 * @since 0.8.0
 */
import { Effect } from "effect"
import * as SimAgent from "../agents/Sim.ts"
import * as ConfigFile from "../programs/config/File.ts"
import * as Keys from "../programs/config/Keys.ts"
import type * as ConfigOption from "../programs/config/Option.ts"
import * as Resolve from "../programs/config/Resolve.ts"
import * as RunOptions from "../programs/config/Run.ts"
import type * as Kinds from "../programs/Kinds.ts"
import * as Cells from "../programs/matrix/Cells.ts"
import * as Matrix from "../programs/matrix/Matrix.ts"
import type { RunConfig } from "../programs/run/Config.ts"
import { exitFor, UsageError } from "./errors.ts"
import { valuesOf } from "./flags.ts"

/** What the command adds to each cell's options. */
export interface Extras {
  readonly apiKey: RunConfig["apiKey"]
  readonly progressInterval: number
  readonly tty: boolean
}

// Whether the command line or the environment sets an option: it would set every cell alike.
const setOutsideTheFile = (option: ConfigOption.Option<unknown>, given: Resolve.Given): string | undefined => {
  if (Resolve.isGiven(option, given)) return `--${option.name}`
  return option.env !== undefined && process.env[option.env] !== undefined ? option.env : undefined
}

/**
 * Runs the cells of `file`'s matrix (those `--cell` names, else all).
 *
 * @category running
 * @since 0.8.0
 */
export const runMatrix = Effect.fn("Cli.runMatrix")(function*(
  kinds: Kinds.Kinds,
  file: ConfigFile.ConfigFile & { readonly matrix: ConfigFile.Entry },
  given: { readonly [K in keyof ReturnType<typeof RunOptions.options>]: Resolve.Given },
  givenOutputs: Readonly<Record<string, Resolve.Given>>,
  extras: Extras
) {
  const options = RunOptions.options(kinds)
  const outputOptions = RunOptions.outputs(kinds)
  const where = `${file.file}:${file.matrix.line}: matrix`
  const all = yield* Effect.fromResult(Cells.cellsOf(file.matrix.value, where)).pipe(Effect.mapError(exitFor))
  // A key a cell sets, set on the command line or by a variable, would make every cell alike.
  const varied = new Set(all.flatMap((cell) => Object.keys(cell.values)))
  for (const [key, option] of Object.entries(options)) {
    if (!varied.has(option.name)) continue
    const outside = setOutsideTheFile(option, given[key as keyof typeof given])
    if (outside !== undefined) {
      return yield* new UsageError({
        message: `${outside} would set ${option.name} for every cell, and the matrix of ${file.file} varies it: ` +
          `drop it, or choose cells with --cell NAME`,
        flag: outside.startsWith("--") ? outside : `--${option.name}`
      })
    }
  }
  const shared = yield* valuesOf(options, given, file)
  const chosen = yield* Effect.fromResult(Cells.select(all, shared.cell)).pipe(Effect.mapError(exitFor))
  const known = Keys.known(kinds)
  const cells = yield* Effect.forEach(chosen, (cell) =>
    Effect.gen(function*() {
      const seen = yield* ConfigFile.withCell(file, cell, known).pipe(Effect.mapError(exitFor))
      const { cell: _cell, cluster, noProgress, outDir: _outDir, ...values } = yield* valuesOf(options, given, seen)
      if (cluster !== undefined) {
        return yield* new UsageError({ message: "--cluster cannot be used with a matrix: run each cell with run --cluster", flag: "--cluster" })
      }
      const config: RunConfig = {
        ...values,
        agent: values.agent ?? { _tag: "Sim", options: SimAgent.defaults },
        apiKey: extras.apiKey,
        progress: !noProgress,
        progressInterval: extras.progressInterval,
        tty: extras.tty,
        cwd: process.cwd()
      }
      return { name: cell.name, values: cell.values, config }
    }))
  const outputs = yield* valuesOf(outputOptions, givenOutputs, file)
  // Only --summary and --report have a matrix's form; any other would be left unwritten.
  const other = Object.entries(outputs).find(([flag, path]) => path !== undefined && flag !== "summary" && flag !== "report")
  if (other !== undefined) {
    return yield* new UsageError({
      message: `--${other[0]} is not written for a matrix (only --summary and --report are): drop it, ` +
        `or write it for a cell's results file with score CELL.jsonl --score SPEC --out FILE --${other[0]} FILE`,
      flag: `--${other[0]}`
    })
  }
  return yield* Matrix.run({
    cells,
    outDir: shared.outDir,
    summary: outputs["summary"],
    report: outputs["report"],
    progress: (text) => void process.stderr.write(text)
  }).pipe(Effect.mapError((e) => exitFor(e as { readonly message: string })))
})


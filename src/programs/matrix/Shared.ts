/**
 * What the cells of a matrix share, checked before anything is built: one
 * dataset read once (its source, format, mapping, rows and epochs), and one
 * runner with one bound, one failure budget and one spending budget. A cell
 * that varies one of those keys is refused, naming the key; so is a cell
 * that asks for what a matrix run does not do (`--cluster`, `--estimate`,
 * its own `--out`).
 *
 * @since 0.8.0
 */
import { Result } from "effect"
import type { RunConfig } from "../run/Config.ts"
import { MatrixCellError, MAX_NAME } from "./Cells.ts"

/**
 * The keys every cell must share: the run key as a config file writes it,
 * by its `RunConfig` field, and why it is shared.
 *
 * @category constants
 * @since 0.8.0
 */
export const SHARED_KEYS: ReadonlyArray<readonly [keyof RunConfig, string, "dataset" | "run"]> = [
  ["tasks", "tasks", "dataset"],
  ["synthetic", "synthetic", "dataset"],
  ["format", "format", "dataset"],
  ["map", "map", "dataset"],
  ["jsonPath", "json-path", "dataset"],
  ["limit", "limit", "dataset"],
  ["sample", "sample", "dataset"],
  ["shuffle", "shuffle", "dataset"],
  ["seed", "seed", "dataset"],
  ["ids", "ids", "dataset"],
  ["epochs", "epochs", "dataset"],
  ["onInvalid", "on-invalid", "dataset"],
  ["cwd", "cwd", "dataset"],
  ["parallelism", "parallelism", "run"],
  ["rate", "rate", "run"],
  ["adaptive", "adaptive", "run"],
  ["maxFailures", "max-failures", "run"],
  ["maxCost", "max-cost", "run"],
  ["maxTokens", "max-tokens", "run"],
  ["scoreParallelism", "score-parallelism", "run"],
  ["judgeParallelism", "judge-parallelism", "run"],
  ["resume", "resume", "run"],
  ["retryFailed", "retry-failed", "run"]
]

/**
 * A cell of a matrix run: its name (its results file is `<outDir>/<name>.jsonl`),
 * the values it varies (as `matrix.json` records them), and its whole run config.
 *
 * @category models
 * @since 0.8.0
 */
export interface MatrixCell {
  readonly name: string
  readonly values?: Readonly<Record<string, unknown>> | undefined
  readonly config: RunConfig
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

const text = (value: unknown): string => JSON.stringify(value) ?? "undefined"

/**
 * The first problem of `cells` as a matrix, if any: no cells, a name that
 * is not a safe file name or is given twice, a cell that varies a shared key
 * (named, with both values), or asks for what a matrix run does not do.
 *
 * @category validation
 * @since 0.8.0
 */
export const check = (cells: ReadonlyArray<MatrixCell>): Result.Result<void, MatrixCellError> => {
  const bad = (problem: string, at: { readonly key?: string; readonly index?: number } = {}) =>
    Result.fail(new MatrixCellError({ where: "matrix", problem, ...at }))
  if (cells.length === 0) return bad("has no cells: give at least one")
  const names = new Map<string, number>()
  for (const [index, cell] of cells.entries()) {
    if (!SAFE_NAME.test(cell.name) || cell.name.length > MAX_NAME) {
      return bad(`${JSON.stringify(cell.name)} is not a safe file name (letters, digits, '.', '_', '-'; at most ${MAX_NAME})`, {
        index,
        key: "name"
      })
    }
    const first = names.get(cell.name.toLowerCase())
    if (first !== undefined) return bad(`${JSON.stringify(cell.name)} is also cell ${first + 1}'s name: names must differ`, { index, key: "name" })
    names.set(cell.name.toLowerCase(), index)
    const config = cell.config
    if (config.remote !== undefined || config.cluster !== undefined) {
      return bad("a matrix runs its cells here: --cluster is not supported in a matrix run", { index, key: "cluster" })
    }
    if (config.estimate === true) return bad("--estimate is not supported in a matrix run: estimate one cell's run alone", { index, key: "estimate" })
    if (config.workspace === true) return bad("--workspace is not supported in a matrix run yet: run each cell with its workspaces alone", { index, key: "workspace" })
    if (config.out !== undefined) {
      return bad(`a cell's results file is <out-dir>/${cell.name}.jsonl: give --out-dir, not out (${config.out})`, { index, key: "out" })
    }
    const base = cells[0].config
    for (const [field, key, kind] of SHARED_KEYS) {
      if (text(config[field]) === text(base[field])) continue
      return bad(
        `${cell.name} sets ${key} to ${text(config[field])} and ${cells[0].name} to ${text(base[field])}: ` +
          (kind === "dataset"
            ? "the cells of a matrix read one dataset, once (its source, rows and epochs); set it outside `matrix`"
            : "the cells of a matrix share one runner and one budget; set it outside `matrix`"),
        { index, key }
      )
    }
  }
  return Result.succeed(undefined)
}

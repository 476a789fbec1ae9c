/**
 * The options of `report`: one entry each, from which its flags, their
 * variables, its help and the config file's keys are derived.
 *
 * @since 0.8.0
 */
import { Schema } from "effect"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import * as Options from "../Options.ts"
import { DEFAULT_MAX_ROWS } from "../Report.ts"
import * as Option from "./Option.ts"
import * as Shared from "./Shared.ts"

/**
 * The options of `report`.
 *
 * @category options
 * @since 0.8.0
 */
export const options = {
  html: Option.withPath(Option.required("html", undefined, Schema.String, "Write the report (one self-contained HTML file) here"), "file"),
  maxRows: Option.value(
    "max-rows",
    "N",
    Options.Parallelism,
    DEFAULT_MAX_ROWS,
    `Rows of the trials table at most, failures first; every aggregate covers the whole file (default ${DEFAULT_MAX_ROWS})`
  ),
  tasks: Option.withPath(Option.text(
    "tasks",
    "Task file: the input and reference of the rows shown, joined by task id, read as run reads it (--format, --map, --json-path); " +
      "default: the tasks the results file's run definition names, read as that run read them",
    { env: false }
  ), "file"),
  ...Shared.dataset(DatasetFormats.builtIn),
  summary: Option.withPath(Option.text(
    "summary",
    "The summary of the run that wrote RESULTS (run --summary FILE; one of another run or other trials is refused): outcome, wall time, parallelism, peaks, epochs, scorers",
    { env: false }
  ), "file")
}

/**
 * The options of `score`: one entry each, from which its flags, their
 * variables, its help and the config file's keys are derived.
 *
 * @since 0.8.0
 */
import { Schema } from "effect"
import type * as Kinds from "../Kinds.ts"
import * as Options from "../Options.ts"
import * as Option from "./Option.ts"
import * as Shared from "./Shared.ts"

/**
 * The options of `score` over these kinds.
 *
 * @category options
 * @since 0.8.0
 */
export const options = (kinds: Kinds.Kinds) => ({
  score: Shared.score(Shared.scoreDescription(kinds.scorers)),
  out: Option.withPath(
    Option.required("out", undefined, Schema.String, "The scored results file (JSONL, appended as trials are scored)"),
    "file"
  ),
  tasks: Option.withPath(Option.text(
    "tasks",
    "Task file giving each trial's task (its reference), joined by task id, read as run reads it (--format, --map, --json-path); " +
      "default: the tasks the results file's run definition names, read as that run read them"
  ), "file"),
  ...Shared.dataset(kinds.datasets),
  resume: Option.toggle("resume", "Continue --out: skip the trials it already holds"),
  parallelism: Option.value(
    "score-parallelism",
    "N",
    Options.Parallelism,
    8,
    "Trials being scored at most (an integer >= 1, default 8)"
  ),
  judgeModel: Shared.judgeModel,
  ...Shared.judgeRequest,
  expectedTools: Shared.expectedTools,
  judgeParallelism: Option.value(
    "judge-parallelism",
    "N",
    Options.Parallelism,
    undefined,
    "Judge calls in flight at most (an integer >= 1; default --score-parallelism)"
  ),
  pass: Shared.pass,
  summary: Option.withPath(Option.text("summary", "Also write the summary as JSON to this file"), "file"),
  pricing: Option.withPath(Option.text(
    "pricing",
    "YAML or JSON file of prices in USD per million tokens (models: { MODEL: { input, output, cached_input } }): " +
      "every usage gets its cost_usd; a model it lacks is named once and priced at 0"
  ), "file"),
  passK: Shared.statistics.passK,
  failUnder: Shared.statistics.failUnder,
  taskPass: Shared.statistics.taskPass
})

/**
 * `score`'s outputs from the registry: one `--FLAG FILE` per output format
 * that says how it is written after `score` (`writeScore`).
 *
 * @category options
 * @since 0.9.0
 */
export const outputs = (kinds: Kinds.Kinds) =>
  Object.fromEntries(
    kinds.outputs.filter((o) => o.writeScore !== undefined).map((o) => [
      o.flag,
      Option.withPath(Option.text(o.flag, o.description), "file")
    ])
  )

/**
 * The `score` command.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as OpenAiAgent from "../agents/OpenAi.ts"
import * as Kinds from "../programs/Kinds.ts"
import * as Options from "../programs/Options.ts"
import * as Rescore from "../programs/Rescore.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { datasetFlags, datasetOptions, expectedToolsFlag, judgeModelFlag, optionalString, optionFlag, scoreDescription, scoreFlag, scoreFromEnv, statisticsFlags, switchFlag } from "./flags.ts"

/**
 * `score RESULTS.jsonl --score SPEC... --out SCORED.jsonl [--tasks FILE]
 * [--resume]`: score (or re-score) an existing results file.
 * Its flags are made from `kinds`; its program reads the `Kinds.Registry`
 * service, which `Cli.make` provides.
 *
 * @category commands
 * @since 0.1.0
 */
export const makeScoreCommand = (kinds: Kinds.Kinds) =>
  Command.make(
    "score",
    {
      results: Argument.String("results").pipe(Argument.withDescription("The results file (JSONL) to score")),
      score: scoreFlag(scoreDescription(kinds.scorers)),
      out: Flag.String("out").pipe(Flag.withDescription("The scored results file (JSONL, appended as trials are scored)")),
      tasks: optionalString(
        "tasks",
        "Task file giving each trial's task (its reference), joined by task id, read as run reads it (--format, --map, --json-path); " +
          "default: the tasks the results file's run definition names, read as that run read them"
      ),
      ...datasetFlags(kinds.datasets),
      resume: switchFlag("resume", "Continue --out: skip the trials it already holds"),
      parallelism: optionFlag(
        "score-parallelism",
        "N",
        Options.Parallelism,
        8,
        "Trials being scored at most (an integer >= 1, default 8)"
      ),
      judgeModel: judgeModelFlag,
      expectedTools: expectedToolsFlag,
      judgeParallelism: optionFlag(
        "judge-parallelism",
        "N",
        Options.Parallelism,
        undefined,
        "Judge calls in flight at most (an integer >= 1; default --score-parallelism)"
      ),
      pass: optionalString("pass", "The scorer whose verdict decides whether a trial passed (default: every scorer must pass)"),
      summary: optionalString("summary", "Also write the summary as JSON to this file"),
      pricing: optionalString(
        "pricing",
        "YAML or JSON file of prices in USD per million tokens (models: { MODEL: { input, output, cached_input } }): " +
          "every usage gets its cost_usd; a model it lacks is named once and priced at 0"
      ),
      passK: statisticsFlags.passK,
      failUnder: statisticsFlags.failUnder
    },
    Effect.fn("Cli.score")(function*(flags) {
      const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
      yield* Rescore.score({
        input: flags.results,
        score: yield* scoreFromEnv(flags.score),
        out: flags.out,
        tasks: Option.getOrUndefined(flags.tasks),
        ...datasetOptions(flags),
        resume: flags.resume,
        parallelism: flags.parallelism,
        judgeModel: Option.getOrUndefined(flags.judgeModel),
        expectedTools: flags.expectedTools,
        judgeParallelism: flags.judgeParallelism,
        pass: Option.getOrUndefined(flags.pass),
        summary: Option.getOrUndefined(flags.summary),
        pricing: Option.getOrUndefined(flags.pricing),
        passK: flags.passK,
        failUnder: flags.failUnder,
        apiKey,
        cwd: process.cwd()
      }).pipe(Effect.mapError(exitFor))
    }, reportErrors)
  ).pipe(Command.withDescription(
    "Score (or re-score) an existing results file with --score scorers, writing the scored trials to --out"
  ))

/**
 * `score` with this package's kinds (the `Kinds.Registry` service provided).
 *
 * @category commands
 * @since 0.1.0
 */
export const scoreCommand = makeScoreCommand(Kinds.builtIn).pipe(Command.provide(Kinds.layer()))

/**
 * The `score` command.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Argument, Command } from "effect/cli"
import * as OpenAiAgent from "../agents/OpenAi.ts"
import * as Kinds from "../programs/Kinds.ts"
import * as ScoreOptions from "../programs/config/Score.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { configFlag, givenFlagsOf, readConfig, valuesOf } from "./flags.ts"

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
      config: configFlag,
      ...givenFlagsOf(ScoreOptions.options(kinds)),
      // One --FLAG FILE per output format that score writes.
      outputs: givenFlagsOf(ScoreOptions.outputs(kinds))
    },
    Effect.fn("Cli.score")(function*(flags) {
      const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
      const { config, outputs: givenOutputs, results, ...given } = flags
      const file = yield* readConfig(kinds, config)
      // Loaded by the command that uses it: other commands start without it.
      const Rescore = yield* Effect.promise(() => import("../programs/Rescore.ts"))
      yield* Rescore.score({
        ...yield* valuesOf(ScoreOptions.options(kinds), given, file),
        outputs: yield* valuesOf(ScoreOptions.outputs(kinds), givenOutputs, file),
        input: results,
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

/**
 * The `compare` command.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { Argument, Command } from "effect/cli"
import * as CompareOptions from "../programs/config/Compare.ts"
import * as Kinds from "../programs/Kinds.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { configFlag, givenFlagsOf, readConfig, valuesOf } from "./flags.ts"

/**
 * `compare BASE.jsonl NEW.jsonl [--pass NAME] [--json FILE] [--html FILE]
 * [--markdown FILE] [--fail-on-regression] [--non-inferiority M]`: the paired change of each
 * scorer between two results files. Exit 0; 1 with `--fail-on-regression`
 * when a scorer regressed (Holm over the scorers judged), or with
 * `--non-inferiority M` when a scorer's interval reaches -M; 2 on bad input.
 * Its flags are made from `kinds`.
 *
 * @category commands
 * @since 0.9.0
 */
export const makeCompareCommand = (kinds: Kinds.Kinds) => Command.make(
  "compare",
  {
    base: Argument.String("base").pipe(Argument.withDescription("The results file (JSONL) before the change")),
    new: Argument.String("new").pipe(Argument.withDescription("The results file (JSONL) after the change")),
    config: configFlag,
    ...givenFlagsOf(CompareOptions.options),
    // One --FLAG FILE per output format that compare writes.
    outputs: givenFlagsOf(CompareOptions.outputs(kinds))
  },
  Effect.fn("Cli.compare")(function*(flags) {
    const { base, config, new: after, outputs: givenOutputs, ...given } = flags
    // The keys a config file may hold: the kinds' (their outputs' flags) when a root command gave them.
    const keys = Option.getOrElse(yield* Effect.serviceOption(Kinds.Registry), () => kinds)
    const file = yield* readConfig(keys, config)
    // Loaded by the command that uses it: other commands start without it.
    const Compare = yield* Effect.promise(() => import("../programs/compare/Compare.ts"))
    yield* Compare.run({
      base,
      new: after,
      ...yield* valuesOf(CompareOptions.options, given, file),
      outputs: yield* valuesOf(CompareOptions.outputs(kinds), givenOutputs, file),
      formats: kinds.outputs
    }).pipe(Effect.mapError(exitFor))
  }, reportErrors)
).pipe(Command.withDescription(
  "Compare two results files task by task: each scorer's change in mean with a 95% paired interval, pass@1, flipped tasks"
))

/**
 * `compare` with this package's kinds.
 *
 * @category commands
 * @since 0.1.0
 */
export const compareCommand = makeCompareCommand(Kinds.builtIn)

/**
 * The `compare` command.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import * as Options from "../programs/Options.ts"
import * as Compare from "../programs/compare/Compare.ts"
import { exitFor, reportErrors } from "./errors.ts"
import { refused, switchFlag } from "./flags.ts"

/**
 * `compare BASE.jsonl NEW.jsonl [--pass NAME] [--json FILE] [--html FILE]
 * [--fail-on-regression] [--non-inferiority M]`: the paired change of each
 * scorer between two results files. Exit 0; 1 with `--fail-on-regression`
 * when a scorer regressed (Holm over the scorers judged), or with
 * `--non-inferiority M` when a scorer's interval reaches -M; 2 on bad input.
 *
 * @category commands
 * @since 0.1.0
 */
export const compareCommand = Command.make(
  "compare",
  {
    base: Argument.String("base").pipe(Argument.withDescription("The results file (JSONL) before the change")),
    new: Argument.String("new").pipe(Argument.withDescription("The results file (JSONL) after the change")),
    pass: Flag.String("pass").pipe(
      Flag.withDescription("The scorer whose verdict decides whether a trial passed, in both files (default: each run's recorded --pass, else every scorer both files carry)"),
      Flag.optional
    ),
    json: Flag.String("json").pipe(Flag.withDescription("Also write the comparison as JSON to this file"), Flag.optional),
    html: Flag.String("html").pipe(Flag.withDescription("Also write a self-contained HTML page to this file"), Flag.optional),
    failOnRegression: switchFlag(
      "fail-on-regression",
      "Exit 1 when a scorer's mean dropped with a Holm-adjusted p below 0.05 over the scorers judged (family-wise 5%)"
    ),
    nonInferiority: Flag.String("non-inferiority").pipe(
      Flag.withDescription("Exit 1 unless every shared scorer's 95% interval of the change lies above -M (M >= 0)"),
      Flag.withMetavar("M"),
      Flag.mapEffect((text) => Effect.mapError(Options.decode(Options.Margin, "--non-inferiority")(text), refused)),
      Flag.optional
    )
  },
  Effect.fn("Cli.compare")(function*(flags) {
    yield* Compare.run({
      base: flags.base,
      new: flags.new,
      pass: Option.getOrUndefined(flags.pass),
      json: Option.getOrUndefined(flags.json),
      html: Option.getOrUndefined(flags.html),
      failOnRegression: flags.failOnRegression,
      nonInferiority: Option.getOrUndefined(flags.nonInferiority)
    }).pipe(Effect.mapError(exitFor))
  }, reportErrors)
).pipe(Command.withDescription(
  "Compare two results files task by task: each scorer's change in mean with a 95% paired interval, pass@1, flipped tasks"
))

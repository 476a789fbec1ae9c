/**
 * The flag helpers the commands share: every flag falls back to its
 * `AGENT_TRIALS_*` variable, then to its default, and a refused value is
 * worded by the option's Schema.
 *
 * @since 0.1.0
 */
import { Config, Effect, Option, Schema } from "effect"
import { CliError, Flag } from "effect/cli"
import type * as Kinds from "../programs/Kinds.ts"
import * as ConfigOption from "../programs/config/Option.ts"
import * as ConfigFile from "../programs/config/File.ts"
import * as Keys from "../programs/config/Keys.ts"
import * as Resolve from "../programs/config/Resolve.ts"
import * as Shared from "../programs/config/Shared.ts"
import { exitFor, UsageError } from "./errors.ts"
import * as Options from "../programs/Options.ts"
import * as ScorerKinds from "../scoring/ScorerKinds.ts"

// Every run flag falls back to AGENT_TRIALS_<FLAG>, then to its default; the
// help text names the variable.
export const envName = ConfigOption.envName
export const described = (flag: string, description: string) => `${description} [env ${envName(flag)}]`

export const optionalString = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(described(name, description)),
    Flag.withFallbackConfig(Config.String(envName(name))),
    Flag.optional
  )

export const refused = (e: Options.InvalidOption) => new CliError.ValidationError({ message: e.message })

// The flag's text decoded by the option's Schema; without the flag, the
// variable decoded by the same Schema; without either, `fallback`. A refused
// value fails the parse with the Schema's words, naming the flag or the
// variable it came from. Not `Flag.withSchema` / `withFallbackConfig`: they
// word it `Invalid value for flag --timeout: "5". Expected: Schema validation
// failed: ...`, and a bad variable as `--timeout: "config". Expected:
// SchemaError(... at ["AGENT_TRIALS_TIMEOUT"])` over two lines.
export const optionFlag = <A, const D>(
  name: string,
  metavar: string,
  schema: Schema.Codec<A, string>,
  fallback: D,
  description: string
): Flag.Flag<A | D> =>
  Flag.String(name).pipe(
    Flag.withDescription(described(name, description)),
    Flag.withMetavar(metavar),
    Flag.mapEffect((text) => Effect.mapError(Options.decode(schema, `--${name}`)(text), refused)),
    Flag.withDefault(
      Options.fromConfig(schema, envName(name)).pipe(
        Effect.map(Option.getOrElse((): A | D => fallback)),
        Effect.mapError(refused)
      )
    )
  )

export const switchFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withoutNegation, Flag.withDefault(false))

/**
 * The flag of an option: its help and variable named, its value decoded by
 * the option's Schema, and without the flag its variable, then its fallback
 * (the command-line flag `givenFlagOf` resolved as `Resolve.resolve` does,
 * with no config file: `worker` reads none).
 *
 * @category flags
 * @since 0.8.0
 */
export const flagOf = <V>(option: ConfigOption.Option<V>): Flag.Flag<V> =>
  givenFlagOf(option).pipe(
    Flag.mapEffect((given) =>
      Resolve.resolve({ option }, { option: given }, undefined).pipe(
        Effect.map((values) => values.option as V),
        Effect.mapError((e) => new CliError.ValidationError({ message: e.message }))
      )
    )
  )

const ConfigOptionHelp = (option: ConfigOption.Option<unknown>) =>
  option.env !== undefined && option.helpNamesEnv ? described(option.name, option.description) : option.description

/**
 * The flag of an option as the command line gives it, nothing more: a value
 * as `Option.some` when given, a switch whether given, a list its values.
 * Its variable, the config file and its fallback come after
 * (`Resolve.resolve`), in that order.
 *
 * @category flags
 * @since 0.8.0
 */
export const givenFlagOf = (option: ConfigOption.Option<unknown>): Flag.Flag<Resolve.Given> => {
  switch (option.kind) {
    case "switch":
      return switchFlag(option.name, option.description)
    case "list":
      return Flag.String(option.name).pipe(
        Flag.withDescription(ConfigOptionHelp(option)),
        Flag.withMetavar(option.metavar ?? "VALUE"),
        Flag.atLeast(0),
        Flag.mapEffect((texts) =>
          Effect.mapError(Effect.forEach(texts, (text) => Options.decode(option.schema, `--${option.name}`)(text)), refused)
        )
      )
    case "value": {
      const named = Flag.String(option.name)
      const base = (option.bare === undefined ? named : Flag.withOptionalValue(named, option.bare)).pipe(
        Flag.withDescription(ConfigOptionHelp(option))
      )
      return (option.metavar === undefined ? base : Flag.withMetavar(base, option.metavar)).pipe(
        Flag.mapEffect((text) => Effect.mapError(Options.decode(option.schema, `--${option.name}`)(text), refused)),
        Flag.optional
      )
    }
  }
}

/**
 * The command-line flags of a record of options, under the same keys.
 *
 * @category flags
 * @since 0.8.0
 */
export const givenFlagsOf = <Os extends Readonly<Record<string, ConfigOption.Option<any>>>>(
  options: Os
): { readonly [K in keyof Os]: Flag.Flag<Resolve.Given> } =>
  Object.fromEntries(Object.entries(options).map(([key, option]) => [key, givenFlagOf(option)])) as any

/**
 * `--config FILE` of `run`, `score`, `report` and `compare`.
 *
 * @category flags
 * @since 0.8.0
 */
export const configFlag = Flag.String("config").pipe(
  Flag.withDescription(described(
    "config",
    `YAML or JSON file of options, keyed by their long flag names (parallelism: 8, score: [exact]); flags and AGENT_TRIALS_* ` +
      `variables come first; default ./${ConfigFile.DEFAULT_FILE} when it exists`
  )),
  Flag.withMetavar("FILE"),
  Flag.withFallbackConfig(Config.String(envName("config"))),
  Flag.optional
)

/**
 * Reads the config file of a command (`--config`, else `./agent-trials.yaml`
 * when it exists), then each option's value from its flag, its variable,
 * the file or its fallback. A value refused by its variable is bad input
 * (exit 2), worded by its Schema as the flag's would be.
 *
 * @category flags
 * @since 0.8.0
 */
export const readConfig = (kinds: Kinds.Kinds, explicit: Option.Option<string>) =>
  ConfigFile.load(Option.getOrUndefined(explicit), process.cwd(), Keys.known(kinds)).pipe(Effect.mapError(exitFor))

/**
 * The values of a command's options: each from its flag, its variable, the
 * config file, else its fallback.
 *
 * @category flags
 * @since 0.8.0
 */
export const valuesOf = <Os extends Readonly<Record<string, ConfigOption.Option<any>>>>(
  options: Os,
  given: { readonly [K in keyof Os]: Resolve.Given },
  file: ConfigFile.ConfigFile | undefined
) =>
  Resolve.resolve(options, given, file).pipe(
    Effect.mapError((e) => e._tag === "InvalidOption" ? new UsageError({ message: e.message, flag: e.source }) : exitFor(e))
  )

// `--agent` of `run` and `worker`: parsed by the kinds' registry, its help
// derived from it.
export const agentFlag = <const D>(kinds: Kinds.Kinds, fallback: D) => flagOf(Shared.agent(kinds, fallback))

export const modelFlag = flagOf(Shared.model)

// The --score help of a CLI built with these kinds.
export const scoreDescription = Shared.scoreDescription

export const SCORE_DESCRIPTION = scoreDescription(ScorerKinds.builtIn)

/**
 * The flag helpers the commands share: every flag falls back to its
 * `AGENT_TRIALS_*` variable, then to its default, and a refused value is
 * worded by the option's Schema.
 *
 * @since 0.1.0
 */
import { Config, Effect, Option, Schema } from "effect"
import { CliError, Flag } from "effect/cli"
import * as AgentKinds from "../agents/AgentKinds.ts"
import * as AgentSpecOption from "../agents/AgentSpecOption.ts"
import * as DatasetFormats from "../datasets/DatasetFormats.ts"
import type * as Kinds from "../programs/Kinds.ts"
import type * as ConfigOption from "../programs/config/Option.ts"
import * as Options from "../programs/Options.ts"
import * as Gates from "../summary/Gates.ts"
import * as ScorerKinds from "../scoring/ScorerKinds.ts"

// Every run flag falls back to AGENT_TRIALS_<FLAG>, then to its default; the
// help text names the variable.
export const envName = (flag: string) => `AGENT_TRIALS_${flag.toUpperCase().replaceAll("-", "_")}`
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

// Repeatable; without the flag, AGENT_TRIALS_SCORE gives one spec.
export const scoreFlag = (description: string) =>
  Flag.String("score").pipe(
    Flag.withDescription(described("score", description)),
    Flag.withMetavar("SPEC"),
    Flag.atLeast(0)
  )

// Repeatable, each value decoded by the option's Schema (no variable: a
// list of paths is no one variable's value).
export const repeatedFlag = <A>(name: string, metavar: string, schema: Schema.Codec<A, string>, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(description),
    Flag.withMetavar(metavar),
    Flag.atLeast(0),
    Flag.mapEffect((texts) =>
      Effect.mapError(Effect.forEach(texts, (text) => Options.decode(schema, `--${name}`)(text)), refused)
    )
  )

// The flags of the statistics a summary reports: run and score take them.
export const statisticsFlags = {
  passK: optionFlag(
    "pass-k",
    "K,K,...",
    Options.PassK,
    undefined,
    "The k of pass@k and pass^k reported, each at most --epochs (default 1, min(5, K), K)"
  ),
  failUnder: repeatedFlag(
    "fail-under",
    "NAME=X[@lower]",
    Gates.GateSpec,
    "Exit 1 when scorer NAME's mean (passed: the pass rate) is below X; @lower judges the 95% interval's lower bound, repeatable"
  ),
  groupBy: repeatedFlag(
    "group-by",
    "PATH",
    Options.TaskPath,
    "Break the scores down by the values of this dotted path into the task (metadata.subject), repeatable"
  )
}

// How a --tasks file is read (an hf: one downloaded): run, score and report take the same flags.
export const datasetFlags = (formats: ReadonlyArray<DatasetFormats.DatasetFormat>) => ({
  format: optionFlag("format", "NAME", DatasetFormats.FormatName(formats), undefined, DatasetFormats.help(formats)),
  map: optionFlag(
    "map",
    "TARGET=COLUMN,...",
    Options.Mapping,
    undefined,
    "How a row becomes a task, dotted paths on both sides: id=question_id,inputs.instruction=question,reference=answer " +
      "(default: the id column, else row-N; reference, answer or target the reference; the other columns inputs)"
  ),
  jsonPath: optionalString("json-path", "The key of a .json file's array of records, dotted for deeper ones (default: the top level)"),
  cacheDir: optionalString("cache-dir", "Where hf: downloads are kept (default $XDG_CACHE_HOME/agent-trials, else ~/.cache/agent-trials)"),
  hubTimeout: optionFlag(
    "hub-timeout",
    "DURATION",
    Options.Duration,
    undefined,
    "hf: no answer headers, or no byte of a body, for this long ends the request, as does a body under 1 KB/s over it (default 60s)"
  ),
  maxDownload: optionFlag(
    "max-download",
    "SIZE",
    Options.ByteSize,
    undefined,
    "hf: the most a downloaded file may be when the Hub declares no size, like 500MB (default 10GB)"
  )
})

// The values the dataset flags parse to.
type DatasetFlagValues = {
  readonly [K in keyof ReturnType<typeof datasetFlags>]: ReturnType<typeof datasetFlags>[K] extends Flag.Flag<infer A> ? A
    : never
}

// The dataset flags' values as run's, score's and report's configs take them.
export const datasetOptions = (flags: DatasetFlagValues) => ({
  format: flags.format,
  map: flags.map,
  jsonPath: Option.getOrUndefined(flags.jsonPath),
  cacheDir: Option.getOrUndefined(flags.cacheDir),
  hubTimeout: flags.hubTimeout,
  maxDownload: flags.maxDownload
})

export const scoreFromEnv = (specs: ReadonlyArray<string>) =>
  specs.length > 0
    ? Effect.succeed(specs)
    : Config.option(Config.String(envName("score"))).pipe(
      Effect.map(Option.match({ onNone: () => specs, onSome: (spec) => [spec] })),
      Effect.orElseSucceed(() => specs)
    )

// The --score help of a CLI built with these kinds.
export const scoreDescription = (kinds: ReadonlyArray<ScorerKinds.ScorerKind>) =>
  `A scorer, repeatable: ${ScorerKinds.help(kinds)}, optionally NAME=SPEC; none scores nothing`

export const SCORE_DESCRIPTION = scoreDescription(ScorerKinds.builtIn)

export const switchFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withoutNegation, Flag.withDefault(false))

// `--agent` of `run` and `worker`: parsed by the kinds' registry, its help
// derived from it.
export const agentFlag = <const D>(kinds: Kinds.Kinds, fallback: D) =>
  optionFlag("agent", "SPEC", AgentSpecOption.make(kinds.agents), fallback, AgentKinds.help(kinds.agents))

export const judgeModelFlag = optionalString("judge-model", "Model a judge: scorer asks (the key comes from OPENAI_API_KEY)")

export const expectedToolsFlag = optionFlag(
  "expected-tools",
  "PATH",
  Options.TaskPath,
  undefined,
  "Where a tool-calls scorer reads each task's expected tool calls, a dotted path into the task (default reference.tool_calls)"
)

export const modelFlag = optionalString(
  "model",
  "Model name for openai: agents (required there; the key comes from OPENAI_API_KEY)"
)

/**
 * The flag of an option: its help and variable named, its value decoded by
 * the option's Schema, and without the flag its variable, then its fallback.
 *
 * @category flags
 * @since 0.8.0
 */
export const flagOf = <V>(option: ConfigOption.Option<V>): Flag.Flag<V> => {
  switch (option.kind) {
    case "switch":
      return switchFlag(option.name, option.description) as unknown as Flag.Flag<V>
    case "list":
      return (option.env !== undefined
        ? Flag.String(option.name).pipe(
          Flag.withDescription(ConfigOptionHelp(option)),
          Flag.withMetavar(option.metavar ?? "VALUE"),
          Flag.atLeast(0)
        )
        : repeatedFlag(option.name, option.metavar ?? "VALUE", option.schema, option.description)) as unknown as Flag.Flag<V>
    case "value": {
      const base = Flag.String(option.name).pipe(Flag.withDescription(ConfigOptionHelp(option)))
      return (option.metavar === undefined ? base : Flag.withMetavar(base, option.metavar)).pipe(
        Flag.mapEffect((text) => Effect.mapError(Options.decode(option.schema, `--${option.name}`)(text), refused)),
        Flag.withDefault(
          (option.env === undefined ? Effect.succeed(Option.none()) : Options.fromConfig(option.schema, option.env)).pipe(
            Effect.map(Option.getOrElse((): unknown => option.fallback)),
            Effect.mapError(refused)
          )
        )
      ) as Flag.Flag<V>
    }
  }
}

const ConfigOptionHelp = (option: ConfigOption.Option<unknown>) =>
  option.env !== undefined && option.helpNamesEnv ? described(option.name, option.description) : option.description

/**
 * The flags of a record of options, under the same keys.
 *
 * @category flags
 * @since 0.8.0
 */
export const flagsOf = <Os extends Readonly<Record<string, ConfigOption.Option<any>>>>(
  options: Os
): { readonly [K in keyof Os]: Flag.Flag<ConfigOption.ValueOf<Os[K]>> } =>
  Object.fromEntries(Object.entries(options).map(([key, option]) => [key, flagOf(option)])) as any

/**
 * The `run` command, here or on a cluster (`--cluster`).
 *
 * @since 0.1.0
 */
import { Config, Effect } from "effect"
import { Command } from "effect/cli"
import * as OpenAiAgent from "../agents/OpenAi.ts"
import * as SimAgent from "../agents/Sim.ts"
import * as Kinds from "../programs/Kinds.ts"
import * as RunOptions from "../programs/config/Run.ts"
import * as Run from "../programs/run/Run.ts"
import { exitFor, reportErrors, UsageError } from "./errors.ts"
import { runMatrix } from "./matrix.ts"
import { configFlag, givenFlagsOf, readConfig, valuesOf } from "./flags.ts"

/**
 * `run`: stream a dataset through an agent, write every result, resume after
 * a crash. Every flag falls back to an `AGENT_TRIALS_*` environment variable,
 * then to its default.
 * Its flags are made from `kinds`; its program reads the `Kinds.Registry`
 * service, which `Cli.make` provides.
 *
 * @category commands
 * @since 0.1.0
 */
export const makeRunCommand = (kinds: Kinds.Kinds) =>
  Command.make(
    "run",
    {
      config: configFlag,
      ...givenFlagsOf(RunOptions.options(kinds)),
      // One --FLAG FILE per output format.
      outputs: givenFlagsOf(RunOptions.outputs(kinds))
    },
    Effect.fn("Cli.run")(function*(flags) {
      const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
      const progressInterval = yield* Config.Int("AGENT_TRIALS_PROGRESS_INTERVAL_MS").pipe(
        Config.withDefault(0),
        Effect.orElseSucceed(() => 0)
      )
      const tty = process.stderr.isTTY === true
      const { config, outputs: givenOutputs, ...given } = flags
      const file = yield* readConfig(kinds, config)
      if (file?.matrix !== undefined) {
        const matrix = file.matrix
        return yield* runMatrix(kinds, { ...file, matrix }, given, givenOutputs, {
          apiKey,
          progressInterval: progressInterval > 0 ? progressInterval : tty ? 250 : 5000,
          tty
        })
      }
      const { cell, cluster, noProgress, outDir, ...values } = yield* valuesOf(RunOptions.options(kinds), given, file)
      if (cell.length > 0 || outDir !== undefined) {
        const flag = cell.length > 0 ? "--cell" : "--out-dir"
        return yield* new UsageError({
          message: `${flag} is for a matrix: the config file has no matrix: (${file === undefined ? "no config file was read" : file.file})`,
          flag
        })
      }
      const outputs = yield* valuesOf(RunOptions.outputs(kinds), givenOutputs, file)
      yield* runHereOrOnCluster(cluster, {
        agent: values.agent !== undefined,
        model: values.model !== undefined
      }, {
        ...values,
        agent: values.agent ?? { _tag: "Sim", options: SimAgent.defaults },
        apiKey,
        progress: !noProgress,
        progressInterval: progressInterval > 0 ? progressInterval : tty ? 250 : 5000,
        tty,
        cwd: process.cwd(),
        outputs
      }).pipe(Effect.mapError(exitFor))
    }, reportErrors)
  ).pipe(Command.withDescription(
    "Run every task of a dataset through an agent, at most --parallelism at a time, appending each trial to --out as it finishes"
  ))

/**
 * `run` with this package's kinds (the `Kinds.Registry` service provided).
 *
 * @category commands
 * @since 0.1.0
 */
export const runCommand = makeRunCommand(Kinds.builtIn).pipe(Command.provide(Kinds.layer()))

// `run --cluster`: the cluster's code is loaded only then. The agent is the
// workers' (`worker --agent`); rate and adaptive limits are per process and
// would not bound the cluster, so they are refused rather than ignored.
const runHereOrOnCluster = (
  cluster: string | undefined,
  given: { readonly agent: boolean; readonly model: boolean },
  config: Run.RunConfig
) =>
  cluster === undefined ? Run.run(config) : Effect.gen(function*() {
    const notHere = (flag: string, why: string) =>
      new Run.RunInputError({ message: `${flag} cannot be used with --cluster: ${why}` })
    // Given as a flag or as its AGENT_TRIALS_* variable, the default value too.
    if (given.agent) {
      return yield* notHere("--agent", "the workers call their own agent (agent-trials worker --agent SPEC)")
    }
    if (given.model) {
      return yield* notHere("--model", "the workers call their own agent (agent-trials worker --model NAME)")
    }
    if (config.tools !== undefined && config.tools.length > 0) {
      return yield* notHere("--tools", "the workers call their own agent")
    }
    if (config.cache != null) return yield* notHere("--cache", "the workers call their own agent")
    if (config.user !== undefined) return yield* notHere("--user", "the workers call their own agent")
    if (config.rate !== undefined) return yield* notHere("--rate", "it would limit this process, not the cluster")
    if (config.adaptive) return yield* notHere("--adaptive", "it would limit this process, not the cluster")
    if (config.trialMaxTokens !== undefined) {
      return yield* notHere("--trial-max-tokens", "the workers run the trials (and their retries), so the limit is theirs to apply")
    }
    const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
    return yield* Cluster.withRemote(cluster, (remote, shown) => Run.run({ ...config, remote, cluster: shown })).pipe(
      Effect.mapError((e) => Cluster.isInputError(e) ? Run.RunInputError.from(e) : e)
    )
  })

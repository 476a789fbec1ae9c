/**
 * The cluster's commands: `worker` and `cluster prune`. The cluster's code is
 * loaded only when one of them runs.
 *
 * @since 0.1.0
 */
import { Config, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as OpenAiAgent from "../agents/OpenAi.ts"
import * as SimAgent from "../agents/Sim.ts"
import * as Kinds from "../programs/Kinds.ts"
import * as Options from "../programs/Options.ts"
import { reportErrors, UsageError } from "./errors.ts"
import { agentFlag, described, envName, modelFlag, optionalString, optionFlag } from "./flags.ts"

const clusterFlag = Flag.String("cluster").pipe(
  Flag.withDescription(described("cluster", "postgres://USER[:PASSWORD]@HOST[:PORT]/DB: the cluster's database")),
  Flag.withFallbackConfig(Config.String(envName("cluster")))
)

/**
 * `worker --cluster URL [--agent SPEC] [--parallelism N]`: a long-running
 * process that runs the trials of `run --cluster` runs.
 * Its flags are made from `kinds`; its program reads the `Kinds.Registry`
 * service, which `Cli.make` provides.
 *
 * @category commands
 * @since 0.1.0
 */
export const makeWorkerCommand = (kinds: Kinds.Kinds) =>
  Command.make(
    "worker",
    {
      cluster: clusterFlag,
      agent: agentFlag(kinds, { _tag: "Sim", options: SimAgent.defaults }),
      model: modelFlag,
      parallelism: optionFlag(
        "parallelism",
        "N",
        Options.Parallelism,
        8,
        "Agent calls in flight at most on this worker (an integer >= 1, default 8)"
      ),
      host: optionalString("host", "The host name other processes reach this worker at (default: this machine's host name)"),
      port: optionFlag("port", "PORT", Options.Parallelism, 34431, "The port this worker listens on (default 34431)")
    },
    Effect.fn("Cli.worker")(function*(flags) {
      const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
      const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
      const os = yield* Effect.promise(() => import("node:os"))
      yield* Cluster.worker({
        cluster: flags.cluster,
        agent: flags.agent,
        model: flags.model,
        apiKey,
        parallelism: flags.parallelism,
        host: Option.getOrElse(flags.host, () => os.hostname()),
        port: flags.port,
        cwd: process.cwd()
      }).pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
    }, reportErrors)
  ).pipe(Command.withDescription(
    "Run the trials of `run --cluster` runs: a long-running worker of the cluster whose database is --cluster"
  ))

/**
 * `worker` with this package's kinds (the `Kinds.Registry` service provided).
 *
 * @category commands
 * @since 0.1.0
 */
export const workerCommand = makeWorkerCommand(Kinds.builtIn).pipe(Command.provide(Kinds.layer()))

/**
 * `cluster prune --cluster URL [--out FILE]`: deletes trial messages from the
 * cluster's database.
 *
 * @category commands
 * @since 0.1.0
 */
export const clusterCommand = Command.make("cluster").pipe(
  Command.withDescription("Cluster housekeeping"),
  Command.withSubcommands([
    Command.make(
      "prune",
      {
        cluster: clusterFlag,
        out: optionalString("out", "Delete every message of the run writing this results file (default: every processed message)")
      },
      Effect.fn("Cli.clusterPrune")(function*(flags) {
        const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
        yield* Cluster.pruneMessages({ cluster: flags.cluster, out: Option.getOrUndefined(flags.out), cwd: process.cwd() })
          .pipe(Effect.mapError((e) => new UsageError({ message: e.message })))
      }, reportErrors)
    ).pipe(Command.withDescription(
      "Delete trial messages from the cluster's database: one run's (--out FILE) or every processed one"
    ))
  ])
)

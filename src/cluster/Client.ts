/**
 * `run --cluster`: the run's agent stage replaced by messages to the trial
 * entity. The same bounded `Stream.mapEffect` admits at most `parallelism`
 * trials at a time, each one message whose reply (the finished, scored
 * trial) goes on to the run's writer, so at most `parallelism` trials are
 * outstanding across the whole cluster and the probe counts them.
 *
 * @since 0.1.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import { Cause, Clock, Console, type Context, Duration, Effect, Exit, Layer, Option, Schedule, Stream } from "effect"
import { RunnerAddress, type Sharding } from "effect/cluster"
import type { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"
import { stopOnFailures, trackStreamFibers } from "../runner/internal/bounded.ts"
import { type Remote, type RemoteConfig, RunInputError } from "../runner/Remote.ts"
import type { Paired, TrialUnit } from "../runner/Runner.ts"
import { type AgentEvalTrial, trialId } from "../domain/Trial.ts"
import { type ClusterUrl, forgetTrial, layerSql, liveWorkers, prune, shardingSettings } from "./Postgres.ts"
import { entityId, type Settings, TrialEntity } from "./TrialEntity.ts"

/**
 * The sharding of a worker: a runner that listens on `host:port` (the
 * address the other processes reach it at) and takes a share of the shards.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerRunner = (cluster: ClusterUrl, address: { readonly host: string; readonly port: number }) =>
  NodeClusterSocket.layer({
    storage: "sql",
    shardingConfig: {
      ...shardingSettings,
      runnerAddress: Option.some(RunnerAddress.make(address.host, address.port)),
      runnerListenAddress: Option.some(RunnerAddress.make(address.host, address.port))
    }
  }).pipe(Layer.provideMerge(layerSql(cluster)))

/**
 * The sharding of a run's client: it holds no shards, it sends messages.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerClient = (cluster: ClusterUrl) =>
  NodeClusterSocket.layer({ storage: "sql", clientOnly: true, shardingConfig: shardingSettings }).pipe(
    Layer.provideMerge(layerSql(cluster))
  )

/**
 * The key of a run's messages, the same for a run and its `--resume`: a hash
 * of the host and the results file's absolute path. A message sent again by
 * a resumed client is the one stored (same key, same trial id): it is
 * answered with its stored reply, not run again.
 *
 * @category constructors
 * @since 0.1.0
 */
export const runKey = (out: string, cwd: string): string =>
  createHash("sha256").update(`${os.hostname()}\n${path.resolve(cwd, out)}`).digest("hex").slice(0, 24)

/**
 * The run's settings each message carries.
 *
 * @category constructors
 * @since 0.1.0
 */
export const settingsOf = (config: RemoteConfig, score: ReadonlyArray<string>): Settings => ({
  ...(config.timeout === undefined ? undefined : { timeoutMs: Duration.toMillis(config.timeout) }),
  retries: config.retries,
  backoffMs: Duration.toMillis(config.backoff),
  backoffMaxMs: Duration.toMillis(config.backoffMax),
  retryAfterMaxMs: Duration.toMillis(config.retryAfterMax),
  ...(config.rateLimitWaitMax === undefined ? undefined : { rateLimitWaitMaxMs: Duration.toMillis(config.rateLimitWaitMax) }),
  score,
  ...(config.judgeModel === undefined ? undefined : { judgeModel: config.judgeModel }),
  ...(config.expectedTools === undefined ? undefined : { expectedTools: config.expectedTools })
})

// A send that fails (no runner holds the shard yet, a mailbox is full, the
// database hiccups) is sent again, for up to two minutes: the stored message
// is keyed by the trial, so a send that did reach storage is never run twice
// because of this. (With no worker at all, a send does not fail: the message
// waits in storage for a worker to take its shard.)
const resendDelay = Duration.millis(250)
const resend = Schedule.spaced(resendDelay)
const resends = 480
const interruptedResends = 20

const pruneRun = (key: string) =>
  Effect.mapError(prune(key), (e) => new RunInputError({ message: e.message }))

// With no worker alive, messages wait in storage and nothing else shows it
// (the progress line reads `0/N  active P/P`): say so when the wait starts,
// every 10 s while it lasts, and when a worker has come. A database hiccup
// here says nothing: the sends report their own failures.
const watchWorkers = (cluster: ClusterUrl, say: (line: string) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    let waitingSince: number | undefined
    let saidAt = 0
    while (true) {
      const n = yield* Effect.orElseSucceed(liveWorkers, () => undefined)
      const now = yield* Clock.currentTimeMillis
      if (n === 0 && waitingSince === undefined) {
        waitingSince = saidAt = now
        yield* say(`waiting for a worker (none has registered with ${cluster.shown})`)
      } else if (n === 0 && waitingSince !== undefined && now - saidAt >= 10_000) {
        saidAt = now
        yield* say(
          `still waiting for a worker (${Math.round((now - waitingSince) / 1000)} s; none has registered with ${cluster.shown})`
        )
      } else if (n !== undefined && n > 0 && waitingSince !== undefined) {
        waitingSince = undefined
        yield* say(`${n === 1 ? "a worker has" : `${n} workers have`} registered with ${cluster.shown}: running`)
      }
      yield* Effect.sleep(Duration.seconds(1))
    }
  })

/**
 * The `Run.Remote` of a cluster: messages to the trial entity through this
 * process's `Sharding`. A fresh run (no `--resume`, or `--retry-failed`)
 * first deletes what an earlier run with the same results file left; a run
 * that reaches its end deletes its messages. While no worker is alive the
 * client says on stderr that it is waiting for one.
 *
 * @category constructors
 * @since 0.1.0
 */
export const remote = (
  services: Context.Context<Sharding.Sharding | SqlClient.SqlClient>,
  cluster: ClusterUrl
): Remote => (units, options) => {
  const { config, probe } = options
  const key = runKey(options.out, config.cwd)
  const settings = settingsOf(config, options.scoreSpecs)
  // On a terminal the live progress line is cleared first; it is redrawn at its next tick.
  const say = (line: string) => Console.error(`${config.tty && config.progress ? "\r\x1b[2K" : ""}agent-trials: ${line}`)
  const trials = Stream.unwrap(Effect.gen(function*() {
    yield* Effect.forkScoped(watchWorkers(cluster, say))
    if (!config.resume || config.retryFailed) yield* pruneRun(key)
    const clientFor = yield* TrialEntity.client
    probe.limit = probe.lowestLimit = probe.highestLimit = config.parallelism
    const send = (unit: TrialUnit): Effect.Effect<Paired, RunInputError, SqlClient.SqlClient> => {
      probe.unitStarted()
      probe.callStarted()
      const epoch = unit.epoch ?? 1
      const invalid = unit.invalid
      const id = trialId(unit.task.id, epoch)
      const once = clientFor(entityId(key, id)).RunTrial({
        run: key,
        task: unit.task,
        epoch,
        settings,
        ...(invalid === undefined ? undefined : { invalid })
      }).pipe(
        Effect.retry({ schedule: resend, times: resends }),
        Effect.mapError((e) =>
          new RunInputError({
            message: `the cluster did not take trial ${id} in two minutes: ${e._tag}: ${e.message}`
          })
        )
      )
      // A reply that is an interruption comes from a worker that stopped in
      // the middle of the trial (this client's own interruption never gets
      // here: its fiber stops). The stored message would give the same reply
      // again, so it is deleted and the trial sent afresh, to the worker that
      // holds its shard now.
      const attempt = (left: number): Effect.Effect<AgentEvalTrial, RunInputError, SqlClient.SqlClient> =>
        Effect.flatMap(Effect.exit(once), (exit) =>
          Exit.isSuccess(exit) || left === 0 || !Cause.hasInterruptsOnly(exit.cause)
            ? exit
            : Effect.andThen(
              Effect.andThen(Effect.sleep(resendDelay), forgetTrial(key, id)).pipe(
                Effect.andThen(Console.error(`agent-trials: trial ${id} was interrupted by a worker that stopped; sent again`)),
                Effect.mapError((e) => new RunInputError({ message: e.message }))
              ),
              attempt(left - 1)
            ))
      return attempt(interruptedResends).pipe(
        Effect.map((trial): Paired => ({ unit, trial })),
        Effect.onExit((exit) =>
          Effect.sync(() => {
            probe.callEnded()
            probe.unitEnded(Exit.isSuccess(exit) ? exit.value.trial.status === "failed" : undefined)
          })
        )
      )
    }
    const sent = units.pipe(
      Stream.mapEffect(send, { concurrency: config.parallelism, unordered: true }),
      trackStreamFibers(probe)
    )
    const stopped = config.maxFailures === undefined ? sent : stopOnFailures(sent, config.maxFailures, (paired) => paired.trial)
    // Once every trial has its reply, the run's messages are no longer needed.
    return Stream.concat(stopped, Stream.fromEffectDrain(pruneRun(key)))
  }))
  return Stream.provideContext(trials, services)
}

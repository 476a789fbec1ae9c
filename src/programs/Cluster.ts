/**
 * What the cluster's commands do once their flags are read: `worker`,
 * `run --cluster` and `cluster prune`. Loaded by the CLI with a dynamic
 * `import()` only when one of them is used, so a local run never loads
 * PostgreSQL or the cluster engine.
 *
 * @since 0.1.0
 */
import { Console, Effect, Layer, Predicate, type Redacted, type Scope } from "effect"
import type { HttpClient } from "effect/http"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as AgentKinds from "../agents/AgentKinds.ts"
import * as Kinds from "./Kinds.ts"
import type { Remote } from "./run/Run.ts"
import { layerClient, layerRunner, remote, runKey } from "../cluster/Client.ts"
import { ClusterAuthFailed, ClusterUnreachable, type ClusterUrl, InvalidClusterUrl, layerSql, parseUrl, prune } from "../cluster/Postgres.ts"
import * as Worker from "../cluster/Worker.ts"

export { ClusterAuthFailed, ClusterUnreachable, InvalidClusterUrl } from "../cluster/Postgres.ts"

/**
 * A cluster command's failure that is the user's to fix (exit 2): a bad URL,
 * a database that cannot be reached or refuses the login, a port that is
 * taken, an agent that cannot be built.
 *
 * @category models
 * @since 0.1.0
 */
export type ClusterInputError = InvalidClusterUrl | ClusterUnreachable | ClusterAuthFailed

const checked = (text: string): Effect.Effect<ClusterUrl, InvalidClusterUrl> => {
  const parsed = parseUrl(text)
  return parsed instanceof InvalidClusterUrl ? Effect.fail(parsed) : Effect.succeed(parsed)
}

// The layer's own failures (its database, its socket, its settings) as one
// line naming what to fix.
const describeBuild = (address: string, e: unknown): ClusterUnreachable | ClusterAuthFailed => {
  if (Predicate.isTagged(e, "ClusterUnreachable") || Predicate.isTagged(e, "ClusterAuthFailed")) return e as ClusterUnreachable | ClusterAuthFailed
  const tag = typeof e === "object" && e !== null ? (e as { readonly _tag?: unknown })._tag : undefined
  const message = typeof e === "object" && e !== null ? String((e as { readonly message?: unknown }).message ?? e) : String(e)
  return new ClusterUnreachable({ step: "start", address, problem: `${typeof tag === "string" ? `${tag}: ` : ""}${message}` })
}

/**
 * Runs `f` with the `Run.Remote` of a client connected to the cluster at
 * `url` (and the URL as messages show it): the URL is checked and the
 * database reached before `f` starts.
 *
 * @category running
 * @since 0.1.0
 */
export const withRemote = <A, E, R>(
  url: string,
  f: (remote: Remote, shown: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | ClusterInputError, Exclude<R, Scope.Scope>> =>
  Effect.gen(function*() {
    const cluster = yield* checked(url)
    const services = yield* Layer.build(layerClient(cluster)).pipe(
      Effect.mapError((e) => describeBuild(cluster.address, e))
    )
    return yield* f(remote(services, cluster), cluster.shown)
  }).pipe(Effect.scoped) as Effect.Effect<A, E | ClusterInputError, Exclude<R, Scope.Scope>>

/**
 * What `agent-trials worker` runs with.
 *
 * @category models
 * @since 0.1.0
 */
export interface WorkerConfig {
  readonly cluster: string
  readonly agent: AgentKinds.Spec
  /**
   * The kinds `agent` is of. When given, they win over the `Kinds.Registry`
   * service the worker reads otherwise.
   *
   * @deprecated provide `Kinds.layer(extra)` (or `Kinds.layerOf(kinds)`) instead.
   */
  readonly kinds?: Kinds.Kinds | undefined
  readonly model: string | undefined
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly parallelism: number
  readonly host: string
  readonly port: number
  readonly cwd: string
}

/**
 * A worker: hosts the trial entity until interrupted (SIGINT/SIGTERM release
 * its shards at once; after a SIGKILL the others take them once their locks
 * expire).
 *
 * @category running
 * @since 0.1.0
 */
export const worker = (
  config: WorkerConfig
): Effect.Effect<never, ClusterInputError, HttpClient.HttpClient | ChildProcessSpawner | Kinds.Registry> =>
  Effect.gen(function*() {
    const cluster = yield* checked(config.cluster)
    const kinds = config.kinds ?? (yield* Kinds.Registry)
    const agent = yield* AgentKinds.build(config.agent, config, kinds.agents).pipe(
      Effect.mapError((e) => new ClusterUnreachable({ step: "agent", problem: e.message }))
    )
    const entity = Worker.layer({ agent, parallelism: config.parallelism, cwd: config.cwd, scorerKinds: kinds.scorers })
    const running = entity.pipe(
      Layer.provide(layerRunner(cluster, { host: config.host, port: config.port })),
      Layer.tap(() =>
        Console.error(
          `agent-trials worker: ${config.host}:${config.port}, cluster ${cluster.address}, parallelism ${config.parallelism}`
        )
      )
    )
    return yield* Layer.launch(running).pipe(
      Effect.mapError((e) => {
        if (typeof e === "object" && e !== null && (e as { readonly _tag?: unknown })._tag === "SocketServerError") {
          const cause = (e as { readonly cause?: { readonly message?: unknown } }).cause
          return new ClusterUnreachable({
            step: "listen",
            address: `${config.host}:${config.port}`,
            ...(typeof cause?.message === "string" ? { problem: cause.message } : undefined)
          })
        }
        return describeBuild(cluster.address, e)
      })
    )
  }).pipe(Effect.scoped)

/**
 * `cluster prune`: deletes the trial messages of one run (`--out FILE`, the
 * run's results file, from the machine that ran it) or every processed one.
 *
 * @category running
 * @since 0.1.0
 */
export const pruneMessages = (
  options: { readonly cluster: string; readonly out: string | undefined; readonly cwd: string }
): Effect.Effect<void, ClusterInputError> =>
  Effect.gen(function*() {
    const cluster = yield* checked(options.cluster)
    const n = yield* prune(options.out === undefined ? undefined : runKey(options.out, options.cwd)).pipe(
      Effect.provide(layerSql(cluster))
    )
    yield* Console.log(
      options.out === undefined
        ? `pruned ${n} processed trial messages`
        : `pruned ${n} trial messages of the run writing ${options.out}`
    )
  })

/**
 * Whether a failure is a cluster command's input error (exit 2).
 *
 * @category guards
 * @since 0.1.0
 */
export const isInputError = (e: unknown): e is ClusterInputError =>
  Predicate.isTagged(e, "InvalidClusterUrl") || Predicate.isTagged(e, "ClusterUnreachable") || Predicate.isTagged(e, "ClusterAuthFailed")

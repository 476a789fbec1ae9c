/**
 * The cluster's PostgreSQL: the `--cluster URL` checked and connected to,
 * the sharding settings every process of a cluster uses, and the deletion of
 * a run's messages (the engine itself never deletes them).
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { createHash } from "node:crypto"
import { Duration, Effect, Layer, Redacted, Schema } from "effect"
import type { ShardingConfig } from "effect/cluster"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { redactUrl } from "../internal/redact.ts"
import { entityId, entityType, RunTrial } from "./TrialEntity.ts"

/**
 * `--cluster` is not a PostgreSQL URL: `source` is the flag that gave it,
 * `url` the URL as messages may show it (`redactUrl`), and `problem` what is
 * wrong with it.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidClusterUrl extends Schema.TaggedError<InvalidClusterUrl>()("InvalidClusterUrl", {
  source: Schema.String,
  url: Schema.String,
  problem: Schema.String
}) {
  /** Bad input (a URL, a server, a credential to fix): the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  override get message(): string {
    return `${this.source} ${this.url}: ${this.problem} (expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)`
  }
}

/**
 * The cluster's database cannot be reached (or refuses the connection), or a
 * cluster process cannot start. `step` is what failed: `connect` (the
 * database at `address`), `start` (the cluster's services at `address`),
 * `listen` (a worker's socket at `address`, its `--host` and `--port`),
 * `agent` (the worker's agent), `prune`, `reset` (the message of `trial`) or
 * `workers` (reading the live workers); `problem` is what went wrong, when
 * known.
 *
 * @category errors
 * @since 0.1.0
 */
export class ClusterUnreachable extends Schema.TaggedError<ClusterUnreachable>()("ClusterUnreachable", {
  step: Schema.Literals(["connect", "start", "listen", "agent", "prune", "reset", "workers"]),
  address: Schema.optionalKey(Schema.String),
  trial: Schema.optionalKey(Schema.String),
  problem: Schema.optionalKey(Schema.String)
}) {
  /** Bad input (a URL, a server, a credential to fix): the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  override get message(): string {
    const why = this.problem === undefined ? "" : `: ${this.problem}`
    switch (this.step) {
      case "connect":
        return `cannot reach the cluster's PostgreSQL at ${this.address}${why}`
      case "start":
        return `cluster at ${this.address}${why}`
      case "listen":
        return `worker: cannot listen on ${this.address} (--host, --port)${why}`
      case "agent":
        return this.problem ?? ""
      case "prune":
        return `cannot prune the cluster's messages${why}`
      case "reset":
        return `cannot reset trial ${this.trial}'s message${why}`
      case "workers":
        return `cannot read the cluster's workers${why}`
    }
  }
}

/**
 * The cluster's database refused the login: a wrong password, an unknown
 * user, no `pg_hba.conf` entry for this host (PostgreSQL's codes 28P01 and
 * 28000). `address` is the database's `host:port`, `user` the user refused
 * (when known), `code` the server's SQLSTATE (when it sent one) and
 * `problem` what to check.
 *
 * @category errors
 * @since 0.1.0
 */
export class ClusterAuthFailed extends Schema.TaggedError<ClusterAuthFailed>()("ClusterAuthFailed", {
  address: Schema.String,
  user: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.String),
  problem: Schema.String
}) {
  /** Bad input (a URL, a server, a credential to fix): the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
  override get message(): string {
    const who = this.user === undefined ? "" : ` for user ${JSON.stringify(this.user)}`
    return `authentication failed${who} at ${this.address}: ${this.problem}`
  }
}

/**
 * A checked `--cluster` URL: the URL itself (kept redacted) and what a
 * message may show of it.
 *
 * @category models
 * @since 0.1.0
 */
export interface ClusterUrl {
  readonly url: Redacted.Redacted<string>
  /** `host:port`, never the user or password. */
  readonly address: string
  /** The user name of the URL (empty when it names none). */
  readonly user: string
  /** The whole URL as messages may show it (`redactUrl`: no user, password or query values). */
  readonly shown: string
}

/**
 * Checks `--cluster URL`: `postgres://` or `postgresql://`, with a host.
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseUrl = (text: string, source = "--cluster"): ClusterUrl | InvalidClusterUrl => {
  const bad = (problem: string) => new InvalidClusterUrl({ source, url: redactUrl(text), problem })
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return bad("not a URL")
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    return bad(`the scheme must be postgres: or postgresql:, not ${url.protocol}`)
  }
  if (url.hostname === "") return bad("no host")
  return {
    url: Redacted.make(text),
    address: `${url.hostname}:${url.port === "" ? "5432" : url.port}`,
    user: decodeURIComponentSafe(url.username),
    shown: redactUrl(text)
  }
}

const decodeURIComponentSafe = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * The shard lease settings, tuned so that a killed worker's shards move to
 * the others within about 6-8 s instead of the engine's 35 s: a shard lock
 * expires 6 s after its holder last refreshed it (every 2 s), and runners
 * re-read the assignments every second. Every process of one cluster must use
 * the same settings.
 *
 * @category constants
 * @since 0.1.0
 */
export const shardingSettings: Partial<ShardingConfig.ShardingConfig["Service"]> = {
  shardLockRefreshInterval: Duration.seconds(2),
  shardLockExpiration: Duration.seconds(6),
  refreshAssignmentsInterval: Duration.seconds(1),
  entityMessagePollInterval: Duration.seconds(2),
  runnerHealthCheckInterval: Duration.seconds(5)
}

/**
 * The SQL client of the cluster's database, after one query has answered
 * (within 5 s): an unreachable database fails here, naming `host:port`, and
 * a refused login with `ClusterAuthFailed`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerSql = (cluster: ClusterUrl): Layer.Layer<SqlClient.SqlClient, ClusterUnreachable | ClusterAuthFailed> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function*() {
      const sql = yield* PgClient.make({
        url: cluster.url,
        connectTimeout: Duration.seconds(5),
        maxConnections: 20
      })
      yield* sql`SELECT 1`
      return sql as SqlClient.SqlClient
    }).pipe(
      Effect.timeout(Duration.seconds(10)),
      Effect.mapError((e) =>
        authFailure(cluster, e) ??
          new ClusterUnreachable({ step: "connect", address: cluster.address, problem: describeSqlError(e) })
      )
    )
  ).pipe(Layer.provide(Reactivity.layer))

// PostgreSQL's SQLSTATE class 28, "invalid authorization specification":
// 28P01 a wrong password, 28000 an unknown role or no pg_hba.conf entry.
// The server's error sits a few causes down, under effect/sql's
// `AuthenticationError` reason.
const authFailure = (cluster: ClusterUrl, e: unknown): ClusterAuthFailed | undefined => {
  let auth = false
  let server: { readonly code: string; readonly message: string } | undefined
  let current: unknown = e
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const { _tag, code, message, cause, reason } = current as Record<string, unknown>
    if (_tag === "AuthenticationError") auth = true
    if ((code === "28P01" || code === "28000") && typeof message === "string") server = { code, message }
    current = cause ?? reason
  }
  if (!auth && server === undefined) return undefined
  const user = cluster.user !== "" ? cluster.user : /user "([^"]*)"/.exec(server?.message ?? "")?.[1]
  const problem = server?.code === "28P01"
    ? "the password was refused (check the user and password of --cluster)"
    : server?.message ?? "check the user and password of --cluster"
  return new ClusterAuthFailed({
    address: cluster.address,
    ...(user === undefined ? undefined : { user }),
    ...(server === undefined ? undefined : { code: server.code }),
    problem
  })
}

const describeSqlError = (e: unknown): string => {
  let current: unknown = e
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const message = (current as { readonly message?: unknown }).message
    const cause = (current as { readonly cause?: unknown }).cause
    if (typeof message === "string" && message !== "" && !/^(SqlError|An error has occurred)$/.test(message)) {
      return message
    }
    current = cause
  }
  return String(e)
}

/**
 * Deletes the messages and replies of the trial entity: those of one run
 * (entity ids `RUNKEY/...`), or every processed one when `runKey` is
 * undefined. Returns the number of messages deleted. The tables may not
 * exist yet (no worker has started): then nothing is deleted.
 *
 * @category housekeeping
 * @since 0.1.0
 */
export const prune = (runKey: string | undefined): Effect.Effect<number, ClusterUnreachable, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* sql<{ readonly t: string | null }>`SELECT to_regclass('cluster_messages')::text AS t`
    if (exists[0]?.t == null) return 0
    const which = runKey === undefined
      ? sql`entity_type = ${entityType} AND processed = TRUE`
      : sql`entity_type = ${entityType} AND entity_id LIKE ${`${escapeLike(runKey)}/%`}`
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages WHERE ${which})`
      const deleted = yield* sql<{ readonly id: string }>`DELETE FROM cluster_messages WHERE ${which} RETURNING id`
      return deleted.length
    }))
  }).pipe(Effect.mapError((e) => new ClusterUnreachable({ step: "prune", problem: describeSqlError(e) })))

/**
 * Deletes one trial's message and its replies, so that sending it again
 * stores a fresh message: what the client does when a trial's reply is an
 * interruption (its worker stopped in the middle of it), which a resend of
 * the stored message would only repeat. The row is found as the engine keys
 * it: the composed primary key, or its SHA-256 when longer than 255.
 *
 * @category housekeeping
 * @since 0.1.0
 */
export const forgetTrial = (runKey: string, id: string): Effect.Effect<void, ClusterUnreachable, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const key = `${entityType}/${entityId(runKey, id)}/${RunTrial._tag}/${id}`
    const messageId = key.length <= 255 ? key : createHash("sha256").update(key).digest("hex")
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`DELETE FROM cluster_replies WHERE request_id IN (SELECT id FROM cluster_messages WHERE message_id = ${messageId})`
      yield* sql`DELETE FROM cluster_messages WHERE message_id = ${messageId}`
    }))
  }).pipe(Effect.mapError((e) => new ClusterUnreachable({ step: "reset", trial: id, problem: describeSqlError(e) })))

/**
 * The workers registered with the cluster and alive now: the rows of the
 * engine's runners table (`SqlRunnerStorage`'s `cluster_runners`) marked
 * healthy whose heartbeat is younger than a shard lease, as the engine
 * itself counts them. 0 before any worker has ever started (no table yet).
 *
 * @category housekeeping
 * @since 0.1.0
 */
export const liveWorkers: Effect.Effect<number, ClusterUnreachable, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const exists = yield* sql<{ readonly t: string | null }>`SELECT to_regclass('cluster_runners')::text AS t`
  if (exists[0]?.t == null) return 0
  const expiry = Duration.toSeconds(shardingSettings.shardLockExpiration ?? Duration.seconds(35))
  const rows = yield* sql<{ readonly n: string | number }>`
    SELECT count(*) AS n FROM cluster_runners
    WHERE healthy = TRUE AND last_heartbeat > NOW() - make_interval(secs => ${expiry})`
  return Number(rows[0]?.n ?? 0)
}).pipe(Effect.mapError((e) => new ClusterUnreachable({ step: "workers", problem: describeSqlError(e) })))

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The run's messages left in the database: for tests and the bench.
 *
 * @internal
 */
export const countMessages = (runKey: string): Effect.Effect<number, unknown, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly n: string | number }>`
      SELECT count(*) AS n FROM cluster_messages WHERE entity_type = ${entityType} AND entity_id LIKE ${`${escapeLike(runKey)}/%`}`
    return Number(rows[0]?.n ?? 0)
  })

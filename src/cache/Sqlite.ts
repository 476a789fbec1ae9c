/**
 * The response cache on Node's built-in `node:sqlite`: one file,
 * `<cache-dir>/responses.sqlite`, in WAL mode, so two runs may share it (a
 * writer waits for the other's lock up to `busy_timeout`, then fails naming
 * the file) and a process killed mid-write leaves it whole (the write was
 * one transaction: it is in the file or it is not).
 *
 * @since 0.8.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { Clock, Effect, Layer, Option, type Scope } from "effect"
import { CacheError, ResponseCache, type Shape, Tallies } from "./ResponseCache.ts"

/**
 * Where the cache is and how it answers.
 *
 * @category models
 * @since 0.8.0
 */
export interface Options {
  /** The folder of `responses.sqlite` (made when missing): `--cache-dir`. */
  readonly dir: string
  /** An entry older than this is not served (and a new answer replaces it). Default 7 days. */
  readonly lifetimeMs?: number | undefined
  /** Serve nothing: ask again and overwrite (`--cache refresh`). */
  readonly refresh?: boolean | undefined
  /** How long a write waits for another process's lock (default 10 s). */
  readonly busyTimeoutMs?: number | undefined
  /** Count each trial's hits and misses (`tallies`), for a run that takes them to mark its records; off by default. */
  readonly countTrials?: boolean | undefined
}

/**
 * The file name of the cache in its folder.
 *
 * @category files
 * @since 0.8.0
 */
export const FILE_NAME = "responses.sqlite"

/**
 * An entry's default lifetime: 7 days.
 *
 * @category defaults
 * @since 0.8.0
 */
export const DEFAULT_LIFETIME_MS = 7 * 24 * 3_600_000

/**
 * Opens (or makes) the cache file; the scope closes it.
 *
 * **Example** (A cache of one's own)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { ResponseCache, SqliteCache } from "agent-trials"
 *
 * const stats = Effect.flatMap(Effect.service(ResponseCache.ResponseCache), (cache) => cache.stats).pipe(
 *   Effect.provide(SqliteCache.layer({ dir: "/tmp/agent-trials-cache" }))
 * )
 * ```
 *
 * @category constructors
 * @since 0.8.0
 */
export const make = (options: Options): Effect.Effect<Shape, CacheError, Scope.Scope> =>
  Effect.acquireRelease(Effect.suspend(() => open(options)), (opened) => Effect.sync(() => opened.close()))
    .pipe(Effect.map((opened) => opened.shape))

/**
 * {@link make} as the `ResponseCache` layer.
 *
 * @category layers
 * @since 0.8.0
 */
export const layer = (options: Options): Layer.Layer<ResponseCache, CacheError> => Layer.effect(ResponseCache, make(options))

const open = (options: Options): Effect.Effect<{ readonly shape: Shape; close(): void }, CacheError> => {
  const file = path.join(options.dir, FILE_NAME)
  const fail = (error: unknown) => new CacheError({ file, problem: error instanceof Error ? error.message : String(error) })
  let db: DatabaseSync
  try {
    fs.mkdirSync(options.dir, { recursive: true })
    db = new DatabaseSync(file)
  } catch (error) {
    return Effect.fail(fail(error))
  }
  let statements: {
    readonly get: StatementSync
    readonly put: StatementSync
    readonly count: StatementSync
    readonly clearOlder: StatementSync
    readonly clearAll: StatementSync
  }
  try {
    // The busy timeout first: switching to WAL takes a lock another run may hold.
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(options.busyTimeoutMs ?? 10_000))}`)
    db.exec("PRAGMA journal_mode = WAL")
    // With WAL, NORMAL survives a killed process (not a power cut) and spares an fsync per write.
    db.exec("PRAGMA synchronous = NORMAL")
    db.exec(
      "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, created_at INTEGER NOT NULL, body TEXT NOT NULL);" +
        "CREATE INDEX IF NOT EXISTS responses_created_at ON responses (created_at)"
    )
    statements = {
      get: db.prepare("SELECT body FROM responses WHERE key = ? AND created_at >= ?"),
      put: db.prepare("INSERT OR REPLACE INTO responses (key, created_at, body) VALUES (?, ?, ?)"),
      count: db.prepare(
        "SELECT count(*) AS entries, coalesce(sum(length(CAST(body AS BLOB))), 0) AS bytes, " +
          "min(created_at) AS oldest, max(created_at) AS newest FROM responses"
      ),
      clearOlder: db.prepare("DELETE FROM responses WHERE created_at < ?"),
      clearAll: db.prepare("DELETE FROM responses")
    }
  } catch (error) {
    db.close()
    return Effect.fail(fail(error))
  }
  const lifetimeMs = options.lifetimeMs ?? DEFAULT_LIFETIME_MS
  const refresh = options.refresh === true
  const attempt = <A>(f: () => A): Effect.Effect<A, CacheError> =>
    Effect.suspend(() => {
      try {
        return Effect.succeed(f())
      } catch (error) {
        return Effect.fail(fail(error))
      }
    })
  const shape: Shape = {
    file,
    tallies: new Tallies(options.countTrials === true),
    lookup: (key) =>
      refresh ? Effect.succeed(Option.none()) : Effect.flatMap(Clock.currentTimeMillis, (now) =>
        attempt(() => {
          const row = statements.get.get(key, now - lifetimeMs) as { readonly body: string } | undefined
          return row === undefined ? Option.none() : Option.some(row.body)
        })),
    store: (key, body) => Effect.flatMap(Clock.currentTimeMillis, (now) => attempt(() => void statements.put.run(key, now, body))),
    stats: attempt(() => {
      const row = statements.count.get() as {
        readonly entries: number
        readonly bytes: number
        readonly oldest: number | null
        readonly newest: number | null
      }
      const size = (name: string) => (fs.existsSync(name) ? fs.statSync(name).size : 0)
      return {
        file,
        entries: row.entries,
        bytes: row.bytes,
        file_bytes: size(file) + size(`${file}-wal`),
        ...(row.oldest === null ? undefined : { oldest: new Date(row.oldest).toISOString() }),
        ...(row.newest === null ? undefined : { newest: new Date(row.newest).toISOString() })
      }
    }),
    clear: (olderThanMs) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        attempt(() => {
          const result = olderThanMs === undefined ? statements.clearAll.run() : statements.clearOlder.run(now - olderThanMs)
          // The pages freed go back to the file system once no reader holds the WAL.
          db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
          return Number(result.changes)
        }))
  }
  return Effect.succeed({ shape, close: () => db.close() })
}

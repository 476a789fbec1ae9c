/**
 * `agent-trials cache stats` and `agent-trials cache clear`: what the
 * response cache of `run --cache` holds, and removing entries from it (all,
 * or those stored more than `--older-than` ago).
 *
 * @since 0.8.0
 */
import * as os from "node:os"
import { Config, Effect, Option } from "effect"
import type { CacheError, Stats } from "../cache/ResponseCache.ts"
import * as SqliteCache from "../cache/Sqlite.ts"
import { defaultCacheDir } from "../datasets/internal/hub.ts"
import { formatBytes } from "../internal/byteSize.ts"

/**
 * The cache folder: `--cache-dir`, else `$XDG_CACHE_HOME/agent-trials`,
 * else `~/.cache/agent-trials` (where `hf:` downloads are kept too).
 *
 * @category paths
 * @since 0.8.0
 */
export const cacheDir = (given: string | undefined): Effect.Effect<string> =>
  given !== undefined ? Effect.succeed(given) : Config.String("XDG_CACHE_HOME").pipe(
    Config.option,
    Effect.map((xdg) => defaultCacheDir({ XDG_CACHE_HOME: Option.getOrUndefined(xdg) }, os.homedir())),
    Effect.orElseSucceed(() => defaultCacheDir({}, os.homedir()))
  )

/**
 * What the cache in `dir` holds (made empty when there is none).
 *
 * @category programs
 * @since 0.8.0
 */
export const stats = (dir: string): Effect.Effect<Stats, CacheError> =>
  Effect.scoped(Effect.flatMap(SqliteCache.make({ dir }), (cache) => cache.stats))

/**
 * Removes the entries stored more than `olderThanMs` ago (all when
 * undefined); the number removed.
 *
 * @category programs
 * @since 0.8.0
 */
export const clear = (dir: string, olderThanMs: number | undefined): Effect.Effect<number, CacheError> =>
  Effect.scoped(Effect.flatMap(SqliteCache.make({ dir }), (cache) => cache.clear(olderThanMs)))

/**
 * `stats` as the command prints it: `response cache FILE: N entries, 12.3 KB
 * of answers (20.5 KB on disk), oldest ..., newest ...`.
 *
 * @category formatting
 * @since 0.8.0
 */
export const formatStats = (s: Stats): string =>
  `response cache ${s.file}: ${s.entries} ${s.entries === 1 ? "entry" : "entries"}, ${formatBytes(s.bytes)} of answers ` +
  `(${formatBytes(s.file_bytes)} on disk)` +
  (s.oldest === undefined ? "" : `, oldest ${s.oldest}, newest ${s.newest}`)

/**
 * The `cache` command: `cache stats` and `cache clear [--older-than
 * DURATION]` of the response cache `run --cache` keeps in `--cache-dir`.
 *
 * @since 0.8.0
 */
import { Console, Effect, Option } from "effect"
import { Command } from "effect/cli"
import * as Cache from "../programs/Cache.ts"
import * as Options from "../programs/Options.ts"
import { reportErrors, UsageError } from "./errors.ts"
import { optionalString, optionFlag } from "./flags.ts"

const cacheDirFlag = optionalString(
  "cache-dir",
  "The folder of responses.sqlite (default $XDG_CACHE_HOME/agent-trials, else ~/.cache/agent-trials)"
)

// A cache that cannot be opened is the folder's fault: exit 2, naming it.
const usage = (e: { readonly message: string }) => new UsageError({ message: e.message })

const statsCommand = Command.make(
  "stats",
  { cacheDir: cacheDirFlag },
  Effect.fn("Cli.cacheStats")(function*({ cacheDir }) {
    const dir = yield* Cache.cacheDir(Option.getOrUndefined(cacheDir))
    yield* Console.log(Cache.formatStats(yield* Cache.stats(dir).pipe(Effect.mapError(usage))))
  }, reportErrors)
).pipe(Command.withDescription("The response cache's entries, their bytes, and the oldest and newest"))

const clearCommand = Command.make(
  "clear",
  {
    cacheDir: cacheDirFlag,
    olderThan: optionFlag(
      "older-than",
      "DURATION",
      Options.CacheAge,
      undefined,
      "Remove only the entries stored longer ago than this (7d, 12h, 30m); all by default"
    )
  },
  Effect.fn("Cli.cacheClear")(function*({ cacheDir, olderThan }) {
    const dir = yield* Cache.cacheDir(Option.getOrUndefined(cacheDir))
    const removed = yield* Cache.clear(dir, olderThan).pipe(Effect.mapError(usage))
    yield* Console.log(`removed ${removed} ${removed === 1 ? "entry" : "entries"} from the response cache in ${dir}`)
  }, reportErrors)
).pipe(Command.withDescription("Remove the response cache's entries (all, or those older than --older-than)"))

/**
 * `cache stats` and `cache clear`.
 *
 * @category commands
 * @since 0.8.0
 */
export const cacheCommand = Command.make("cache").pipe(
  Command.withDescription("The response cache of run --cache: stats, clear"),
  Command.withSubcommands([statsCommand, clearCommand])
)

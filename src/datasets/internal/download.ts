/**
 * A Hub file into the cache: resumable (a `.part` and `Range`), bounded
 * (`--hub-timeout` on every wait, the size the Hub declares or
 * `--max-download` on the bytes), and shared (a `.lock` beside the entry, so
 * two runs filling it at once take turns). Only a file of exactly the size
 * declared is renamed to its cache name.
 *
 * @internal
 */
import { Clock, Duration, Effect, type PlatformError, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as os from "node:os"
import { formatBytes } from "../../internal/byteSize.ts"
import { redactUrl } from "../../internal/redact.ts"
import type { DatasetError } from "../Source.ts"
import { type Context, describe, fail, type Flow, received, seconds, send, statusError, watch } from "./transfer.ts"

/** @internal */
export interface HubFile {
  /** Where it is in the repository. */
  readonly path: string
  /** The absolute path of the complete downloaded file. */
  readonly local: string
}

/** `file` of the dataset at commit `sha`, from the cache or downloaded into it. @internal */
export const download = (ctx: Context, sha: string, file: string): Effect.Effect<HubFile, DatasetError> =>
  Effect.gen(function*() {
    const { fs, path } = ctx
    // Paths matched by the layouts have no `..` segment: the config and split cannot be one, `*` stays in its folder.
    const local = path.resolve(ctx.options.cacheDir, "hf", ...ctx.ref.repo.split("/"), sha, ...file.split("/"))
    // Only a complete file ever gets this name.
    if (yield* fs.exists(local)) return { path: file, local }
    yield* fs.makeDirectory(path.dirname(local), { recursive: true })
    const url = `${ctx.options.endpoint}/datasets/${ctx.ref.repo}/resolve/${sha}/${file.split("/").map(encodeURIComponent).join("/")}`
    yield* locked(ctx, local, Effect.gen(function*() {
      // Filled by the run that held the lock before.
      if (yield* fs.exists(local)) return
      yield* fetchTo(ctx, url, local, false, `no file ${file} in dataset ${ctx.ref.repo} at ${sha}`)
    }))
    return { path: file, local }
  }).pipe(Effect.catchTag("PlatformError", (error) => fail(ctx, `cannot write the cache for ${file}: ${error.message}`)))

const host = os.hostname()

// Whether the run that wrote `owner` (`PID HOST`) may still be downloading: another host's cannot be asked.
const holderAlive = (owner: string): boolean => {
  const [pid, on] = owner.trim().split(" ")
  if (on !== host || !/^\d+$/.test(pid ?? "")) return true
  try {
    process.kill(Number(pid), 0)
    return true
  } catch (e) {
    return (e as { readonly code?: unknown }).code === "EPERM"
  }
}

const POLL = Duration.millis(200)

/**
 * Runs `fill` holding `LOCAL.lock` (created exclusively, holding `PID
 * HOST`, removed after). A lock held by a run of this host that is gone
 * (killed) is taken over; any other is waited for: its holder's download
 * is bounded by `--hub-timeout` (headers, then each byte: two of them
 * without a byte at most), so a lock whose `.part` has not moved for three
 * is an error naming it (a stopped process, a run of another host that was
 * killed).
 */
const locked = <A, E, R>(ctx: Context, local: string, fill: Effect.Effect<A, E, R>) => {
  const { fs } = ctx
  const lock = `${local}.lock`
  const part = `${local}.part`
  const sizeOf = (file: string) => Effect.orElseSucceed(Effect.map(fs.stat(file), (s) => Number(s.size)), () => -1)
  const acquire: Effect.Effect<void, DatasetError | PlatformError.PlatformError> = Effect.gen(function*() {
    // What the lock and the .part were when last seen to change, and when (Clock time).
    let seen = { owner: "", part: -1, since: yield* Clock.currentTimeMillis }
    while (true) {
      const taken = yield* fs.writeFileString(lock, `${process.pid} ${host}\n`, { flag: "wx" }).pipe(
        Effect.as(true),
        Effect.catchTag("PlatformError", (e) => e.reason._tag === "AlreadyExists" ? Effect.succeed(false) : Effect.fail(e))
      )
      if (taken) return
      const owner = yield* fs.readFileString(lock).pipe(Effect.orElseSucceed(() => ""))
      if (owner !== "" && !holderAlive(owner)) {
        // Its run was killed: the .part it left is resumed by whoever takes the lock.
        yield* fs.remove(lock, { force: true })
        continue
      }
      const size = yield* sizeOf(part)
      const now = yield* Clock.currentTimeMillis
      if (owner !== seen.owner || size !== seen.part) seen = { owner, part: size, since: now }
      if (now - seen.since >= 3 * ctx.timeoutMs) {
        return yield* fail(
          ctx,
          `${lock} is held by another run (${owner.trim() || "unknown"}) whose download has not moved for ${
            seconds(3 * ctx.timeoutMs)
          }: if no run is downloading this dataset, delete ${lock} and run again`,
          true
        )
      }
      yield* Effect.sleep(POLL)
    }
  })
  return Effect.acquireUseRelease(acquire, () => fill, () => Effect.ignore(fs.remove(lock, { force: true })))
}

// `missing`: what a 404 means here. `restarted`: the .part was given up once already.
const fetchTo = (ctx: Context, url: string, local: string, restarted: boolean, missing: string): Effect.Effect<void, DatasetError | PlatformError.PlatformError> =>
  Effect.scoped(Effect.gen(function*() {
    const { fs } = ctx
    const part = `${local}.part`
    const have = (yield* fs.exists(part)) ? Number((yield* fs.stat(part)).size) : 0
    // identity: Content-Length and Range count the bytes of the file, not of a compressed body.
    const headers: Record<string, string> = { "accept-encoding": "identity" }
    if (have > 0) headers["range"] = `bytes=${have}-`
    // The Hub's own answer (the 302 to its CDN) declares the file's size: seen on each hop of the redirects.
    let linked: number | undefined
    const client = ctx.base.pipe(
      HttpClient.tap((hop) =>
        Effect.sync(() => {
          const size = hop.headers["x-linked-size"]
          if (size !== undefined && /^\d+$/.test(size)) linked = Number(size)
        })
      ),
      HttpClient.withScope,
      HttpClient.followRedirects(10)
    )
    const response = yield* send(ctx, url, headers, client)
    const range = /^bytes (?:(\d+)-\d+|\*)\/(\d+)$/.exec(response.headers["content-range"] ?? "")
    const startOver = Effect.andThen(fs.remove(part, { force: true }), fetchTo(ctx, url, local, true, missing))
    let expected: number | undefined
    if (response.status === 416 && have > 0) {
      // Nothing past the end: a .part already whole (stopped before its rename), else not this file's.
      if (range !== null && Number(range[2]) === have && (linked === undefined || linked === have)) return yield* fs.rename(part, local)
      if (!restarted) return yield* startOver
    }
    if (response.status === 206 && have > 0 && range !== null && Number(range[1]) === have) expected = Number(range[2])
    else if (response.status === 206 && !restarted) return yield* startOver
    else if (response.status === 200) {
      // A server that ignores Range sends the whole file: keep none of the old bytes.
      const length = response.headers["content-length"]
      expected = length === undefined ? undefined : Number(length)
    } else return yield* statusError(ctx, response, url, missing)
    // The size the answer or the Hub declares; else no more than --max-download.
    const declared = expected ?? linked
    const limit = declared ?? ctx.maxDownload
    const limitText = declared === undefined
      ? `--max-download ${formatBytes(limit)} (no size declared)`
      : `the ${declared} bytes the Hub declares (${expected === undefined ? "x-linked-size" : range === null ? "Content-Length" : "Content-Range"})`
    const start = response.status === 206 ? have : 0
    const flow: Flow = { bytes: 0, lastAt: 0 }
    let over = false
    const body = response.stream.pipe(
      Stream.mapEffect((chunk) => {
        if (start + flow.bytes + chunk.length <= limit) return Effect.as(received(flow, chunk), chunk)
        over = true
        return fail(ctx, `download from ${redactUrl(url)} is larger than ${limitText}: stopped at ${start + flow.bytes + chunk.length} bytes and removed its .part`, true)
      }),
      Stream.run(fs.sink(part, { flag: response.status === 206 ? "a" : "w" })),
      Effect.catchTag("HttpClientError", (error) =>
        fail(ctx, `download from ${redactUrl(url)} stopped (${describe(error)}) after ${start + flow.bytes} bytes: run again to resume it`, true))
    )
    yield* Effect.raceFirst(body, watch(ctx, url, flow, start)).pipe(
      Effect.tapError(() => over ? Effect.ignore(fs.remove(part, { force: true })) : Effect.void)
    )
    const size = Number((yield* fs.stat(part)).size)
    // Never renamed unless whole: a body cut short with a clean end is no file.
    if (declared !== undefined && size !== declared) {
      if (size > declared) yield* fs.remove(part, { force: true })
      return yield* fail(ctx, `download from ${redactUrl(url)} has ${size} of ${declared} bytes${
        size > declared ? " (too many: removed)" : ": run again to resume it"
      }`, true)
    }
    yield* fs.rename(part, local)
  }))

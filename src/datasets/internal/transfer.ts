/**
 * The HTTP side of the `hf:` source every request shares: the context a
 * resolution carries, its errors (the token scrubbed), and the bounds on
 * waiting for the Hub. `--hub-timeout` bounds the wait for a response's
 * headers and for each byte of its body; a body slower than 1 KB/s over
 * that long ends too (a trickle never stalls, yet would take weeks). Every
 * bound runs on Effect's Clock, so tests drive it with TestClock.
 *
 * @internal
 */
import { Clock, Duration, Effect, type FileSystem, type Path, Redacted, type Scope } from "effect"
import { type HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { preview } from "../../domain/internal/post.ts"
import { formatBytes } from "../../internal/byteSize.ts"
import { redactUrl } from "../../internal/redact.ts"
import { DatasetError } from "../Source.ts"

/** `--hub-timeout`'s default: a week-long run on a slow link rides out a minute's hiccup, and a dead one ends. @internal */
export const DEFAULT_TIMEOUT_MS = 60_000
/** `--max-download`'s default: above any one Parquet shard the Hub writes, below a full disk. @internal */
export const DEFAULT_MAX_DOWNLOAD = 10e9
/** The most a dataset info answer may be: far above any real one (a few KB per file listed), far below memory. @internal */
export const DEFAULT_MAX_INFO = 64e6
/** A body slower than this over a whole `--hub-timeout` ends. @internal */
export const MIN_BYTES_PER_SECOND = 1024

/** @internal */
export interface Context {
  readonly spec: string
  readonly ref: { readonly repo: string }
  readonly options: { readonly token: Redacted.Redacted<string> | undefined; readonly cacheDir: string; readonly endpoint: string }
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  /** The client as given, for a request that watches each hop (`x-linked-size`). */
  readonly base: HttpClient.HttpClient
  readonly client: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>
  readonly scrub: (text: string) => string
  /** Whether a token goes with each request: it changes what a 401 or 403 means. */
  readonly sent: boolean
  readonly timeoutMs: number
  readonly maxDownload: number
  /** The bytes an info answer (JSON, held in memory) may have. */
  readonly maxInfo: number
}

/** @internal */
export const fail = (ctx: Context, message: string, transient?: boolean) =>
  Effect.fail(
    new DatasetError({ path: ctx.spec, message: `${ctx.spec}: ${ctx.scrub(message)}`, ...(transient === true ? { transient } : {}) })
  )

/** @internal */
export const seconds = (ms: number): string => ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`

/**
 * A GET of `url` with its answer's headers within `--hub-timeout`; `client`
 * to watch the hops of its redirects.
 *
 * @internal
 */
export const send = (ctx: Context, url: string, headers: Record<string, string>, client = ctx.client) => {
  let request = HttpClientRequest.get(url, { headers })
  if (ctx.sent) request = HttpClientRequest.bearerToken(request, ctx.options.token ?? Redacted.make(""))
  return client.execute(request).pipe(
    Effect.catch((error) => fail(ctx, `cannot reach ${redactUrl(url)}: ${describe(error)}`)),
    Effect.timeoutOrElse({
      duration: Duration.millis(ctx.timeoutMs),
      orElse: () =>
        fail(
          ctx,
          `no answer from ${redactUrl(url)} in ${seconds(ctx.timeoutMs)} (--hub-timeout): the Hub or the link is stalled; run again, or give a longer --hub-timeout`,
          true
        )
    })
  )
}

/** The bytes of a body as they come, for its watch. @internal */
export interface Flow {
  /** Received in this request. */
  bytes: number
  /** When the last came (Clock time). */
  lastAt: number
}

/**
 * Fails once the body of `url` stalls (no byte for `--hub-timeout`) or
 * trickles (under 1 KB/s over a whole `--hub-timeout`); never succeeds:
 * raced against the reading of the body. `have`: bytes kept from before
 * (a resumed `.part`), for the message.
 *
 * @internal
 */
export const watch = (ctx: Context, url: string, flow: Flow, have = 0, what: "download" | "answer" = "download"): Effect.Effect<never, DatasetError> =>
  Effect.gen(function*() {
    const t = ctx.timeoutMs
    let windowStart = yield* Clock.currentTimeMillis
    let windowBytes = flow.bytes
    flow.lastAt = windowStart
    const stop = (why: string) =>
      fail(
        ctx,
        `${what} from ${redactUrl(url)} ${why}; ${formatBytes(have + flow.bytes)} received (${have + flow.bytes} bytes${
          have > 0 ? `, ${have} of them from before` : ""
        })${what === "download" ? ", kept to resume" : ""}: run again, or give a longer --hub-timeout on a slow link`,
        true
      )
    while (true) {
      const now = yield* Clock.currentTimeMillis
      if (now - flow.lastAt >= t) return yield* stop(`stalled: no byte for ${seconds(t)} (--hub-timeout)`)
      if (now - windowStart >= t) {
        const got = flow.bytes - windowBytes
        if (got < (MIN_BYTES_PER_SECOND * t) / 1000) {
          return yield* stop(`is too slow: ${got} bytes in ${seconds(t)} (--hub-timeout), under 1 KB/s`)
        }
        windowStart = now
        windowBytes = flow.bytes
      }
      yield* Effect.sleep(Duration.millis(Math.max(1, Math.min(flow.lastAt, windowStart) + t - now)))
    }
  })

/** Counts a chunk into `flow`. @internal */
export const received = (flow: Flow, chunk: Uint8Array) =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    flow.bytes += chunk.length
    flow.lastAt = now
  })

/** @internal */
export const statusError = (ctx: Context, response: HttpClientResponse.HttpClientResponse, url: string, missing: string) =>
  Effect.gen(function*() {
    const { status } = response
    const repo = ctx.ref.repo
    if (status === 401 || status === 403) {
      return yield* fail(ctx, ctx.sent
        ? `the token in HF_TOKEN has no access to dataset ${repo} (HTTP ${status}): it is gated or private; accept its conditions on the Hub with the token's account, or set HF_TOKEN to a token that has access`
        : `dataset ${repo} is gated or private (HTTP ${status}; or it does not exist): set HF_TOKEN to a token with access to it`)
    }
    if (status === 404) return yield* fail(ctx, `${missing} (HTTP 404 from ${redactUrl(url)})`)
    const body = ctx.scrub(yield* response.text.pipe(Effect.timeout(Duration.millis(ctx.timeoutMs)), Effect.orElseSucceed(() => "")))
    return yield* fail(ctx, `HTTP ${status} from ${redactUrl(url)}: ${body.trim() === "" ? "(empty body)" : preview(body)}`)
  })

// undici wraps the useful words (ECONNREFUSED, "other side closed") in causes.
/** @internal */
export const describe = (error: HttpClientError.HttpClientError): string => {
  const parts: Array<string> = []
  let current: unknown = error.reason.cause
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { readonly code?: unknown }).code
    const text = current.message || current.name
    parts.push(typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text)
    current = current.cause
  }
  return preview(parts.join(": ") || error.reason._tag)
}

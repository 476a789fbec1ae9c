/**
 * A leaner way for the HTTP agents to POST JSON than a whole `HttpClient`
 * request, for runs whose client spans go nowhere: the command's program
 * (cli/node.ts) provides one over the same undici dispatcher as its
 * `HttpClient`. Each request through `HttpClient` builds a request object
 * and its headers several times, a URL, a span and its attributes, an
 * `AbortController` and a finalization-registry entry for its response: at
 * parallelism 64 that was about a third of the CPU of an `openai:` trial.
 * Unset (a program of one's own, a test with its own client, a traced run),
 * the agents use the `HttpClient` as before.
 *
 * @internal
 */
import { Context } from "effect"

/**
 * A 2xx or any other answer: its status, the `retry-after` header, the whole
 * body as text.
 *
 * @internal
 */
export interface RawAnswer {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly text: string
}

/**
 * Sends `body` to `url` with `headers` (lower-case names) and calls `done`
 * once, with the answer or with the transport's error; the function it
 * returns aborts the request (after which `done` may still be called, and is
 * ignored by the caller that aborted). A callback rather than a Promise and
 * an `AbortSignal`: no promise, signal or listener per request.
 *
 * @internal
 */
export type RawPostFn = (
  url: URL,
  headers: Record<string, string>,
  body: string,
  done: (answer: RawAnswer | undefined, error?: unknown) => void
) => () => void

/**
 * The raw POST of the run, when its program provides one.
 *
 * @internal
 */
export const RawPost = Context.Reference<RawPostFn | undefined>("agent-trials/internal/RawPost", {
  defaultValue: () => undefined
})

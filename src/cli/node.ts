/**
 * A command run as this process's program: on Node, with the file system,
 * stdio and an HTTP client for the HTTP and OpenAI agents, its exit code the
 * process's.
 *
 * With main.ts, it is the only module of the package that needs
 * `@effect/platform-node`: the library entries (`agent-trials`,
 * `agent-trials/eager`) do not import it. With `OTEL_EXPORTER_OTLP_ENDPOINT`
 * set, traces and metrics go there over OTLP (`Telemetry.layerFromEnv`),
 * flushed before the process exits.
 *
 * @since 0.3.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Dispatcher } from "@effect/platform-node/Undici"
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Context, Effect, Layer, Runtime, Scope } from "effect"
import { HttpClient, type HttpClientRequest } from "effect/http"
import type { Command } from "effect/cli"
import { runCli, UsageError } from "./Cli.ts"
import * as Telemetry from "../runner/Telemetry.ts"
import { commandLineSecrets } from "../internal/redact.ts"
import { type RawAnswer, RawPost, type RawPostFn } from "../domain/internal/rawPost.ts"
import * as Redactor from "../runner/Redactor.ts"

// A bad OTEL_* variable is a usage error: one line on stderr, exit 2.
const telemetry = Telemetry.layerFromEnv.pipe(
  Layer.catchTag("InvalidTelemetryConfig", (e) =>
    Layer.effectDiscard(Effect.andThen(Console.error(`agent-trials: ${e.message}`), Effect.fail(new UsageError({ message: e.message })))))
)

// `runMain` exits by itself only on a failure or a signal; after a success it
// waits for the event loop to empty, which a timer or a socket that an agent
// module left open never lets happen. This runs once the program is over
// (the telemetry layer closed, so its last export is sent) and exits with the
// program's code as soon as stdout and stderr have handed on everything
// written to them: a write's callback comes after every earlier write's.
const exitWhenFlushed: Runtime.Teardown = (exit) =>
  Runtime.defaultTeardown(exit, (code) => {
    // A second Ctrl-C (npm relays the one the terminal sent it) while the
    // output drains must not kill the process with a signal instead.
    const ignore = () => {}
    process.on("SIGINT", ignore)
    process.on("SIGTERM", ignore)
    process.exitCode = code
    process.stdout.write("", () => process.stderr.write("", () => process.exit(code)))
  })

// The agents' raw POST (domain/internal/rawPost.ts) sends through a dispatch
// handler of its own that gathers the body's chunks: no Readable stream,
// promise or abort listener per request, as `dispatcher.request` makes.
const send = (dispatcher: Dispatcher, url: URL, headers: Record<string, string>, body: string, answer: RawAnswering) =>
  dispatcher.dispatch({
    origin: url.origin,
    path: url.pathname + url.search,
    method: "POST",
    headers,
    body,
    // As the HttpClient's: waits are bounded by the run's --timeout, not here.
    headersTimeout: 60 * 60 * 1000,
    bodyTimeout: 0
  }, answer)

// One request's handler: the status, `retry-after` and the body's chunks, then
// `done` once. An abort before the request starts is applied when it does.
class RawAnswering implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined = undefined
  private aborted = false
  private ended = false
  private status = 0
  private retryAfter: string | undefined = undefined
  private chunks: Array<Buffer> = []
  private readonly done: (answer: RawAnswer | undefined, error?: unknown) => void
  constructor(done: (answer: RawAnswer | undefined, error?: unknown) => void) {
    this.done = done
  }
  readonly abort = (): void => {
    this.aborted = true
    this.controller?.abort(new Error("the request was aborted"))
  }
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.aborted) controller.abort(new Error("the request was aborted"))
  }
  onResponseStart(_: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | Array<string> | undefined>): void {
    // An informational answer (1xx) is followed by the real one.
    if (statusCode < 200) return
    this.status = statusCode
    const retryAfter = headers["retry-after"]
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter
  }
  onResponseData(_: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk)
  }
  onResponseEnd(): void {
    if (this.ended) return
    this.ended = true
    const { chunks } = this
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8")
    // As undici's `body.text()`: a byte order mark is not part of the text.
    this.done({ status: this.status, retryAfter: this.retryAfter, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text })
  }
  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    this.fail(error)
  }
  /** The request never got a dispatcher, or failed on the way. */
  fail(error: unknown): void {
    if (this.ended) return
    this.ended = true
    this.done(undefined, error)
  }
}

/**
 * The command's HTTP: undici's `HttpClient` and, over the same dispatcher
 * (one pool of connections for both), the agents' raw POST (`RawPost`),
 * which they use while no tracer takes the client spans. undici (about a
 * hundred modules) is loaded and its dispatcher made by the first request,
 * not by every command: a run of `sim` or of a module agent makes none.
 *
 * @category layers
 * @since 0.9.0
 */
export const httpClient: Layer.Layer<HttpClient.HttpClient> = Layer.effectContext(Effect.gen(function*() {
  const scope = yield* Effect.scope
  const dispatcher = yield* Effect.cached(Scope.provide(NodeHttpClient.makeDispatcher, scope))
  const undici = yield* Effect.cached(
    Effect.flatMap(dispatcher, (d) => Effect.provideService(NodeHttpClient.makeUndici, NodeHttpClient.Dispatcher, d))
  )
  const client = HttpClient.makeWith(
    (request: Effect.Effect<HttpClientRequest.HttpClientRequest>) => Effect.flatMap(undici, (c) => c.postprocess(request)),
    (request: HttpClientRequest.HttpClientRequest) => Effect.succeed(request)
  )
  // The dispatcher, once the first request has made it: later ones use it as it is.
  let made: Dispatcher | undefined
  const post: RawPostFn = (url, headers, body, done) => {
    const answer = new RawAnswering(done)
    if (made !== undefined) send(made, url, headers, body, answer)
    else {
      Effect.runPromise(dispatcher).then((d) => {
        made = d
        send(d, url, headers, body, answer)
      }, (error: unknown) => answer.fail(error))
    }
    return answer.abort
  }
  return Context.make(HttpClient.HttpClient, client).pipe(Context.add(RawPost, post))
}))

/**
 * Runs `command` on the process's arguments, as the process's program (the
 * bin runs the root command; a program of one's own may run one made with
 * other kinds, `Cli.make`).
 *
 * @category running
 * @since 0.3.0
 */
export const runOnNode = <Name extends string, Input, E>(
  command: Command.Command<Name, Input, {}, E, NodeServices.NodeServices | HttpClient.HttpClient>
): void => {
  // The command's secrets: its command line's, known before anything runs, so
  // no record, line or span can carry them, and every agent's it calls. One
  // for the whole command, so its last error line (`reportErrors`) is
  // scrubbed of them too.
  const redactor = Redactor.Redactor.layer(commandLineSecrets(process.argv.slice(2), process.env))
  runCli(command).pipe(
    Effect.provide(
      telemetry.pipe(Layer.provideMerge(Layer.mergeAll(NodeServices.layer, httpClient, redactor)))
    ),
    runMain({ teardown: exitWhenFlushed })
  )
}

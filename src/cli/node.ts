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
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer, Runtime } from "effect"
import type { HttpClient } from "effect/http"
import type { Command } from "effect/cli"
import { runCli, UsageError } from "./Cli.ts"
import * as Telemetry from "../runner/Telemetry.ts"
import { commandLineSecrets } from "../internal/redact.ts"
import { RawPost } from "../domain/internal/rawPost.ts"
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

// The agents' raw POST (domain/internal/rawPost.ts) over the HttpClient's own undici
// dispatcher: one pool of connections for both.
const rawPost = Layer.effect(
  RawPost,
  Effect.map(Effect.service(NodeHttpClient.Dispatcher), (dispatcher) => (url: URL, headers: Record<string, string>, body: string, signal: AbortSignal) =>
    dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers,
      body,
      signal,
      // As the HttpClient's: waits are bounded by the run's --timeout, not here.
      headersTimeout: 60 * 60 * 1000,
      bodyTimeout: 0
    }).then(async (answer) => {
      const retryAfter = answer.headers["retry-after"]
      return {
        status: answer.statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        text: await answer.body.text()
      }
    }))
)
/**
 * The command's HTTP: undici's `HttpClient` and, over the same dispatcher,
 * the agents' raw POST (`RawPost`), which they use while no tracer takes
 * the client spans.
 *
 * @category layers
 * @since 0.9.0
 */
export const httpClient: Layer.Layer<HttpClient.HttpClient> = Layer.merge(NodeHttpClient.layerUndiciNoDispatcher, rawPost).pipe(
  Layer.provide(NodeHttpClient.layerDispatcher)
)

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

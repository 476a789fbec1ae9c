/**
 * The `agent-trials` command's program: the CLI on Node, with the file
 * system, stdio and an HTTP client for the HTTP and OpenAI agents. Loaded by
 * the bin (src/bin.ts) once it has checked the Node version.
 *
 * It is the only module of the package that needs `@effect/platform-node`:
 * the library entries (`agent-trials`, `agent-trials/eager`) do not import it.
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set, traces and metrics go there over
 * OTLP (`Telemetry.layerFromEnv`), flushed before the process exits.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer } from "effect"
import { runCli, trialsCommand, UsageError } from "./Cli.ts"
import * as Telemetry from "./Telemetry.ts"

// A bad OTEL_* variable is a usage error: one line on stderr, exit 2.
const telemetry = Telemetry.layerFromEnv.pipe(
  Layer.catchTag("InvalidTelemetryConfig", (e) =>
    Layer.effectDiscard(Effect.andThen(Console.error(`agent-trials: ${e.message}`), Effect.fail(new UsageError({ message: e.message })))))
)

runCli(trialsCommand).pipe(
  Effect.provide(telemetry.pipe(Layer.provideMerge(Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)))),
  runMain
)

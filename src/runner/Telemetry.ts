/**
 * Traces and metrics of runs, Effect-native: the runner's spans go to
 * whatever `Tracer` the calling program installs, nested under the caller's
 * span, and its `Metric`s live in the caller's metric registry, so any Effect
 * exporter (`effect/observability`'s OTLP or Prometheus) picks them up.
 *
 * Spans, when a tracer other than Effect's default one is installed:
 * `agent_trials.run` (one per run) > `agent_trials.trial` (one per trial:
 * trial id, task id, epoch, status, attempts, error type) > `agent_trials.call`
 * (each agent call, with its attempt number) and `agent_trials.retry_wait`
 * (each backoff, with its delay). With Effect's default tracer (which keeps
 * nothing) a run makes no spans at all, so tracing off costs nothing.
 *
 * @since 0.1.0
 */
import { Config, ConfigProvider, Effect, Layer, Metric, Option, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { Otlp, type OtlpExporter } from "effect/observability"
import { redactUrl } from "../internal/redact.ts"
import * as otlpRedaction from "./internal/otlpRedaction.ts"
import * as internal from "./internal/telemetry.ts"

/**
 * Gauge: agent calls in flight, over every run reporting to the registry.
 *
 * @category metrics
 * @since 0.1.0
 */
export const callsInFlight = internal.callsInFlight

/**
 * Gauge: trials admitted and not finished (waiting for a permit, calling the
 * agent, or waiting to retry).
 *
 * @category metrics
 * @since 0.1.0
 */
export const outstanding = internal.outstanding

/**
 * Counter: trials that finished with status `completed`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const trialsCompleted = internal.trialsCompleted

/**
 * Counter: trials that finished with status `failed`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const trialsFailed = internal.trialsFailed

/**
 * Counter: agent calls after the first attempt of a trial.
 *
 * @category metrics
 * @since 0.1.0
 */
export const retries = internal.retries

/**
 * Counter: input tokens the agent's calls reported, over every attempt
 * (`gen_ai.usage.input_tokens` on the trial's span).
 *
 * @category metrics
 * @since 0.4.0
 */
export const inputTokens = internal.inputTokens

/**
 * Counter: output tokens the agent's calls reported, over every attempt
 * (`gen_ai.usage.output_tokens` on the trial's span).
 *
 * @category metrics
 * @since 0.4.0
 */
export const outputTokens = internal.outputTokens

/**
 * Counter: USD the recorded trials spent, agent and judges, priced by
 * `run --pricing` (counted as each trial is recorded).
 *
 * @category metrics
 * @since 0.4.0
 */
export const costUsd = Metric.counter("agent_trials_cost_usd_total", {
  description: "USD the recorded trials spent (agent and judges), priced by --pricing",
  incremental: true
})

/**
 * Histogram: each finished trial's `latency_ms` (its last agent call), the
 * figure the summary's percentiles are taken from.
 *
 * @category metrics
 * @since 0.1.0
 */
export const latency = internal.latency

/**
 * The span names, for filters and tests.
 *
 * @category tracing
 * @since 0.1.0
 */
export const spanNames = internal.spanNames

/**
 * The span attribute keys.
 *
 * @category tracing
 * @since 0.1.0
 */
export const attributes = internal.attributes

/**
 * An `OTEL_*` variable the OTLP exporter cannot use: `variable` is the one
 * at fault (`OTEL_EXPORTER_OTLP_ENDPOINT`), or `OTEL_*` when the variables
 * could not be read at all; then `value` is the value refused, as shown
 * (credentials redacted), or `problem` why they could not be read.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidTelemetryConfig extends Schema.TaggedError<InvalidTelemetryConfig>()("InvalidTelemetryConfig", {
  variable: Schema.String,
  value: Schema.optionalKey(Schema.String),
  problem: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return this.value !== undefined
      ? `Expected ${this.variable} to be a URL like http://localhost:4318, got ${JSON.stringify(this.value)}`
      : `Cannot read the ${this.variable} variables: ${this.problem ?? ""}`
  }
}

const endpointVariables = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
] as const

// Effect's exporters read `OTEL_<SIGNAL>_EXPORTER` with a default of none;
// the OpenTelemetry default is `otlp`, so an endpoint alone is enough. An
// explicit value (`none`, `console`) still wins. The service name defaults
// to `agent-trials` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES
// names one.
const defaults = Effect.gen(function*() {
  for (const name of endpointVariables) {
    const value = yield* Config.option(Config.String(name))
    // `localhost:4318` parses as a URL with the scheme `localhost:`.
    if (Option.isSome(value) && !(URL.canParse(value.value) && /^https?:$/.test(new URL(value.value).protocol))) {
      return yield* new InvalidTelemetryConfig({ variable: name, value: redactUrl(value.value) })
    }
  }
  const serviceName = yield* Config.option(Config.String("OTEL_SERVICE_NAME"))
  const resourceAttributes = yield* Config.String("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault(""))
  const named = Option.isSome(serviceName) || /(^|,)\s*service\.name\s*=/.test(resourceAttributes)
  return ConfigProvider.fromUnknown({
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_METRICS_EXPORTER: "otlp",
    ...(named ? undefined : { OTEL_SERVICE_NAME: "agent-trials" })
  })
}).pipe(
  Effect.mapError((e) =>
    e instanceof InvalidTelemetryConfig ? e : new InvalidTelemetryConfig({ variable: "OTEL_*", problem: e.message })
  )
)

/**
 * OTLP/HTTP (JSON) export of traces and metrics, configured by the usual
 * OpenTelemetry variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (e.g.
 * `http://localhost:4318`; the per-signal `..._TRACES_ENDPOINT` and
 * `..._METRICS_ENDPOINT` too), `OTEL_SERVICE_NAME` (default `agent-trials`),
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`,
 * `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` (default `otlp`; `none`
 * turns one off), `OTEL_LOGS_EXPORTER` (default none), `OTEL_SDK_DISABLED`,
 * `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_METRIC_EXPORT_INTERVAL`. With no endpoint
 * it installs nothing. Every string it exports (attributes such as
 * `url.full`, status and exception messages) is redacted first: URLs lose
 * their userinfo and query values, and the secrets of every agent and judge
 * of the process are scrubbed. What is buffered is sent when the layer's scope
 * closes (at most a few seconds, if the collector does not answer); the
 * `Flusher` it provides sends it on demand.
 *
 * This is what the `agent-trials` command installs. An Effect program
 * embedding the runner can use it, or any tracer and metrics exporter of its
 * own: the runner reports to whatever is installed.
 *
 * **Example** (Traces of an embedded run, exported where the environment says)
 *
 * ```ts
 * import { Effect, Layer, Stream } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { Agent, Runner, Telemetry } from "agent-trials"
 *
 * const agent = Agent.fromPromise(async (task) => `echo ${task.id}`)
 * const tasks = Stream.range(1, 100).pipe(Stream.map((i) => ({ id: `task-${i}`, inputs: { i } })))
 * const program = Stream.runDrain(Runner.runTrials(tasks, agent, { parallelism: 8 }))
 *
 * const main = program.pipe(Effect.provide(Telemetry.layerFromEnv.pipe(Layer.provide(FetchHttpClient.layer))))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFromEnv: Layer.Layer<OtlpExporter.Flusher, InvalidTelemetryConfig, HttpClient.HttpClient> = Layer.unwrap(
  Effect.map(defaults, (provider) =>
    Otlp.layerFromConfig({ loggerMergeWithExisting: true }).pipe(
      Layer.provide(otlpRedaction.layerJson),
      Layer.provide(ConfigProvider.layerAdd(provider))
    ))
)

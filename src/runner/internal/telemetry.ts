/**
 * What a run needs for traces and metrics, decided once per run so that a
 * trial pays nothing for tracing when no tracer is installed, and a few
 * integer increments for the metrics.
 *
 * @internal
 */
import { type Context, Effect, Metric, References, Tracer } from "effect"

/** @internal */
export const spanNames = {
  run: "agent_trials.run",
  trial: "agent_trials.trial",
  call: "agent_trials.call",
  retryWait: "agent_trials.retry_wait"
} as const

/** @internal */
export const attributes = {
  trialId: "agent_trials.trial.id",
  taskId: "agent_trials.task.id",
  epoch: "agent_trials.epoch",
  status: "agent_trials.status",
  attempts: "agent_trials.attempts",
  attempt: "agent_trials.attempt",
  errorType: "agent_trials.error.type",
  delayMs: "agent_trials.retry.delay_ms",
  parallelism: "agent_trials.parallelism",
  ordered: "agent_trials.ordered",
  // OpenTelemetry's GenAI semantic conventions, for what the trial's agent spent.
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  requestModel: "gen_ai.request.model"
} as const

/** @internal */
export const latencyBoundariesMs: ReadonlyArray<number> = [
  1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000, 300_000
]

/** @internal */
export const callsInFlight = Metric.gauge("agent_trials_calls_in_flight", {
  description: "Agent calls in flight (each holds one of the run's parallelism permits)"
})
/** @internal */
export const outstanding = Metric.gauge("agent_trials_outstanding", {
  description: "Trials admitted and not finished: waiting for a permit, calling the agent, or waiting to retry"
})
/** @internal */
export const trialsCompleted = Metric.counter("agent_trials_trials_completed_total", {
  description: "Trials that finished with status completed",
  incremental: true
})
/** @internal */
export const trialsFailed = Metric.counter("agent_trials_trials_failed_total", {
  description: "Trials that finished with status failed",
  incremental: true
})
/** @internal */
export const retries = Metric.counter("agent_trials_retries_total", {
  description: "Agent calls after the first attempt of a trial",
  incremental: true
})
/** @internal */
export const inputTokens = Metric.counter("agent_trials_input_tokens_total", {
  description: "Input tokens the agent's calls reported (gen_ai.usage.input_tokens), over every attempt",
  incremental: true
})
/** @internal */
export const outputTokens = Metric.counter("agent_trials_output_tokens_total", {
  description: "Output tokens the agent's calls reported (gen_ai.usage.output_tokens), over every attempt",
  incremental: true
})
/** @internal */
export const latency = Metric.histogram("agent_trials_latency_ms", {
  description: "Duration of each finished trial's last agent call, in milliseconds (the summary's latency_ms)",
  boundaries: latencyBoundariesMs
})

/**
 * The counts behind the `agent_trials_*` metrics of one metric registry (and
 * set of metric attributes), shared by every run that reports there. The
 * registry reads them when it is snapshotted (by an exporter or
 * `Metric.value`), so the hot path only increments fields.
 *
 * @internal
 */
export class Counts {
  active = 0
  outstanding = 0
  completed = 0
  failed = 0
  retries = 0
  inputTokens = 0
  outputTokens = 0
  readonly bounds = Float64Array.from(latencyBoundariesMs)
  // One bucket per boundary (values <= it) and one past the last.
  readonly buckets = new Float64Array(latencyBoundariesMs.length + 1)
  latencyCount = 0
  latencySum = 0
  latencyMin = Number.MAX_VALUE
  latencyMax = -Number.MAX_VALUE

  recordLatency(ms: number): void {
    const bounds = this.bounds
    let lo = 0
    let hi = bounds.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (ms <= bounds[mid]) hi = mid
      else lo = mid + 1
    }
    this.buckets[lo]++
    this.latencyCount++
    this.latencySum += ms
    if (ms < this.latencyMin) this.latencyMin = ms
    if (ms > this.latencyMax) this.latencyMax = ms
  }

  latencyState(): Metric.HistogramState {
    const buckets: Array<[number, number]> = []
    let cumulated = 0
    for (let i = 0; i < this.bounds.length; i++) {
      cumulated += this.buckets[i]
      buckets.push([this.bounds[i], cumulated])
    }
    return { buckets, count: this.latencyCount, sum: this.latencySum, min: this.latencyMin, max: this.latencyMax }
  }

  register(context: Context.Context<never>): void {
    const hooks = <S>(get: () => S) => ({ get, update: noop, modify: noop })
    Metric.registerUnsafe(callsInFlight, context, hooks(() => ({ value: this.active })))
    Metric.registerUnsafe(outstanding, context, hooks(() => ({ value: this.outstanding })))
    Metric.registerUnsafe(trialsCompleted, context, hooks(() => ({ count: this.completed, incremental: true })))
    Metric.registerUnsafe(trialsFailed, context, hooks(() => ({ count: this.failed, incremental: true })))
    Metric.registerUnsafe(retries, context, hooks(() => ({ count: this.retries, incremental: true })))
    Metric.registerUnsafe(inputTokens, context, hooks(() => ({ count: this.inputTokens, incremental: true })))
    Metric.registerUnsafe(outputTokens, context, hooks(() => ({ count: this.outputTokens, incremental: true })))
    Metric.registerUnsafe(latency, context, hooks(() => this.latencyState()))
  }
}

const noop = () => {}

// Keyed like the registry's own series (by attribute values), so runs under
// equal attributes add to one series instead of replacing it with a fresh one.
const countsByRegistry = new WeakMap<Metric.MetricRegistry, Map<string, Counts>>()

const countsFor = (context: Context.Context<never>, registry: Metric.MetricRegistry, extra: Readonly<Record<string, string>>) => {
  let byAttributes = countsByRegistry.get(registry)
  if (byAttributes === undefined) {
    byAttributes = new Map()
    countsByRegistry.set(registry, byAttributes)
  }
  const key = JSON.stringify(Object.entries(extra).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  let counts = byAttributes.get(key)
  if (counts === undefined) {
    counts = new Counts()
    byAttributes.set(key, counts)
    counts.register(context)
  }
  return counts
}

/**
 * How a run reports: whether its trials get spans (only when a tracer other
 * than Effect's default, span-discarding one is installed and tracing is
 * enabled) and where its counts go.
 *
 * @internal
 */
export interface RunTelemetry {
  readonly traced: Traced | undefined
  readonly counts: Counts
}

/** @internal */
export interface Traced {
  /** `References.TracerTimingEnabled`: spans ended by hand use the same clock setting. */
  readonly timing: boolean
}

/** @internal */
export const runTelemetry: Effect.Effect<RunTelemetry> = Effect.withFiber((fiber) => {
  const tracer = fiber.getRef(Tracer.Tracer)
  const traced = tracer !== Tracer.nativeTracer && fiber.getRef(References.TracerEnabled)
    ? { timing: fiber.getRef(References.TracerTimingEnabled) }
    : undefined
  const counts = countsFor(fiber.context, fiber.getRef(Metric.MetricRegistry), fiber.getRef(Metric.CurrentMetricAttributes))
  return Effect.succeed({ traced, counts })
})

/**
 * Traces and metrics: in process under TestClock with a tracer that records
 * every span, then for real over OTLP/HTTP to a collector on 127.0.0.1 (a
 * node:http server in this file) from the README's program and from the CLI,
 * each a child process that is awaited before the collector is read.
 */
import { afterAll, afterEach, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Fiber, Metric, Option, Stream, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Agent } from "../src/domain/Agent.ts"
import * as HttpAgent from "../src/agents/Http.ts"
import { keySecrets, scrubber } from "../src/internal/redact.ts"
import { redactBatch } from "../src/runner/internal/otlpRedaction.ts"
import * as Probe from "../src/runner/Probe.ts"
import { Runner, runTrials } from "../src/runner/Runner.ts"
import * as Telemetry from "../src/runner/Telemetry.ts"
import type { AgentEvalTask } from "../src/domain/Trial.ts"
import { describeResult, killAll, readTrials, removeTempDirs, repoRoot, run, tempDir, writeJsonl } from "./cli-helpers.ts"
import { closedPort, json, serve } from "./http-server.ts"

const { attributes: attr, spanNames } = Telemetry

// ---------------------------------------------------------------------------
// In process: a tracer that keeps every span it ends.

class RecordedSpan extends Tracer.NativeSpan {
  readonly ended: Array<RecordedSpan>
  constructor(options: ConstructorParameters<typeof Tracer.NativeSpan>[0], ended: Array<RecordedSpan>) {
    super(options)
    this.ended = ended
  }
  override end(endTime: bigint, exit: Parameters<Tracer.Span["end"]>[1]): void {
    const first = this.status._tag !== "Ended"
    super.end(endTime, exit)
    if (first) this.ended.push(this)
  }
}

const recordingTracer = () => {
  const ended: Array<RecordedSpan> = []
  return { ended, tracer: Tracer.make({ span: (options) => new RecordedSpan(options, ended) }) }
}

const parentOf = (span: Tracer.Span): Tracer.AnySpan | undefined => Option.getOrUndefined(span.parent)
const named = (spans: ReadonlyArray<RecordedSpan>, name: string) => spans.filter((s) => s.name === name)
const attrOf = (span: Tracer.Span, key: string) => span.attributes.get(key)

class Flaky {
  readonly _tag = "Flaky"
  readonly retryable = true
}
class Broken {
  readonly _tag = "Broken"
}

// `inputs.mode`: "ok", "retry-once" (a retryable failure first), "fail".
const flakyAgent = (seen?: Map<string, string>): Agent<Flaky | Broken> => {
  const attempts = new Map<string, number>()
  return (task) =>
    Effect.suspend(() => {
      const attempt = (attempts.get(task.id) ?? 0) + 1
      attempts.set(task.id, attempt)
      const answer: Effect.Effect<{ readonly output_text: string }, Flaky | Broken> = task.inputs["mode"] === "fail"
        ? Effect.fail(new Broken())
        : task.inputs["mode"] === "retry-once" && attempt === 1
        ? Effect.fail(new Flaky())
        : Effect.succeed({ output_text: `ok:${task.id}` })
      const where = Effect.map(Effect.option(Effect.currentSpan), (span) => {
        seen?.set(task.id, Option.match(span, { onNone: () => "(none)", onSome: (s) => s.name }))
      })
      return Effect.andThen(Effect.andThen(Effect.sleep("10 millis"), where), answer)
    })
}

const mixed: ReadonlyArray<AgentEvalTask> = [
  { id: "ok", inputs: { mode: "ok" } },
  { id: "flaky", inputs: { mode: "retry-once" } },
  { id: "broken", inputs: { mode: "fail" } }
]

const retry = { retries: 2, base: "1 second" } as const

// Forks the run, lets TestClock pass every backoff, and collects the trials.
const drain = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(self)
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

describe("traces in process", () => {
  it.effect("a traced run: the run span under the caller's span, a span per trial with its attributes, each agent call and retry wait as its children", () =>
    Effect.gen(function*() {
      const { ended, tracer } = recordingTracer()
      const trials = yield* runTrials(Stream.fromIterable(mixed), flakyAgent(), { parallelism: 2, retry }).pipe(
        Stream.runCollect,
        Effect.withSpan("caller"),
        Effect.withTracer(tracer),
        drain
      )
      assert.deepStrictEqual(trials.map((t) => [t.id, t.status, t.metadata.attempts]).sort(), [
        ["broken:trial", "failed", 1],
        ["flaky:trial", "completed", 2],
        ["ok:trial", "completed", 1]
      ])

      const [caller] = named(ended, "caller")
      const runs = named(ended, spanNames.run)
      assert.strictEqual(runs.length, 1)
      const runSpan = runs[0]
      assert.strictEqual(parentOf(runSpan), caller)
      assert.strictEqual(attrOf(runSpan, attr.parallelism), 2)
      assert.strictEqual(runSpan.traceId, caller.traceId)

      const trialSpans = named(ended, spanNames.trial)
      assert.strictEqual(trialSpans.length, 3)
      const byTask = new Map(trialSpans.map((s) => [attrOf(s, attr.taskId), s]))
      for (const trial of trials) {
        const span = byTask.get(trial.task_id)!
        assert.strictEqual(parentOf(span), runSpan, `${trial.id}'s span is a child of the run span`)
        assert.strictEqual(attrOf(span, attr.trialId), trial.id)
        assert.strictEqual(attrOf(span, attr.status), trial.status)
        assert.strictEqual(attrOf(span, attr.attempts), trial.metadata.attempts)
        assert.strictEqual(attrOf(span, attr.errorType), trial.error?.type)
        assert.isFalse(span.attributes.has(attr.epoch), "no epochs, no epoch attribute")
      }
      // A failed trial's span ends with its failure, so a trace viewer shows it as an error.
      const exitTag = (s: Tracer.Span) => (s.status._tag === "Ended" ? s.status.exit._tag : "open")
      assert.deepStrictEqual(["ok", "flaky", "broken"].map((id) => exitTag(byTask.get(id)!)), ["Success", "Success", "Failure"])
      assert.strictEqual(attrOf(byTask.get("broken")!, attr.errorType), "Broken")

      const childrenOf = (parent: Tracer.Span, name: string) => named(ended, name).filter((s) => parentOf(s) === parent)
      const calls = (id: string) => childrenOf(byTask.get(id)!, spanNames.call).map((s) => [attrOf(s, attr.attempt), exitTag(s)])
      assert.deepStrictEqual(calls("ok"), [[1, "Success"]])
      assert.deepStrictEqual(calls("flaky"), [[1, "Failure"], [2, "Success"]])
      assert.deepStrictEqual(calls("broken"), [[1, "Failure"]])
      assert.strictEqual(named(ended, spanNames.call).length, 4, "every call span belongs to a trial")

      const waits = named(ended, spanNames.retryWait)
      assert.strictEqual(waits.length, 1)
      assert.strictEqual(parentOf(waits[0]), byTask.get("flaky"))
      assert.strictEqual(attrOf(waits[0], attr.attempt), 1)
      const flaky = trials.find((t) => t.task_id === "flaky")!
      const delays = flaky.metadata["retry_delays_ms"] as ReadonlyArray<number>
      assert.strictEqual(delays.length, 1)
      assert.strictEqual(attrOf(waits[0], attr.delayMs), delays[0])
      // The wait lasted its delay on the run's clock.
      const status = waits[0].status
      assert.isTrue(status._tag === "Ended" && Number(status.endTime - status.startTime) / 1e6 === delays[0])
    }))

  it.effect("epochs are a trial span attribute", () =>
    Effect.gen(function*() {
      const { ended, tracer } = recordingTracer()
      yield* runTrials(Stream.make(mixed[0]), flakyAgent(), { parallelism: 2, epochs: 2 }).pipe(
        Stream.runDrain,
        Effect.withTracer(tracer),
        drain
      )
      const spans = named(ended, spanNames.trial)
      assert.deepStrictEqual(spans.map((s) => [attrOf(s, attr.trialId), attrOf(s, attr.epoch)]).sort(), [["ok:1", 1], ["ok:2", 2]])
    }))

  it.effect("tracing off: with Effect's default tracer, or tracing disabled, a run makes no spans of its own", () =>
    Effect.gen(function*() {
      // Default tracer: the agent runs directly under the caller's span.
      const seen = new Map<string, string>()
      yield* runTrials(Stream.fromIterable(mixed), flakyAgent(seen), { parallelism: 2, retry }).pipe(
        Stream.runDrain,
        Effect.withSpan("caller"),
        drain
      )
      assert.deepStrictEqual([...seen.values()], ["caller", "caller", "caller"])

      // A real tracer, but tracing disabled: nothing reaches it.
      const { ended, tracer } = recordingTracer()
      yield* runTrials(Stream.fromIterable(mixed), flakyAgent(), { parallelism: 2, retry }).pipe(
        Stream.runDrain,
        Effect.withTracer(tracer),
        Effect.withTracerEnabled(false),
        drain
      )
      assert.deepStrictEqual(ended.map((s) => s.name), [])

      // The same tracer enabled: the agent runs under its call span.
      const traced = new Map<string, string>()
      yield* runTrials(Stream.fromIterable(mixed), flakyAgent(traced), { parallelism: 2, retry }).pipe(
        Stream.runDrain,
        Effect.withTracer(tracer),
        drain
      )
      assert.deepStrictEqual([...traced.values()], [spanNames.call, spanNames.call, spanNames.call])
    }))

  it.effect("the Runner service: each run (and runTasks) nests under its caller's span, with the caller's tracer", () =>
    Effect.gen(function*() {
      const { ended, tracer } = recordingTracer()
      const runner = yield* Runner
      yield* Effect.all([
        runner.run(Stream.fromIterable(mixed), flakyAgent()).pipe(Stream.runDrain, Effect.withSpan("caller-a")),
        runner.runTasks(mixed, flakyAgent()).pipe(Effect.withSpan("caller-b"))
      ], { concurrency: 2 }).pipe(Effect.withTracer(tracer), drain)
      const runs = named(ended, spanNames.run)
      assert.deepStrictEqual(runs.map((s) => parentOf(s)?._tag === "Span" ? (parentOf(s) as Tracer.Span).name : "-").sort(), [
        "Runner.runTasks",
        "caller-a"
      ])
      const runTasksSpan = named(ended, "Runner.runTasks")[0]
      assert.strictEqual(parentOf(runTasksSpan), named(ended, "caller-b")[0])
      for (const run of runs) {
        assert.strictEqual(named(ended, spanNames.trial).filter((s) => parentOf(s) === run).length, 3)
      }
    }).pipe(Effect.provide(Runner.layerWith({ parallelism: 2, retry }))))
})

describe("trace context to an HTTP agent", () => {
  it.live("each request carries a traceparent whose span is inside that trial's agent_trials.call span", () =>
    Effect.gen(function*() {
      const server = yield* serve((_request, res) => json(res, 200, { output_text: "ok" }))
      const { ended, tracer } = recordingTracer()
      yield* runTrials(Stream.fromIterable(mixed), HttpAgent.make(`${server.base}/agent`), { parallelism: 2 }).pipe(
        Stream.runDrain,
        Effect.withTracer(tracer),
        Effect.provide(NodeHttpClient.layerUndici)
      )
      assert.strictEqual(server.received.length, 3)
      for (const request of server.received) {
        const [, traceId, spanId] = String(request.headers["traceparent"]).split("-")
        const span = ended.find((s) => s.spanId === spanId)
        assert.isDefined(span, `the traceparent ${request.headers["traceparent"]} names a span of the run`)
        const ancestors: Array<Tracer.Span> = []
        for (let p = parentOf(span!); p !== undefined && p._tag === "Span"; p = parentOf(p)) ancestors.push(p)
        const names = ancestors.map((a) => a.name)
        assert.includeMembers(names, [spanNames.call, spanNames.trial, spanNames.run])
        const trial = ancestors.find((a) => a.name === spanNames.trial)!
        assert.strictEqual(attrOf(trial, attr.taskId), JSON.parse(request.body).id)
        assert.strictEqual(span!.traceId, traceId)
      }
    }))
})

describe("metrics in process", () => {
  const value = <S>(metric: Metric.Metric<never, S>) => Metric.value(metric)

  it.effect("usage: gen_ai.* attributes on the trial span (summed over attempts); none without usage", () =>
    Effect.gen(function*() {
      const { ended, tracer } = recordingTracer()
      const attempts = new Map<string, number>()
      // "spends": a retryable failure that spent 7 + 0 tokens, then 100 + 20; "free": no usage.
      const agent: Agent<{ readonly _tag: "Busy"; readonly retryable: true; readonly usage: unknown }> = (task) =>
        Effect.suspend(() => {
          const n = (attempts.get(task.id) ?? 0) + 1
          attempts.set(task.id, n)
          if (task.id === "free") return Effect.succeed({ output_text: "ok" })
          return n === 1
            ? Effect.fail({ _tag: "Busy", retryable: true, usage: { input_tokens: 7, output_tokens: 0, total_tokens: 7, model: "m" } } as const)
            : Effect.succeed({ output_text: "ok", usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120, model: "m" } })
        })
      const tasks: Array<AgentEvalTask> = [{ id: "spends", inputs: {} }, { id: "free", inputs: {} }]
      yield* runTrials(Stream.fromIterable(tasks), agent, { parallelism: 2, retry }).pipe(
        Stream.runCollect,
        Effect.withTracer(tracer),
        drain,
        Effect.provideService(Metric.MetricRegistry, new Map())
      )
      const byTask = new Map(named(ended, spanNames.trial).map((span) => [attrOf(span, attr.taskId), span]))
      const spends = byTask.get("spends")!
      assert.strictEqual(attrOf(spends, "gen_ai.usage.input_tokens"), 107)
      assert.strictEqual(attrOf(spends, "gen_ai.usage.output_tokens"), 20)
      assert.strictEqual(attrOf(spends, "gen_ai.request.model"), "m")
      assert.isFalse(byTask.get("free")!.attributes.has("gen_ai.usage.input_tokens"))
    }))

  it.effect("usage: the token counters count every attempt's reported tokens", () =>
    Effect.gen(function*() {
      const registry = new Map()
      const agent: Agent = () => Effect.succeed({ output_text: "ok", usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 } })
      const tasks = Array.from({ length: 5 }, (_, i): AgentEvalTask => ({ id: `u${i}`, inputs: {} }))
      yield* runTrials(Stream.fromIterable(tasks), agent, { parallelism: 2 }).pipe(
        Stream.runCollect,
        drain,
        Effect.provideService(Metric.MetricRegistry, registry)
      )
      const [input, output] = yield* Effect.all([value(Telemetry.inputTokens), value(Telemetry.outputTokens)]).pipe(
        Effect.provideService(Metric.MetricRegistry, registry)
      )
      assert.deepStrictEqual([input.count, output.count], [50, 15])
    }))

  it.effect("the agent_trials_* metrics in the caller's registry equal the trials' counts, and add up across runs", () =>
    Effect.gen(function*() {
      const probe = yield* Probe.make
      const many: Array<AgentEvalTask> = Array.from({ length: 30 }, (_, i) => ({
        id: `t${i}`,
        inputs: { mode: i % 5 === 0 ? "fail" : i % 3 === 0 ? "retry-once" : "ok" }
      }))
      const first = yield* runTrials(Stream.fromIterable(many), flakyAgent(), { parallelism: 4, retry, probe }).pipe(Stream.runCollect, drain)
      const completed = first.filter((t) => t.status === "completed").length
      const failed = first.filter((t) => t.status === "failed").length
      assert.deepStrictEqual([completed, failed, probe.retries], [24, 6, 8])
      assert.strictEqual((yield* value(Telemetry.trialsCompleted)).count, completed)
      assert.strictEqual((yield* value(Telemetry.trialsFailed)).count, failed)
      assert.strictEqual((yield* value(Telemetry.retries)).count, probe.retries)
      assert.strictEqual((yield* value(Telemetry.callsInFlight)).value, 0)
      assert.strictEqual((yield* value(Telemetry.outstanding)).value, 0)
      const latency = yield* value(Telemetry.latency)
      assert.strictEqual(latency.count, 30)
      // Every call takes 10 ms on the TestClock: all in the bucket up to 10 ms, none at or below 5.
      assert.deepStrictEqual(latency.buckets.slice(0, 3), [[1, 0], [5, 0], [10, 30]])
      assert.deepStrictEqual([latency.min, latency.max, latency.sum], [10, 10, 300])

      // While a run is held mid-call, the gauges show it.
      const second = yield* runTrials(Stream.fromIterable(many), flakyAgent(), { parallelism: 4, retry }).pipe(
        Stream.runCollect,
        Effect.forkChild
      )
      yield* TestClock.adjust(0)
      assert.strictEqual((yield* value(Telemetry.callsInFlight)).value, 4)
      assert.strictEqual((yield* value(Telemetry.outstanding)).value, 4)
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(second)
      assert.strictEqual((yield* value(Telemetry.trialsCompleted)).count, 2 * completed)
      assert.strictEqual((yield* value(Telemetry.trialsFailed)).count, 2 * failed)
      assert.strictEqual((yield* value(Telemetry.retries)).count, 2 * probe.retries)
      assert.strictEqual((yield* value(Telemetry.latency)).count, 60)
      assert.strictEqual((yield* value(Telemetry.callsInFlight)).value, 0)

      // Another registry (another program) starts from zero.
      const other = yield* value(Telemetry.trialsCompleted).pipe(Effect.provideService(Metric.MetricRegistry, new Map()))
      assert.strictEqual(other.count, 0)
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))
})

describe("an OTLP batch before it is serialized", () => {
  it("every string is redacted: URLs lose userinfo and query values, every scrubber's secrets go, the rest is left as it is", () => {
    // An agent of this process scrubs this key: so does every export.
    scrubber(keySecrets("sk-batch-SECRET-77"))
    const attribute = (key: string, stringValue: string) => ({ key, value: { stringValue } })
    const batch = {
      resourceSpans: [{
        resource: { attributes: [attribute("service.name", "agent-trials")] },
        scopeSpans: [{
          scope: { name: "effect" },
          spans: [{
            traceId: "0af7651916cd43dd8448eb211c80319c",
            name: "http.client POST",
            startTimeUnixNano: "1733236893000000000",
            attributes: [
              attribute("url.full", "http://u:p@h:1/v1/chat/completions?api_key=SECRET-1&v=1"),
              attribute("url.query", "api_key=SECRET-1&v=1&debug"),
              attribute("url.path", "/v1/chat/completions"),
              { key: "server.port", value: { intValue: 1 } }
            ],
            events: [{
              name: "exception",
              attributes: [
                attribute("exception.message", "Transport error (POST http://h:1/a?token=SECRET-2)"),
                attribute("exception.stacktrace", "Error: refused sk-batch-SECRET-77\n    at f (file:///app/node_modules/@effect/x.js:1:2)")
              ]
            }],
            status: { code: 2, message: "Incorrect API key provided: Bearer sk-batch-SECRET-77." }
          }]
        }]
      }]
    }
    const redacted = redactBatch(batch)
    assert.notInclude(JSON.stringify(redacted), "SECRET")
    const span = redacted.resourceSpans[0].scopeSpans[0].spans[0]
    assert.deepStrictEqual(span.attributes.map((a) => Object.values(a.value)[0]), [
      "http://<redacted>@h:1/v1/chat/completions?api_key=<redacted>&v=<redacted>",
      "api_key=<redacted>&v=<redacted>&<redacted>",
      "/v1/chat/completions",
      1
    ])
    assert.deepStrictEqual(span.events[0].attributes.map((a) => a.value.stringValue), [
      "Transport error (POST http://h:1/a?token=<redacted>)",
      "Error: refused <redacted>\n    at f (file:///app/node_modules/@effect/x.js:1:2)"
    ])
    assert.strictEqual(span.status.message, "Incorrect API key provided: Bearer <redacted>.")
    assert.deepStrictEqual(
      [span.traceId, span.name, span.startTimeUnixNano, redacted.resourceSpans[0].resource.attributes[0].value.stringValue],
      ["0af7651916cd43dd8448eb211c80319c", "http.client POST", "1733236893000000000", "agent-trials"]
    )
    assert.notStrictEqual(redacted, batch, "a copy: the batch itself is left as it is")
    assert.include(JSON.stringify(batch), "SECRET-1")
  })
})

// ---------------------------------------------------------------------------
// Over OTLP/HTTP: a collector on 127.0.0.1.

type OtlpValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean }
type OtlpAttribute = { key: string; value: OtlpValue }

interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly attributes: Record<string, unknown>
  readonly status: { readonly code: number; readonly message?: string }
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Record<string, unknown> }>
  readonly service: unknown
}

const plain = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue
const record = (list: ReadonlyArray<OtlpAttribute> | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, plain(a.value)]))

interface Collector {
  readonly url: string
  readonly requests: Array<{ readonly path: string; readonly contentType: string | undefined; readonly raw: string; readonly body: any }>
  readonly spans: () => Array<ReceivedSpan>
  /** The last exported value of each metric: a counter's or gauge's value, a histogram's count. */
  readonly metrics: () => Map<string, number>
  readonly reset: () => void
  readonly close: () => Promise<void>
}

const startCollector = () =>
  new Promise<Collector>((resolve) => {
    const requests: Collector["requests"] = []
    const server = http.createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8").on("data", (chunk: string) => body += chunk)
      req.on("end", () => {
        const ok = req.method === "POST" && (req.url === "/v1/traces" || req.url === "/v1/metrics" || req.url === "/v1/logs")
        if (ok) requests.push({ path: req.url!, contentType: req.headers["content-type"], raw: body, body: JSON.parse(body) })
        res.writeHead(ok ? 200 : 404, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        spans: () =>
          requests.filter((r) => r.path === "/v1/traces").flatMap((r) =>
            r.body.resourceSpans.flatMap((rs: any) =>
              rs.scopeSpans.flatMap((ss: any) =>
                ss.spans.map((s: any): ReceivedSpan => ({
                  traceId: s.traceId,
                  spanId: s.spanId,
                  parentSpanId: s.parentSpanId,
                  name: s.name,
                  attributes: record(s.attributes),
                  status: s.status,
                  events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: record(e.attributes) })),
                  service: record(rs.resource.attributes)["service.name"]
                }))
              )
            )
          ),
        metrics: () => {
          const last = new Map<string, number>()
          for (const r of requests.filter((r) => r.path === "/v1/metrics")) {
            for (const rm of r.body.resourceMetrics) {
              for (const sm of rm.scopeMetrics) {
                for (const m of sm.metrics) {
                  const point = (m.sum ?? m.gauge ?? m.histogram).dataPoints[0]
                  last.set(m.name, m.histogram !== undefined ? point.count : Number(point.asDouble ?? point.asInt))
                }
              }
            }
          }
          return last
        },
        reset: () => void requests.splice(0),
        close: () => new Promise<void>((done) => server.close(() => done()))
      })
    })
  })

let collector: Collector
beforeAll(async () => {
  collector = await startCollector()
})
afterEach(() => collector.reset())
afterAll(async () => {
  killAll()
  removeTempDirs()
  await collector.close()
})

const byName = (spans: ReadonlyArray<ReceivedSpan>, name: string) => spans.filter((s) => s.name === name)
const only = (spans: ReadonlyArray<ReceivedSpan>, name: string) => {
  const found = byName(spans, name)
  assert.strictEqual(found.length, 1, `one ${name} span, got ${found.length}`)
  return found[0]
}

const node = path.join(repoRoot, "node_modules", ".bin", "node")
const fixture = path.join(repoRoot, "test", "fixtures", "telemetry", "traces.ts")

// What the README shows: the fixture as a user writes it, importing the package.
const readmeProgram = () => fs.readFileSync(fixture, "utf8").replace(`from "../../../src/index.ts"`, `from "agent-trials"`)

// The children see no OTEL_* variable of the shell running the tests (Effect
// reads an empty one as unset), only the test's own.
const otel = (env: Record<string, string>): Record<string, string> => ({
  ...Object.fromEntries(Object.keys(process.env).filter((key) => key.startsWith("OTEL_")).map((key) => [key, ""])),
  ...env
})

const exec = (file: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(file, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
    child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

// Generous: each child starts Node and imports Effect on two busy cores.
describe("over OTLP/HTTP to a collector on 127.0.0.1", { timeout: 120_000 }, () => {
  it("the README's program: its run and trials arrive under its own span, with its service name and metrics", async () => {
    assert.include(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8"), readmeProgram())
    // Node strips the types itself, as a user's project would run it.
    const r = await exec(node, [fixture], otel({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }))
    assert.strictEqual(r.code, 0, describeResult({ ...r, signal: null }))
    assert.strictEqual(r.stdout.trim(), "100 trials")
    // The child has exited: everything it sent has been received.
    assert.isTrue(collector.requests.every((req) => req.contentType === "application/json"))
    const spans = collector.spans()
    const caller = only(spans, "nightly-eval")
    const runSpan = only(spans, spanNames.run)
    assert.strictEqual(runSpan.parentSpanId, caller.spanId)
    const trials = byName(spans, spanNames.trial)
    assert.strictEqual(trials.length, 100)
    assert.isTrue(trials.every((s) => s.parentSpanId === runSpan.spanId && s.traceId === caller.traceId))
    assert.strictEqual(new Set(trials.map((s) => s.attributes[attr.trialId])).size, 100)
    const trialIds = new Set(trials.map((s) => s.spanId))
    const calls = byName(spans, spanNames.call)
    assert.strictEqual(calls.length, 100)
    assert.isTrue(calls.every((s) => trialIds.has(s.parentSpanId!)))
    assert.deepStrictEqual([...new Set(spans.map((s) => s.service))], ["my-evals"])
    assert.strictEqual(collector.metrics().get(Telemetry.trialsCompleted.id), 100)
  })

  it("the CLI with only OTEL_EXPORTER_OTLP_ENDPOINT: the run's spans arrive, and the metrics equal the summary's counts", async () => {
    const dir = tempDir()
    const modes = ["ok", "retry-once", "fail", "ok", "retry-once", "ok", "fail", "retry-once", "ok", "ok"]
    const tasks = writeJsonl(path.join(dir, "tasks.jsonl"), modes.map((mode, i) => ({ id: `t${i}`, inputs: { mode } })))
    const summaryFile = path.join(dir, "summary.json")
    const out = path.join(dir, "out.jsonl")
    const r = await run(
      [
        "--tasks", tasks,
        "--agent", "module:test/fixtures/telemetry/flaky-agent.ts#flaky",
        "--backoff", "1ms",
        "--out", out,
        "--summary", summaryFile,
        "--no-progress"
      ],
      { env: otel({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }) }
    )
    assert.strictEqual(r.code, 0, describeResult(r))
    const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
    assert.deepStrictEqual([summary.trials.this_run.completed, summary.trials.this_run.failed, summary.retries], [8, 2, 3])

    const metrics = collector.metrics()
    assert.strictEqual(metrics.get(Telemetry.trialsCompleted.id), summary.trials.this_run.completed)
    assert.strictEqual(metrics.get(Telemetry.trialsFailed.id), summary.trials.this_run.failed)
    assert.strictEqual(metrics.get(Telemetry.retries.id), summary.retries)
    assert.strictEqual(metrics.get(Telemetry.latency.id), summary.trials.this_run.total)
    assert.strictEqual(metrics.get(Telemetry.callsInFlight.id), 0)
    assert.strictEqual(metrics.get(Telemetry.outstanding.id), 0)

    const spans = collector.spans()
    assert.deepStrictEqual([...new Set(spans.map((s) => s.service))], ["agent-trials"])
    const runSpan = only(spans, spanNames.run)
    // The command's own spans are its ancestors: Cli.run > Run.run > the run.
    const runRun = only(spans, "Run.run")
    assert.strictEqual(runSpan.parentSpanId, runRun.spanId)
    assert.strictEqual(runRun.parentSpanId, only(spans, "Cli.run").spanId)
    assert.strictEqual(runSpan.attributes[attr.parallelism], 8)

    const recorded = new Map(readTrials(out).map((t) => [t.id, t]))
    const trials = byName(spans, spanNames.trial)
    assert.strictEqual(trials.length, modes.length)
    for (const span of trials) {
      const trial = recorded.get(String(span.attributes[attr.trialId]))!
      const mode = modes[Number(String(span.attributes[attr.taskId]).slice(1))]
      assert.strictEqual(span.parentSpanId, runSpan.spanId)
      assert.strictEqual(span.attributes[attr.trialId], `${span.attributes[attr.taskId]}:1`)
      assert.strictEqual(span.attributes[attr.epoch], 1)
      assert.strictEqual(span.attributes[attr.status], mode === "fail" ? "failed" : "completed")
      assert.strictEqual(span.attributes[attr.attempts], mode === "retry-once" ? 2 : 1)
      assert.strictEqual(span.attributes[attr.errorType], trial.error?.type)
      assert.strictEqual(span.attributes[attr.errorType] !== undefined, mode === "fail")
      // OTLP status: 2 is an error, 1 ok.
      assert.strictEqual(span.status.code, mode === "fail" ? 2 : 1)
      const children = spans.filter((s) => s.parentSpanId === span.spanId)
      assert.deepStrictEqual(
        children.map((s) => s.name).sort(),
        mode === "retry-once" ? [spanNames.call, spanNames.call, spanNames.retryWait] : [spanNames.call]
      )
    }
    assert.strictEqual(byName(spans, spanNames.retryWait).length, summary.retries)
    const failedCalls = byName(spans, spanNames.call).filter((s) => s.status.code === 2)
    assert.strictEqual(failedCalls.length, summary.retries + summary.trials.this_run.failed)
  })

  it("the CLI: OTEL_TRACES_EXPORTER=none still wins (metrics only); a bad endpoint is one line naming the variable, exit 2", async () => {
    const dir = tempDir()
    const ok = await run(["--synthetic", "5", "--agent", "sim:latency=1ms,fail=0", "--out", path.join(dir, "a.jsonl"), "--no-progress"], {
      env: otel({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_EXPORTER: "none", OTEL_SERVICE_NAME: "nightly" })
    })
    assert.strictEqual(ok.code, 0, describeResult(ok))
    assert.deepStrictEqual([...new Set(collector.requests.map((req) => req.path))], ["/v1/metrics"])
    assert.strictEqual(collector.metrics().get(Telemetry.trialsCompleted.id), 5)
    assert.strictEqual(record(collector.requests[0].body.resourceMetrics[0].resource.attributes)["service.name"], "nightly")

    const bad = await run(["--synthetic", "5", "--out", path.join(dir, "b.jsonl"), "--no-progress"], {
      env: otel({ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" })
    })
    assert.strictEqual(bad.code, 2, describeResult(bad))
    assert.strictEqual(
      bad.stderr.trim(),
      `agent-trials: Expected OTEL_EXPORTER_OTLP_ENDPOINT to be a URL like http://localhost:4318, got "localhost:4318"`
    )
    assert.isFalse(fs.existsSync(path.join(dir, "b.jsonl")))
  })

  it("the CLI: a bad endpoint's message shows it without its credentials", async () => {
    const dir = tempDir()
    const bad = await run(["--synthetic", "5", "--out", path.join(dir, "b.jsonl"), "--no-progress"], {
      env: otel({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://user:hunter2secret@[bad?token=hunter2token" })
    })
    assert.strictEqual(bad.code, 2, describeResult(bad))
    assert.strictEqual(
      bad.stderr.trim(),
      `agent-trials: Expected OTEL_EXPORTER_OTLP_ENDPOINT to be a URL like http://localhost:4318, got "http://<redacted>@[bad?token=<redacted>"`
    )
    assert.notInclude(bad.stdout + bad.stderr, "hunter2")
  })

  // Every secret here contains "SECRET": one look at the bytes the collector got covers them all.
  it.live("the CLI: no secret of an agent's or a judge's URL, or of OPENAI_API_KEY in an error, reaches the collector; the redacted forms do", () =>
    Effect.gen(function*() {
      const key = "sk-SECRET-KEY-456"
      const query = "api_key=SECRET-VALUE-123"
      // The agent answers the first task and refuses the rest quoting the key
      // it got; the judge grades everything correct.
      const server = yield* serve((request, res) => {
        const content = (JSON.parse(request.body) as { messages: Array<{ content: string }> }).messages[0]!.content
        if (request.path.startsWith("/judge/")) return json(res, 200, { choices: [{ message: { content: "GRADE: C" } }] })
        if (content === "What is 0 + 0?") return json(res, 200, { choices: [{ message: { content: "0" } }] })
        json(res, 401, { error: { message: `Incorrect API key provided: ${request.headers.authorization}` } })
      })
      const closed = yield* closedPort
      const dir = tempDir()
      const env = otel({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OPENAI_API_KEY: key })
      const [openai, http] = yield* Effect.promise(() =>
        Promise.all([
          run([
            "--synthetic", "3",
            "--agent", `openai:${server.base}/v1?${query}`, "--model", "m",
            "--score", `judge:${server.base}/judge?${query}`, "--judge-model", "j",
            "--out", path.join(dir, "openai.jsonl"), "--no-progress"
          ], { env }),
          run([
            "--synthetic", "2",
            "--agent", `http://alice:pw-SECRET-1@127.0.0.1:${closed}/agent?${query}`, "--retries", "0",
            "--out", path.join(dir, "http.jsonl"), "--no-progress"
          ], { env })
        ])
      )
      for (const r of [openai, http]) assert.strictEqual(r.code, 0, describeResult(r))
      assert.strictEqual(server.received[0]!.headers.authorization, `Bearer ${key}`, "the server did get the key")
      assert.include(server.received[0]!.path, query)

      const received = collector.requests.map((r) => r.raw).join("\n")
      assert.notInclude(received, "SECRET")
      const spans = collector.spans()
      const urls = new Set(spans.map((s) => s.attributes["url.full"]).filter((u) => u !== undefined))
      assert.deepStrictEqual([...urls].sort(), [
        `${server.base}/judge/chat/completions?api_key=<redacted>`,
        `${server.base}/v1/chat/completions?api_key=<redacted>`,
        `http://<redacted>@127.0.0.1:${closed}/agent?api_key=<redacted>`
      ].sort())
      assert.deepStrictEqual([...new Set(spans.map((s) => s.attributes["url.query"]).filter((q) => q !== undefined))], [
        "api_key=<redacted>"
      ])
      // The refused calls end with the server's words, the key redacted.
      const refused = spans.filter((s) => s.status.message?.includes("Incorrect API key provided"))
      assert.isAbove(refused.length, 0)
      for (const span of refused) assert.include(span.status.message, "Incorrect API key provided: Bearer <redacted>")
      // The unreachable agent's client spans end with Effect's own error, which names the URL.
      const unreachable = spans.filter((s) => s.attributes["server.port"] === closed)
      assert.strictEqual(unreachable.length, 2)
      for (const span of unreachable) {
        assert.include(span.status.message, `127.0.0.1:${closed}/agent?api_key=<redacted>`)
        const exception = span.events.find((e) => e.name === "exception")!
        assert.include(exception.attributes["exception.message"], "api_key=<redacted>")
      }
    }))
})

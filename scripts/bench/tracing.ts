/**
 * What tracing costs per trial: CPU per trial of `runTrials` (the `tick`
 * agent) with
 *
 * - `off`: Effect's default tracer, as a program that installs none runs it;
 * - `spans`: a tracer that makes real spans and drops them (the spans'
 *   own cost);
 * - `otlp`: `effect/observability`'s OTLP tracer, JSON over HTTP to a sink on
 *   127.0.0.1 that this process runs (serialisation and sending included),
 *   as the CLI exports;
 * - `protobuf`: the same with protobuf bodies;
 * - `before` (with `--before DIR`): `off` on another copy of src/, e.g. the
 *   last commit, to see that `off` costs nothing over it.
 *
 * Each measurement is its own Node process (Node 24 strips the types itself),
 * variants alternating round by round; the table shows medians.
 *
 *   node scripts/bench/tracing.ts [--trials 1e5] [--parallelism 64] [--rounds 5]
 *   mkdir -p /tmp/before && git archive HEAD src | tar -x -C /tmp/before \
 *     && ln -sfn "$PWD/node_modules" /tmp/before/node_modules
 *   node scripts/bench/tracing.ts --before /tmp/before/src
 */
import { spawn } from "node:child_process"
import * as http from "node:http"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"

const variants = ["off", "spans", "otlp", "protobuf", "before"] as const
type Variant = (typeof variants)[number]

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "1e5" },
    parallelism: { type: "string", default: "64" },
    rounds: { type: "string", default: "5" },
    before: { type: "string" },
    child: { type: "string" },
    src: { type: "string" },
    sink: { type: "string" }
  }
})
const trials = Number(values.trials)
const parallelism = Number(values.parallelism)
const rounds = Number(values.rounds)
for (const [name, n] of [["--trials", trials], ["--parallelism", parallelism], ["--rounds", rounds]] as const) {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} takes a positive integer, got ${n}`)
}
const ownSrc = path.resolve(import.meta.dirname, "..", "..", "src")

interface Measurement {
  readonly cpuMs: number
  readonly wallMs: number
  readonly completed: number
  readonly spans: number
}

const child = async (variant: Variant, src: string, sink: string | undefined): Promise<void> => {
  const { Effect, Layer, Stream, Tracer } = await import("effect")
  const { OtlpSerialization, OtlpTracer } = await import("effect/observability")
  const NodeHttpClient = await import("@effect/platform-node/NodeHttpClient")
  const { tasks, agents } = await import("./agents.ts")
  const Runner = await import(pathToFileURL(path.join(src, "runner", "Runner.ts")).href)
  const Agent = await import(pathToFileURL(path.join(src, "domain", "Agent.ts")).href)

  let spans = 0
  const dropping = Tracer.make({
    span: (options) => {
      spans++
      return new Tracer.NativeSpan(options)
    }
  })
  const count = (trials: any) =>
    Stream.runFold(trials, () => 0, (n: number, trial: { readonly status: string }) => trial.status === "completed" ? n + 1 : n)
  const run = count(Runner.runTrials(Stream.fromIterable(tasks(trials)), Agent.fromPromise(agents.tick), { parallelism })) as any
  const program = variant === "spans"
    ? Effect.withTracer(run, dropping)
    : variant === "otlp" || variant === "protobuf"
    ? Effect.provide(
      run,
      OtlpTracer.layer({ url: `${sink}/v1/traces`, resource: { serviceName: "bench" } }).pipe(
        Layer.provide(variant === "otlp" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
        Layer.provide(NodeHttpClient.layerUndici)
      )
    )
    : run

  const cpu0 = process.cpuUsage()
  const wall0 = performance.now()
  // The OTLP layer's scope closes inside `program`: the last batch is sent and counted.
  const completed = await Effect.runPromise(program as any)
  const wallMs = performance.now() - wall0
  const cpu = process.cpuUsage(cpu0)
  const result: Measurement = { cpuMs: (cpu.user + cpu.system) / 1000, wallMs, completed: completed as number, spans }
  console.log(JSON.stringify(result))
}

const measure = (variant: Variant, sink: string) =>
  new Promise<Measurement>((resolve, reject) => {
    const src = variant === "before" ? path.resolve(values.before!) : ownSrc
    const p = spawn(process.execPath, [
      import.meta.filename,
      "--child", variant, "--src", src, "--sink", sink,
      "--trials", String(trials), "--parallelism", String(parallelism)
    ], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    p.stdout.setEncoding("utf8").on("data", (s: string) => out += s)
    p.on("error", reject)
    p.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${variant}: exit ${code}\n${out}`))
      const m: Measurement = JSON.parse(out.trim().split("\n").at(-1)!)
      if (m.completed !== trials) return reject(new Error(`${variant}: ${m.completed} of ${trials} trials completed`))
      resolve(m)
    })
  })

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const main = async () => {
  let received = 0
  const sink = http.createServer((req, res) => {
    req.on("data", (chunk: Buffer) => received += chunk.length)
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  const sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`
  const chosen = variants.filter((v) => v !== "before" || values.before !== undefined)
  const results = new Map<Variant, Array<Measurement>>(chosen.map((v) => [v, []]))
  console.log(`runTrials, tick agent, T=${trials}, P=${parallelism}, ${rounds} rounds (variants alternate); load ${
    (await import("node:os")).loadavg()[0].toFixed(2)
  }`)
  for (let round = 0; round < rounds; round++) {
    for (const variant of chosen) results.get(variant)!.push(await measure(variant, sinkUrl))
  }
  sink.close()
  const off = median(results.get("off")!.map((m) => m.cpuMs))
  console.log("variant   cpu us/trial   wall us/trial   spans/trial   cpu vs off   cpu us/trial by round")
  for (const variant of chosen) {
    const ms = results.get(variant)!
    const cpu = median(ms.map((m) => m.cpuMs))
    console.log(
      `${variant.padEnd(8)} ${(cpu * 1000 / trials).toFixed(2).padStart(13)} ${
        (median(ms.map((m) => m.wallMs)) * 1000 / trials).toFixed(2).padStart(15)
      } ${(variant === "spans" ? (median(ms.map((m) => m.spans)) / trials).toFixed(2) : "-").padStart(13)} ${(cpu / off).toFixed(3).padStart(12)}   ${
        ms.map((m) => (m.cpuMs * 1000 / trials).toFixed(2)).join(" ")
      }`
    )
  }
  console.log(`OTLP sink received ${(received / 1e6).toFixed(1)} MB`)
}

if (values.child !== undefined) {
  if (!(variants as ReadonlyArray<string>).includes(values.child)) throw new Error(`--child takes one of ${variants.join(", ")}`)
  await child(values.child as Variant, values.src ?? ownSrc, values.sink)
} else {
  await main()
}

/**
 * The child: runs one approach once and prints one JSON line with its figures;
 * given a JSON array of specs (`--quick`'s shared child), runs them one after
 * another, a forced GC before each, and prints a line for each.
 * Started by the parent with `node --expose-gc --max-old-space-size=... --import tsx`;
 * runnable by hand too:
 *   node --expose-gc --import tsx scripts/bench/worker.ts '{"approach":"unordered","agent":"tick","trials":100000,"parallelism":64,"sampleMs":25}'
 */
import { approaches } from "./approaches.ts"
import { agents, isAgentName } from "./agents.ts"
import { type ChildResult, isApproachName, RESULT_PREFIX, type RunSpec } from "./catalog.ts"

const MB = 1024 * 1024

const parseSpecs = (text: string | undefined): ReadonlyArray<RunSpec> => {
  const parsed = JSON.parse(text ?? "null") as RunSpec | ReadonlyArray<RunSpec> | null
  const specs = Array.isArray(parsed) ? parsed : [parsed]
  if (specs.length === 0 || specs.some((spec) => spec === null || !isApproachName(spec.approach) || !isAgentName(spec.agent))) {
    throw new Error(`Expected a run spec (or a JSON array of them) as the first argument, got ${text}`)
  }
  return specs
}

// Peaks of RSS and heap, sampled on a timer. A run that starves the event loop
// of macrotasks also starves this timer: `maxGapMs` shows it.
const startSampler = (everyMs: number, liveHeapMs: number | undefined, gc: (() => void) | undefined) => {
  let peakRss = 0
  let peakLiveHeap: number | undefined
  let peakHeap = 0
  let samples = 0
  let maxGapMs = 0
  let last = performance.now()
  const sample = () => {
    const now = performance.now()
    maxGapMs = Math.max(maxGapMs, now - last)
    last = now
    samples++
    const { rss, heapUsed } = process.memoryUsage()
    peakRss = Math.max(peakRss, rss)
    peakHeap = Math.max(peakHeap, heapUsed)
  }
  const timer = setInterval(sample, everyMs)
  const live = liveHeapMs === undefined || gc === undefined ? undefined : setInterval(() => {
    gc()
    peakLiveHeap = Math.max(peakLiveHeap ?? 0, process.memoryUsage().heapUsed)
  }, liveHeapMs)
  return () => {
    clearInterval(timer)
    clearInterval(live)
    sample()
    return { peakRss, peakHeap, peakLiveHeap, samples, maxGapMs }
  }
}

/**
 * One run. `first`: the process's first run, whose peak RSS may take the
 * kernel's high-water mark; a later run's peak is its samples only, since
 * that mark counts the runs before it.
 */
const runOne = async (spec: RunSpec, first: boolean): Promise<ChildResult> => {
  const run = approaches[spec.approach]
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const base = process.memoryUsage()
  const cpuBefore = process.cpuUsage()
  const mainBefore = process.threadCpuUsage()
  const stop = startSampler(spec.sampleMs, spec.liveHeapMs, gc)
  const started = performance.now()
  const output = await run({ agent: agents[spec.agent], trials: spec.trials, parallelism: spec.parallelism })
  const wallMs = performance.now() - started
  const memory = stop()
  const cpu = process.cpuUsage(cpuBefore)
  const main = process.threadCpuUsage(mainBefore)
  const maxRss = first ? process.resourceUsage().maxRSS * 1024 : 0
  return {
    completed: output.completed,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    mainCpuMs: (main.user + main.system) / 1000,
    baseRssMb: base.rss / MB,
    baseHeapMb: base.heapUsed / MB,
    peakRssMb: Math.max(memory.peakRss, maxRss) / MB,
    peakHeapMb: memory.peakHeap / MB,
    ...(memory.peakLiveHeap !== undefined && { peakLiveHeapMb: memory.peakLiveHeap / MB }),
    samples: memory.samples,
    maxSampleGapMs: memory.maxGapMs,
    ...(output.probe && {
      probe: {
        peakLiveFibers: output.probe.peakLiveFibers,
        peakOutstanding: output.probe.peakOutstanding,
        peakActive: output.probe.peakActive,
        liveFibers: output.probe.liveFibers
      }
    }),
    ...(!first && { sharedChild: true })
  }
}

const main = async (): Promise<void> => {
  const specs = parseSpecs(process.argv[2])
  for (const [i, spec] of specs.entries()) {
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(await runOne(spec, i === 0))}\n`)
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})

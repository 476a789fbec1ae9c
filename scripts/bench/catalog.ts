/**
 * Names and properties of the approaches, without importing them: the parent
 * process plans and reports from this; only the child loads the code.
 */
import type { AgentName } from "./agents.ts"

export const approachNames = ["unordered", "bare", "scored", "ordered", "raw", "pmap", "plimit", "eager"] as const
export type ApproachName = (typeof approachNames)[number]

export interface ApproachInfo {
  readonly label: string
  /** Uses agent-trials, so the child reports the probe's counts. */
  readonly agentTrials: boolean
  /** Reads the whole input before starting; runs above its cap are skipped. */
  readonly eager: boolean
}

export const catalog: Record<ApproachName, ApproachInfo> = {
  unordered: { label: "runTrials unordered", agentTrials: true, eager: false },
  // Right after `unordered`, so the two that the targets compare run back to back in each round.
  bare: { label: "bare operator", agentTrials: false, eager: false },
  // Next to `unordered` too: its added cost is a per-round difference with it.
  scored: { label: "runTrials + exact", agentTrials: true, eager: false },
  ordered: { label: "runTrials ordered", agentTrials: true, eager: false },
  raw: { label: "raw pool", agentTrials: false, eager: false },
  pmap: { label: "p-map", agentTrials: false, eager: false },
  plimit: { label: "p-limit+Promise.all", agentTrials: false, eager: true },
  eager: { label: "runTrialsEager", agentTrials: true, eager: true }
}

export const isApproachName = (name: string): name is ApproachName => (approachNames as ReadonlyArray<string>).includes(name)

/** What the parent asks one child to run. */
export interface RunSpec {
  readonly approach: ApproachName
  readonly agent: AgentName
  readonly trials: number
  readonly parallelism: number
  readonly sampleMs: number
  /** When set, force a full GC this often and record the heap that survives it (perturbs timing). */
  readonly liveHeapMs?: number | undefined
}

/** The one JSON line a child prints, after this prefix. */
export const RESULT_PREFIX = "BENCH_RESULT "

export interface ChildResult {
  readonly completed: number
  readonly wallMs: number
  /** User + system CPU time spent during the run. */
  readonly cpuMs: number
  /**
   * The same, on the main thread only (`process.threadCpuUsage()`): without
   * the GC's helper threads and the optimizing compiler. Absent in results
   * recorded before it was added.
   */
  readonly mainCpuMs?: number
  /** RSS and heap after imports and a forced GC, before the run. */
  readonly baseRssMb: number
  readonly baseHeapMb: number
  /** max(sampled RSS, process.resourceUsage().maxRSS); the samples only for a run after the first in a shared child. */
  readonly peakRssMb: number
  readonly peakHeapMb: number
  /** The largest heap left after a forced full GC, when `liveHeapMs` was set: what the run retains. */
  readonly peakLiveHeapMb?: number
  readonly samples: number
  /** The longest gap between two memory samples: how long the event loop was starved of timers. */
  readonly maxSampleGapMs: number
  /** Run after another in the same child (the quick plan's sleep1ms and noop): its JIT was warm and its peak RSS is sampled only. */
  readonly sharedChild?: boolean
  readonly probe?: {
    readonly peakLiveFibers: number
    readonly peakOutstanding: number
    readonly peakActive: number
    readonly liveFibers: number
  }
}

/**
 * From runs to figures: one record per child, then medians over rounds per
 * (agent, T, P, approach). Comparisons with the raw pool and with the bare
 * operator are taken per round (same round, same configuration), then the
 * median of those ratios: a round disturbed by other work moves both sides.
 */
import type { AgentName } from "./agents.ts"
import { type ApproachName, approachNames, catalog, type ChildResult } from "./catalog.ts"
import type { Outcome } from "./child.ts"

export type Status = Outcome["status"] | "skipped"

export interface RunRecord {
  readonly agent: AgentName
  readonly trials: number
  readonly parallelism: number
  readonly approach: ApproachName
  readonly round: number
  /** The machine's 1-minute load average just before the child started (other work disturbs timings). */
  readonly load1?: number
  readonly status: Status
  readonly detail?: string
  readonly result?: ChildResult
}

export interface Summary {
  readonly agent: AgentName
  readonly trials: number
  readonly parallelism: number
  readonly approach: ApproachName
  readonly label: string
  /** `ok` when every round was; otherwise the first other status, e.g. `oom 2/2`. */
  readonly status: string
  readonly detail?: string
  /** Medians over the rounds that completed (absent when none did). */
  readonly figures?: {
    readonly rounds: number
    readonly wallMs: number
    readonly usPerTrial: number
    readonly throughput: number
    readonly vsRaw: number | null
    readonly cpuUsPerTrial: number
    /** The main thread's share of it (absent for results recorded without it). */
    readonly mainUsPerTrial?: number
    readonly baseRssMb: number
    readonly peakRssMb: number
    readonly peakHeapMb: number
    /** With `--live-heap-ms`: the heap that survived a forced GC, worst over rounds. */
    readonly peakLiveHeapMb?: number
    /** Worst over rounds. */
    readonly maxSampleGapMs: number
    /** Worst over rounds, agent-trials approaches only. */
    readonly peakLiveFibers?: number
    readonly peakOutstanding?: number
    readonly peakActive?: number
    /** Against the bare operator, medians of per-round ratios (absent for the bare operator itself). */
    readonly vsBare?: VsBare
    /** `scored` only: what the scoring stage adds to `unordered`, median of per-round differences. */
    readonly overUnordered?: OverUnordered
  }
}

/** This approach's CPU per trial minus `unordered`'s, per round, then the median over rounds. */
export interface OverUnordered {
  readonly cpuUsPerTrial: number
  /** How many rounds had both sides. */
  readonly rounds: number
}

/** This approach's figure over the bare operator's, per round, then the median over rounds. */
export interface VsBare {
  /** CPU time per trial: above 1 costs more. */
  readonly cpu: number
  /** Main-thread CPU time per trial (absent for results recorded without it). */
  readonly main?: number
  /** Throughput: below 1 is slower. */
  readonly throughput: number
  /** The per-round throughput ratios' lowest and highest, and their middle half (quartiles). */
  readonly throughputSpread?: Spread
  readonly peakRss: number
  /** How many rounds had both sides. */
  readonly rounds: number
}

/** How per-round ratios spread around their median. */
export interface Spread {
  readonly min: number
  readonly q1: number
  readonly q3: number
  readonly max: number
}

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** Quartiles by linear interpolation between the sorted values (the median's rule at 1/2). */
export const spread = (xs: ReadonlyArray<number>): Spread => {
  const s = [...xs].sort((a, b) => a - b)
  const at = (q: number) => {
    const i = (s.length - 1) * q
    const lo = Math.floor(i)
    return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (i - lo)
  }
  return { min: s[0]!, q1: at(0.25), q3: at(0.75), max: s[s.length - 1]! }
}

const vsBare = (pairs: ReadonlyArray<{ readonly a: ChildResult; readonly b: ChildResult }>): VsBare => {
  const throughputs = pairs.map(({ a, b }) => b.wallMs / a.wallMs)
  return {
    cpu: median(pairs.map(({ a, b }) => a.cpuMs / b.cpuMs)),
    ...(pairs.every(({ a, b }) => a.mainCpuMs !== undefined && b.mainCpuMs !== undefined) && {
      main: median(pairs.map(({ a, b }) => a.mainCpuMs! / b.mainCpuMs!))
    }),
    throughput: median(throughputs),
    throughputSpread: spread(throughputs),
    peakRss: median(pairs.map(({ a, b }) => a.peakRssMb / b.peakRssMb)),
    rounds: pairs.length
  }
}

const key = (r: { agent: string; trials: number; parallelism: number }) => `${r.agent}/${r.trials}/${r.parallelism}`
const throughputOf = (r: RunRecord) => r.result === undefined ? 0 : r.trials / (r.result.wallMs / 1000)

export const summarise = (runs: ReadonlyArray<RunRecord>): Array<Summary> => {
  const raw = new Map<string, number>()
  const bare = new Map<string, ChildResult>()
  const unordered = new Map<string, ChildResult>()
  for (const r of runs) {
    if (r.approach === "raw" && r.status === "ok") raw.set(`${key(r)}/${r.round}`, throughputOf(r))
    if (r.approach === "bare" && r.status === "ok") bare.set(`${key(r)}/${r.round}`, r.result!)
    if (r.approach === "unordered" && r.status === "ok") unordered.set(`${key(r)}/${r.round}`, r.result!)
  }
  const groups = new Map<string, Array<RunRecord>>()
  for (const r of runs) {
    const k = `${key(r)}/${r.approach}`
    groups.set(k, [...(groups.get(k) ?? []), r])
  }
  // Configurations in the order they ran, approaches in catalog order.
  const configOrder = [...new Set(runs.map(key))]
  const sorted = [...groups.values()].sort((a, b) =>
    configOrder.indexOf(key(a[0]!)) - configOrder.indexOf(key(b[0]!)) ||
    approachNames.indexOf(a[0]!.approach) - approachNames.indexOf(b[0]!.approach)
  )
  return sorted.map((rs) => {
    const first = rs[0]!
    const ok = rs.filter((r) => r.status === "ok")
    const bad = rs.find((r) => r.status !== "ok")
    const base = {
      agent: first.agent,
      trials: first.trials,
      parallelism: first.parallelism,
      approach: first.approach,
      label: catalog[first.approach].label
    }
    const status = bad === undefined
      ? "ok"
      : bad.status === "skipped"
      ? "skipped"
      : `${bad.status} ${rs.length - ok.length}/${rs.length}`
    const withStatus = { ...base, status, ...(bad?.detail === undefined ? {} : { detail: bad.detail }) }
    if (ok.length === 0) return withStatus
    const results = ok.map((r) => r.result!)
    const fractions = ok.flatMap((r) => {
      const rawThroughput = raw.get(`${key(r)}/${r.round}`)
      return rawThroughput === undefined ? [] : [throughputOf(r) / rawThroughput]
    })
    const pairs = first.approach === "bare" ? [] : ok.flatMap((r) => {
      const b = bare.get(`${key(r)}/${r.round}`)
      return b === undefined ? [] : [{ a: r.result!, b }]
    })
    const added = first.approach !== "scored" ? [] : ok.flatMap((r) => {
      const u = unordered.get(`${key(r)}/${r.round}`)
      return u === undefined ? [] : [((r.result!.cpuMs - u.cpuMs) * 1000) / first.trials]
    })
    const probes = results.flatMap((r) => r.probe === undefined ? [] : [r.probe])
    const wallMs = median(results.map((r) => r.wallMs))
    return {
      ...withStatus,
      figures: {
        rounds: ok.length,
        wallMs,
        usPerTrial: (wallMs * 1000) / first.trials,
        throughput: first.trials / (wallMs / 1000),
        vsRaw: fractions.length === 0 ? null : median(fractions),
        cpuUsPerTrial: (median(results.map((r) => r.cpuMs)) * 1000) / first.trials,
        ...(results.every((r) => r.mainCpuMs !== undefined) && {
          mainUsPerTrial: (median(results.map((r) => r.mainCpuMs!)) * 1000) / first.trials
        }),
        baseRssMb: median(results.map((r) => r.baseRssMb)),
        peakRssMb: median(results.map((r) => r.peakRssMb)),
        peakHeapMb: median(results.map((r) => r.peakHeapMb)),
        maxSampleGapMs: Math.max(...results.map((r) => r.maxSampleGapMs)),
        ...(results.some((r) => r.peakLiveHeapMb !== undefined) && {
          peakLiveHeapMb: Math.max(...results.map((r) => r.peakLiveHeapMb ?? 0))
        }),
        ...(probes.length > 0 && {
          peakLiveFibers: Math.max(...probes.map((p) => p.peakLiveFibers)),
          peakOutstanding: Math.max(...probes.map((p) => p.peakOutstanding)),
          peakActive: Math.max(...probes.map((p) => p.peakActive))
        }),
        ...(pairs.length > 0 && {
          vsBare: vsBare(pairs)
        }),
        ...(added.length > 0 && { overUnordered: { cpuUsPerTrial: median(added), rounds: added.length } })
      }
    }
  })
}

/** `1e5`, `2e4`, `1024`. */
export const fmtCount = (n: number): string => {
  if (n < 1e4) return String(n)
  const exp = Math.floor(Math.log10(n))
  const mantissa = n / 10 ** exp
  return Number.isInteger(mantissa) ? `${mantissa}e${exp}` : String(n)
}

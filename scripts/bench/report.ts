/**
 * What `npm run bench` prints: a header saying what was measured and under
 * what load, the table of medians, and the targets.
 */
import type { CliRecord } from "./cli.ts"
import { fmtCount, type RunRecord, type Summary, summarise } from "./summary.ts"
import { printTargets, targets } from "./targets.ts"

/** The part of the JSON's `meta` the header reads. */
export interface Meta {
  readonly mode: string
  readonly rounds: number
  readonly node: string
  readonly effect: string
  readonly cpus: number
  readonly loader: string
  readonly commit?: string | undefined
  readonly srcDirty?: boolean | undefined
  readonly roundsOfEager: number
  /** The configurations whose runs shared one child (the quick plan's); absent in JSON written before it was added. */
  readonly sharedChild?: ReadonlyArray<string>
  /** Configurations run for more rounds than `rounds` (a plan's minimum), as "agent T=... P=...: N rounds". */
  readonly moreRounds?: ReadonlyArray<string>
}

const num = (x: number | undefined | null, digits = 1): string =>
  x === undefined || x === null ? "-" : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const int = (x: number | undefined): string => x === undefined ? "-" : Math.round(x).toLocaleString("en-US")

const columns = [
  "agent", "T", "P", "approach", "status", "wall ms", "us/trial", "trials/s", "vs raw", "cpu us/t", "cpu/bare", "main us/t",
  "base MB", "peak RSS", "peak heap", "live heap", "fibers", "outst", "active", "max gap"
] as const

export const table = (rows: ReadonlyArray<Summary>): string => {
  const cells = rows.map((s) => {
    const f = s.figures
    return [
      s.agent, fmtCount(s.trials), String(s.parallelism), s.label, s.status,
      int(f?.wallMs), num(f?.usPerTrial, 2), int(f?.throughput),
      f?.vsRaw === undefined || f.vsRaw === null ? "-" : `${(f.vsRaw * 100).toFixed(1)}%`,
      num(f?.cpuUsPerTrial, 2), f?.vsBare === undefined ? "-" : `${f.vsBare.cpu.toFixed(2)}x`, num(f?.mainUsPerTrial, 2),
      num(f?.baseRssMb, 0), num(f?.peakRssMb, 0), num(f?.peakHeapMb, 0), num(f?.peakLiveHeapMb, 0),
      int(f?.peakLiveFibers), int(f?.peakOutstanding), int(f?.peakActive),
      f === undefined ? "-" : `${int(f.maxSampleGapMs)}ms`
    ]
  })
  const all = [[...columns], ...cells]
  const widths = columns.map((_, i) => Math.max(...all.map((r) => r[i]!.length)))
  const leftAligned = new Set([0, 3, 4])
  const line = (r: ReadonlyArray<string>) =>
    r.map((c, i) => leftAligned.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)).join("  ").trimEnd()
  const notes = rows.filter((s) => s.detail !== undefined).map((s) =>
    `  ${s.agent} T=${fmtCount(s.trials)} P=${s.parallelism} ${s.label}: ${s.status.split(" ")[0]}: ${s.detail}`
  )
  return [line(columns), ...cells.map(line), ...(notes.length > 0 ? ["", "notes:", ...notes] : [])].join("\n")
}

export const render = (meta: Meta, runs: ReadonlyArray<RunRecord>, cli: ReadonlyArray<CliRecord> = []): string => {
  const summary = summarise(runs)
  const maxLoad = Math.max(0, ...[...runs, ...cli].flatMap((r) => (r.load1 === undefined ? [] : [r.load1])))
  const header =
    `${meta.mode} mode, ${meta.rounds} rounds (median), node ${meta.node}, effect ${meta.effect}, ${meta.cpus} cpus, ` +
    `loader ${meta.loader}, commit ${meta.commit}${meta.srcDirty ? " (src/ has uncommitted edits)" : ""}; ` +
    `1-min load average before runs: max ${maxLoad.toFixed(2)}` +
    (meta.roundsOfEager < meta.rounds ? `; runTrialsEager: ${meta.roundsOfEager} round` : "") +
    (meta.sharedChild !== undefined && meta.sharedChild.length > 0
      ? `; one child for all the runs of ${meta.sharedChild.join(", ")}, after an unrecorded warm-up run ` +
        "(peak RSS: the samples, not the kernel's high-water mark)"
      : "") +
    (meta.moreRounds !== undefined && meta.moreRounds.length > 0 ? `; ${meta.moreRounds.join(", ")}` : "")
  const warning = maxLoad > meta.cpus
    ? [
      `warning: the load average reached ${maxLoad.toFixed(1)} on ${meta.cpus} cpus: other work shared the machine, ` +
      `so wall times are inflated (cpu us/t is steadier)`
    ]
    : []
  return [header, ...warning, table(summary), "", printTargets(targets(summary, cli))].join("\n")
}

/**
 * The targets the team acts on, computed from the summaries and the CLI runs.
 * Each prints the numbers it was decided on. Speed and memory are judged
 * against the bare operator (`Stream.mapEffect` + a Semaphore, nothing of
 * ours) measured in the same bench run: per round, runTrials' figure over the
 * bare operator's, then the median of those ratios.
 */
import { helperFibers } from "../../src/runner/Runner.ts"
import { type ApproachName, catalog } from "./catalog.ts"
import { cliOwnMb, cliPeakMb, type CliRecord } from "./cli.ts"
import { fmtCount, type Summary } from "./summary.ts"

const num = (x: number, digits = 0): string =>
  x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const int = (x: number): string => Math.round(x).toLocaleString("en-US")

export interface Target {
  readonly name: string
  /** `info`: shown for context, decides nothing. */
  readonly verdict: "PASS" | "FAIL" | "n/a" | "info"
  readonly lines: ReadonlyArray<string>
}

const agentTrials: ReadonlyArray<ApproachName> = ["unordered", "ordered"]
const where = (s: Summary) => `T=${fmtCount(s.trials)} P=${s.parallelism}`
const verdictOf = (checks: ReadonlyArray<boolean>): Target["verdict"] =>
  checks.length === 0 ? "n/a" : checks.every(Boolean) ? "PASS" : "FAIL"

const fibers = (rows: ReadonlyArray<Summary>): Target => {
  const checks: Array<boolean> = []
  const lines = agentTrials.flatMap((approach) => {
    const measured = rows.filter((s) => s.approach === approach && s.figures?.peakLiveFibers !== undefined)
    if (measured.length === 0) return []
    const helpers = helperFibers(approach === "ordered")
    const excess = measured.map((s) => ({ s, over: s.figures!.peakLiveFibers! - s.parallelism }))
    const worst = excess.reduce((a, b) => (b.over > a.over ? b : a))
    checks.push(worst.over <= helpers)
    const f = worst.s.figures!
    return [
      `${catalog[approach].label}: worst peak live fibers = P${worst.over >= 0 ? "+" : ""}${worst.over} ` +
      `(${f.peakLiveFibers} at ${where(worst.s)} ${worst.s.agent}; outstanding ${f.peakOutstanding}, active ${f.peakActive}) ` +
      `over ${measured.length} configurations; fixed helpers ${helpers} -> ${worst.over <= helpers ? "PASS" : "FAIL"}`
    ]
  })
  return {
    name: "(a) live fibers <= P + the runner's fixed helpers (1 unordered, 2 ordered) at every T",
    verdict: verdictOf(checks),
    lines
  }
}

const unordered = (rows: ReadonlyArray<Summary>, agent: Summary["agent"], trials: number, parallelism: number) =>
  rows.find((s) => s.approach === "unordered" && s.agent === agent && s.trials === trials && s.parallelism === parallelism)
const bareOf = (rows: ReadonlyArray<Summary>, s: Summary) =>
  rows.find((x) => x.approach === "bare" && x.agent === s.agent && x.trials === s.trials && x.parallelism === s.parallelism)
const rounds = (n: number) => `median of ${n} per-round ratio${n === 1 ? "" : "s"}`

// A configuration where either side did not finish cannot pass.
const missing = (s: Summary | undefined, bare: Summary | undefined): string | undefined =>
  s === undefined || bare === undefined
    ? undefined
    : s.figures === undefined
    ? `${catalog.unordered.label} ${s.status}`
    : bare.figures === undefined
    ? `bare operator ${bare.status}`
    : s.figures.vsBare === undefined
    ? "no round with both"
    : undefined

// The configuration a target is defined at, or the nearest one this run has (said in the line).
const pick = (rows: ReadonlyArray<Summary>, agent: Summary["agent"], trials: number): { s?: Summary; note: string } => {
  const exact = unordered(rows, agent, trials, 64)
  if (exact !== undefined) return { s: exact, note: "" }
  const candidates = rows.filter((s) => s.approach === "unordered" && s.agent === agent && s.parallelism === 64)
  const largest = candidates.reduce<Summary | undefined>((a, b) => (a === undefined || b.trials > a.trials ? b : a), undefined)
  return largest === undefined ? { note: "" } : { s: largest, note: ` (the target is defined at T=${fmtCount(trials)})` }
}

const cpuVsBare = (rows: ReadonlyArray<Summary>): Target => {
  const checks: Array<boolean> = []
  const lines = rows.filter((s) => s.approach === "unordered" && s.agent === "tick").flatMap((s) => {
    const bare = bareOf(rows, s)
    if (bare === undefined) return []
    const why = missing(s, bare)
    if (why !== undefined) {
      checks.push(false)
      return [`${where(s)}: ${why} -> FAIL`]
    }
    const { cpu, rounds: n } = s.figures!.vsBare!
    checks.push(cpu <= 1.2)
    return [
      `${where(s)}: ${num(s.figures!.cpuUsPerTrial, 2)} vs ${num(bare.figures!.cpuUsPerTrial, 2)} us CPU/trial ` +
      `= ${cpu.toFixed(2)}x (${rounds(n)}; limit 1.2x) -> ${cpu <= 1.2 ? "PASS" : "FAIL"}`
    ]
  })
  return { name: "(b) tick agent: runTrials unordered CPU per trial <= 1.2x the bare operator's", verdict: verdictOf(checks), lines }
}

const throughputVsBare = (rows: ReadonlyArray<Summary>): Target => {
  const { s, note } = pick(rows, "sleep1ms", 1e5)
  const bare = s === undefined ? undefined : bareOf(rows, s)
  const name = "(c) sleep1ms agent, P=64, T=1e5: runTrials unordered throughput >= 0.97x the bare operator's"
  if (s === undefined || bare === undefined) return { name, verdict: "n/a", lines: ["not measured (needs unordered and bare at sleep1ms P=64)"] }
  const why = missing(s, bare)
  if (why !== undefined) return { name, verdict: "FAIL", lines: [`${where(s)}: ${why} -> FAIL`] }
  const { main, rounds: n, throughput, throughputSpread } = s.figures!.vsBare!
  const pass = throughput >= 0.97
  const mainUs = s.figures!.mainUsPerTrial
  const bareMainUs = bare.figures!.mainUsPerTrial
  return {
    name,
    verdict: pass ? "PASS" : "FAIL",
    lines: [
      `${where(s)}${note}: ${int(s.figures!.throughput)} vs ${int(bare.figures!.throughput)} trials/s ` +
      `= ${throughput.toFixed(3)}x (${rounds(n)}; need >= 0.97x) -> ${pass ? "PASS" : "FAIL"}`,
      ...(throughputSpread === undefined ? [] : [
        `per-round ratios: ${throughputSpread.min.toFixed(3)} to ${throughputSpread.max.toFixed(3)}, ` +
        `middle half ${throughputSpread.q1.toFixed(3)} to ${throughputSpread.q3.toFixed(3)}`
      ]),
      // Each turn of the event loop waits about 1 ms for the timers, then runs
      // the work of the trials they finish and of the ones that replace them:
      // the main thread's CPU per trial is what the throughput pays for.
      ...(main === undefined || mainUs === undefined || bareMainUs === undefined ? [] : [
        `main-thread CPU per trial (what a turn of the event loop adds to the 1 ms wait): ` +
        `${num(mainUs, 2)} vs ${num(bareMainUs, 2)} us = ${main.toFixed(2)}x (${rounds(n)})`
      ])
    ]
  }
}

const rssVsBare = (rows: ReadonlyArray<Summary>): Target => {
  const { s, note } = pick(rows, "tick", 1e6)
  const bare = s === undefined ? undefined : bareOf(rows, s)
  const name = "(d) peak RSS at T=1e6, tick agent, P=64: runTrials unordered <= 1.1x the bare operator's"
  if (s === undefined || bare === undefined) return { name, verdict: "n/a", lines: ["not measured (needs unordered and bare at tick P=64)"] }
  const why = missing(s, bare)
  if (why !== undefined) return { name, verdict: "FAIL", lines: [`${where(s)}: ${why} -> FAIL`] }
  const { peakRss, rounds: n } = s.figures!.vsBare!
  const pass = peakRss <= 1.1
  const f = s.figures!
  const b = bare.figures!
  return {
    name,
    verdict: pass ? "PASS" : "FAIL",
    lines: [
      `${where(s)}${note}: ${num(f.peakRssMb)} vs ${num(b.peakRssMb)} MB = ${peakRss.toFixed(2)}x (${rounds(n)}; limit 1.1x; ` +
      `peak heap ${num(f.peakHeapMb)} vs ${num(b.peakHeapMb)} MB, base RSS ${num(f.baseRssMb)} vs ${num(b.baseRssMb)} MB) ` +
      `-> ${pass ? "PASS" : "FAIL"}`
    ]
  }
}

const CLI_LIMIT_MB = 250

// "node --require preflight.cjs --import loader.mjs trials.ts run" -> "trials.ts": what a process is, in a word.
const shortName = (name: string): string => {
  const [first = "?", ...rest] = name.split(" ")
  if (first !== "node") return first
  const script = rest.find((arg, i) => !arg.startsWith("-") && !["--require", "--import", "-r"].includes(rest[i - 1] ?? ""))
  return script ?? first
}

const cliMemory = (cli: ReadonlyArray<CliRecord>): Target => {
  // Judged on the process that runs the CLI's program; npm and tsx's launcher, which a
  // user of the bin does not run, are shown beside it.
  const name = `(e) the CLI's own peak RSS < ${CLI_LIMIT_MB} MB at 1e7 simulated trials ` +
    `(run --synthetic N --agent sim:latency=1ms --parallelism 256 --no-progress --out FILE)`
  if (cli.length === 0) return { name, verdict: "n/a", lines: ["not measured (--cli-rss)"] }
  const checks: Array<boolean> = []
  const lines = cli.flatMap((r) => {
    const peak = cliPeakMb(r)
    const own = cliOwnMb(r)
    const pass = r.status === "ok" && own !== undefined && own < CLI_LIMIT_MB
    checks.push(pass)
    const at = `${r.via === "npm" ? "npm run trials" : "the agent-trials bin"}, N=${fmtCount(r.trials)}` +
      (r.trials < 1e7 ? " (not the 1e7 the target is defined at)" : "")
    const processes = [...(r.processes ?? [])].sort((a, b) => b.hwmMb - a.hwmMb)
    const top = processes[0]
    const flags = [...new Set(processes.flatMap((p) => (p.nodeOptions === undefined ? [] : [p.nodeOptions])))]
    return [
      `${at}: ${r.status}${r.detail === undefined ? "" : ` (${r.detail})`}, the CLI's own process peaked at ${num(own ?? 0)} MB; ` +
      `the process tree at ${num(peak ?? 0)} MB (${processes.length} process${processes.length === 1 ? "" : "es"}), ` +
      `${((r.wallMs ?? 0) / 1000).toFixed(1)} s -> ${pass ? "PASS" : "FAIL"}`,
      ...(top === undefined ? [] : [
        `  largest process ${num(top.hwmMb)} MB: ${top.name}`,
        ...(processes.length > 1
          ? [`  at the peak (MB): ${processes.map((p) => `${num(p.rssAtPeakMb)} ${shortName(p.name)}`).join(" + ")}`]
          : []),
        ...(flags.length > 0 ? [`  NODE_OPTIONS seen: ${flags.join("; ")}`] : [])
      ]),
      ...(r.binNote === undefined || r.via !== "bin" ? [] : [`  bin: ${r.binNote}`])
    ]
  })
  return { name, verdict: verdictOf(checks), lines }
}

// The old targets against a pool and p-map, out of reach with a fiber per trial: context only.
const againstPools = (rows: ReadonlyArray<Summary>): Target => {
  const lines = rows.filter((s) => (s.approach === "unordered" || s.approach === "bare") && s.figures).flatMap((s) => {
    const other = (approach: ApproachName) =>
      rows.find((x) => x.approach === approach && x.agent === s.agent && x.trials === s.trials && x.parallelism === s.parallelism)?.figures
    const pmap = other("pmap")
    const raw = other("raw")
    const f = s.figures!
    const parts = [
      ...(s.agent === "tick" && pmap !== undefined ? [`CPU ${(f.cpuUsPerTrial / pmap.cpuUsPerTrial).toFixed(2)}x p-map's`] : []),
      ...(s.agent === "sleep1ms" && f.vsRaw !== null ? [`throughput ${(f.vsRaw * 100).toFixed(1)}% of the raw pool's`] : []),
      ...(raw !== undefined && s.agent === "tick" ? [`peak RSS ${num(f.peakRssMb)} vs raw ${num(raw.peakRssMb)} MB`] : [])
    ]
    return parts.length === 0 ? [] : [`${catalog[s.approach].label} ${s.agent} ${where(s)}: ${parts.join(", ")}`]
  })
  return { name: "(i) against a pool and p-map (the old 1.5x-p-map and 95%-of-raw targets; context, not judged)", verdict: "info", lines }
}

// What scoring with `exact` adds to each trial: CPU, per round, `scored` minus `unordered`.
const scoringCost = (rows: ReadonlyArray<Summary>): Target => {
  const lines = rows.filter((s) => s.approach === "scored").map((s) => {
    const u = unordered(rows, s.agent, s.trials, s.parallelism)
    const at = `${s.agent} ${where(s)}`
    const over = s.figures?.overUnordered
    if (over === undefined || u?.figures === undefined) {
      return `scoring stage with exact: not measured at ${at} (${catalog.scored.label} ${s.status}, ` +
        `${catalog.unordered.label} ${u?.status ?? "not run"})`
    }
    const n = over.rounds
    return `scoring stage with exact: ${over.cpuUsPerTrial >= 0 ? "+" : ""}${num(over.cpuUsPerTrial, 2)} us CPU per trial ` +
      `over ${catalog.unordered.label} (${at}), median of ${n} per-round difference${n === 1 ? "" : "s"}; ` +
      `${num(s.figures!.cpuUsPerTrial, 2)} vs ${num(u.figures.cpuUsPerTrial, 2)} us CPU/trial`
  })
  return {
    name: "(s) the scoring stage's added cost per trial (runTrials + exact vs runTrials unordered; context, not judged)",
    verdict: "info",
    lines: lines.length > 0 ? lines : ["not measured (needs scored and unordered, tick agent)"]
  }
}

export const targets = (rows: ReadonlyArray<Summary>, cli: ReadonlyArray<CliRecord> = []): Array<Target> => [
  fibers(rows),
  cpuVsBare(rows),
  throughputVsBare(rows),
  rssVsBare(rows),
  cliMemory(cli),
  againstPools(rows),
  scoringCost(rows)
]

export const printTargets = (ts: ReadonlyArray<Target>): string =>
  ["targets:", ...ts.flatMap((t) => [`${t.verdict.padEnd(4)} ${t.name}`, ...t.lines.map((l) => `       ${l}`)])].join("\n")

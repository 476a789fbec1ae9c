/**
 * The tool loop (`npm run bench -- --tools N`, in the default plans): the
 * CLI as users run it (`npm run trials -- run`) at parallelism 64 over tasks
 * whose every trial is two model turns and three parallel tool calls
 * (`tool-agent.ts`: an `effect-ai:` model layer on `LanguageModel.make`, no
 * network and no waiting, so what is measured is the loop itself):
 *
 * - `sim:latency=0ms` over the same N tasks, the one-call baseline;
 * - the loop with plain module tools at N/10 and at N;
 * - the loop with a real MCP server over stdio
 *   (`@modelcontextprotocol/server-everything`'s `echo`) at N/10.
 *
 * Each run's own process peak RSS is read from /proc as for target (e); its
 * summary (`--summary FILE`) gives throughput, peak live fibers and the tool
 * calls made, which must be 3 per trial. Targets: (g) the module loop's own
 * peak RSS at N within 1.2x of its peak at N/10, and (h) its peak live
 * fibers at N within 1.1x of those at N/10: the loop's memory and fibers
 * follow the parallelism, not the number of trials. Both are defined at the
 * default N = 1e5: at a few thousand trials the heap still grows while the
 * code warms up (at N = 5,000 the RSS ratio read 1.31x).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { type CliLauncher, type CliOptions, cliOwnMb, type CliRecord, launcherText, runCli } from "./cli.ts"
import { CALLS_PER_TRIAL } from "./tool-agent.ts"
import { writeLines } from "./datasets.ts"

export const toolRunKinds = ["sim", "module", "mcp"] as const
export type ToolRunKind = (typeof toolRunKinds)[number]

/** Limit of target (g): the module loop's own peak RSS at N over its peak at N/10. */
export const TOOL_MEMORY_RATIO_LIMIT = 1.2
/** Limit of target (h): the module loop's peak live fibers at N over those at N/10. */
export const TOOL_FIBER_RATIO_LIMIT = 1.1
export const TOOL_PARALLELISM = 64

const agent = "scripts/bench/tool-agent.ts"
const everything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

/** What the run's summary said. */
export interface ToolRunFigures {
  readonly throughputPerS: number
  readonly peakLiveFibers: number
  readonly peakOutstanding: number
  readonly toolCalls: number
  readonly toolErrors: number
}

export interface ToolRunRecord extends CliRecord {
  readonly kind: ToolRunKind
  readonly figures?: ToolRunFigures
}

export interface ToolBench {
  readonly trials: number
  /** How the CLI was started (absent in JSON written before it was added: npm). */
  readonly via?: CliLauncher
  readonly runs: ReadonlyArray<ToolRunRecord>
}

const agentArgs = (kind: ToolRunKind): Array<string> => {
  switch (kind) {
    case "sim":
      return ["--agent", "sim:latency=0ms"]
    case "module":
      return ["--agent", `effect-ai:${agent}#layer`, "--tools", `module:${agent}#tools`]
    case "mcp":
      return ["--agent", `effect-ai:${agent}#layer`, "--tools", `mcp:stdio:node ${everything} stdio`]
  }
}

const readFigures = (file: string): ToolRunFigures | string => {
  if (!existsSync(file)) return "no summary written"
  const s = JSON.parse(readFileSync(file, "utf8")) as {
    throughput_per_s: number
    peak_live_fibers: number
    peak_outstanding: number
    trajectory?: { tool_calls: { total: number; errors: number } }
  }
  return {
    throughputPerS: s.throughput_per_s,
    peakLiveFibers: s.peak_live_fibers,
    peakOutstanding: s.peak_outstanding,
    toolCalls: s.trajectory?.tool_calls.total ?? 0,
    toolErrors: s.trajectory?.tool_calls.errors ?? 0
  }
}

const runOne = async (dir: string, tasks: string, kind: ToolRunKind, trials: number, cli: CliOptions, via: CliLauncher): Promise<ToolRunRecord> => {
  const summary = join(dir, `summary-${kind}-${trials}.json`)
  const command = ["run", "--tasks", tasks, ...agentArgs(kind), "--parallelism", String(TOOL_PARALLELISM), "--summary", summary, "--no-progress"]
  const record = await runCli(via, trials, cli, undefined, command)
  const figures = readFigures(summary)
  rmSync(summary, { force: true })
  if (typeof figures === "string") return { ...record, kind, status: record.status === "ok" ? "wrong" : record.status, detail: record.detail ?? figures }
  const expected = kind === "sim" ? 0 : trials * CALLS_PER_TRIAL
  const wrong = record.status === "ok" && (figures.toolCalls !== expected || figures.toolErrors !== 0)
  return {
    ...record,
    kind,
    figures,
    ...(wrong && { status: "wrong" as const, detail: `${figures.toolCalls} tool calls (${figures.toolErrors} errors), expected ${expected}` })
  }
}

/** The runs, in order: sim at N, module at N/10 and N, MCP at N/10. */
export const runToolBench = async (
  options: { readonly trials: number; readonly cli: CliOptions; readonly via: CliLauncher },
  say: (line: string) => void,
  onRecord: (bench: ToolBench) => void
): Promise<ToolBench> => {
  const dir = mkdtempSync(join(os.tmpdir(), "agent-trials-bench-tools-"))
  const runs: Array<ToolRunRecord> = []
  const bench = () => ({ trials: options.trials, via: options.via, runs })
  const small = Math.max(1, Math.round(options.trials / 10))
  try {
    const files = new Map<number, string>()
    for (const n of new Set([small, options.trials])) {
      const file = join(dir, `tasks-${n}.jsonl`)
      await writeLines(file, (function*() {
        for (let i = 0; i < n; i++) yield `${JSON.stringify({ id: `t${i}`, inputs: { instruction: `hello ${i}` } })}\n`
      })())
      files.set(n, file)
    }
    const plan: ReadonlyArray<readonly [ToolRunKind, number]> = [["sim", options.trials], ["module", small], ["module", options.trials], ["mcp", small]]
    for (const [kind, n] of plan) {
      const record = await runOne(dir, files.get(n)!, kind, n, options.cli, options.via)
      runs.push(record)
      say(`tools: ${describeRun(record)}`)
      onRecord(bench())
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return bench()
}

const describeRun = (r: ToolRunRecord): string => {
  const f = r.figures
  return `${r.kind.padEnd(6)} ${String(r.trials).padStart(8)} trials: ${r.status}  ${((r.wallMs ?? 0) / 1000).toFixed(1)} s wall` +
    (f === undefined
      ? ""
      : `, ${Math.round(f.throughputPerS)} trials/s, ${Math.round((f.throughputPerS * f.toolCalls) / Math.max(1, r.trials))} tool calls/s, ` +
        `peak outstanding ${f.peakOutstanding}, peak live fibers ${f.peakLiveFibers}`) +
    `, own peak ${(cliOwnMb(r) ?? 0).toFixed(0)} MB` +
    (r.detail === undefined ? "" : `: ${r.detail}`)
}

export interface ToolTarget {
  readonly name: string
  readonly pass: boolean
  readonly detail: string
}

/** Targets (g) and (h), judged on the module loop at N against N/10. */
export const toolTargets = (bench: ToolBench): Array<ToolTarget> => {
  const modules = bench.runs.filter((r) => r.kind === "module")
  const large = modules.find((r) => r.trials === bench.trials)
  const small = modules.find((r) => r !== large)
  const judged = large?.status === "ok" && small?.status === "ok"
  const notJudged = `not judged: module loop at N ${large?.status ?? "not run"}, at N/10 ${small?.status ?? "not run"}`
  const memory = judged ? cliOwnMb(large!)! / cliOwnMb(small!)! : undefined
  const fibers = judged ? large!.figures!.peakLiveFibers / small!.figures!.peakLiveFibers : undefined
  return [
    {
      name: `(g) tool loop's own peak RSS at N <= ${TOOL_MEMORY_RATIO_LIMIT}x at N/10`,
      pass: memory !== undefined && memory <= TOOL_MEMORY_RATIO_LIMIT,
      detail: memory === undefined
        ? notJudged
        : `${cliOwnMb(large!)!.toFixed(0)} MB at ${large!.trials} vs ${cliOwnMb(small!)!.toFixed(0)} MB at ${small!.trials} = ${memory.toFixed(2)}x`
    },
    {
      name: `(h) tool loop's peak live fibers at N <= ${TOOL_FIBER_RATIO_LIMIT}x at N/10`,
      pass: fibers !== undefined && fibers <= TOOL_FIBER_RATIO_LIMIT,
      detail: fibers === undefined
        ? notJudged
        : `${large!.figures!.peakLiveFibers} at ${large!.trials} vs ${small!.figures!.peakLiveFibers} at ${small!.trials} = ${fibers.toFixed(2)}x`
    }
  ]
}

/** The runs and targets (g), (h), as the bench prints them. */
export const renderTools = (bench: ToolBench): string => {
  const sim = bench.runs.find((r) => r.kind === "sim" && r.status === "ok")
  const loop = bench.runs.find((r) => r.kind === "module" && r.trials === bench.trials && r.status === "ok")
  const lines = [
    `Tool loop, --parallelism ${TOOL_PARALLELISM} (${launcherText(bench.via ?? "npm")}; ${CALLS_PER_TRIAL} parallel tool calls and 2 model turns per trial, the model answering at once):`,
    ...bench.runs.map((r) => `  ${describeRun(r)}`)
  ]
  if (sim?.wallMs !== undefined && loop?.figures !== undefined && sim.figures !== undefined) {
    const perTrial = (r: ToolRunRecord) => 1e6 / r.figures!.throughputPerS
    lines.push(`  the loop costs ${(perTrial(loop) - perTrial(sim)).toFixed(0)} us of wall per trial over one simulated call (${perTrial(loop).toFixed(0)} vs ${perTrial(sim).toFixed(0)} us)`)
  }
  for (const t of toolTargets(bench)) lines.push(`${t.name}: ${t.pass ? "PASS" : "FAIL"}  ${t.detail}`)
  return lines.join("\n")
}

/**
 * `npm run bench`: plans the runs, runs each in its own child process (A B A B
 * across rounds), then the CLI the way users run it (its memory), and prints
 * the table, the targets, and optionally JSON and an SVG chart. Partial JSON
 * is rewritten after every run, so a long full run can go to the background
 * and be read while it goes.
 */
import { execFileSync, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import os from "node:os"
import { parseArgs } from "node:util"
import { fileURLToPath } from "node:url"
import { type AgentName, isAgentName } from "./agents.ts"
import { type ApproachName, catalog, isApproachName } from "./catalog.ts"
import { type ChildOptions, loaders, prepareWorker, runChildren } from "./child.ts"
import { type Bin, type CliRecord, type CliVia, cliVias, isCliVia, resolveBin, runCli } from "./cli.ts"
import { approachRounds, type Config, configRounds, contextApproaches, expand, fullParts, fullPlan, quickParts, quickPlan } from "./plan.ts"
import { type Meta, render } from "./report.ts"
import { fmtCount, type RunRecord, summarise } from "./summary.ts"
import { chart } from "./svg.ts"
import { targets } from "./targets.ts"
import { type DatasetBench, memoryTargets, renderDatasets, runDatasetBench } from "./datasets.ts"
import { renderTools, runToolBench, type ToolBench, toolTargets } from "./tools.ts"
import { renderWire, runWireBench, type WireBench, wireTargets } from "./wire.ts"

const usage = `npm run bench -- [options]
  --quick                 a smoke of every target at small sizes, one round (79-102 s at a load
                          average of 3-7; the bin is measured only when already built: npm run build);
                          the sleep1ms and noop runs share one child per configuration, the parts start
                          the CLI with package.json's trials script without npm, the readers share one
                          process
  --rounds N              rounds per configuration (default 3)
  --only a,b              approaches: unordered, bare, scored, ordered, raw, pmap, plimit, eager
  --agents a,b            agents: noop, tick, sleep1ms
  --sizes 1e4,1e6         replace the trial counts of every group
  --parallelism 8,64      replace the parallelisms of every group
  --eager-cap N           skip runTrialsEager above N trials (default 2e4)
  --plimit-cap N          skip p-limit+Promise.all above N trials (default: none)
  --max-old-space MB      child heap limit (default 4096); an OOM is recorded as a result
  --cli-rss N             target (e): run the CLI on N simulated trials and read its process tree's
                          peak RSS (default 1e6 quick, 1e7 full; the target is defined at 1e7);
                          0 skips it; skipped by default when --only/--agents/--sizes/--parallelism
                          narrow the plan
  --cli-via npm,bin       how to start the CLI for --cli-rss: npm (npm run trials -- run ...) and/or
                          bin (package.json's bin through its #! line; built into .bench/ from
                          src/ when dist/ is older than src/); default both
  --datasets N            the dataset readers (rows/s of JSONL, CSV, JSON, Parquet at --reader-rows) and
                          target (f): the CLI over N-row JSONL, CSV and Parquet files, peak RSS
                          (default 1e6, 1e4 quick; 0 skips it; skipped by default when the plan is narrowed)
  --reader-rows N         rows each reader reads (default 2e5, 1e4 quick)
  --datasets-only         run only the dataset part (--datasets N, default 1e6)
  --tools N               the tool loop (tools.ts): the CLI with an effect-ai: model and 3 tool calls per
                          trial, plain module tools at N/10 and N, an MCP server over stdio at N/10, beside
                          sim:latency=0ms at N; targets (g) memory and (h) live fibers at N vs N/10
                          (default 1e5, about 100 s, 1e3 quick; 0 skips it; skipped by default when the plan is narrowed)
  --tools-only            run only the tool loop part (--tools N, default 1e5)
  --cache N               the response cache (cache.ts): targets (i) a lookup adds under 50 us per
                          trial at 1e6 stored entries, and (j) the CLI's peak RSS with --cache on at
                          N trials within 1.2x of N/10, beside the JSONL path without it (default
                          1e4 quick, 1e5 full; 0 skips it; skipped by default when the plan is narrowed)
  --cache-only            run only the response cache part (--cache N)
  --world N               a world per trial (world.ts): the CLI over N tasks at parallelism 8 with
                          nothing, --workspace, --setup, --sandbox bwrap, and an openai: agent with
                          --tools exec and a check: scorer, against the same run without the world;
                          the time a world adds to each trial (default 2000; quick: 40, and each piece of
                          the world once, 4 runs rather than 8; 0 skips it; skipped by default when the
                          plan is narrowed)
  --world-only            run only the world part (--world N)
  --adaptive N            --adaptive under rate limits (adaptive.ts): the CLI with openai: against a 20 ms
                          server refusing 10% with 429 + Retry-After: 1, at fixed parallelism 8, 16, 32, 64
                          and with --adaptive up to 64, N trials each; target (k) the adaptive wall within
                          1.3x of the best fixed one (default 3000, 2 rounds; quick: 200, against fixed 64
                          only; 0 skips it; skipped by default when the plan is narrowed)
  --adaptive-only         run only the adaptive part (--adaptive N)
  --wire N                the wire (wire.ts): a local OpenAI-compatible server (20 ms, keep-alive), a plain
                          Node client beside the CLI with openai: and http:// agents, alternating, N trials
                          each at --wire-parallelism; CPU per trial, share of the ideal wall, peak RSS, and
                          startup (npm start, npm run trials, the bin) (default 2e4 full, 500 quick;
                          0 skips it; skipped by default when the plan is narrowed)
  --wire-parallelism 8,64 the wire's parallelisms (default 8,64,256; 64 quick)
  --wire-only             run only the wire part (--wire N)
  --timeout S             per-child timeout in seconds (default 60 quick, 1800 full; CLI runs get 10x)
  --loader bundle|tsx|strip  how the child loads TypeScript: bundle (default) compiles
                          worker + src/ once with esbuild to .bench/worker-HASH.mjs; tsx uses
                          --import tsx (+0.4 s startup, +15-30 MB RSS per child); strip uses
                          Node 24's type stripping (no parameter properties or enums)
  --sample-ms N           memory sampling period in the child (default 25)
  --live-heap-ms N        force a full GC every N ms in the child and report the heap that
                          survives it ("live heap": retention, not lazy GC); perturbs timing
  --cpu-prof DIR          write a .cpuprofile per child into DIR
  --json FILE             write runs, medians and targets (rewritten after every run)
  --svg FILE              write the chart
  --report FILE           print the table, targets (and --svg) from a JSON written by --json,
                          without running anything (a background run's partial JSON works)`

const list = (text: string | undefined) => text?.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
const numbers = (flag: string, text: string | undefined): Array<number> | undefined =>
  list(text)?.map((s) => {
    const n = Number(s)
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`Expected ${flag} to hold integers from 1 and up, got ${s}`)
    return n
  })
const names = <A extends string>(flag: string, text: string | undefined, valid: (s: string) => s is A): Array<A> | undefined =>
  list(text)?.map((s) => {
    if (!valid(s)) throw new Error(`Unknown name in ${flag}: ${s}`)
    return s
  })

// What was measured: the commit, and whether src/ had uncommitted edits.
const gitState = () => {
  const git = (...args: Array<string>) => {
    try {
      return execFileSync("git", args, { cwd: new URL("../..", import.meta.url), encoding: "utf8" }).trim()
    } catch {
      return undefined
    }
  }
  const dirty = git("status", "--porcelain", "--", "src")
  return { commit: git("rev-parse", "--short", "HEAD"), srcDirty: dirty === undefined ? undefined : dirty.length > 0 }
}

const versionOf = (pkg: string): string => {
  const path = new URL(`../../node_modules/${pkg}/package.json`, import.meta.url)
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version
}

export const main = async (argv: ReadonlyArray<string>): Promise<void> => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: "boolean", default: false },
      rounds: { type: "string" },
      only: { type: "string" },
      agents: { type: "string" },
      sizes: { type: "string" },
      parallelism: { type: "string" },
      "eager-cap": { type: "string", default: "20000" },
      "plimit-cap": { type: "string" },
      "max-old-space": { type: "string", default: "4096" },
      "cli-rss": { type: "string" },
      "cli-via": { type: "string" },
      datasets: { type: "string" },
      "reader-rows": { type: "string" },
      "datasets-only": { type: "boolean", default: false },
      tools: { type: "string" },
      "tools-only": { type: "boolean", default: false },
      cache: { type: "string" },
      "cache-only": { type: "boolean", default: false },
      world: { type: "string" },
      "world-only": { type: "boolean", default: false },
      adaptive: { type: "string" },
      "adaptive-only": { type: "boolean", default: false },
      wire: { type: "string" },
      "wire-parallelism": { type: "string" },
      "wire-only": { type: "boolean", default: false },
      timeout: { type: "string" },
      loader: { type: "string", default: "bundle" },
      "sample-ms": { type: "string", default: "25" },
      "live-heap-ms": { type: "string" },
      "cpu-prof": { type: "string" },
      json: { type: "string" },
      svg: { type: "string" },
      report: { type: "string" },
      help: { type: "boolean", default: false }
    }
  })
  if (values.help) return console.log(usage)
  if (values.report !== undefined) {
    const doc = JSON.parse(readFileSync(values.report, "utf8")) as {
      meta: Meta
      runs: Array<RunRecord>
      cli?: Array<CliRecord>
      datasets?: DatasetBench
      tools?: ToolBench
      wire?: WireBench
    }
    console.log(render(doc.meta, doc.runs, doc.cli ?? []))
    if (doc.wire !== undefined) console.log(`\n${renderWire(doc.wire)}`)
    if (doc.datasets !== undefined) console.log(`\n${renderDatasets(doc.datasets)}`)
    if (doc.tools !== undefined) console.log(`\n${renderTools(doc.tools)}`)
    if (values.svg !== undefined) writeFileSync(values.svg, chart(summarise(doc.runs)))
    return
  }
  const quick = values.quick
  const partSizes = quick ? quickParts : fullParts
  // One round in quick mode (a smoke); the full plan's targets are medians of three or more.
  const rounds = numbers("--rounds", values.rounds)?.[0] ?? (quick ? 1 : 3)
  // A group's own minimum (quick's sleep1ms) holds unless --rounds says otherwise.
  const roundsFor = (config: Config) => configRounds(config, rounds, values.rounds !== undefined)
  const caps: Partial<Record<ApproachName, number>> = {
    eager: numbers("--eager-cap", values["eager-cap"])![0]!,
    ...(values["plimit-cap"] === undefined ? {} : { plimit: numbers("--plimit-cap", values["plimit-cap"])![0]! })
  }
  const loader = loaders.find((l) => l === values.loader)
  if (loader === undefined) throw new Error(`Expected --loader to be one of ${loaders.join(", ")}, got ${values.loader}`)
  const prepared = performance.now()
  const workerPath = await prepareWorker(loader)
  console.error(`bench: the children's script ready in ${((performance.now() - prepared) / 1000).toFixed(1)} s (${loader})`)
  const childOptions: ChildOptions = {
    maxOldSpaceMb: numbers("--max-old-space", values["max-old-space"])![0]!,
    timeoutMs: (numbers("--timeout", values.timeout)?.[0] ?? partSizes.timeoutS) * 1000,
    loader,
    workerPath,
    cpuProfDir: values["cpu-prof"]
  }
  const sampleMs = numbers("--sample-ms", values["sample-ms"])![0]!
  const liveHeapMs = numbers("--live-heap-ms", values["live-heap-ms"])?.[0]
  const toolsOnly = values["tools-only"]
  const datasetsOnly = values["datasets-only"]
  const cacheOnly = values["cache-only"]
  const worldOnly = values["world-only"]
  const adaptiveOnly = values["adaptive-only"]
  const wireOnly = values["wire-only"]
  const partOnly = datasetsOnly || toolsOnly || cacheOnly || worldOnly || adaptiveOnly || wireOnly
  const configs = partOnly ? [] : expand(quick ? quickPlan : fullPlan, {
    sizes: numbers("--sizes", values.sizes),
    parallelism: numbers("--parallelism", values.parallelism),
    agents: names<AgentName>("--agents", values.agents, isAgentName),
    only: names<ApproachName>("--only", values.only, isApproachName)
  })
  const narrowed = partOnly || [values.only, values.agents, values.sizes, values.parallelism].some((v) => v !== undefined)
  const cliTrials = values["cli-rss"] === "0"
    ? 0
    : numbers("--cli-rss", values["cli-rss"])?.[0] ?? (narrowed ? 0 : partSizes.cliRss)
  const cliWays: ReadonlyArray<CliVia> = cliTrials === 0 ? [] : names<CliVia>("--cli-via", values["cli-via"], isCliVia) ?? cliVias
  const datasetRows = values.datasets === "0" ? 0 : numbers("--datasets", values.datasets)?.[0] ?? (narrowed && !datasetsOnly ? 0 : partSizes.datasets)
  const toolTrials = values.tools === "0" ? 0 : numbers("--tools", values.tools)?.[0] ?? (narrowed && !toolsOnly ? 0 : partSizes.tools)
  const cacheTrials = values.cache === "0" ? 0 : numbers("--cache", values.cache)?.[0] ?? (narrowed && !cacheOnly ? 0 : partSizes.cache)
  const worldTrials = values.world === "0" ? 0 : numbers("--world", values.world)?.[0] ?? (narrowed && !worldOnly ? 0 : partSizes.world)
  const adaptiveTrials = values.adaptive === "0"
    ? 0
    : numbers("--adaptive", values.adaptive)?.[0] ?? (narrowed && !adaptiveOnly ? 0 : partSizes.adaptive)
  const wireTrials = values.wire === "0" ? 0 : numbers("--wire", values.wire)?.[0] ?? (narrowed && !wireOnly ? 0 : partSizes.wire)
  const readerRows = numbers("--reader-rows", values["reader-rows"])?.[0] ?? partSizes.readerRows
  const cliOptions = { sampleMs: 50, timeoutMs: childOptions.timeoutMs * 10 }
  // The quick plan runs sleep1ms's 44 runs and noop's in one child per configuration, after an unrecorded
  // warm-up run: a start per configuration, not per run. tick's keep a child per run: (b) and (d) read
  // CPU and RSS ratios there, and in a shared child a later run inherits the heap the runs before it
  // grew, and spends less on GC.
  const shared = configs.filter((c) => c.sharedChild === true)
  const capOf = (a: ApproachName) => caps[a] ?? Infinity
  // The quadratic eager runner costs seconds per run for a contrast that does not need a median.
  // A group's context approaches may run fewer rounds than the pair its target compares.
  const roundsOf = (a: ApproachName, config?: Config) =>
    quick && a === "eager"
      ? 1
      : config === undefined
      ? rounds
      : approachRounds(a, config, rounds, values.rounds !== undefined)
  const total = configs.reduce((n, c) => n + c.approaches.filter((a) => c.trials <= capOf(a)).reduce((k, a) => k + roundsOf(a, c), 0), 0) +
    cliWays.length

  const started = new Date()
  const meta = {
    mode: quick ? "quick" : "full",
    rounds,
    started: started.toISOString(),
    node: process.version,
    effect: versionOf("effect"),
    pMap: versionOf("p-map"),
    pLimit: versionOf("p-limit"),
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    loader: childOptions.loader,
    maxOldSpaceMb: childOptions.maxOldSpaceMb,
    timeoutS: childOptions.timeoutMs / 1000,
    sampleMs,
    liveHeapMs,
    caps,
    roundsOfEager: roundsOf("eager"),
    sharedChild: shared.map((c) => `${c.agent} T=${fmtCount(c.trials)} P=${c.parallelism}`),
    moreRounds: configs.filter((c) => roundsFor(c) > rounds).map((c) =>
      `${c.agent} T=${fmtCount(c.trials)} P=${c.parallelism}: ${roundsFor(c)} rounds` +
      (c.contextRounds === undefined || c.contextRounds >= roundsFor(c)
        ? ""
        : ` (${contextApproaches.join(", ")}: ${c.contextRounds})`)
    ),
    cliTrials,
    cliWays,
    ...gitState()
  }
  const runs: Array<RunRecord> = []
  const cli: Array<CliRecord> = []
  let datasets: DatasetBench | undefined
  let tools: ToolBench | undefined
  let wire: WireBench | undefined
  const save = (finished: boolean) => {
    if (values.json === undefined) return
    const summary = summarise(runs)
    const elapsedS = (Date.now() - started.getTime()) / 1000
    const doc = {
      meta: { ...meta, finished, elapsedS },
      summary,
      targets: targets(summary, cli),
      runs,
      cli,
      ...(datasets !== undefined && { datasets, datasetTargets: memoryTargets(datasets) }),
      ...(tools !== undefined && { tools, toolTargets: toolTargets(tools) }),
      ...(wire !== undefined && { wire, wireTargets: wireTargets(wire) })
    }
    writeFileSync(values.json, `${JSON.stringify(doc, null, 2)}\n`)
  }

  console.error(
    `bench: ${meta.mode}, ${configs.length} configurations, ${total} runs (${cliWays.length} of the CLI; ` +
      `a child per run${shared.length === 0 ? "" : `, or per configuration for ${meta.sharedChild.join(", ")}`}), ${rounds} rounds, node ${meta.node}`
  )
  // Each part's elapsed time and the load it ran under, so where a run's seconds go can be read off its log.
  const part = async (name: string, body: () => Promise<unknown>): Promise<void> => {
    const t0 = performance.now()
    const load = os.loadavg()[0]!
    await body()
    console.error(`bench: part ${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s (1-min load ${load.toFixed(1)} to ${os.loadavg()[0]!.toFixed(1)})`)
  }
  let done = 0
  if (configs.length > 0) await part("approaches", async () => {
    for (const config of configs) await runConfig(config)
  })
  if (cliWays.length > 0) await part("cli-rss", runCliWays)
  if (datasetRows > 0) await part("datasets", async () => {
    datasets = await runDatasetBench(
      { readerRows, memoryRows: datasetRows, rounds: Math.min(rounds, 3), cli: cliOptions, via: partSizes.launcher, sharedReader: quick },
      (line) => console.error(line),
      (bench) => {
        datasets = bench
        save(false)
      }
    )
  })
  if (wireTrials > 0) await part("wire", async () => {
    let bin: Bin | Error
    try {
      bin = resolveBin(!quick)
    } catch (error) {
      bin = error instanceof Error ? error : new Error(String(error))
    }
    const wireOptions = {
      trials: wireTrials,
      rounds: quick ? 1 : Math.min(rounds, 3),
      parallelisms: numbers("--wire-parallelism", values["wire-parallelism"]) ?? partSizes.wireParallelism,
      timeoutMs: childOptions.timeoutMs * 10,
      bin
    }
    wire = await runWireBench(wireOptions, (line) => console.error(line), (bench) => {
      wire = bench
      save(false)
    })
  })
  const via = ["--via", partSizes.launcher]
  if (cacheTrials > 0) {
    await part("cache", () => runCacheBench(cacheTrials, partSizes.cacheEntries, via, childOptions.timeoutMs * 10))
  }
  if (worldTrials > 0) {
    const worldRounds = partSizes.worldRounds === undefined ? [] : ["--rounds", String(partSizes.worldRounds)]
    const args = ["--trials", String(worldTrials), ...worldRounds, ...(partSizes.worldAll ? [] : ["--quick"]), ...via]
    await part("world", () => runPart("world", args, childOptions.timeoutMs * 10))
  }
  if (adaptiveTrials > 0) {
    const args = ["--trials", String(adaptiveTrials), "--rounds", String(partSizes.adaptiveRounds), "--fixed", partSizes.adaptiveFixed.join(","), ...via]
    await part("adaptive", () => runPart("adaptive", args, childOptions.timeoutMs * 10))
  }
  if (toolTrials > 0) await part("tools", async () => {
    tools = await runToolBench({ trials: toolTrials, cli: cliOptions, via: partSizes.launcher }, (line) => console.error(line), (bench) => {
      tools = bench
      save(false)
    })
  })
  save(true)

  async function runConfig(config: Config): Promise<void> {
    const at = `${config.agent} T=${fmtCount(config.trials)} P=${config.parallelism}`
    for (const approach of config.approaches) {
      if (config.trials > capOf(approach)) {
        runs.push({ ...base(config, approach, 0), status: "skipped", detail: `above cap (${fmtCount(capOf(approach))} trials)` })
      }
    }
    const roundsHere = roundsFor(config)
    const planned: Array<{ readonly approach: ApproachName; readonly round: number }> = []
    for (let round = 1; round <= roundsHere; round++) {
      for (const approach of config.approaches.filter((a) => config.trials <= capOf(a) && round <= roundsOf(a, config))) {
        planned.push({ approach, round })
      }
    }
    const specOf = (approach: ApproachName) => ({ approach, agent: config.agent, trials: config.trials, parallelism: config.parallelism, sampleMs, liveHeapMs })
    // A child per run; or (the plan's sharedChild) one child for the whole configuration, its runs in the same order after
    // an unrecorded warm-up run of the first approach, so that no recorded run pays for the JIT's first pass alone.
    const sharesChild = config.sharedChild === true
    for (const batch of sharesChild ? [planned] : planned.map((p) => [p])) {
      const load1 = os.loadavg()[0]!
      const specs = batch.map(({ approach }) => specOf(approach))
      const outcomes = sharesChild
        ? (await runChildren([specOf(config.approaches[0]!), ...specs], childOptions)).slice(1)
        : await runChildren(specs, childOptions)
      for (const [i, { approach, round }] of batch.entries()) {
        const outcome = outcomes[i]!
        runs.push({ ...base(config, approach, round), load1, ...outcome })
        done++
        const said = "result" in outcome
          ? `${outcome.status} ${(outcome.result.wallMs / 1000).toFixed(2)} s, ` +
            `${((outcome.result.wallMs * 1000) / config.trials).toFixed(2)} us/trial, ${outcome.result.peakRssMb.toFixed(0)} MB`
          : `${outcome.status}: ${outcome.detail}`
        console.error(`[${done}/${total}] ${at} round ${round}/${roundsHere} ${catalog[approach].label}: ${said}`)
      }
      save(false)
    }
  }

  async function runCliWays(): Promise<void> {
    let bin: Bin | Error | undefined
    try {
      bin = cliWays.includes("bin") ? resolveBin(!quick) : undefined
    } catch (error) {
      bin = error instanceof Error ? error : new Error(String(error))
    }
    for (const via of cliWays) {
      const record: CliRecord = via === "bin" && bin instanceof Error
        ? { via, trials: cliTrials, command: "agent-trials bin", status: "crashed", detail: `no bin to run: ${bin.message}` }
        : await runCli(via, cliTrials, cliOptions, via === "bin" && !(bin instanceof Error) ? bin : undefined)
      cli.push(record)
      done++
      console.error(
        `[${done}/${total}] CLI via ${via} N=${fmtCount(cliTrials)}: ${record.status} ${((record.wallMs ?? 0) / 1000).toFixed(1)} s, ` +
          `tree peak ${(record.peakTreeRssMb ?? 0).toFixed(0)} MB${record.detail === undefined ? "" : `: ${record.detail}`}`
      )
      save(false)
    }
  }

  console.log(render(meta, runs, cli))
  if (datasets !== undefined) console.log(`\n${renderDatasets(datasets)}`)
  if (tools !== undefined) console.log(`\n${renderTools(tools)}`)
  if (wire !== undefined) console.log(`\n${renderWire(wire)}`)
  if (values.svg !== undefined) writeFileSync(values.svg, chart(summarise(runs)))
  console.error(`bench: done in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`)
}

const base = (config: Config, approach: ApproachName, round: number) => ({
  agent: config.agent,
  trials: config.trials,
  parallelism: config.parallelism,
  approach,
  round
})

// The response cache's part: scripts/bench/cache.ts in a child on this Node (its own type stripping,
// which starts faster than tsx), its lines passed through; it prints targets (i) and (j) with PASS or FAIL.
const runCacheBench = (trials: number, entries: number, extra: ReadonlyArray<string>, timeoutMs: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL("./cache.ts", import.meta.url))
    const args = [script, "--entries", String(entries), "--calls", String(trials), "--trials", String(trials), ...extra]
    console.error(`bench: the response cache, ${fmtCount(trials)} calls and trials at ${fmtCount(entries)} entries`)
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] })
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", reject)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`bench: the response cache part ended with ${signal ?? `code ${code}`}`))
    })
  })

// A part in a child on this Node (its own type stripping), its lines passed through: scripts/bench/NAME.ts.
const runPart = (name: string, args: ReadonlyArray<string>, timeoutMs: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url))
    console.error(`bench: the ${name} part, ${args.join(" ")}`)
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "inherit", "inherit"] })
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("error", reject)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`bench: the ${name} part ended with ${signal ?? `code ${code}`}`))
    })
  })

/**
 * What to run: groups of (agent, trial counts, parallelisms, approaches),
 * expanded into configurations. `--sizes`, `--parallelism`, `--agents` and
 * `--only` narrow or replace parts of every group.
 */
import type { AgentName } from "./agents.ts"
import type { CliLauncher } from "./cli.ts"
import { type ApproachName, approachNames } from "./catalog.ts"

export interface Group {
  readonly purpose: string
  readonly agent: AgentName
  readonly trials: ReadonlyArray<number>
  readonly parallelism: ReadonlyArray<number>
  readonly approaches: ReadonlyArray<ApproachName>
  /** At least this many rounds for the group's configurations, unless `--rounds` is given. */
  readonly minRounds?: number
  /** At most this many rounds for the context approaches (raw, p-map), `--rounds` or not. */
  readonly contextRounds?: number
  /**
   * Its configurations' runs share one child each, after an unrecorded warm-up run (the quick plan,
   * where a child's start costs more than a run and no target reads a CPU or RSS ratio of them).
   */
  readonly sharedChild?: boolean
}

export interface Config {
  readonly agent: AgentName
  readonly trials: number
  readonly parallelism: number
  readonly approaches: ReadonlyArray<ApproachName>
  readonly minRounds?: number
  readonly contextRounds?: number
  readonly sharedChild?: boolean
}

/** The approaches no target judges: they give the context (`vs raw`, against p-map). */
export const contextApproaches: ReadonlyArray<ApproachName> = ["raw", "pmap"]

/**
 * A configuration's rounds: the run's (`--rounds`, default 3), raised to the
 * group's minimum unless `--rounds` was given.
 */
export const configRounds = (config: Config, rounds: number, roundsGiven: boolean): number =>
  roundsGiven ? rounds : Math.max(rounds, config.minRounds ?? 0)

/** An approach's rounds in a configuration: the configuration's, at most `contextRounds` for the context. */
export const approachRounds = (approach: ApproachName, config: Config, rounds: number, roundsGiven: boolean): number => {
  const all = configRounds(config, rounds, roundsGiven)
  return config.contextRounds !== undefined && contextApproaches.includes(approach) ? Math.min(config.contextRounds, all) : all
}

const all = approachNames
// The scoring stage's cost is measured with the tick agent only, beside `unordered`.
const unscored: ReadonlyArray<ApproachName> = all.filter((a) => a !== "scored")
// The targets compare `unordered` with `bare`; raw and p-map are the context.
const compared: ReadonlyArray<ApproachName> = ["unordered", "bare", "raw", "pmap"]

// A smoke of every target at small sizes, one round (`--quick`, under 120 s on 2 cores under moderate
// load): each approach and agent runs and its figures are printed, but the targets are defined at the
// full plan's sizes and medians; their verdicts here say only that the measurement works. The eager
// runner (context, no target) runs with the tick agent only: with noop it would add 2.5 s for nothing new.
export const quickPlan: ReadonlyArray<Group> = [
  { purpose: "(b) CPU per trial, and the scoring stage's cost, tick", agent: "tick", trials: [1e4], parallelism: [64], approaches: all },
  { purpose: "(d) peak RSS, and (b), tick", agent: "tick", trials: [5e4], parallelism: [64], approaches: compared },
  // Fifteen rounds for the pair (c) compares, seven for the context, even here: with a 1 ms agent
  // single rounds range 0.88x-1.08x on this 2-core VM, so (c) is a median or nothing. At 5,000
  // trials a round is mostly its child's start.
  {
    purpose: "(c) timer-bound agent",
    agent: "sleep1ms",
    trials: [5e3],
    parallelism: [64],
    approaches: compared,
    minRounds: 15,
    contextRounds: 7,
    sharedChild: true
  },
  {
    purpose: "already-resolved agent",
    agent: "noop",
    trials: [1e4],
    parallelism: [64],
    approaches: unscored.filter((a) => a !== "eager"),
    sharedChild: true
  }
]

export const fullPlan: ReadonlyArray<Group> = [
  { purpose: "memory vs T, tick", agent: "tick", trials: [1e4, 1e5, 1e6, 1e7], parallelism: [64], approaches: all },
  { purpose: "throughput vs parallelism, tick", agent: "tick", trials: [1e5], parallelism: [8, 64, 1024], approaches: all },
  { purpose: "timer-bound agent", agent: "sleep1ms", trials: [1e5], parallelism: [64], approaches: unscored },
  { purpose: "already-resolved agent", agent: "noop", trials: [1e4, 1e5, 1e6], parallelism: [64], approaches: unscored }
]

/**
 * The sizes of the parts that follow the approaches, by plan (`--quick` or
 * the full bench); each part's flag replaces its figure, and a narrowed run
 * (`--only`, `--agents`, `--sizes`, `--parallelism`, or another part's
 * `--X-only`) leaves the part out unless its flag is given.
 */
export interface PartSizes {
  /** The CLI's simulated trials for target (e) (`--cli-rss`). */
  readonly cliRss: number
  /** Rows of the CLI's dataset runs, target (f) (`--datasets`), and of each reader (`--reader-rows`). */
  readonly datasets: number
  readonly readerRows: number
  /** Trials of the tool loop at N, targets (g) and (h) (`--tools`). */
  readonly tools: number
  /** Calls and trials of the response cache, targets (i) and (j) (`--cache`), at this many stored entries. */
  readonly cache: number
  readonly cacheEntries: number
  /**
   * Tasks of each world run (`--world`), its rounds (absent: world.ts's own default, 3), and whether
   * every run of its table is made or (world.ts --quick) each piece of the world once.
   */
  readonly world: number
  readonly worldRounds?: number
  readonly worldAll: boolean
  /** Trials of each adaptive case, target (k) (`--adaptive`), its rounds, and the fixed parallelisms it is held against. */
  readonly adaptive: number
  readonly adaptiveRounds: number
  readonly adaptiveFixed: ReadonlyArray<number>
  /** Trials of each wire run (`--wire`) and its parallelisms (`--wire-parallelism`). */
  readonly wire: number
  readonly wireParallelism: ReadonlyArray<number>
  /** How the parts start the CLI (cli.ts's launchers): npm as users do, or the trials script without npm. */
  readonly launcher: CliLauncher
  /** The per-child timeout in seconds (`--timeout`; CLI runs get 10x). */
  readonly timeoutS: number
}

export const quickParts: PartSizes = {
  cliRss: 2e4,
  datasets: 1e4,
  readerRows: 1e4,
  tools: 1e3,
  cache: 1e3,
  cacheEntries: 1e4,
  world: 40,
  worldRounds: 1,
  worldAll: false,
  // Each case waits out Retry-After: 1 s on its 429s: the fixed 8 case took 8.2 s at 400 trials.
  adaptive: 200,
  adaptiveRounds: 1,
  // Fixed 64, the best fixed case at 400 and 3,000 trials, and the limit --adaptive climbs to; fixed 8 alone
  // took 9.5 s at 200 trials.
  adaptiveFixed: [64],
  wire: 500,
  // The parallelism the wire's targets are judged at.
  wireParallelism: [64],
  launcher: "script",
  timeoutS: 60
}

export const fullParts: PartSizes = {
  cliRss: 1e7,
  datasets: 1e6,
  readerRows: 2e5,
  tools: 1e5,
  cache: 1e5,
  cacheEntries: 1e6,
  world: 2000,
  worldAll: true,
  adaptive: 3000,
  adaptiveRounds: 2,
  adaptiveFixed: [8, 16, 32, 64],
  wire: 2e4,
  wireParallelism: [8, 64, 256],
  launcher: "npm",
  timeoutS: 1800
}

export interface Narrowing {
  readonly sizes?: ReadonlyArray<number> | undefined
  readonly parallelism?: ReadonlyArray<number> | undefined
  readonly agents?: ReadonlyArray<AgentName> | undefined
  readonly only?: ReadonlyArray<ApproachName> | undefined
}

/** Expands groups into configurations; a configuration named twice runs once, with the union of approaches. */
export const expand = (groups: ReadonlyArray<Group>, narrowing: Narrowing): Array<Config> => {
  const byKey = new Map<
    string,
    {
      agent: AgentName
      trials: number
      parallelism: number
      approaches: Set<ApproachName>
      minRounds?: number
      contextRounds?: number
      sharedChild?: boolean
    }
  >()
  for (const group of groups) {
    if (narrowing.agents && !narrowing.agents.includes(group.agent)) continue
    const approaches = group.approaches.filter((a) => !narrowing.only || narrowing.only.includes(a))
    if (approaches.length === 0) continue
    for (const trials of narrowing.sizes ?? group.trials) {
      for (const parallelism of narrowing.parallelism ?? group.parallelism) {
        const key = `${group.agent}/${trials}/${parallelism}`
        const config = byKey.get(key) ?? { agent: group.agent, trials, parallelism, approaches: new Set() }
        for (const a of approaches) config.approaches.add(a)
        if (group.minRounds !== undefined) config.minRounds = Math.max(config.minRounds ?? 0, group.minRounds)
        if (group.contextRounds !== undefined) config.contextRounds = group.contextRounds
        if (group.sharedChild === true) config.sharedChild = true
        byKey.set(key, config)
      }
    }
  }
  // Keep the catalog's order inside a configuration: raw runs in every round beside the others.
  return [...byKey.values()].map((c) => ({ ...c, approaches: approachNames.filter((a) => c.approaches.has(a)) }))
}

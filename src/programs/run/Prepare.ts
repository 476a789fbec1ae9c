/**
 * Everything a run checks and builds before its first task is read: inputs
 * against outputs, the agent, the scorers, the pricing and budgets, the
 * gates, the run definition and the resume check, the results store made
 * ready (a resume's recorded trials counted), and the `resuming:` line.
 * What it built is one read-only `RunPlan`, which the run's stages and its
 * end read.
 *
 * @since 0.7.0
 */
import { Clock, Console, Effect, Path, Random } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../../domain/Agent.ts"
import type { Scorer } from "../../domain/Scorer.ts"
import * as AgentKinds from "../../agents/AgentKinds.ts"
import * as UserConversation from "../../agents/users/Conversation.ts"
import * as Users from "../../agents/users/Users.ts"
import { userKeyFromConfig } from "../../internal/apiKey.ts"
import * as Choose from "../../datasets/Choose.ts"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import * as Mapping from "../../datasets/Mapping.ts"
import { checkDistinct } from "../../internal/outputs.ts"
import * as Policy from "../../runner/Policy.ts"
import * as Setting from "../../sandbox/Setting.ts"
import { RunInputError } from "../../runner/Remote.ts"
import * as Kinds from "../Kinds.ts"
import * as OutputFormats from "../OutputFormats.ts"
import * as Results from "../../results/Results.ts"
import type { ResultsStore } from "../../results/Store.ts"
import * as ResultsStores from "../../results/ResultsStores.ts"
import * as RunDefinition from "./Definition.ts"
import * as Revisions from "./Revisions.ts"
import { DEFAULT_SYNTHETIC, type KindedConfig, outputPath, type RunConfig, scoreSpecs, validate } from "./Config.ts"
import * as Budget from "./Budget.ts"
import * as BadInput from "../BadInput.ts"
import * as ToolsStop from "./ToolsStop.ts"
import * as Pricing from "../../summary/Pricing.ts"
import { buildScorers, runSize, selectionOf } from "./Inputs.ts"
import * as Gates from "../../summary/Gates.ts"
import * as Labels from "../../summary/Labels.ts"
import * as Summary from "../../summary/Summary.ts"
import * as End from "./End.ts"
import { MutableCounts } from "./internal/counts.ts"
import * as RequestOptions from "../internal/request.ts"
import * as Workspaces from "./stages/Workspaces.ts"

/**
 * What a run built before its first task: read by its stages and its end.
 *
 * @category models
 * @since 0.7.0
 */
export interface RunPlan {
  readonly config: KindedConfig
  /** The kinds of agents, scorers, datasets, outputs and stores: `config.kinds` read once, here. */
  readonly kinds: Kinds.Kinds
  /** The agent; a `--cluster` run's is the workers' own (this one is never called). */
  readonly agent: Agent<unknown, HttpClient.HttpClient>
  readonly scorers: ReadonlyArray<Scorer<HttpClient.HttpClient>>
  readonly scoreParallelism: number
  /** The sandbox every process a trial starts runs in (`--sandbox`), checked to work here. */
  readonly sandbox: Setting.Setting
  /** `--pricing`'s prices, if any; the models it lacks go to the run's counts. */
  readonly pricing: Pricing.Pricing | undefined
  /** Warns once of each model the pricing file lacks, met since the last warning. */
  readonly sayUnpriced: Effect.Effect<void>
  readonly budgets: Budget.Budgets
  /** Whether any budget is set. */
  readonly budgeted: boolean
  /** What the trials spent, those recorded before a resume included. */
  readonly spent: Budget.Spent
  readonly gates: ReadonlyArray<Gates.Gate>
  /** The run's id; a resume's is the run it continues. */
  readonly runId: string
  /** The results file. */
  readonly out: string
  /** How the run tells its lines: on stderr when the results go to stdout. */
  readonly say: (line: string) => Effect.Effect<void>
  /** What each record says of its task (epochs, cluster, groups). */
  readonly labelOptions: { readonly epochs: number; readonly clusterBy: Labels.ClusterBy; readonly groupBy: ReadonlyArray<string> }
  /** The summary's tallies, the recorded trials of a resume already in. */
  readonly acc: Summary.Accumulator
  /** The `--ids` file, read. */
  readonly ids: Choose.IdList | undefined
  /** Which rows the run takes, as recorded. */
  readonly rows: Choose.Recorded
  /** How the dataset is read, as recorded; undefined for synthetic tasks. */
  readonly read: { readonly format: string; readonly map: string | null; readonly json_path: string | null } | undefined
  /** The dataset's commit now and when the recorded trials were read. */
  readonly revisions: Revisions.Revisions
  /** Whether this run wrote the run definition (removed at the end when no results file was made). */
  readonly wroteDefinition: boolean
  readonly store: ResultsStore
  /** What the results file already holds (a resume). */
  readonly recorded: Results.Recorded
  /** Says `results: FILE` once the file exists. */
  readonly named: { readonly sayWhenWritten: (written: () => number) => Effect.Effect<void> }
  /** With `--estimate`: the whole run's size, which the estimate projects to. */
  readonly estimateTotal: number | undefined
  /** When the run began (after its preparation), in ms. */
  readonly started: number
  /** What the run's stages count, owned by the run. */
  readonly counts: MutableCounts
}

/**
 * A run id: UTC time to the second plus a random suffix of six base-36
 * digits from `suffix`, a draw in [0, 1).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeRunId = (now: Date, suffix: number): string =>
  `${now.toISOString().slice(0, 19).replace(/[:]/g, "-")}-${Math.floor(suffix * 36 ** 6).toString(36).padStart(6, "0")}`

// A fresh run id from the Clock and Random services.
const newRunIdOf = Effect.gen(function*() {
  return makeRunId(new Date(yield* Clock.currentTimeMillis), yield* Random.next)
})

/**
 * Checks and builds everything of a run before its first task is read.
 * Fails with `RunInputError` on bad flags or input, with `ToolServerFailed`
 * when a tool server does not answer. The plan's `counts` (the run's, when
 * given: a new one otherwise) gets the models the pricing file lacks.
 *
 * @category constructors
 * @since 0.7.0
 */
export const prepare = Effect.fnUntraced(function*(
  options: RunConfig,
  counts: MutableCounts = new MutableCounts(
    options.tasks === undefined ? (options.synthetic ?? DEFAULT_SYNTHETIC) * options.epochs : undefined
  )
) {
  // The deprecated `RunConfig.kinds`, when given, wins over the service.
  const given = options.kinds ?? (yield* Kinds.Registry)
  // An output of one's own with a built-in's flag replaces it, as its flag does.
  const config: KindedConfig = { ...options, kinds: { ...given, outputs: OutputFormats.distinct(given.outputs) } }
  const invalidConfig = validate(config)
  if (invalidConfig) return yield* invalidConfig
  const path = yield* Path.Path
  const kinds = config.kinds
  const input = (e: { readonly message: string }) => RunInputError.from(e)
  // Checked before anything starts: bubblewrap missing or unusable is bad setup (exit 2).
  const sandbox = config.workspace === true ? yield* Setting.make(config).pipe(Effect.mapError(input)) : Setting.fromFlags({})
  yield* checkDistinct({
    inputs: [
      { flag: "--tasks", path: config.tasks },
      { flag: "--agent", path: AgentKinds.kindOf(config.agent, kinds.agents).input?.(config.agent) },
      { flag: "--user", path: config.user === undefined ? undefined : Users.kindOf(config.user).input?.(config.user) }
    ],
    outputs: [
      { flag: "--out", path: config.out },
      ...kinds.outputs.map((o) => ({ flag: `--${o.flag}`, path: outputPath(config, o) }))
    ],
    cwd: config.cwd
  }).pipe(Effect.mapError(input))

  // What the agent's and the judges' model requests carry (`--system @FILE` read here).
  const request = yield* RequestOptions.resolve(RequestOptions.agentGiven(config), "", config.cwd).pipe(Effect.mapError(input))
  const judgeRequest = yield* RequestOptions.resolve(RequestOptions.judgeGiven(config), "judge-", config.cwd).pipe(Effect.mapError(input))
  // A --cluster run's agent is the workers' own.
  const built: Agent<unknown, HttpClient.HttpClient> = config.remote === undefined
    ? yield* AgentKinds.build(
      config.agent,
      { ...config, request, retry: Policy.retryOf(config), sandboxSetting: config.workspace === true ? sandbox : undefined },
      kinds.agents
    )
      .pipe(Effect.catchTags({
        AgentBuildError: (e) => Effect.fail(input(e)),
        ToolConnectError: (e) => Effect.fail(input(e)),
        // A tool server that does not answer is not bad input: exit 1, not 2.
        McpServerFailed: (e) =>
          Effect.fail(new ToolsStop.ToolServerFailed({ where: e.where, problem: `the MCP server ${e.problem}${e.stderr}` }))
      }))
    : () => Effect.die("a --cluster run calls no agent here")
  // `--user`: the agent in a conversation with a simulated user, one agent call per trial for the runner.
  const agent = config.user === undefined ? built : UserConversation.wrap(built, {
    user: yield* Users.build(config.user, {
      model: config.userModel,
      apiKey: (yield* userKeyFromConfig.pipe(Effect.orElseSucceed(() => undefined))) ?? config.apiKey,
      cwd: config.cwd,
      retry: Policy.retryOf(config)
    }).pipe(Effect.mapError(input)),
    instruction: config.userInstruction ?? UserConversation.defaults.instruction,
    maxUserTurns: config.maxUserTurns ?? UserConversation.defaults.maxUserTurns
  })
  // Built before the resume check names the run: a `check:` reads the run's id when it scores a trial.
  let runIdOnceKnown: string | undefined
  const scorers = yield* buildScorers(config, Workspaces.world(config, sandbox, () => runIdOnceKnown), judgeRequest)
  const pricing = config.pricing === undefined ? undefined : Pricing.make(
    config.pricing,
    yield* Pricing.load(path.resolve(config.cwd, config.pricing)).pipe(Effect.mapError(input)),
    (model) => counts.unpricedPending.push(model)
  )
  const sayUnpriced = Effect.suspend(() =>
    counts.unpricedPending.length === 0 ? Effect.void : Effect.forEach(counts.unpricedPending.splice(0), (model) =>
      Console.error(
        `agent-trials: warning: model ${JSON.stringify(model)} is not in --pricing ${config.pricing}: its tokens are priced at $0`
      ))
  )
  const budgets: Budget.Budgets = { maxCost: config.maxCost, maxTokens: config.maxTokens }
  const budgeted = budgets.maxCost !== undefined || budgets.maxTokens !== undefined
  // What it reports as in flight at a stop is the runner's agent calls then.
  const spent = new Budget.Spent(() => counts.probe.active)
  const gates = config.failUnder ?? []
  yield* Effect.fromResult(Gates.check(gates, scorers.map((s) => s.name))).pipe(Effect.mapError(input))
  const newRunId = yield* newRunIdOf
  const out = config.out === undefined ? path.join("runs", `${newRunId}.jsonl`) : Results.outPath(config.out)
  // With the results on stdout, every other line goes to stderr.
  const say = Results.isStdout(out) ? Console.error : Console.log
  const labelOptions = {
    epochs: config.epochs,
    clusterBy: Labels.clusterBy(config.stderrCluster, config.epochs),
    groupBy: config.groupBy ?? []
  }
  const acc = new Summary.Accumulator(
    config.epochs,
    scorers.length === 0
      ? undefined
      : { scorers: scorers.map((s) => s.name), pass: config.pass, stderrCluster: labelOptions.clusterBy }
  )
  const scoreParallelism = config.scoreParallelism ?? config.parallelism
  // What the dataset is and which of its rows the run takes: recorded in
  // the definition and the summary. The --ids file is read once, here.
  const ids = config.ids === undefined ? undefined : yield* Choose.readIds(path.resolve(config.cwd, config.ids)).pipe(Effect.mapError(input))
  const rows = Choose.recorded(selectionOf(config, ids))
  const format = config.tasks === undefined ? undefined : DatasetFormats.formatOf(config.tasks, config.format, kinds.datasets)
  const read = format === undefined || typeof format === "string"
    ? undefined
    : { format: format.name, map: Mapping.recorded(config.map), json_path: config.jsonPath ?? null }
  const revisions = new Revisions.Revisions(config.tasks)
  // Checked before the results file is touched (a refused --retry-failed
  // must not have rewritten it); written once it is ready for appending.
  const definition = yield* RunDefinition.make({
    ...config,
    agents: kinds.agents,
    scorerKinds: kinds.scorers,
    scorers: scoreSpecs(config),
    synthetic: config.synthetic ?? DEFAULT_SYNTHETIC,
    read,
    rows,
    request,
    judgeRequest
  }, newRunId)
  const checked = yield* RunDefinition.check(out, definition, config.resume).pipe(Effect.mapError(input))
  // A resume continues its run: the summary names the run the file belongs to.
  const runId = checked.runId ?? newRunId
  runIdOnceKnown = runId
  const store = ResultsStores.storeOf(out, kinds.stores)
  const recorded = yield* store.prepare(out, {
    resume: config.resume,
    retryFailed: config.retryFailed,
    // Priced as this run prices, so a budget counts what they spent.
    onPrior: (recorded) => {
      const trial = pricing === undefined ? recorded : Pricing.priceTrial(pricing, recorded)
      acc.add(trial, true)
      spent.add(trial)
      revisions.onPrior(trial)
    }
  }).pipe(Effect.mapError(input))
  yield* sayUnpriced
  if (checked.write && definition !== undefined) yield* RunDefinition.write(out, definition).pipe(Effect.mapError(input))
  // A run writes this file from now on: how an earlier one ended no longer says how it stands.
  yield* End.clear(out)
  const named = yield* BadInput.resultsLine(out, say)
  if (recorded.kept + recorded.droppedFailed > 0 || recorded.repairedBytes > 0) {
    yield* say(
      `resuming: ${recorded.kept} trials already recorded` +
        (recorded.droppedFailed > 0 ? `, ${recorded.droppedFailed} failed ones to run again` : "") +
        (recorded.repairedBytes > 0 ? `, ${recorded.repairedBytes} bytes of a torn last line removed` : "")
    )
  }

  // The whole run's size, which an estimate projects to.
  const estimateTotal = config.estimate !== true
    ? undefined
    : config.tasks === undefined
    ? (config.synthetic ?? DEFAULT_SYNTHETIC) * config.epochs
    : yield* DatasetFormats.count(config.tasks, config.format, kinds.datasets, config).pipe(Effect.map((n) => runSize(config, ids, n)))

  const started = yield* Clock.currentTimeMillis
  const plan: RunPlan = {
    config,
    kinds,
    agent,
    scorers,
    scoreParallelism,
    sandbox,
    pricing,
    sayUnpriced,
    budgets,
    budgeted,
    spent,
    gates,
    runId,
    out,
    say,
    labelOptions,
    acc,
    ids,
    rows,
    read,
    revisions,
    wroteDefinition: checked.write,
    store,
    recorded,
    named,
    estimateTotal,
    started,
    counts
  }
  return plan
})

/**
 * The `run` command, here or on a cluster (`--cluster`).
 *
 * @since 0.1.0
 */
import { Config, Duration, Effect, Option } from "effect"
import { Command } from "effect/cli"
import * as OpenAiAgent from "../agents/OpenAi.ts"
import * as SimAgent from "../agents/Sim.ts"
import * as ToolAgent from "../agents/tools/Agent.ts"
import * as Kinds from "../programs/Kinds.ts"
import * as Options from "../programs/Options.ts"
import * as Run from "../programs/run/Run.ts"
import { exitFor, reportErrors } from "./errors.ts"
import {
  agentFlag,
  datasetFlags,
  datasetOptions,
  expectedToolsFlag,
  judgeModelFlag,
  modelFlag,
  optionalString,
  optionFlag,
  repeatedFlag,
  scoreDescription,
  scoreFlag,
  scoreFromEnv,
  statisticsFlags,
  switchFlag
} from "./flags.ts"

/**
 * `run`: stream a dataset through an agent, write every result, resume after
 * a crash. Every flag falls back to an `AGENT_TRIALS_*` environment variable,
 * then to its default.
 * Its flags are made from `kinds`; its program reads the `Kinds.Registry`
 * service, which `Cli.make` provides.
 *
 * @category commands
 * @since 0.1.0
 */
export const makeRunCommand = (kinds: Kinds.Kinds) =>
  Command.make(
    "run",
    {
      cluster: optionalString(
        "cluster",
        "postgres://USER[:PASSWORD]@HOST[:PORT]/DB: run the trials on that cluster's workers (agent-trials worker), not here"
      ),
      tasks: optionalString(
        "tasks",
        "File of tasks, read lazily, in the format of its name (see --format); - reads stdin as JSONL; " +
          "hf:OWNER/NAME[@REVISION][?config=C&split=S] reads a Hugging Face Hub dataset"
      ),
      ...datasetFlags(kinds.datasets),
      ids: optionalString("ids", "Run only the task ids this file lists, one a line (# starts a comment)"),
      limit: optionFlag("limit", "N", Options.RowCount, undefined, "Run only the first N rows (after --ids and --shuffle)"),
      sample: optionFlag(
        "sample",
        "N",
        Options.RowCount,
        undefined,
        "Run a uniform sample of N rows, seeded by --seed, in the dataset's order (one pass, memory O(N); trials start once the file is read)"
      ),
      shuffle: switchFlag("shuffle", "Run the rows in an order seeded by --seed (holds every row in memory: O(rows))"),
      seed: optionFlag("seed", "S", Options.Count, undefined, "Seed of --sample and --shuffle: the same seed gives the same rows (default 0)"),
      synthetic: optionFlag(
        "synthetic",
        "N",
        Options.Count,
        undefined,
        `Generate N synthetic tasks instead (default when no --tasks: ${Run.DEFAULT_SYNTHETIC})`
      ),
      // No default here: `run --cluster` refuses an agent however it is given.
      agent: agentFlag(kinds, undefined),
      model: modelFlag,
      parallelism: optionFlag(
        "parallelism",
        "N",
        Options.Parallelism,
        8,
        "Agent calls in flight at most, and trials admitted at most (an integer >= 1, default 8)"
      ),
      epochs: optionFlag(
        "epochs",
        "K",
        Options.Epochs,
        1,
        "Trials per task, at most 10000; trial ids are TASK_ID:EPOCH, EPOCH from 1 (default 1)"
      ),
      out: optionalString("out", "Results file (JSONL, appended as trials finish; default runs/<run-id>.jsonl)"),
      resume: switchFlag("resume", "Continue --out: skip recorded trials, repair a torn last line, append the rest"),
      retryFailed: switchFlag(
        "retry-failed",
        "With --resume: run the recorded failed trials again (their old lines are removed)"
      ),
      noProgress: switchFlag(
        "no-progress",
        "No progress display (otherwise, on stderr: a live line on a terminal, elsewhere a line every 5 s)"
      ),
      onInvalid: optionFlag(
        "on-invalid",
        "fail|skip",
        Options.OnInvalid,
        "fail",
        "A bad dataset line: fail (stop admitting, keep what is recorded, exit 2) or skip (record it as a failed trial of type InvalidTask); default fail"
      ),
      timeout: optionFlag(
        "timeout",
        "DURATION",
        Options.Duration,
        undefined,
        "Per attempt (500ms, 30s, 2m, 1h): the call is interrupted and the attempt fails with Timeout; none by default"
      ),
      retries: optionFlag(
        "retries",
        "N",
        Options.Count,
        2,
        "Retries of retryable failures: timeouts, network errors, HTTP 408/429/5xx (default 2); waiting out a Retry-After of a 429 or 503 uses none"
      ),
      backoff: optionFlag(
        "backoff",
        "DURATION",
        Options.Duration,
        Duration.millis(500),
        "Base of the jittered exponential backoff between attempts (default 500ms)"
      ),
      backoffMax: optionFlag("backoff-max", "DURATION", Options.Duration, Duration.seconds(30), "Longest backoff wait (default 30s)"),
      retryAfterMax: optionFlag(
        "retry-after-max",
        "DURATION",
        Options.Duration,
        Duration.seconds(60),
        "Longest wait a Retry-After header of a 429 or 503 may impose (default 60s)"
      ),
      rateLimitWaitMax: optionFlag(
        "rate-limit-wait-max",
        "DURATION",
        Options.Duration,
        Duration.minutes(10),
        "Longest a trial waits in all on rate limits (429, or 503 with Retry-After); these waits use no --retries (default 10m)"
      ),
      rate: optionFlag(
        "rate",
        "RATE",
        Options.Rate,
        undefined,
        "Cap on agent call starts across the run: N/s, N/m (or N/min) or N/h, N > 0; none by default"
      ),
      adaptive: switchFlag(
        "adaptive",
        "On HTTP 429 halve the concurrency, then raise it back one step at a time (never above --parallelism)"
      ),
      maxFailures: optionFlag(
        "max-failures",
        "N|P%",
        Options.MaxFailures,
        undefined,
        "Stop (exit 1) when more than N trials, or more than P% of finished trials (from 20 on), have failed; no limit by default"
      ),
      pricing: optionalString(
        "pricing",
        "YAML or JSON file of prices in USD per million tokens (models: { MODEL: { input, output, cached_input } }): " +
          "each usage gets its cost_usd; a model it lacks is named once and priced at 0"
      ),
      maxCost: optionFlag(
        "max-cost",
        "USD",
        Options.Usd,
        undefined,
        "Stop (exit 1) once the trials recorded have spent this much, agent and judges (needs --pricing); no limit by default"
      ),
      maxTokens: optionFlag(
        "max-tokens",
        "N",
        Options.TokenCount,
        undefined,
        "Stop (exit 1) once the trials recorded have spent N tokens, agent and judges; no limit by default"
      ),
      trialMaxTokens: optionFlag(
        "trial-max-tokens",
        "N",
        Options.TokenCount,
        undefined,
        "A trial whose agent spends more than N tokens (over its attempts) fails with TokenLimit, never retried"
      ),
      tools: repeatedFlag(
        "tools",
        "SPEC",
        Options.ToolSpec,
        "Tools for the agent to call in a loop (openai: or effect-ai: agents), repeatable: module:PATH[#export], " +
          "mcp:stdio:COMMAND [ARGS...] or mcp:URL"
      ),
      maxTurns: optionFlag("max-turns", "N", Options.Parallelism, undefined, "A tool loop's model turns at most; reaching it fails the trial with MaxTurns (default 10)"),
      toolParallelism: optionFlag(
        "tool-parallelism",
        "N",
        Options.Parallelism,
        undefined,
        "Tool calls of one model turn run at once, at most (default 4)"
      ),
      mcpPerTrial: switchFlag("mcp-per-trial", "Start (connect) the --tools MCP servers once per trial instead of once per run"),
      mcpTimeout: optionFlag(
        "mcp-timeout",
        "DURATION",
        Options.Duration,
        ToolAgent.defaults.mcpTimeout,
        "How long a --tools MCP server may take to answer initialize, then tools/list; past it the run stops " +
          "(exit 1, McpServerFailed naming the server and the step) (default 30s)"
      ),
      estimate: switchFlag(
        "estimate",
        "Run the first --estimate-trials trials, print the whole run's projected tokens and cost, and stop (exit 0; --resume goes on)"
      ),
      estimateTrials: optionFlag("estimate-trials", "N", Options.RowCount, undefined, "Trials an --estimate runs (default 20)"),
      score: scoreFlag(`${scoreDescription(kinds.scorers)} (default exact for synthetic tasks, none for --tasks)`),
      scoreParallelism: optionFlag(
        "score-parallelism",
        "N",
        Options.Parallelism,
        undefined,
        "Trials being scored at most (an integer >= 1; default --parallelism)"
      ),
      judgeModel: judgeModelFlag,
      expectedTools: expectedToolsFlag,
      judgeParallelism: optionFlag(
        "judge-parallelism",
        "N",
        Options.Parallelism,
        undefined,
        "Judge calls in flight at most, across the run (an integer >= 1; default --score-parallelism)"
      ),
      pass: optionalString("pass", "The scorer whose verdict decides whether a trial passed (default: every scorer must pass)"),
      stderrCluster: optionFlag(
        "stderr-cluster",
        "PATH|none",
        Options.StderrCluster,
        undefined,
        "Cluster standard errors by this dotted path into the task (metadata.passage_id); none: do not cluster " +
          "(default: by task when --epochs > 1)"
      ),
      ...statisticsFlags,
      // One --FLAG FILE per output format.
      outputs: Object.fromEntries(kinds.outputs.map((o) => [o.flag, optionalString(o.flag, o.description)]))
    },
    Effect.fn("Cli.run")(function*(flags) {
      const apiKey = yield* OpenAiAgent.keyFromConfig.pipe(Effect.orElseSucceed(() => undefined))
      const progressInterval = yield* Config.Int("AGENT_TRIALS_PROGRESS_INTERVAL_MS").pipe(
        Config.withDefault(0),
        Effect.orElseSucceed(() => 0)
      )
      const tty = process.stderr.isTTY === true
      yield* runHereOrOnCluster(Option.getOrUndefined(flags.cluster), {
        agent: flags.agent !== undefined,
        model: Option.isSome(flags.model)
      }, {
        tasks: Option.getOrUndefined(flags.tasks),
        ...datasetOptions(flags),
        ids: Option.getOrUndefined(flags.ids),
        limit: flags.limit,
        sample: flags.sample,
        shuffle: flags.shuffle,
        seed: flags.seed,
        synthetic: flags.synthetic,
        agent: flags.agent ?? { _tag: "Sim", options: SimAgent.defaults },
        model: Option.getOrUndefined(flags.model),
        apiKey,
        parallelism: flags.parallelism,
        epochs: flags.epochs,
        out: Option.getOrUndefined(flags.out),
        resume: flags.resume,
        retryFailed: flags.retryFailed,
        progress: !flags.noProgress,
        progressInterval: progressInterval > 0 ? progressInterval : tty ? 250 : 5000,
        tty,
        onInvalid: flags.onInvalid,
        cwd: process.cwd(),
        timeout: flags.timeout,
        retries: flags.retries,
        backoff: flags.backoff,
        backoffMax: flags.backoffMax,
        retryAfterMax: flags.retryAfterMax,
        rateLimitWaitMax: flags.rateLimitWaitMax,
        rate: flags.rate,
        adaptive: flags.adaptive,
        maxFailures: flags.maxFailures,
        pricing: Option.getOrUndefined(flags.pricing),
        maxCost: flags.maxCost,
        maxTokens: flags.maxTokens,
        trialMaxTokens: flags.trialMaxTokens,
        tools: flags.tools,
        maxTurns: flags.maxTurns,
        toolParallelism: flags.toolParallelism,
        mcpPerTrial: flags.mcpPerTrial,
        mcpTimeout: flags.mcpTimeout,
        estimate: flags.estimate,
        estimateTrials: flags.estimateTrials,
        score: yield* scoreFromEnv(flags.score),
        scoreParallelism: flags.scoreParallelism,
        judgeModel: Option.getOrUndefined(flags.judgeModel),
        expectedTools: flags.expectedTools,
        judgeParallelism: flags.judgeParallelism,
        pass: Option.getOrUndefined(flags.pass),
        outputs: Object.fromEntries(Object.entries(flags.outputs).map(([flag, file]) => [flag, Option.getOrUndefined(file)])),
        stderrCluster: flags.stderrCluster,
        groupBy: flags.groupBy,
        passK: flags.passK,
        failUnder: flags.failUnder
      }).pipe(Effect.mapError(exitFor))
    }, reportErrors)
  ).pipe(Command.withDescription(
    "Run every task of a dataset through an agent, at most --parallelism at a time, appending each trial to --out as it finishes"
  ))

/**
 * `run` with this package's kinds (the `Kinds.Registry` service provided).
 *
 * @category commands
 * @since 0.1.0
 */
export const runCommand = makeRunCommand(Kinds.builtIn).pipe(Command.provide(Kinds.layer()))

// `run --cluster`: the cluster's code is loaded only then. The agent is the
// workers' (`worker --agent`); rate and adaptive limits are per process and
// would not bound the cluster, so they are refused rather than ignored.
const runHereOrOnCluster = (
  cluster: string | undefined,
  given: { readonly agent: boolean; readonly model: boolean },
  config: Run.RunConfig
) =>
  cluster === undefined ? Run.run(config) : Effect.gen(function*() {
    const notHere = (flag: string, why: string) =>
      new Run.RunInputError({ message: `${flag} cannot be used with --cluster: ${why}` })
    // Given as a flag or as its AGENT_TRIALS_* variable, the default value too.
    if (given.agent) {
      return yield* notHere("--agent", "the workers call their own agent (agent-trials worker --agent SPEC)")
    }
    if (given.model) {
      return yield* notHere("--model", "the workers call their own agent (agent-trials worker --model NAME)")
    }
    if (config.tools !== undefined && config.tools.length > 0) {
      return yield* notHere("--tools", "the workers call their own agent")
    }
    if (config.rate !== undefined) return yield* notHere("--rate", "it would limit this process, not the cluster")
    if (config.adaptive) return yield* notHere("--adaptive", "it would limit this process, not the cluster")
    if (config.trialMaxTokens !== undefined) {
      return yield* notHere("--trial-max-tokens", "the workers run the trials (and their retries), so the limit is theirs to apply")
    }
    const Cluster = yield* Effect.promise(() => import("../programs/Cluster.ts"))
    return yield* Cluster.withRemote(cluster, (remote, shown) => Run.run({ ...config, remote, cluster: shown })).pipe(
      Effect.mapError((e) => Cluster.isInputError(e) ? Run.RunInputError.from(e) : e)
    )
  })

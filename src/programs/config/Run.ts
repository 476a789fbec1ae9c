/**
 * The options of `run`: one entry each, from which its flags, their
 * variables, its help, the config file's keys and `RunConfig`'s fields are
 * derived.
 *
 * @since 0.8.0
 */
import { Duration, Schema } from "effect"
import * as ToolAgent from "../../agents/tools/Agent.ts"
import * as Users from "../../agents/users/Users.ts"
import * as Sandbox from "../../sandbox/Sandbox.ts"
import { KeepWorkspaces } from "../../workspace/KeepOption.ts"
import type * as Kinds from "../Kinds.ts"
import * as Options from "../Options.ts"
import * as Option from "./Option.ts"
import * as Shared from "./Shared.ts"

/** Default synthetic task count when neither --tasks nor --synthetic is given. */
export const DEFAULT_SYNTHETIC = 512

/**
 * The options of `run` over these kinds (the agent's, the scorers' and the
 * dataset formats' help and parsing come from them).
 *
 * @category options
 * @since 0.8.0
 */
export const options = (kinds: Kinds.Kinds) => ({
  cluster: Option.text(
    "cluster",
    "postgres://USER[:PASSWORD]@HOST[:PORT]/DB: run the trials on that cluster's workers (agent-trials worker), not here"
  ),
  tasks: Option.withPath(
    Option.text(
      "tasks",
      "File of tasks, read lazily, in the format of its name (see --format); - reads stdin as JSONL; " +
        "hf:OWNER/NAME[@REVISION][?config=C&split=S] reads a Hugging Face Hub dataset"
    ),
    "file"
  ),
  ...Shared.dataset(kinds.datasets),
  ids: Option.withPath(Option.text("ids", "Run only the task ids this file lists, one a line (# starts a comment)"), "file"),
  limit: Option.value("limit", "N", Options.RowCount, undefined, "Run only the first N rows (after --ids and --shuffle)"),
  sample: Option.value(
    "sample",
    "N",
    Options.RowCount,
    undefined,
    "Run a uniform sample of N rows, seeded by --seed, in the dataset's order (one pass, memory O(N); trials start once the file is read)"
  ),
  shuffle: Option.toggle("shuffle", "Run the rows in an order seeded by --seed (holds every row in memory: O(rows))"),
  seed: Option.value("seed", "S", Options.Count, undefined, "Seed of --sample and --shuffle: the same seed gives the same rows (default 0)"),
  synthetic: Option.value(
    "synthetic",
    "N",
    Options.Count,
    undefined,
    `Generate N synthetic tasks instead (default when no --tasks: ${DEFAULT_SYNTHETIC})`
  ),
  // No default here: `run --cluster` refuses an agent however it is given.
  agent: Option.withPath(Shared.agent(kinds, undefined), "spec"),
  model: Shared.model,
  ...Shared.request,
  parallelism: Option.value(
    "parallelism",
    "N",
    Options.Parallelism,
    8,
    "Agent calls in flight at most, and trials admitted at most (an integer >= 1, default 8)"
  ),
  epochs: Option.value(
    "epochs",
    "K",
    Options.Epochs,
    1,
    "Trials per task, at most 10000; trial ids are TASK_ID:EPOCH, EPOCH from 1 (default 1)"
  ),
  out: Option.withPath(Option.text("out", "Results file (JSONL, appended as trials finish; default runs/<run-id>.jsonl)"), "file"),
  resume: Option.toggle("resume", "Continue --out: skip recorded trials, repair a torn last line, append the rest"),
  retryFailed: Option.toggle(
    "retry-failed",
    "With --resume: run the recorded failed trials again (their old lines are removed)"
  ),
  noProgress: Option.toggle(
    "no-progress",
    "No progress display (otherwise, on stderr: a live line on a terminal, elsewhere a line every 5 s)"
  ),
  onInvalid: Option.value(
    "on-invalid",
    "fail|skip",
    Options.OnInvalid,
    "fail",
    "A bad dataset line: fail (stop admitting, keep what is recorded, exit 2) or skip (record it as a failed trial of type InvalidTask); default fail"
  ),
  timeout: Option.value(
    "timeout",
    "DURATION",
    Options.Duration,
    undefined,
    "Per attempt (500ms, 30s, 2m, 1h): the call is interrupted and the attempt fails with Timeout; none by default"
  ),
  retries: Option.value(
    "retries",
    "N",
    Options.Count,
    2,
    "Retries of retryable failures: timeouts, network errors, HTTP 408/429/5xx (default 2); waiting out a Retry-After of a 429, 503 or 529 uses none"
  ),
  backoff: Option.value(
    "backoff",
    "DURATION",
    Options.Duration,
    Duration.millis(500),
    "Base of the jittered exponential backoff between attempts (default 500ms)"
  ),
  backoffMax: Option.value("backoff-max", "DURATION", Options.Duration, Duration.seconds(30), "Longest backoff wait (default 30s)"),
  retryAfterMax: Option.value(
    "retry-after-max",
    "DURATION",
    Options.Duration,
    Duration.seconds(60),
    "Longest wait a Retry-After header of a 429, 503 or 529 may impose (default 60s)"
  ),
  rateLimitWaitMax: Option.value(
    "rate-limit-wait-max",
    "DURATION",
    Options.Duration,
    Duration.minutes(10),
    "Longest a trial waits in all on rate limits (429, or 503 or 529 with Retry-After); these waits use no --retries (default 10m)"
  ),
  rate: Option.value(
    "rate",
    "RATE",
    Options.Rate,
    undefined,
    "Cap on agent call starts across the run: N/s, N/m (or N/min) or N/h, N > 0; none by default"
  ),
  adaptive: Option.toggle(
    "adaptive",
    "On HTTP 429 halve the concurrency, then raise it back one step at a time (never above --parallelism)"
  ),
  maxFailures: Option.value(
    "max-failures",
    "N|P%",
    Options.MaxFailures,
    undefined,
    "Stop (exit 1) when more than N trials, or more than P% of finished trials (from 20 on), have failed; no limit by default"
  ),
  pricing: Option.withPath(
    Option.text(
      "pricing",
      "YAML or JSON file of prices in USD per million tokens (models: { MODEL: { input, output, cached_input } }): " +
        "each usage gets its cost_usd; a model it lacks is named once and priced at 0"
    ),
    "file"
  ),
  maxCost: Option.value(
    "max-cost",
    "USD",
    Options.Usd,
    undefined,
    "Stop (exit 1) once the trials recorded have spent this much, agent, simulated user and judges (needs --pricing); no limit by default"
  ),
  maxTokens: Option.value(
    "max-tokens",
    "N",
    Options.TokenCount,
    undefined,
    "Stop (exit 1) once the trials recorded have spent N tokens, agent, simulated user and judges; no limit by default"
  ),
  trialMaxTokens: Option.value(
    "trial-max-tokens",
    "N",
    Options.TokenCount,
    undefined,
    "A trial whose agent spends more than N tokens (over its attempts) fails with TokenLimit, never retried"
  ),
  tools: Option.withPath(
    Option.list(
      "tools",
      "SPEC",
      Options.ToolSpec,
      "Tools for the agent to call in a loop (openai: or effect-ai: agents), repeatable: module:PATH[#export], " +
        "mcp:stdio:COMMAND [ARGS...], mcp:URL or exec (run_command in the trial's workspace; needs --workspace)"
    ),
    "spec"
  ),
  maxTurns: Option.value("max-turns", "N", Options.Parallelism, undefined, "A tool loop's model turns at most; reaching it fails the trial with MaxTurns (default 10)"),
  toolParallelism: Option.value(
    "tool-parallelism",
    "N",
    Options.Parallelism,
    undefined,
    "Tool calls of one model turn run at once, at most (default 4)"
  ),
  mcpPerTrial: Option.toggle("mcp-per-trial", "Start (connect) the --tools MCP servers once per trial instead of once per run"),
  mcpTimeout: Option.value(
    "mcp-timeout",
    "DURATION",
    Options.Duration,
    ToolAgent.defaults.mcpTimeout,
    "How long a --tools MCP server may take to answer initialize, then tools/list; past it the run stops " +
      "(exit 1, McpServerFailed naming the server and the step) (default 30s)"
  ),
  execTimeout: Option.value(
    "exec-timeout",
    "DURATION",
    Options.Duration,
    undefined,
    "With --tools exec: how long one run_command may run; past it its process group is killed and the model is told " +
      "(default 60s, never beyond --sandbox-timeout)"
  ),
  user: Option.withPath(
    Option.value(
      "user",
      "SPEC",
      Users.UserSpec,
      undefined,
      "A simulated user who talks with the agent (openai:, anthropic: or module: agents): openai:BASE_URL or anthropic:BASE_URL " +
        "(a model plays it: --user-model; the key from AGENT_TRIALS_USER_API_KEY, else OPENAI_API_KEY or ANTHROPIC_API_KEY) " +
        "or module:PATH[#export]; it is told the task's " +
        "--user-instruction, speaks first, and ends the conversation (###STOP###, or null), else --max-user-turns does"
    ),
    "spec"
  ),
  userModel: Option.text("user-model", "With --user openai:BASE_URL: the model that plays the user"),
  userInstruction: Option.value(
    "user-instruction",
    "PATH",
    Options.TaskPath,
    undefined,
    "With --user: the dotted path into the task of what the user is told to do (default inputs.user); a task without it fails as InvalidTask"
  ),
  maxUserTurns: Option.value(
    "max-user-turns",
    "N",
    Options.Parallelism,
    undefined,
    "With --user: the user's messages at most; after the agent answers the last, the conversation ends, recorded as " +
      "metadata.conversation.ended_by max_user_turns (default 10)"
  ),
  workspace: Option.toggle(
    "workspace",
    "Give each trial a fresh directory, <workspace-dir>/<run-id>/<trial-id>, made when it is admitted and removed once it is scored " +
      "(at most --parallelism at once); the agent, module tools and {workspace} placeholders get its path"
  ),
  workspaceDir: Option.withPath(
    Option.text("workspace-dir", "With --workspace: the folder the run's workspaces go under (default the system temp folder)"),
    "file"
  ),
  workspaceFrom: Option.withPath(
    Option.text("workspace-from", "With --workspace: a folder copied into each workspace (then the task's files are written)"),
    "file"
  ),
  setup: Option.text(
    "setup",
    "With --workspace: a shell command run inside each workspace once seeded ({workspace}, {trial_id}, {task_id}, {epoch}, " +
      "{task.PATH} placeholders), under --sandbox; a non-zero exit fails the trial as SetupFailed with its last lines " +
      "(at most --sandbox-timeout, default 10m)"
  ),
  keepWorkspaces: Option.withBare(
    Option.value(
      "keep-workspaces",
      "all|failed",
      KeepWorkspaces,
      undefined,
      "With --workspace: keep the workspaces (bare or =all), or =failed only those of failed trials, named in the summary; none by default"
    ),
    "all"
  ),
  sandbox: Option.value(
    "sandbox",
    "none|bwrap",
    Sandbox.KindOption,
    undefined,
    "With --workspace: where every process a trial starts runs (--setup, check: commands, the exec tool, per-trial MCP stdio " +
      "servers): none (the default) as it is, bwrap under bubblewrap (root file system read-only, the workspace read-write, " +
      "a private /tmp and pid namespace, no network); bwrap missing or unusable exits 2 before any trial"
  ),
  sandboxNetwork: Option.value(
    "sandbox-network",
    "none|loopback|full",
    Sandbox.NetworkOption,
    undefined,
    "With --sandbox bwrap: none (the default) and loopback give the sandbox only its own loopback, full the host's network"
  ),
  sandboxTimeout: Option.value(
    "sandbox-timeout",
    "DURATION",
    Options.Duration,
    undefined,
    "With --workspace: how long each command a trial starts may run (--setup, check:, exec); past it its process group is " +
      "killed (default 10m)"
  ),
  sandboxMemory: Option.value(
    "sandbox-memory",
    "SIZE",
    Options.ByteSize,
    undefined,
    "With --workspace: the address space each command a trial starts may use (ulimit -v, like 2GB); none by default"
  ),
  estimate: Option.toggle(
    "estimate",
    "Run the first --estimate-trials trials, print the whole run's projected tokens and cost, and stop (exit 0; --resume goes on)"
  ),
  estimateTrials: Option.value("estimate-trials", "N", Options.RowCount, undefined, "Trials an --estimate runs (default 20)"),
  score: Shared.score(`${Shared.scoreDescription(kinds.scorers)} (default exact for synthetic tasks, none for --tasks)`),
  scoreParallelism: Option.value(
    "score-parallelism",
    "N",
    Options.Parallelism,
    undefined,
    "Trials being scored at most (an integer >= 1; default --parallelism)"
  ),
  judgeModel: Shared.judgeModel,
  ...Shared.judgeRequest,
  expectedTools: Shared.expectedTools,
  judgeParallelism: Option.value(
    "judge-parallelism",
    "N",
    Options.Parallelism,
    undefined,
    "Judge calls in flight at most, across the run (an integer >= 1; default --score-parallelism)"
  ),
  pass: Shared.pass,
  stderrCluster: Option.value(
    "stderr-cluster",
    "PATH|none",
    Options.StderrCluster,
    undefined,
    "Cluster standard errors by this dotted path into the task (metadata.passage_id); none: do not cluster " +
      "(default: by task when --epochs > 1)"
  ),
  cache: Option.withBare(
    Option.value(
      "cache",
      "true|DURATION|refresh",
      Options.Cache,
      undefined,
      "Serve repeated model calls (openai:, anthropic:, http(s)://, judge:) from <cache-dir>/responses.sqlite, the same --cache-dir as hf: " +
        "downloads: bare or =true keeps answers 7 days, =DURATION (7d, 12h) that long, =refresh asks again and overwrites; off by default"
    ),
    "true"
  ),
  ...Shared.statistics,
  cell: Option.list(
    "cell",
    "NAME",
    Schema.String,
    "With a matrix: in the config file: run only this cell (its name in matrix.json), repeatable"
  ),
  outDir: Option.withPath(
    Option.text(
      "out-dir",
      "With a matrix: in the config file: the folder of one results file per cell and matrix.json (default runs/<run-id>/)"
    ),
    "file"
  )
})

/**
 * One `--FLAG FILE` option per output format of these kinds.
 *
 * @category options
 * @since 0.8.0
 */
export const outputs = (kinds: Kinds.Kinds) =>
  Object.fromEntries(kinds.outputs.map((o) => [o.flag, Option.withPath(Option.text(o.flag, o.description), "file")]))

/**
 * The values of `run`'s options, as its config holds them.
 *
 * @category models
 * @since 0.8.0
 */
export type Values = Option.Values<ReturnType<typeof options>>

/**
 * The values of `run`'s options, each as its option's type says.
 *
 * @category models
 * @since 0.8.0
 */
export type All = Option.All<ReturnType<typeof options>>

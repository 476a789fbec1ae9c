/**
 * What `run` is given, after flags and environment are read, and what follows
 * from it alone: the scorer specs it applies, the combinations of flags it
 * refuses, and the runner options of its failure-handling flags.
 *
 * @since 0.1.0
 */
import type { Redacted } from "effect"
import * as AgentKinds from "../../agents/AgentKinds.ts"
import type * as Kinds from "../Kinds.ts"
import type { OutputFormat } from "../Output.ts"
import * as Choose from "../../datasets/Choose.ts"
import type * as Source from "../../datasets/Source.ts"
import * as Results from "../../results/Results.ts"
import * as ToolSources from "../../agents/tools/Sources.ts"
import type * as RunOptions from "../config/Run.ts"
import * as Policy from "../../runner/Policy.ts"
import { type Remote, type RemoteConfig, RunInputError } from "../../runner/Remote.ts"
import { agentGiven, givenAgentFlags } from "../internal/request.ts"

// The options whose value the config holds as given (undefined when not
// given), as they were before options were derived: the rest are optional.
type Given = "tasks" | "synthetic" | "model" | "epochs" | "out" | "onInvalid" | "rate" | "adaptive"

// Options that are not a field of the config as they are: `--cluster` gives
// `remote`; `--no-progress`, `progress`; `--agent`, the agent to build.
// `--cell` and `--out-dir` are a matrix's (`matrix/Matrix.ts`), not a run's.
type Derived = "cluster" | "noProgress" | "agent" | "cell" | "outDir"

/**
 * Everything `run` needs, after flags and environment are read: each option
 * already decoded by its `Options` Schema. Its fields are `run`'s options
 * (`config/Run.ts`, one entry each: a field there is a field here), and what
 * the command adds: the agent to build, the key, the progress display, the
 * working directory.
 *
 * @category models
 * @since 0.1.0
 */
export type RunConfig =
  & { readonly [K in Exclude<keyof RunOptions.Values, Given | Derived>]?: RunOptions.Values[K] | undefined }
  & { readonly [K in Given]: RunOptions.All[K] }
  & RemoteConfig
  & Source.DatasetFlags
  & RunExtras

/**
 * What `run` is given beside its options.
 *
 * @category models
 * @since 0.8.0
 */
export interface RunExtras {
  /** The agent to build, decoded from `--agent` by `Options.AgentSpec` (the built-in sim when not given). */
  readonly agent: AgentKinds.Spec
  /**
   * The kinds of the agent, scorers, dataset and outputs. When given, they
   * win over the `Kinds.Registry` service the run reads otherwise.
   *
   * @deprecated provide `Kinds.layer(extra)` (or `Kinds.layerOf(kinds)`) instead.
   */
  readonly kinds?: Kinds.Kinds | undefined
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** How often the progress line is drawn, in milliseconds. */
  readonly progressInterval: number
  /**
   * `--score` specs; `["none"]` scores nothing. When undefined: `exact` for
   * synthetic tasks (their references are the answers), nothing for `--tasks`.
   */
  readonly score?: ReadonlyArray<string> | undefined
  /**
   * The outputs written at the end of the run, each file by its format's
   * flag (`{ summary: "summary.json", report: "report.html" }`), in the
   * order of the kinds' outputs; none when undefined.
   */
  readonly outputs?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * Runs the trials elsewhere instead of calling the agent here (`run
   * --cluster`): the units go in, at most `parallelism` outstanding, and
   * finished (scored) trials come out, for the writer to record.
   */
  readonly remote?: Remote | undefined
  /** The `--cluster` URL as messages show it (redacted), for a run on a cluster: part of what defines it. */
  readonly cluster?: string | undefined
}

/** A `RunConfig` with the kinds the run knows: its own, or the service's. */
export type KindedConfig = RunConfig & { readonly kinds: Kinds.Kinds }

/** Trials `run --estimate` runs without `--estimate-trials`. */
export const DEFAULT_ESTIMATE_TRIALS = 20

/**
 * The scorer specs a run applies: the `--score` specs, without `none`; by
 * default `exact` when the tasks are synthetic (each carries its answer as
 * its reference) and none for a task file (whose references may be missing).
 *
 * @category constructors
 * @since 0.1.0
 */
export const scoreSpecs = (config: Pick<RunConfig, "score" | "tasks">): ReadonlyArray<string> =>
  config.score === undefined || config.score.length === 0
    ? config.tasks === undefined ? ["exact"] : []
    : config.score.filter((spec) => spec !== "none")

/** The file `config` asks `output` to write, if any. */
export const outputPath = (config: Pick<RunConfig, "outputs">, output: OutputFormat): string | undefined =>
  config.outputs?.[output.flag]

/** Default synthetic task count when neither --tasks nor --synthetic is given. */
export { DEFAULT_SYNTHETIC } from "../config/Run.ts"

// Each value was refused or accepted by its Schema as it was read; what is
// left are the combinations of flags.
export const validate = (config: KindedConfig): RunInputError | undefined => {
  // `flag`: the one to change (the first the message names).
  const bad = (message: string, flag?: string) => new RunInputError({ message, ...(flag === undefined ? undefined : { flag }) })
  if (config.tasks !== undefined && config.synthetic !== undefined) {
    return bad("--tasks and --synthetic cannot be used together: choose one source of tasks", "--tasks")
  }
  const choice = Choose.problem({ limit: config.limit, sample: config.sample, shuffle: config.shuffle }, config.seed !== undefined)
  if (choice !== undefined) return bad(choice)
  if (config.tasks === undefined) {
    const flag = [
      ["--map", config.map],
      ["--json-path", config.jsonPath],
      ["--limit", config.limit],
      ["--sample", config.sample],
      ["--shuffle", config.shuffle === true ? true : undefined],
      ["--ids", config.ids]
    ].find(([, v]) => v !== undefined)
    if (flag !== undefined) {
      return bad(`${flag[0]} chooses rows of --tasks FILE: it cannot be used with synthetic tasks (use --synthetic N for fewer)`, String(flag[0]))
    }
  }
  if (config.resume && config.out === undefined) return bad("--resume needs --out FILE: the results file to continue", "--resume")
  // Stdout is written, never read back.
  if (config.out !== undefined && Results.isStdout(config.out)) {
    if (config.resume) return bad(`--resume cannot read back --out ${config.out}: stdout is not a regular file`, "--resume")
    const reader = config.kinds.outputs.find((o) => o.readsResults === true && outputPath(config, o) !== undefined)
    if (reader !== undefined) {
      return bad(`--${reader.flag} reads the results file back: it cannot with --out ${config.out} (stdout is not a regular file)`, `--${reader.flag}`)
    }
  }
  if (config.retryFailed && !config.resume) return bad("--retry-failed needs --resume", "--retry-failed")
  if (config.maxCost !== undefined && config.pricing === undefined) {
    return bad("--max-cost needs --pricing FILE: the cost of a trial is computed from that file's prices", "--max-cost")
  }
  if (config.estimateTrials !== undefined && config.estimate !== true) {
    return bad("--estimate-trials N needs --estimate (it is the number of trials the estimate runs)", "--estimate-trials")
  }
  const above = config.passK?.filter((k) => k > config.epochs) ?? []
  if (above.length > 0) {
    return bad(
      `--pass-k ${above.join(",")}: above --epochs ${config.epochs} (pass@k draws k of a task's ${config.epochs} trials); ` +
        `run more epochs or ask for a smaller k`,
      "--pass-k"
    )
  }
  if (config.groupBy !== undefined && new Set(config.groupBy).size < config.groupBy.length) {
    return bad(`--group-by ${config.groupBy.find((p, i) => config.groupBy!.indexOf(p) !== i)} is given twice`, "--group-by")
  }
  if (config.workspace !== true) {
    const flag = [
      ["--workspace-dir", config.workspaceDir],
      ["--workspace-from", config.workspaceFrom],
      ["--setup", config.setup],
      ["--keep-workspaces", config.keepWorkspaces],
      ["--sandbox", config.sandbox === "none" ? undefined : config.sandbox],
      ["--sandbox-network", config.sandboxNetwork],
      ["--sandbox-timeout", config.sandboxTimeout],
      ["--sandbox-memory", config.sandboxMemory]
    ].find(([, v]) => v !== undefined)
    if (flag !== undefined) return bad(`${flag[0]} needs --workspace (it is about each trial's workspace)`, String(flag[0]))
    if (config.tools?.some((spec) => spec._tag === "Exec") === true) {
      return bad("--tools exec needs --workspace (its commands run in each trial's workspace)", "--tools")
    }
    const templated = config.tools?.map((spec) => ToolSources.sourceOf(spec).format(spec)).find((text) => text.includes("{workspace}"))
    if (templated !== undefined) return bad(`--tools ${templated}: {workspace} needs --workspace (each trial's directory)`, "--tools")
  } else if (config.sandboxNetwork !== undefined && config.sandbox !== "bwrap") {
    return bad("--sandbox-network needs --sandbox bwrap (without a sandbox, commands have the host's network)", "--sandbox-network")
  } else if (config.remote !== undefined || config.cluster !== undefined) {
    return bad("--workspace cannot be used with --cluster: the workspaces would be on the workers", "--workspace")
  }
  if (config.execTimeout !== undefined && config.tools?.some((spec) => spec._tag === "Exec") !== true) {
    return bad("--exec-timeout needs --tools exec (it bounds the exec tool's commands)", "--exec-timeout")
  }
  const requested = givenAgentFlags(agentGiven(config))
  if (requested.length > 0) {
    if (config.remote !== undefined || config.cluster !== undefined) {
      return bad(`${requested[0]} cannot be used with --cluster: the workers call their own agent`, requested[0])
    }
    const kind = AgentKinds.kindOf(config.agent, config.kinds.agents)
    if (kind.usesModel !== true) {
      const asking = config.kinds.agents.filter((k) => k.usesModel === true).map((k) => k.usage).join(" or ")
      return bad(`${requested[0]} is about the agent's model requests: it needs an agent that asks a model (${asking}), not ${kind.usage}`, requested[0])
    }
  }
  const user = userProblem(config)
  if (user !== undefined) return bad(user.message, user.flag)
  if (config.score !== undefined && config.score.includes("none") && config.score.length > 1) {
    return bad("--score none scores nothing: it cannot be given with other --score specs", "--score")
  }
  return undefined
}

// A simulated user's flags: each needs --user, which needs an agent that
// takes part in a conversation, here (not on a cluster's workers).
const userProblem = (config: KindedConfig): { readonly message: string; readonly flag: string } | undefined => {
  if (config.user === undefined) {
    const flag = [
      ["--user-model", config.userModel],
      ["--user-instruction", config.userInstruction],
      ["--max-user-turns", config.maxUserTurns]
    ].find(([, v]) => v !== undefined)
    return flag === undefined ? undefined : { message: `${flag[0]} needs --user (it is about the simulated user)`, flag: String(flag[0]) }
  }
  if (config.remote !== undefined || config.cluster !== undefined) {
    return { message: "--user cannot be used with --cluster: the workers call their own agent", flag: "--user" }
  }
  const kinds = config.kinds.agents
  const kind = AgentKinds.kindOf(config.agent, kinds)
  if (kind.usesConversation !== true) {
    return {
      message: `--user needs an agent that takes part in a conversation (${kinds.filter((k) => k.usesConversation === true).map((k) => k.usage).join(" or ")}), ` +
        `not ${kind.usage}`,
      flag: "--user"
    }
  }
  return undefined
}

/** The runner options that the failure-handling flags ask for. */
export const policyOptions = (config: RunConfig) => ({
  timeout: config.timeout,
  // Even with --retries 0: a rate limit's wait uses up no retry.
  retry: Policy.retryOf(config),
  rate: config.rate,
  adaptive: config.adaptive,
  maxFailures: config.maxFailures,
  trialMaxTokens: config.trialMaxTokens
})

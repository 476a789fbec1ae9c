/**
 * agent-trials: a bounded, streaming evaluation runner for AI agents.
 *
 * Every export is a namespace, one per module, as in `effect`'s own index:
 * `Runner.runTrials`, `Runner.Runner`, `Agent.fromPromise`, `Trial.AgentEvalTask`.
 * Each symbol has one way in, but for `runTrials`, which is also kept at the
 * top level as a contract (see below). `runTrialsEager`, the reproduction of the eager
 * bug, is not here: it is the `agent-trials/eager` entry.
 *
 * @since 0.1.0
 */

/**
 * Agents: what a trial calls, and adapters that turn a user's Effect or
 * Promise function into one.
 * @since 0.1.0
 */
export * as Agent from "./domain/Agent.ts"

/**
 * The registry of agent kinds (`--agent SPEC`): each kind's spec parsed,
 * shown, recorded and built, and the help and docs derived from the list.
 * @since 0.3.0
 */
export * as AgentKinds from "./agents/AgentKinds.ts"

/** Where tasks come from: a JSONL file (or stdin) read lazily, or synthetic tasks. @since 0.1.0 */
export * as Dataset from "./datasets/Dataset.ts"

/**
 * The registry of dataset formats: `--tasks FILE` read by `--format` or by
 * the file's extension (JSONL for any other name), each format a Stream of
 * tasks read lazily.
 * @since 0.3.0
 */
export * as DatasetFormats from "./datasets/DatasetFormats.ts"

/** Typed errors of the runner and the agent adapters. @since 0.1.0 */
export * as Errors from "./domain/Errors.ts"

/** An agent behind an HTTP endpoint: the task out as JSON, an `AgentOutput` back. @since 0.1.0 */
export * as HttpAgent from "./agents/Http.ts"

/** Failures of the HTTP agents, and the `Retry-After` reader. @since 0.1.0 */
export * as HttpErrors from "./domain/HttpErrors.ts"

/** A user's module as an agent (`module:PATH[#export]`). @since 0.1.0 */
export * as ModuleAgent from "./agents/Module.ts"

/** An agent that is one call to an OpenAI-compatible chat completions endpoint. @since 0.1.0 */
export * as OpenAiAgent from "./agents/OpenAi.ts"

/** An agent that is one call to Anthropic's Messages API (`anthropic:`). @since 0.10.0 */
export * as AnthropicAgent from "./agents/Anthropic.ts"

/** What a model request carries besides its messages: system prompt, temperature, limits, headers. @since 0.10.0 */
export * as Request from "./domain/Request.ts"

/**
 * The run options that arrive as text (a flag, an environment variable), each
 * one Schema from a string to the value the runner uses.
 * @since 0.1.0
 */
export * as Options from "./programs/Options.ts"

/**
 * Failure handling around each agent call: timeouts, retries with backoff,
 * a rate cap, adaptive concurrency and a failure budget.
 * @since 0.1.0
 */
export * as Policy from "./runner/Policy.ts"

/**
 * The counts the runner's guarantees speak of, read through a read-only probe.
 * @since 0.1.0
 */
export * as Probe from "./runner/Probe.ts"

/**
 * Where trials go: a JSONL results file appended as trials finish, and
 * resume from it.
 * @since 0.1.0
 */
export * as Results from "./results/Results.ts"

/**
 * The bounded trial runner: `runTrials` over a Stream of tasks, and the
 * `Runner` service whose layer shares one budget of agent calls.
 * @since 0.1.0
 */
export * as Runner from "./runner/Runner.ts"

/**
 * `Runner.runTrials`, also at the top level under the name outside checks
 * import since the first release (`import { runTrials } from "agent-trials"`):
 * the one name kept outside a namespace, as a contract.
 *
 * @contract
 * @since 0.1.0
 */
export { runTrials } from "./runner/Runner.ts"

/**
 * A scorer: a named check of a completed trial's answer, giving a `Score`.
 * @since 0.1.0
 */
export * as Scorer from "./domain/Scorer.ts"

/**
 * `--score SPEC`: the spec syntax of the built-in scorers.
 * @since 0.1.0
 */
export * as ScorerSpec from "./scoring/Spec.ts"

/**
 * Scorers built from specs (`exact`, `includes`, `regex`, `numeric`, `json`,
 * `levenshtein`, `judge:URL`, `module:PATH`).
 * @since 0.1.0
 */
export * as Scorers from "./scoring/Scorers.ts"

/**
 * The scorer kinds `--score` knows (`builtIn`), the port a kind of one's own
 * implements (`ScorerKind`), and the help, messages and docs table derived
 * from a list of kinds.
 * @since 0.3.0
 */
export * as ScorerKinds from "./scoring/ScorerKinds.ts"

/**
 * The text scorers: exact, includes, regex, levenshtein.
 * @since 0.1.0
 */
export * as Match from "./scoring/Match.ts"

/**
 * The structured scorers: numeric (with a tolerance) and json.
 * @since 0.1.0
 */
export * as Structured from "./scoring/Structured.ts"

/**
 * Scorers of the path an agent took: tool-called, tool-not-called,
 * tool-sequence, tool-args, steps and tool-calls (F1 against expected calls).
 * @since 0.5.0
 */
export * as PathScorers from "./scoring/PathScorers.ts"

/**
 * `json-schema:FILE`: the output's JSON validated against a JSON Schema (ajv,
 * loaded only when such a scorer is made).
 * @since 0.2.0
 */
export * as JsonSchema from "./scoring/JsonSchema.ts"

/** A bounded edit distance over code points. @since 0.1.0 */
export * as Levenshtein from "./scoring/Levenshtein.ts"

/** An LLM grader on an OpenAI-compatible endpoint. @since 0.1.0 */
export * as Judge from "./scoring/Judge.ts"

/** A user's module as a scorer (`module:PATH[#export]`). @since 0.1.0 */
export * as ModuleScorer from "./scoring/ModuleScorer.ts"

/**
 * Statistics of scores: mean, standard error, intervals (Wilson for pass
 * rates), pass@k, and the paired difference of two runs.
 * @since 0.1.0
 */
export * as Statistics from "./statistics/Statistics.ts"

/**
 * Clustered values (the epochs of a task): the cluster-robust (CR1) standard
 * error of a mean in space of the open clusters, its t interval, the design
 * effect, and a pass rate's Wilson interval on the effective sample size.
 * @since 0.1.0
 */
export * as Clustered from "./statistics/Clustered.ts"

/**
 * pass@k and pass^k (every one of k draws passes) over tasks, with their
 * Student t intervals over tasks.
 * @since 0.1.0
 */
export * as PassAtK from "./statistics/PassAtK.ts"

/**
 * What a trial record says about how its statistics are grouped: the run's
 * epochs, the cluster of its standard errors (`--stderr-cluster`) and its
 * groups (`--group-by`), read off the task by dotted paths.
 * @since 0.1.0
 */
export * as Labels from "./summary/Labels.ts"

/**
 * Tests of a comparison: the paired t test's p-value, McNemar's exact test
 * of paired pass/fail verdicts, Holm's step-down adjustment, and the
 * minimum detectable effect at 80% power.
 * @since 0.1.0
 */
export * as Significance from "./statistics/Significance.ts"

/**
 * `--fail-under NAME=X[@lower]`: quality gates on a scorer's mean or the pass
 * rate (or the lower bound of its 95% interval), judged on the run's summary.
 * @since 0.1.0
 */
export * as Gates from "./summary/Gates.ts"

/**
 * The scoring stage: every finished trial scored by every scorer, at most
 * `parallelism` trials at a time, pipelined after the agent stage.
 * @since 0.1.0
 */
export * as Stage from "./scoring/Stage.ts"

/**
 * The `score` command: score (or re-score) an existing results file,
 * streamed through the scoring stage, resumable.
 * @since 0.1.0
 */
export * as Rescore from "./programs/Rescore.ts"

/**
 * The `compare` command: two results files task by task, each scorer's
 * paired change in mean with a 95% interval and a verdict, pass@1 before and
 * after, and the tasks that flipped.
 * @since 0.1.0
 */
export * as Compare from "./programs/compare/Compare.ts"

/**
 * The `report` command: one self-contained HTML page about a results file,
 * built in one streamed pass (bounded memory), with the run's summary and
 * task file when given.
 * @since 0.1.0
 */
export * as Report from "./programs/Report.ts"

/**
 * The report's one pass over a results file: the run summary's accumulator,
 * the timeline and the table's rows (at most `maxRows`, failures first).
 * @since 0.1.0
 */
export * as ReportAggregate from "./report/Aggregate.ts"

/**
 * The report's page: header, scores, pass@k, latency, throughput and calls
 * in flight over time, failures by type, and the table of trials.
 * @since 0.1.0
 */
export * as ReportPage from "./report/page/Page.ts"

/**
 * Throughput and calls in flight over time in a fixed number of buckets
 * whose width doubles as the time range grows.
 * @since 0.1.0
 */
export * as Timeline from "./report/Timeline.ts"

/**
 * Charts as inline SVG: scales, ticks, escaping, line, bar and interval
 * charts (shared by the report, compare and the benchmark).
 * @since 0.1.0
 */
export * as Svg from "./report/svg/Svg.ts"

/**
 * A self-contained HTML page: shell with inline CSS and script, escaping,
 * JSON safe inside a script block, stat tiles, sections and tables.
 * @since 0.1.0
 */
export * as Html from "./report/Html.ts"

/** Student's t distribution: its CDF and quantile. @since 0.1.0 */
export * as StudentT from "./statistics/StudentT.ts"

/** A simulated agent with deterministic latencies and failures. @since 0.1.0 */
export * as SimAgent from "./agents/Sim.ts"

/** The end-of-run summary, accumulated in constant space. @since 0.1.0 */
export * as Summary from "./summary/Summary.ts"

/**
 * Traces and metrics of runs, Effect-native: spans for the caller's tracer,
 * `Metric`s in the caller's registry, and an OTLP exporter configured by the
 * `OTEL_*` variables.
 * @since 0.1.0
 */
export * as Telemetry from "./runner/Telemetry.ts"

/**
 * An `effect/ai` `LanguageModel` over an OpenAI-compatible chat completions
 * endpoint, on `LanguageModel.make`.
 * @since 0.5.0
 */
export * as ChatModel from "./agents/ChatModel.ts"

/** An `effect/ai` `LanguageModel` over Anthropic's Messages API, on `LanguageModel.make`. @since 0.10.0 */
export * as MessagesModel from "./agents/MessagesModel.ts"

/**
 * `effect-ai:PATH[#export]`: the tool loop over a user's own `LanguageModel` layer.
 * @since 0.5.0
 */
export * as EffectAiAgent from "./agents/EffectAi.ts"

/**
 * An agent that acts: the tool loop over a model and the tools of `--tools` sources.
 * @since 0.5.0
 */
export * as ToolAgent from "./agents/tools/Agent.ts"

/**
 * The tool loop: ask the model, run its tool calls, feed the results back,
 * record every step.
 * @since 0.5.0
 */
export * as ToolLoop from "./agents/tools/Loop.ts"

/**
 * The registry of tool sources (`--tools SPEC`): a module's tools, an MCP
 * server over stdio or HTTP.
 * @since 0.5.0
 */
export * as ToolSources from "./agents/tools/Sources.ts"

/**
 * Trajectories: the path an agent that acts took (model turns, tool calls,
 * their results), read off a record.
 * @since 0.5.0
 */
export * as Trajectory from "./domain/Trajectory.ts"

/**
 * The domain of an evaluation run, as Schemas: tasks, outputs, trials.
 * @since 0.1.0
 */
export * as Trial from "./domain/Trial.ts"

/**
 * Token usage: what a trial's attempts or a judge's calls spent, added up
 * and read off a record.
 * @since 0.4.0
 */
export * as Usage from "./domain/Usage.ts"

/**
 * What tokens cost: a pricing file (USD per million tokens by model) and the
 * cost of a usage under it.
 * @since 0.4.0
 */
export * as Pricing from "./summary/Pricing.ts"

/**
 * The spending budgets of a run (`--max-cost`, `--max-tokens`) and the
 * stream stage that stops a run at them.
 * @since 0.4.0
 */
export * as Budget from "./programs/run/Budget.ts"

/**
 * The stream stage that stops a run when a tool server it needs is gone
 * for good (`ToolServerFailed`).
 * @since 0.5.0
 */
export * as ToolsStop from "./programs/run/ToolsStop.ts"

/** The kinds a program knows and the `Registry` service the programs read them from (`Kinds.layer()`). @since 0.7.0 */
export * as Kinds from "./programs/Kinds.ts"
/** The response cache (`--cache`): the port, each trial's tally, and `call`, which a module agent may use too. @since 0.8.0 */
export * as ResponseCache from "./cache/ResponseCache.ts"
/** The response cache's key: a sha256 over the kind, the URL without credentials, the model, the body, the epoch. @since 0.8.0 */
export * as CacheKey from "./cache/Key.ts"
/** The response cache on `node:sqlite`: `<cache-dir>/responses.sqlite`, in WAL mode. @since 0.8.0 */
export * as SqliteCache from "./cache/Sqlite.ts"
/**
 * Agent SDKs' results read natively: `fromAiSdk` (a `generateText` or `ToolLoopAgent.generate` result),
 * `fromOpenAiAgents` (a `RunResult`); what a `module:` agent's returned SDK result is read by.
 * @since 0.10.0
 */
export * as Adapters from "./agents/sdk/Adapters.ts"

/**
 * The options several commands share: how a dataset is read (`run`, `score`,
 * `report`), the statistics a summary reports (`run`, `score`), the agent,
 * the scorers and the judges.
 *
 * @since 0.8.0
 */
import { Schema } from "effect"
import * as AgentKinds from "../../agents/AgentKinds.ts"
import * as AgentSpecOption from "../../agents/AgentSpecOption.ts"
import * as DatasetFormats from "../../datasets/DatasetFormats.ts"
import * as ScorerKinds from "../../scoring/ScorerKinds.ts"
import * as Gates from "../../summary/Gates.ts"
import type * as Kinds from "../Kinds.ts"
import * as Options from "../Options.ts"
import * as Option from "./Option.ts"

/**
 * How a `--tasks` file is read (an `hf:` one downloaded).
 *
 * @category options
 * @since 0.8.0
 */
export const dataset = (formats: ReadonlyArray<DatasetFormats.DatasetFormat>) => ({
  format: Option.value("format", "NAME", DatasetFormats.FormatName(formats), undefined, DatasetFormats.help(formats)),
  map: Option.value(
    "map",
    "TARGET=COLUMN,...",
    Options.Mapping,
    undefined,
    "How a row becomes a task, dotted paths on both sides: id=question_id,inputs.instruction=question,reference=answer " +
      "(default: the id column, else row-N; reference, answer or target the reference; the other columns inputs)"
  ),
  jsonPath: Option.text("json-path", "The key of a .json file's array of records, dotted for deeper ones (default: the top level)"),
  cacheDir: Option.withPath(
    Option.text("cache-dir", "Where hf: downloads are kept (default $XDG_CACHE_HOME/agent-trials, else ~/.cache/agent-trials)"),
    "file"
  ),
  hubTimeout: Option.value(
    "hub-timeout",
    "DURATION",
    Options.Duration,
    undefined,
    "hf: no answer headers, or no byte of a body, for this long ends the request, as does a body under 1 KB/s over it (default 60s)"
  ),
  maxDownload: Option.value(
    "max-download",
    "SIZE",
    Options.ByteSize,
    undefined,
    "hf: the most a downloaded file may be when the Hub declares no size, like 500MB (default 10GB)"
  )
})

/**
 * The statistics a summary reports.
 *
 * @category options
 * @since 0.8.0
 */
export const statistics = {
  passK: Option.value(
    "pass-k",
    "K,K,...",
    Options.PassK,
    undefined,
    "The k of pass@k and pass^k reported, each at most --epochs (default 1, min(5, K), K)"
  ),
  taskPass: Option.value(
    "task-pass",
    "X",
    Options.TaskPass,
    undefined,
    "A task passes (in --junit) when at least this fraction of its epochs passed: a number in (0, 1], default 1 (every epoch)"
  ),
  failUnder: Option.list(
    "fail-under",
    "NAME=X[@lower]",
    Gates.GateSpec,
    "Exit 1 when scorer NAME's mean (passed: the pass rate) is below X; @lower judges the 95% interval's lower bound, repeatable"
  ),
  groupBy: Option.list(
    "group-by",
    "PATH",
    Options.TaskPath,
    "Break the scores down by the values of this dotted path into the task (metadata.subject), repeatable"
  )
}

/**
 * `--score`, repeatable, its help made from the scorer kinds; without the
 * flag, `AGENT_TRIALS_SCORE` gives one spec.
 *
 * @category options
 * @since 0.8.0
 */
export const score = (description: string) =>
  Option.withPath(Option.list("score", "SPEC", Schema.String, description, { env: true, helpNamesEnv: true }), "spec")

/**
 * The `--score` help of a CLI built with these kinds.
 *
 * @category options
 * @since 0.8.0
 */
export const scoreDescription = (kinds: ReadonlyArray<ScorerKinds.ScorerKind>) =>
  `A scorer, repeatable: ${ScorerKinds.help(kinds)}, optionally NAME=SPEC; none scores nothing`

/**
 * `--agent` of `run` and `worker`: parsed by the kinds' registry, its help
 * derived from it.
 *
 * @category options
 * @since 0.8.0
 */
export const agent = <const D>(kinds: Kinds.Kinds, fallback: D) =>
  Option.value("agent", "SPEC", AgentSpecOption.make(kinds.agents), fallback, AgentKinds.help(kinds.agents))

/**
 * `--judge-model`.
 *
 * @category options
 * @since 0.8.0
 */
export const judgeModel = Option.text(
  "judge-model",
  "Model a judge: scorer asks (the key comes from OPENAI_API_KEY, or ANTHROPIC_API_KEY for judge:anthropic:)"
)

/**
 * `--expected-tools`.
 *
 * @category options
 * @since 0.8.0
 */
export const expectedTools = Option.value(
  "expected-tools",
  "PATH",
  Options.TaskPath,
  undefined,
  "Where a tool-calls scorer reads each task's expected tool calls, a dotted path into the task (default reference.tool_calls)"
)

/**
 * `--model`.
 *
 * @category options
 * @since 0.8.0
 */
export const model = Option.text(
  "model",
  "Model name for openai: and anthropic: agents (required there; the key comes from OPENAI_API_KEY, or ANTHROPIC_API_KEY)"
)

/**
 * `--pass`.
 *
 * @category options
 * @since 0.8.0
 */
export const pass = Option.text("pass", "The scorer whose verdict decides whether a trial passed (default: every scorer must pass)")

/**
 * What the agent's model requests carry besides the task (`openai:` and
 * `anthropic:` agents): `--system`, `--temperature`, `--max-output-tokens`,
 * `--model-seed`, `--header`, `--request`.
 *
 * @category options
 * @since 0.10.0
 */
export const request = {
  system: Option.text(
    "system",
    "The system prompt of the agent's model (openai: and anthropic: agents); @FILE reads it from FILE"
  ),
  temperature: Option.value("temperature", "T", Options.Temperature, undefined, "The agent model's temperature, 0 to 2 (the API's default when not given)"),
  maxOutputTokens: Option.value(
    "max-output-tokens",
    "N",
    Options.TokenCount,
    undefined,
    "The agent model's output tokens at most, sent as max_tokens (anthropic: sends 4096 when not given: its API requires one)"
  ),
  modelSeed: Option.value(
    "model-seed",
    "N",
    Options.Seed,
    undefined,
    "The seed sent to the agent's model (openai: only: the Messages API has none); --seed chooses rows, not this"
  ),
  headers: Option.list(
    "header",
    "NAME=VALUE",
    Options.Header,
    "A header sent with each of the agent model's requests, repeatable; its value is scrubbed from records like a key and never recorded"
  ),
  requestJson: Option.value(
    "request",
    "JSON",
    Options.RequestBody,
    undefined,
    "A JSON object merged into each of the agent model's request bodies, its fields last (e.g. {\"top_p\": 0.9})"
  )
}

/**
 * A judge's `--judge-*` twins of `request`: a judge is its own model, set
 * apart from the agent's.
 *
 * @category options
 * @since 0.10.0
 */
export const judgeRequest = {
  judgeSystem: Option.text("judge-system", "A system prompt for judge: scorers' requests; @FILE reads it from FILE"),
  judgeTemperature: Option.value("judge-temperature", "T", Options.Temperature, undefined, "The judge model's temperature, 0 to 2"),
  judgeMaxOutputTokens: Option.value(
    "judge-max-output-tokens",
    "N",
    Options.TokenCount,
    undefined,
    "The judge model's output tokens at most, sent as max_tokens (judge:anthropic: sends 4096 when not given)"
  ),
  judgeSeed: Option.value("judge-seed", "N", Options.Seed, undefined, "The seed sent to the judge's model (not judge:anthropic:)"),
  judgeHeaders: Option.list(
    "judge-header",
    "NAME=VALUE",
    Options.Header,
    "A header sent with each judge request, repeatable; its value is scrubbed from records like a key and never recorded"
  ),
  judgeRequestJson: Option.value(
    "judge-request",
    "JSON",
    Options.RequestBody,
    undefined,
    "A JSON object merged into each judge request body, its fields last"
  )
}

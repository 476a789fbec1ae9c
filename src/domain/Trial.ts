/**
 * The domain of an evaluation run, as Schemas: the same definitions validate
 * dataset lines, type the code and generate property-test data.
 *
 * Field names mirror the original evaluator (`AgentEvalTask`, `AgentOutput`,
 * `AgentEvalTrial`) so its users recognise them.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * One unit of work sent to an agent.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AgentEvalTask = Schema.Struct({
  id: Schema.String,
  inputs: Schema.Record(Schema.String, Schema.Unknown),
  intent: Schema.optionalKey(Schema.String),
  reference: Schema.optionalKey(Schema.Unknown),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  /** Files a `--workspace` run writes into the trial's workspace: `{ "relative/path": "content" }` (checked there). */
  files: Schema.optionalKey(Schema.Unknown)
})
export type AgentEvalTask = typeof AgentEvalTask.Type

const TokenCount = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

const usageFields = {
  input_tokens: TokenCount,
  output_tokens: TokenCount,
  total_tokens: TokenCount,
  cached_input_tokens: Schema.optionalKey(TokenCount),
  cache_write_input_tokens: Schema.optionalKey(TokenCount),
  reasoning_tokens: Schema.optionalKey(TokenCount),
  model: Schema.optionalKey(Schema.String),
  cost_usd: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)))
}

/**
 * A usage of one model alone: what a simulated user's model spent
 * (`Usage.user`), with the same fields as `Usage` but no `user` of its own.
 *
 * @category schemas
 * @since 0.9.0
 */
export const ModelUsage = Schema.Struct(usageFields)
export type ModelUsage = typeof ModelUsage.Type

/**
 * The tokens a call (or a trial's attempts together) spent, as OpenAI's API
 * counts them: `input_tokens` include the `cached_input_tokens` (read
 * from a prompt cache) and the `cache_write_input_tokens` (written to one,
 * as Anthropic's API reports them), and
 * `output_tokens` include the `reasoning_tokens`. `model` is the model
 * priced (the one the request named); `cost_usd` is added by a run with
 * `--pricing`, computed from the counts and the model's prices. `user`, on
 * a run with a simulated user (`--user openai:...`), is what the user's
 * model spent, apart: the counts and cost above are the agent's alone.
 *
 * @category schemas
 * @since 0.4.0
 */
export const Usage = Schema.Struct({
  ...usageFields,
  user: Schema.optionalKey(ModelUsage)
})
export type Usage = typeof Usage.Type

/**
 * One step of a trial's path, in order: a `model` turn (its text in
 * `content`, its `usage`), a `tool_call` the model asked for (`name`,
 * `arguments`, `id`; `duration_ms` is how long the tool ran) and the
 * `tool_result` it got back (`content`, `is_error` when the tool threw or
 * the server reported an error). With a simulated user (`--user`), what
 * the user said is a `user_message` and each answer of the agent an
 * `assistant_message` (its text in `content`; a user model's turn has its
 * `usage`), the agent's own steps between them. Contents are kept whole;
 * displays clip.
 *
 * @category schemas
 * @since 0.5.0
 */
export const TrajectoryStep = Schema.Struct({
  type: Schema.Literals(["model", "tool_call", "tool_result", "user_message", "assistant_message"]),
  name: Schema.optionalKey(Schema.String),
  /** Pairs a `tool_call` with its `tool_result` (the model's call id). */
  id: Schema.optionalKey(Schema.String),
  arguments: Schema.optionalKey(Schema.Unknown),
  content: Schema.optionalKey(Schema.Unknown),
  is_error: Schema.optionalKey(Schema.Boolean),
  started_at: Schema.String,
  duration_ms: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)),
  usage: Schema.optionalKey(Usage),
  /**
   * On a step read off an SDK's result (a `module:` agent returning an AI
   * SDK or OpenAI Agents SDK result): `sdk` when `duration_ms` is the SDK's
   * own timing (placed from the call's start), `call` when the SDK reports
   * none for the step and both were measured around the whole agent call
   * (`started_at` its start, `duration_ms` its length).
   */
  timing: Schema.optionalKey(Schema.Literals(["sdk", "call"]))
})
export type TrajectoryStep = typeof TrajectoryStep.Type

/**
 * A trial's steps, in the order they happened.
 *
 * @category schemas
 * @since 0.5.0
 */
export const Trajectory = Schema.Array(TrajectoryStep)
export type Trajectory = typeof Trajectory.Type

/**
 * What an agent returned for one task. `usage`, when the agent reports it,
 * is what the trial spent over all its attempts; `trajectory`, when the agent
 * acts, the steps it took.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AgentOutput = Schema.Struct({
  output_text: Schema.String,
  response: Schema.optionalKey(Schema.Unknown),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  usage: Schema.optionalKey(Usage),
  /** The steps of an agent that acts (a tool loop); absent for one opaque call. */
  trajectory: Schema.optionalKey(Trajectory)
})
export type AgentOutput = typeof AgentOutput.Type

/**
 * Why a trial failed: `type` is the error's tag or class name
 * (`AgentError`, `TypeError`, `Timeout`, `InvalidTask`, ...).
 *
 * @category schemas
 * @since 0.1.0
 */
export const TrialError = Schema.Struct({
  type: Schema.String,
  message: Schema.String,
  occurred_at: Schema.String,
  /** What the failed attempts spent, when they reported it (a failed trial has no output to carry it). */
  usage: Schema.optionalKey(Usage),
  /** The steps taken before the failure (a loop that reached its `--max-turns`). */
  trajectory: Schema.optionalKey(Trajectory),
  /**
   * The text an agent returned with an output that failed the schema
   * elsewhere (`InvalidAgentOutput`), kept for reading: the trial still failed.
   */
  output_text: Schema.optionalKey(Schema.String)
})
export type TrialError = typeof TrialError.Type

/**
 * `completed`: the agent returned an output. `failed`: it did not (the trial
 * carries an `error`). `partial`: kept from the original evaluator's schema for
 * agents that report an incomplete output; the core runner never produces it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TrialStatus = Schema.Literals(["completed", "failed", "partial"])
export type TrialStatus = typeof TrialStatus.Type

/**
 * Timing recorded for every trial, plus whatever a later stage adds.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TrialMetadata = Schema.StructWithRest(
  Schema.Struct({
    started_at: Schema.String,
    finished_at: Schema.String,
    latency_ms: Schema.Number
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type TrialMetadata = typeof TrialMetadata.Type

/**
 * What one scorer said of one trial's output: `value` (1 or 0 for a
 * pass/fail scorer, a similarity, a fraction of matched keys, ...), whether it
 * `passed`, the scorer's `explanation` (a judge's reasoning), and `error` when
 * the scorer could not decide (it threw, timed out, got an unusable grade, the
 * reference was missing): then `value` is 0 and `passed` false.
 *
 * Defined here, beside the trial record it is part of, because it holds a
 * `TrialError`: `scoring/` builds on these Schemas and this module imports
 * nothing of ours.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Score = Schema.Struct({
  value: Schema.Finite,
  passed: Schema.Boolean,
  explanation: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(TrialError),
  /** What the scorer itself spent (a judge's calls), apart from the agent's usage. */
  usage: Schema.optionalKey(Usage)
})
export type Score = typeof Score.Type

/**
 * The record of one trial: one line of a results file.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AgentEvalTrial = Schema.Struct({
  id: Schema.String,
  task_id: Schema.String,
  status: TrialStatus,
  output: Schema.optionalKey(AgentOutput),
  error: Schema.optionalKey(TrialError),
  metadata: TrialMetadata,
  /** By scorer name; absent when the trial was not scored (no scorers, or a failed trial). */
  scores: Schema.optionalKey(Schema.Record(Schema.String, Score))
})
export type AgentEvalTrial = typeof AgentEvalTrial.Type

/**
 * The id of a task's trial: `${task.id}:trial` for a single-epoch run, and
 * `${task.id}:${epoch}` when a task is tried several times.
 *
 * @category constructors
 * @since 0.1.0
 */
export const trialId = (taskId: string, epoch?: number): string =>
  epoch === undefined ? `${taskId}:trial` : `${taskId}:${epoch}`

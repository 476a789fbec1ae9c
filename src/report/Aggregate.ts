/**
 * The one pass of a report over a results file: every trial goes into the
 * run summary's own `Summary.Accumulator` (counts, failures by type, latency
 * histogram, scorer statistics, pass@k), a `Timeline` (throughput and calls
 * in flight over time), and the table's rows, of which at most `maxRows` are
 * kept, failures first. Everything held is bounded: the accumulator's
 * fixed-size tallies, the timeline's fixed buckets, `maxRows` rows with their
 * texts cut to `textLimit` characters, and, until the run's epochs and
 * scorers are known, a window of the first trials.
 *
 * A results file does not say how many epochs its run had nor which scorers
 * it applied; the summary beside it does (`--summary`). Without it both are
 * read off the first `window` trials: the highest epoch in their ids
 * (`TASK:EPOCH`) and the scorers their scores name. Trials of a task are
 * admitted together, so a window much larger than the run's parallelism sees
 * them all; a trial seen later with a higher epoch or another scorer is
 * counted in `notes`.
 *
 * @since 0.1.0
 */
import { MAX_EPOCHS } from "../domain/Errors.ts"
import * as Trajectories from "../domain/Trajectory.ts"
import * as Usages from "../domain/Usage.ts"
import * as Labels from "../summary/Labels.ts"
import * as Summary from "../summary/Summary.ts"
import { tokensText, usdText } from "../summary/Usage.ts"
import type { AgentEvalTrial, TrialStatus } from "../domain/Trial.ts"
import { Timeline } from "./Timeline.ts"

/**
 * One row of the report's table. `input` and `reference` come from the task
 * file, when the report is given one.
 *
 * @category models
 * @since 0.1.0
 */
export interface Row {
  readonly id: string
  readonly task_id: string
  readonly status: TrialStatus
  /** The trial failed, or a score did not pass. */
  readonly failing: boolean
  readonly latency_ms: number
  /** `metadata.cache` (`--cache`): `hit` rows show `cached` for their latency. */
  readonly cache?: string
  readonly output: string | null
  readonly error: { readonly type: string; readonly message: string } | null
  readonly scores: Record<string, RowScore>
  /** What the trial spent; absent when its record carries no usage. */
  readonly usage?: RowUsage
  /** The path it took; absent when its record carries no trajectory. */
  readonly trajectory?: RowTrajectory
  input: string | null
  reference: string | null
}

/**
 * What a row's trial spent, as the table shows it: its agent's, its
 * simulated user's and its judges' tokens together (as the usage cards
 * count a trial), and their
 * cost when a usage of it carries one (`--pricing`), null otherwise. The
 * texts are the run summary's (`1,234`, `$0.0012`).
 *
 * @category models
 * @since 0.4.0
 */
export interface RowUsage {
  readonly tokens: string
  readonly cost: string | null
}

/**
 * A row's trajectory: its steps (model turns), tool calls and tool errors,
 * and its transcript: at most `MAX_TRANSCRIPT` steps and `TRANSCRIPT_CHARS`
 * characters (`more` counts the steps left out), each step's text cut at
 * `STEP_CHARS` (the record keeps them whole).
 *
 * @category models
 * @since 0.5.0
 */
export interface RowTrajectory {
  readonly steps: number
  readonly tool_calls: number
  readonly tool_errors: number
  readonly transcript: ReadonlyArray<RowStep>
  readonly more: number
}

/**
 * One step of a transcript: a model turn (its text, and its tokens when it
 * reported usage), a tool call (its arguments as JSON), or a tool result
 * (its content; `error` for a tool error).
 *
 * @category models
 * @since 0.5.0
 */
export interface RowStep {
  readonly type: "model" | "tool_call" | "tool_result" | "user_message" | "assistant_message"
  readonly name: string | null
  readonly text: string
  readonly error: boolean
  readonly ms: number
  readonly tokens: string | null
}

/**
 * Steps of a row's transcript kept at most.
 *
 * @category constants
 * @since 0.5.0
 */
export const MAX_TRANSCRIPT = 100

/**
 * Characters kept of one step's text in a row's transcript.
 *
 * @category constants
 * @since 0.5.0
 */
export const STEP_CHARS = 1000

/**
 * Characters kept of a row's whole transcript: its steps stop there, so a
 * row stays bounded however long the trajectory.
 *
 * @category constants
 * @since 0.5.0
 */
export const TRANSCRIPT_CHARS = 8000

/**
 * A score as the table shows it.
 *
 * @category models
 * @since 0.1.0
 */
export interface RowScore {
  readonly value: number
  readonly passed: boolean
  readonly explanation?: string
  readonly error?: string
}

/**
 * What the fold needs: the table's size, and the run's epochs and scorers
 * when known (from its summary); otherwise they are inferred.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly maxRows: number
  readonly epochs?: number | undefined
  readonly scoring?: Summary.ScoringOptions | undefined
  /** Trials read before epochs and scorers are inferred (default 4096). */
  readonly window?: number
  /** Characters kept of each text of a row (default 2000). */
  readonly textLimit?: number
  /** Buckets of the timeline (default 120). */
  readonly buckets?: number
}

/**
 * What the pass adds up to.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly trials: number
  readonly acc: Summary.Accumulator
  readonly timeline: Timeline
  /** Failures first, each group in file order. */
  readonly rows: ReadonlyArray<Row>
  /** Rows left out of the table (beyond `maxRows`). */
  readonly rowsLeftOut: number
  readonly failingTrials: number
  /** Whether epochs and scorers were read off the first trials rather than given. */
  readonly inferred: boolean
  /** Things a reader should know about the figures (a trial beyond the inferred epochs, ...). */
  readonly notes: ReadonlyArray<string>
}

/**
 * The epoch of a trial id: `TASK:3` is 3, `TASK:trial` (a single-epoch run) 1.
 *
 * @category constructors
 * @since 0.1.0
 */
export const epochOf = (id: string): number => {
  const n = Number(id.slice(id.lastIndexOf(":") + 1))
  return Number.isSafeInteger(n) && n >= 1 ? n : 1
}

// A trial's usage for its row: see `RowUsage`.
const usageOf = (trial: AgentEvalTrial): RowUsage | undefined => {
  const agent = Usages.ofTrial(trial)
  const judge = Usages.ofScores(trial)
  const sum = judge === undefined ? agent : Usages.add(agent, judge)
  if (sum === undefined) return undefined
  // A simulated user's model (`usage.user`) is part of what the trial spent.
  const user = sum.user
  const cost = sum.cost_usd === undefined && user?.cost_usd === undefined ? undefined : (sum.cost_usd ?? 0) + (user?.cost_usd ?? 0)
  return { tokens: tokensText(sum.total_tokens + (user?.total_tokens ?? 0)), cost: cost === undefined ? null : usdText(cost) }
}

const stepText = (value: unknown): string => {
  if (value === undefined) return ""
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

// A trial's trajectory for its row: see `RowTrajectory`.
const trajectoryOf = (trial: AgentEvalTrial, limit: number): RowTrajectory | undefined => {
  const trajectory = Trajectories.ofTrial(trial)
  if (trajectory === undefined) return undefined
  let steps = 0
  let calls = 0
  let errors = 0
  for (const step of trajectory) {
    if (step.type === "model") steps++
    else if (step.type === "tool_call") calls++
    else if (step.is_error === true) errors++
  }
  const transcript: Array<RowStep> = []
  let budget = TRANSCRIPT_CHARS
  for (const step of trajectory) {
    if (transcript.length >= MAX_TRANSCRIPT || budget <= 0) break
    const text = clip(stepText(step.type === "tool_call" ? step.arguments : step.content), Math.min(limit, STEP_CHARS, budget))
    budget -= text.length
    transcript.push({
      type: step.type,
      name: step.name ?? null,
      text,
      error: step.is_error === true,
      ms: step.duration_ms,
      tokens: step.usage === undefined ? null : tokensText(step.usage.total_tokens)
    })
  }
  return { steps, tool_calls: calls, tool_errors: errors, transcript, more: trajectory.length - transcript.length }
}

const clip = (text: string, limit: number): string =>
  text.length <= limit ? text : `${text.slice(0, limit)}… (${(text.length - limit).toLocaleString("en-US")} more characters)`

/**
 * The fold: `add` each trial in file order, then `result()`.
 *
 * @category models
 * @since 0.1.0
 */
export class Aggregate {
  private acc: Summary.Accumulator | undefined
  private pending: Array<AgentEvalTrial> = []
  private readonly failures: Array<Row> = []
  private readonly others: Array<Row> = []
  private readonly window: number
  private readonly textLimit: number
  private readonly maxRows: number
  private readonly epochsGiven: number | undefined
  private readonly scoringGiven: Summary.ScoringOptions | undefined
  private beyondEpochs = 0
  private readonly unknownScorers = new Set<string>()
  readonly timeline: Timeline
  trials = 0
  failingTrials = 0

  constructor(options: Options) {
    if (!(Number.isSafeInteger(options.maxRows) && options.maxRows >= 1)) {
      throw new RangeError(`maxRows must be an integer >= 1, got ${options.maxRows}`)
    }
    this.maxRows = options.maxRows
    this.window = options.window ?? 4096
    this.textLimit = options.textLimit ?? 2000
    this.epochsGiven = options.epochs
    this.scoringGiven = options.scoring
    this.timeline = new Timeline(options.buckets ?? 120)
    if (options.epochs !== undefined && options.scoring !== undefined) this.start(options.epochs, options.scoring)
  }

  add(trial: AgentEvalTrial): void {
    this.trials++
    this.timeline.add(Date.parse(trial.metadata.started_at), Date.parse(trial.metadata.finished_at), trial.status === "failed")
    this.keep(trial)
    if (this.acc === undefined) {
      this.pending.push(trial)
      // A record that says its run's epochs (Labels) and carries its scores
      // ends the window at once: its run's scorers are on every scored trial.
      if (this.pending.length >= this.window || (Labels.epochsOf(trial) !== undefined && trial.scores !== undefined)) {
        this.infer()
      }
    } else {
      this.tally(this.acc, trial)
    }
  }

  result(): Result {
    if (this.acc === undefined) this.infer()
    const acc = this.acc!
    const notes: Array<string> = []
    if (this.beyondEpochs > 0) {
      notes.push(
        `${this.beyondEpochs} trials have an epoch above ${acc.epochs}, the epochs read off the first ${this.window} trials: ` +
          `pass@k counts their tasks as incomplete; give the run's summary (--summary) for exact figures`
      )
    }
    if (this.unknownScorers.size > 0) {
      notes.push(
        `scores by ${[...this.unknownScorers].join(", ")} appear after the first ${this.window} trials and are not in the statistics; ` +
          `give the run's summary (--summary)`
      )
    }
    const rows = [...this.failures, ...this.others]
    return {
      trials: this.trials,
      acc,
      timeline: this.timeline,
      rows,
      rowsLeftOut: this.trials - rows.length,
      failingTrials: this.failingTrials,
      inferred: this.epochsGiven === undefined || this.scoringGiven === undefined,
      notes
    }
  }

  private start(epochs: number, scoring: Summary.ScoringOptions): void {
    this.acc = new Summary.Accumulator(epochs, scoring)
  }

  private infer(): void {
    let epochs = 1
    const names = new Set<string>()
    for (const trial of this.pending) {
      // An id's epoch beyond what a run can have (Errors.MAX_EPOCHS) would size the tallies by it:
      // such trials are counted as beyond the epochs, and said so.
      epochs = Math.max(epochs, Math.min(MAX_EPOCHS, Labels.epochsOf(trial) ?? epochOf(trial.id)))
      for (const name of Object.keys(trial.scores ?? {})) names.add(name)
    }
    this.start(this.epochsGiven ?? epochs, this.scoringGiven ?? { scorers: [...names] })
    const acc = this.acc!
    for (const trial of this.pending) acc.add(trial)
    this.pending = []
  }

  private tally(acc: Summary.Accumulator, trial: AgentEvalTrial): void {
    if (this.epochsGiven === undefined && epochOf(trial.id) > acc.epochs) this.beyondEpochs++
    if (this.scoringGiven === undefined && trial.scores !== undefined && this.unknownScorers.size < 20) {
      const known = acc.scoring?.stats
      for (const name of Object.keys(trial.scores)) if (known?.has(name) !== true) this.unknownScorers.add(name)
    }
    acc.add(trial)
  }

  // At most maxRows rows at any time: a failure displaces the last kept
  // passing row; a passing row is kept only while there is room.
  private keep(trial: AgentEvalTrial): void {
    const scores = trial.scores === undefined ? [] : Object.values(trial.scores)
    const failing = trial.status !== "completed" || scores.some((s) => !s.passed || s.error !== undefined)
    if (failing) this.failingTrials++
    const full = this.failures.length + this.others.length >= this.maxRows
    if (full && (!failing || this.others.length === 0)) return
    if (full) this.others.pop()
    ;(failing ? this.failures : this.others).push(this.rowOf(trial, failing))
  }

  private rowOf(trial: AgentEvalTrial, failing: boolean): Row {
    const limit = this.textLimit
    const scores: Record<string, RowScore> = {}
    for (const [name, s] of Object.entries(trial.scores ?? {})) {
      scores[name] = {
        value: s.value,
        passed: s.passed,
        ...(s.explanation === undefined ? {} : { explanation: clip(s.explanation, limit) }),
        ...(s.error === undefined ? {} : { error: clip(`${s.error.type}: ${s.error.message}`, limit) })
      }
    }
    const usage = usageOf(trial)
    const trajectory = trajectoryOf(trial, limit)
    return {
      id: trial.id,
      task_id: trial.task_id,
      status: trial.status,
      failing,
      latency_ms: trial.metadata.latency_ms,
      ...(typeof trial.metadata["cache"] === "string" ? { cache: trial.metadata["cache"] } : {}),
      output: trial.output === undefined ? null : clip(trial.output.output_text, limit),
      error: trial.error === undefined ? null : { type: trial.error.type, message: clip(trial.error.message, limit) },
      scores,
      ...(usage === undefined ? {} : { usage }),
      ...(trajectory === undefined ? {} : { trajectory }),
      input: null,
      reference: null
    }
  }
}

/**
 * A run's trials folded by task, for the outputs CI reads (`--junit`): per
 * task its trials, how many passed, how many failed (the agent gave no
 * output), its time, and the first few messages of its failing scores (with
 * the trial's answer) and failed trials. A trial passes as the summary judges it: it did not fail
 * and every decisive scorer (the one `--pass` names, else every scorer)
 * passed it without an error; with no scorer, a completed trial passes.
 *
 * Memory: a few counts a task and at most `MESSAGES` messages of at most
 * `MESSAGE_LENGTH` characters each, never a trial.
 *
 * @internal
 */
import type { AgentEvalTrial } from "../../domain/Trial.ts"

/** Messages kept per task: the first ones met. */
export const MESSAGES = 5
/** Characters kept of a message. */
export const MESSAGE_LENGTH = 500
/** Characters kept of an answer beside a failing score. */
export const ANSWER_LENGTH = 200

/**
 * A scorer's verdict against a trial, or a trial that failed.
 *
 * @internal
 */
export type Problem =
  | {
    readonly _tag: "Score"
    readonly trial: string
    readonly scorer: string
    readonly value: number
    readonly detail: string
    /** The trial's answer, clipped. */
    readonly answer: string | undefined
  }
  | { readonly _tag: "Error"; readonly trial: string; readonly type: string; readonly message: string }

/**
 * One task's tally.
 *
 * @internal
 */
export interface TaskTally {
  readonly id: string
  trials: number
  passed: number
  errors: number
  latencyMs: number
  readonly problems: Array<Problem>
  /** Problems met past `MESSAGES`. */
  more: number
}

const clip = (text: string): string =>
  text.length <= MESSAGE_LENGTH ? text : `${text.slice(0, MESSAGE_LENGTH)}... (${text.length - MESSAGE_LENGTH} more characters)`

/**
 * The tally of every task, in the order tasks are first met.
 *
 * @internal
 */
export class Tasks {
  readonly byId = new Map<string, TaskTally>()
  /** The scorers deciding a trial's pass (empty: a completed trial passes). */
  readonly decisive: ReadonlyArray<string>
  constructor(decisive: ReadonlyArray<string>) {
    this.decisive = decisive
  }

  add(trial: AgentEvalTrial): void {
    const task = this.byId.get(trial.task_id) ?? this.open(trial.task_id)
    task.trials++
    task.latencyMs += Number.isFinite(trial.metadata.latency_ms) ? trial.metadata.latency_ms : 0
    const note = (problem: Problem) => {
      if (task.problems.length < MESSAGES) task.problems.push(problem)
      else task.more++
    }
    if (trial.status === "failed") {
      task.errors++
      const error = trial.error
      note({ _tag: "Error", trial: trial.id, type: error?.type ?? "Error", message: clip(error?.message ?? "the trial failed") })
      return
    }
    const scores = trial.scores ?? {}
    const text = trial.output?.output_text
    const answer = text === undefined ? undefined : text.length <= ANSWER_LENGTH ? text : `${text.slice(0, ANSWER_LENGTH)}...`
    let passed = true
    for (const name of this.decisive) {
      const score = scores[name]
      if (score === undefined) {
        passed = false
        note({ _tag: "Score", trial: trial.id, scorer: name, value: 0, detail: "not scored", answer })
      } else if (!score.passed || score.error !== undefined) {
        passed = false
        const detail = score.error !== undefined
          ? `${score.error.type}: ${score.error.message}`
          : score.explanation ?? "did not pass"
        note({ _tag: "Score", trial: trial.id, scorer: name, value: score.value, detail: clip(detail), answer })
      }
    }
    if (passed) task.passed++
  }

  private open(id: string): TaskTally {
    const task: TaskTally = { id, trials: 0, passed: 0, errors: 0, latencyMs: 0, problems: [], more: 0 }
    this.byId.set(id, task)
    return task
  }
}

/**
 * Whether a task passed: at least `taskPass` (a fraction in (0, 1]) of its
 * trials passed.
 *
 * @internal
 */
export const taskPassed = (task: Pick<TaskTally, "trials" | "passed">, taskPass: number): boolean =>
  task.trials > 0 && task.passed >= Math.ceil(taskPass * task.trials - 1e-9)

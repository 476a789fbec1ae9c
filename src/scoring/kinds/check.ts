/**
 * `check:COMMAND`: a shell command that judges the state a trial's agent
 * left in its workspace. It runs once the agent is done, in the scoring
 * stage, with `sh -c` in the trial's workspace (its working directory),
 * under the run's sandbox setting (`--sandbox`), bounded by
 * `--sandbox-timeout`, before the workspace is removed. Placeholders
 * (`{workspace}`, `{trial_id}`, `{task_id}`, `{epoch}`, `{task.PATH}`) are
 * replaced per trial, each value one shell word (shell-quoted), except in a
 * command that is one placeholder alone: its value is the command, so
 * `check:{task.metadata.check}` runs each task's own test.
 *
 * @since 0.9.0
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as Scorer from "../../domain/Scorer.ts"
import type { AgentEvalTask, AgentEvalTrial } from "../../domain/Trial.ts"
import { redactUrl, urlsIn } from "../../internal/redact.ts"
import * as Redactor from "../../runner/Redactor.ts"
import type { Outcome } from "../../sandbox/Run.ts"
import * as Setting from "../../sandbox/Setting.ts"
import * as Placeholders from "../../workspace/Placeholders.ts"
import { ScorerSpecError, type ScorerKind, type SpecBase } from "../Kind.ts"

/**
 * A parsed `check` spec: the command as written, placeholders unexpanded.
 *
 * @category models
 * @since 0.9.0
 */
export interface CheckSpec extends SpecBase {
  readonly _tag: "Check"
  readonly command: string
}

/**
 * Lines of each of stdout and stderr the score's explanation keeps (their last).
 *
 * @category constants
 * @since 0.9.0
 */
export const LAST_LINES = 20

/**
 * The check could not be run for this trial: a placeholder without a value
 * (`{task.metadata.check}` where the task has none), or no workspace.
 * `command` is the command as written.
 *
 * @category errors
 * @since 0.9.0
 */
export class CheckNotRun extends Schema.TaggedError<CheckNotRun>()("CheckNotRun", {
  command: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `check:${this.command} was not run: ${this.problem}`
  }
}

/**
 * The value the last line of a check's stdout gives: that line (the last
 * that is not blank), trimmed, when it is a plain decimal number from 0 to
 * 1 (`1`, `0.25`, `.5`); undefined otherwise (no output, a word, `42`,
 * `-0.5`, `NaN`), and then the exit code alone decides: `"ran 4
 * tests\n0.75\n"` gives 0.75, `"ran 4 tests\n3\n"` nothing.
 *
 * @category parsing
 * @since 0.9.0
 */
export const lastLineValue = (stdout: string): number | undefined => {
  const last = stdout.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "").at(-1)
  if (last === undefined || !/^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(last)) return undefined
  const value = Number(last)
  return value >= 0 && value <= 1 ? value : undefined
}

/**
 * The score of a check that ran: passed when it exited 0; its value the
 * number on the last line of its stdout (`lastLineValue`) when there is
 * one, else 1 when it passed and 0 when not. The explanation says how it
 * ended and keeps the last lines of its stdout and stderr (already
 * scrubbed by the sandbox's runner).
 *
 * @category scoring
 * @since 0.9.0
 */
export const scoreOf = (outcome: Outcome): { readonly value: number; readonly passed: boolean; readonly explanation: string } => {
  const passed = outcome.exitCode === 0
  const read = lastLineValue(outcome.stdout)
  const ended = outcome.exitCode === null ? `ended by ${outcome.signal ?? "a signal"}` : `exit code ${outcome.exitCode}`
  const sections = [
    read === undefined ? ended : `${ended}; value ${read} from the last line of its stdout`,
    ...(outcome.stdout === "" ? [] : [`stdout's last lines:\n${outcome.stdout}`]),
    ...(outcome.stderr === "" ? [] : [`stderr's last lines:\n${outcome.stderr}`])
  ]
  return { value: read ?? (passed ? 1 : 0), passed, explanation: sections.join("\n") }
}

// The epoch a trial id names (`t:2`), undefined for a single-epoch run's `t:trial`.
const epochOf = (task: AgentEvalTask, trial: AgentEvalTrial): number | undefined => {
  const suffix = trial.id.startsWith(`${task.id}:`) ? trial.id.slice(task.id.length + 1) : ""
  return /^\d+$/.test(suffix) ? Number(suffix) : undefined
}

const isWholePlaceholder = (command: string): boolean =>
  /^\s*\{[^{}\s]+\}\s*$/.test(command) && Placeholders.has(command)

// A URL in the command may carry credentials: messages and the run's definition show it redacted.
const shownCommand = (command: string): string =>
  urlsIn(command).reduce((text, url) => text.replace(url, redactUrl(url)), command)

/**
 * The `check` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.9.0
 */
export const kind: ScorerKind<CheckSpec> = {
  kind: "check",
  tag: "Check",
  usage: "check:COMMAND",
  help: "check:COMMAND",
  syntax: "`check:COMMAND` (with `--workspace`)",
  doc: "the shell command, run in the trial's workspace once the agent is done (under `--sandbox`, bounded by " +
    "`--sandbox-timeout`; placeholders as in `--setup`, and a command that is one placeholder alone runs its value: " +
    "`check:{task.metadata.check}`) exits 0; its value is the " +
    "last line of its stdout when that is a number from 0 to 1, else 1 or 0; the explanation keeps its last lines " +
    "of output, scrubbed",
  shown: (rest) => rest === undefined ? "check" : `check:${shownCommand(rest)}`,
  parse: (rest, { bad, base }) =>
    rest === undefined || rest.trim() === ""
      ? bad("expected check:COMMAND, a shell command run in each trial's workspace, e.g. check:test -f done.txt")
      : { _tag: "Check", ...base("check"), command: rest },
  build: (spec, { options }) => {
    const world = options.world
    if (world === undefined) {
      return Effect.fail(
        new ScorerSpecError({
          where: `--score ${spec.shown}`,
          problem: "needs --workspace: it runs in each trial's workspace once the agent is done, so only a run with " +
            "--workspace can run it (not agent-trials score: the workspaces are gone by then)"
        })
      )
    }
    const shown = shownCommand(spec.command)
    return Effect.succeed(Scorer.make(spec.name, (task, _output, trial) =>
      Effect.gen(function*() {
        const workspace = world.workspaceOf(task, trial)
        if (workspace === undefined || !fs.existsSync(workspace)) {
          return yield* new CheckNotRun({
            command: shown,
            problem: `trial ${trial.id} has no workspace${workspace === undefined ? "" : ` (${workspace} is gone)`}`
          })
        }
        const expanded = Placeholders.expand(spec.command, {
          workspace,
          trial_id: trial.id,
          task_id: task.id,
          epoch: epochOf(task, trial),
          task
        })
        if ("problem" in expanded) return yield* new CheckNotRun({ command: shown, problem: `task ${task.id}: ${expanded.problem}` })
        // A value is one shell word, except when it is the whole command: then it is the command.
        const text = isWholePlaceholder(spec.command) ? `eval ${expanded.text.trim()}` : expanded.text
        // The run's own secrets too (its keys, its agents'), beside every scrubber of the process.
        const secrets = yield* Redactor.currentOrNew
        const outcome = yield* Setting.run(world.sandbox, text, workspace, { tailLines: LAST_LINES, scrub: secrets.scrub })
        return scoreOf(outcome)
      })))
  }
}

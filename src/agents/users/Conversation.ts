/**
 * The conversation loop of a run with a simulated user (`--user`), wrapped
 * around the agent so the runner sees one agent call per trial: the user is
 * told the task's user instruction and speaks first, the agent answers the
 * conversation so far (it reads it from `trial.conversation`), and they
 * alternate until the user ends it (a model user's `###STOP###`, a module
 * user's `null`) or the user has said `maxUserTurns` messages and the agent
 * has answered the last.
 *
 * The trial's trajectory is the conversation: a `user_message` step for
 * each thing the user said (its model's usage on it), the agent's own steps
 * (model turns, tool calls and results), then an `assistant_message` step
 * for its answer. The output's text is the agent's last answer; its usage
 * the agent's turns summed, with the user model's apart (`usage.user`); its
 * `metadata.conversation` says how many turns it took (`turns`: the user's
 * messages the agent answered) and what ended it (`ended_by`: `user`, or
 * `max_user_turns`, which is no failure: the agent answered every message).
 * A failure on the way (the agent's, the user's) fails the trial with its
 * own type, the conversation so far and the usage of both kept on it; a
 * retry of the trial starts the conversation again.
 *
 * @since 0.9.0
 */
import { Cause, Clock, Effect, Exit } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../../domain/Agent.ts"
import type { Message } from "../../domain/Conversation.ts"
import { InvalidTask } from "../../domain/Errors.ts"
import * as Trajectories from "../../domain/Trajectory.ts"
import type { AgentEvalTask, AgentOutput, ModelUsage, TrajectoryStep, Usage } from "../../domain/Trial.ts"
import * as Usages from "../../domain/Usage.ts"
import { type SimulatedUser, UserError } from "./User.ts"

/**
 * The defaults: 10 user turns at most, the instruction at `inputs.user`.
 *
 * @category defaults
 * @since 0.9.0
 */
export const defaults = { maxUserTurns: 10, instruction: "inputs.user" } as const

/**
 * How the conversation runs.
 *
 * @category models
 * @since 0.9.0
 */
export interface Options {
  readonly user: SimulatedUser
  /** The dotted path into the task of the user's instruction (`--user-instruction`). */
  readonly instruction: string
  /** The user's messages at most (`--max-user-turns`, a number >= 1). */
  readonly maxUserTurns: number
}

/**
 * What ended a conversation: the user, or `--max-user-turns`.
 *
 * @category models
 * @since 0.9.0
 */
export type Ended = "user" | "max_user_turns"

/**
 * The task's user instruction at a dotted path: a string as it is, any
 * other value as JSON; undefined where the task has none (a missing key, a
 * `null`, a path through a non-object).
 *
 * @category getters
 * @since 0.9.0
 */
export const instructionOf = (task: AgentEvalTask, path: string): string | undefined => {
  let value: unknown = task
  for (const segment of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return undefined
    value = (value as Record<string, unknown>)[segment]
  }
  if (value === null || value === undefined) return undefined
  return typeof value === "string" ? value : JSON.stringify(value)
}

/**
 * The agent in a conversation with the user: what the runner calls.
 *
 * @category constructors
 * @since 0.9.0
 */
export const wrap = <E, R>(
  agent: Agent<E, R>,
  options: Options
): Agent<E | UserError | InvalidTask, R | HttpClient.HttpClient> =>
(task, trial) =>
  Effect.gen(function*() {
    const instruction = instructionOf(task, options.instruction)
    if (instruction === undefined) {
      return yield* new InvalidTask({
        task_id: task.id,
        problem: `task ${task.id} has no user instruction at ${options.instruction} (--user-instruction)`
      })
    }
    const context = trial ?? { id: task.id, epoch: undefined }
    const steps: Array<TrajectoryStep> = []
    const conversation: Array<Message> = []
    let agentUsage: Usage | undefined
    let userUsage: ModelUsage | undefined
    let last: AgentOutput | undefined
    let ended: Ended = "max_user_turns"
    let turns = 0
    // The agent's answers: the turns the conversation took.
    let answers = 0
    // A timeout of the attempt keeps the conversation so far and the agent's current steps.
    const outer = yield* Trajectories.CurrentProgress
    const inner: Trajectories.Progress = { current: undefined, usage: undefined }
    let doing = "waiting for the user"
    if (outer !== undefined) {
      outer.current = (nowMs) => {
        const now = inner.current?.(nowMs)
        return { steps: [...steps, ...(now?.steps ?? [])], doing: `in user turn ${turns}: ${now?.doing ?? doing}` }
      }
    }
    const spent = (): Usage | undefined => withUser(Usages.add(agentUsage, inner.usage ?? zero), userUsage)
    const note = () => {
      if (outer !== undefined) outer.usage = spent()
    }
    for (let turn = 1; turn <= options.maxUserTurns; turn++) {
      turns = turn
      doing = "waiting for the user"
      const userStarted = yield* Clock.currentTimeMillis
      const said = yield* Effect.exit(options.user({ task, instruction, conversation: [...conversation], turn, trial: context }))
      if (Exit.isFailure(said)) {
        const reason = said.cause.reasons[0]
        const failed = reason !== undefined && Cause.isFailReason(reason) ? reason.error.usage : undefined
        if (failed !== undefined) userUsage = Usages.add(userUsage, failed)
        return yield* Effect.failCause(keptIn(said.cause, steps, agentUsage, userUsage, false))
      }
      const userEnded = yield* Clock.currentTimeMillis
      if (said.value.usage !== undefined) userUsage = Usages.add(userUsage, said.value.usage)
      note()
      const text = said.value.text
      if (text !== undefined) {
        steps.push({
          type: "user_message",
          content: text,
          started_at: isoOf(userStarted),
          duration_ms: userEnded - userStarted,
          ...(said.value.usage === undefined ? undefined : { usage: said.value.usage })
        })
      }
      if (said.value.ends || text === undefined) {
        ended = "user"
        break
      }
      conversation.push({ role: "user", content: text })
      doing = "waiting for the agent"
      inner.current = undefined
      inner.usage = undefined
      const answered = yield* Effect.exit(
        agent(task, { ...context, conversation: [...conversation], history: [...steps] }).pipe(
          Effect.provideService(Trajectories.CurrentProgress, outer === undefined ? undefined : inner)
        )
      )
      if (Exit.isFailure(answered)) return yield* Effect.failCause(keptIn(answered.cause, steps, agentUsage, userUsage, true))
      inner.current = undefined
      inner.usage = undefined
      const output = answered.value
      const agentEnded = yield* Clock.currentTimeMillis
      if (output.usage !== undefined) agentUsage = Usages.add(agentUsage, output.usage)
      note()
      if (output.trajectory !== undefined) steps.push(...output.trajectory)
      steps.push({ type: "assistant_message", content: output.output_text, started_at: isoOf(userEnded), duration_ms: agentEnded - userEnded })
      conversation.push({ role: "assistant", content: output.output_text })
      last = output
      answers++
    }
    if (last === undefined) {
      return yield* Effect.failCause(keptIn(
        Cause.fail(new UserError({ message: "the user ended the conversation before the agent answered anything" })),
        steps,
        agentUsage,
        userUsage,
        false
      ))
    }
    const usage = spent()
    return {
      output_text: last.output_text,
      ...(last.response === undefined ? undefined : { response: last.response }),
      metadata: { ...last.metadata, conversation: { turns: answers, ended_by: ended } },
      trajectory: steps,
      ...(usage === undefined ? undefined : { usage })
    }
  })

const zero: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 }

// The agent's usage with the user model's apart; undefined when neither spent anything known.
const withUser = (agent: Usage | undefined, user: ModelUsage | undefined): Usage | undefined => {
  const counted = agent === undefined || agent === zero ? undefined : agent
  if (user === undefined) return counted
  return { ...(counted ?? zero), user }
}

// The cause with its first failure given the conversation so far (its own
// steps after them) and the usage of both sides, keeping its type: the
// record says what failed, and what the trial did and spent before. An
// agent's failure carries what its failed answer spent (`Usage.ofError`),
// added to the agent's usage; a user's, counted already.
const keptIn = <X>(
  cause: Cause.Cause<X>,
  steps: ReadonlyArray<TrajectoryStep>,
  agentUsage: Usage | undefined,
  userUsage: ModelUsage | undefined,
  fromAgent: boolean
): Cause.Cause<X> => {
  const reason = cause.reasons[0]
  if (reason === undefined || !Cause.isFailReason(reason)) return cause
  const error = reason.error
  if (typeof error !== "object" || error === null) return cause
  const own = Trajectories.ofError(error) ?? []
  const failed = fromAgent ? Usages.ofError(error) : undefined
  const copy = Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error)) as Record<string, unknown>
  copy["trajectory"] = [...steps, ...own]
  const usage = withUser(failed === undefined ? agentUsage : Usages.add(agentUsage, failed), userUsage)
  if (usage !== undefined) copy["usage"] = usage
  else delete copy["usage"]
  return Cause.fail(copy as X)
}

const isoOf = (ms: number): string => new Date(ms).toISOString()

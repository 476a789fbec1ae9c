/**
 * Conversations with a simulated user (`run --user`): what each side said,
 * in order. The user speaks first; an agent that takes part reads the
 * conversation so far from its `TrialContext` (`trial.conversation`) and
 * answers its last user message.
 *
 * @since 0.9.0
 */
import { Schema } from "effect"
import type { Trajectory } from "./Trial.ts"

/**
 * One message of a conversation: the simulated user's (`user`) or the
 * agent's answer (`assistant`).
 *
 * @category schemas
 * @since 0.9.0
 */
export const Message = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.String
})
export type Message = typeof Message.Type

/**
 * The messages of a trajectory: its `user_message` and `assistant_message`
 * steps, in order (the agent's tool steps between them left out).
 *
 * @category getters
 * @since 0.9.0
 */
export const ofTrajectory = (trajectory: Trajectory): ReadonlyArray<Message> =>
  trajectory.flatMap((step): Array<Message> =>
    step.type === "user_message" || step.type === "assistant_message"
      ? [{ role: step.type === "user_message" ? "user" : "assistant", content: typeof step.content === "string" ? step.content : "" }]
      : []
  )

/**
 * The port a simulated user implements (`run --user SPEC`, tau-bench
 * style): told the task's user instruction, it says the first message, then
 * answers each of the agent's, until it ends the conversation. A kind is
 * recognized, parsed, shown, recorded and built here, as agent kinds are
 * (`Kind.ts`); the registry (`Users.ts`) lists the kinds, and the loop that
 * alternates the two sides is `Conversation.ts`.
 *
 * @since 0.9.0
 */
import { type Effect, type Redacted, Schema } from "effect"
import type { HttpClient } from "effect/http"
import type { TrialContext } from "../../domain/Agent.ts"
import type { Message } from "../../domain/Conversation.ts"
import { placedFields, placedMessage } from "../../domain/internal/where.ts"
import type { AgentEvalTask } from "../../domain/Trial.ts"
import { ModelUsage } from "../../domain/Trial.ts"
import type { RetryPolicy } from "../../runner/Policy.ts"

/**
 * What the user is asked for one turn: the task, its user instruction (read
 * at `--user-instruction`), the conversation so far (empty for the first
 * message) and which turn it is (1 for the first message).
 *
 * @category models
 * @since 0.9.0
 */
export interface Turn {
  readonly task: AgentEvalTask
  readonly instruction: string
  readonly conversation: ReadonlyArray<Message>
  readonly turn: number
  readonly trial: TrialContext | undefined
}

/**
 * What the user said on its turn: `text`, its message (absent when a module
 * user returned `null`), and whether it `ends` the conversation (a model
 * user's `###STOP###`, a module user's `null`); `usage` is what its model
 * spent on the turn.
 *
 * @category models
 * @since 0.9.0
 */
export interface Said {
  readonly text?: string | undefined
  readonly ends: boolean
  readonly usage?: ModelUsage | undefined
}

/**
 * A simulated user, as the conversation loop calls it.
 *
 * @category models
 * @since 0.9.0
 */
export type SimulatedUser = (turn: Turn) => Effect.Effect<Said, UserError, HttpClient.HttpClient>

/**
 * The simulated user failed to say its next message (its model's call
 * failed for good, its module threw or returned something else than a
 * string or null): the trial fails with it, the conversation so far kept.
 *
 * @category errors
 * @since 0.9.0
 */
export class UserError extends Schema.TaggedError<UserError>()("UserError", {
  message: Schema.String,
  /** The user model's usage on the failed turn, when it reported one. */
  usage: Schema.optionalKey(ModelUsage)
}) {}

/**
 * A `--user` spec that cannot be built (a module without the export, a
 * model user without `--user-model`): bad input, exit 2. `where` is the flag
 * and spec at fault, `problem` what is wrong.
 *
 * @category errors
 * @since 0.9.0
 */
export class UserBuildError extends Schema.TaggedError<UserBuildError>()("UserBuildError", {
  ...placedFields
}) {
  override get message(): string {
    return placedMessage(this)
  }
  /** Bad input: the command exits 2. */
  get exitCode(): 2 {
    return 2
  }
}

/**
 * A parsed `--user` spec: its kind's tag and the kind's own fields.
 *
 * @category models
 * @since 0.9.0
 */
export type Spec = { readonly _tag: string } & { readonly [field: string]: unknown }

/**
 * What building a user may need besides its spec.
 *
 * @category models
 * @since 0.9.0
 */
export interface BuildOptions {
  /** `--user-model`, for a model user. */
  readonly model: string | undefined
  /** The key a model user sends (`AGENT_TRIALS_USER_API_KEY`, else `OPENAI_API_KEY`). */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Where a path in the spec is resolved from. */
  readonly cwd: string
  /** The run's retry policy, for a model user's calls. */
  readonly retry?: RetryPolicy | undefined
}

/**
 * A kind of simulated user.
 *
 * @category models
 * @since 0.9.0
 */
export interface UserKind<S extends Spec = any> {
  readonly tag: S["_tag"]
  /** Whether a spec's text is of this kind. */
  readonly matches: (text: string) => boolean
  /** The spec's shape where kinds are listed: `module:PATH#export`. */
  readonly usage: string
  /** What the kind is, one line, for the README's table. */
  readonly doc: string
  /** The spec of a text it matches; a string is the problem, worded for `--user`. */
  readonly parse: (text: string) => S | string
  /** The spec as text again. */
  readonly format: (spec: S) => string
  /** The spec as a run's definition records it: no secret, paths resolved by `resolve`. */
  readonly recorded: (spec: S, resolve: (file: string) => string) => string
  /** A file the spec reads (an output may not replace it; the definition fingerprints it). */
  readonly input?: ((spec: S) => string | undefined) | undefined
  /** Whether `--user-model` is the model it asks. */
  readonly usesModel?: boolean | undefined
  /** The user, built before the run's first trial; a failure is worded for `--user`. */
  readonly build: (spec: S, options: BuildOptions) => Effect.Effect<SimulatedUser, UserBuildError>
}

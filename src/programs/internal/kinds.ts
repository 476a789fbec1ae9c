/**
 * The key of the `Kinds` service, apart from the built-in kinds: the report
 * and the task reader are among what the built-in kinds import, and they
 * read the service too, so a key beside `builtIn` would close an import
 * cycle. `Kinds` re-exports it.
 *
 * @since 0.7.0
 */
import { Context } from "effect"
import type { Kinds } from "../Kinds.ts"

/**
 * The kinds a program runs with (agents, scorers, dataset formats, outputs,
 * results stores), as a service: the CLI provides it once, from the kinds it
 * was made with (`Cli.make`), and every program reads it, so no call can
 * forget to pass a user's kinds on.
 *
 * **Example** (A program's kinds)
 *
 * ```ts
 * import { Effect } from "effect"
 * import { Kinds } from "agent-trials"
 *
 * export const agentKinds = Effect.map(Effect.service(Kinds.Registry), (kinds) => kinds.agents.map((k) => k.usage))
 * ```
 *
 * @category services
 * @since 0.7.0
 */
export class Registry extends Context.Service<Registry, Kinds>()("agent-trials/Kinds") {}

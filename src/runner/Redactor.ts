/**
 * The secrets one run's records lose: the command line's keys and URL
 * credentials, and those of every agent the run calls, scrubbed from every
 * string of a record no agent's own scrubber saw (a tool's result or error,
 * a module agent's output) and from the error a command prints last.
 *
 * A `Redactor` belongs to one run (one command of the CLI): two runs in one
 * process (a matrix, a viewer, a service embedding the library) each have
 * their own, so neither loses the other's secrets from its records, nor keeps
 * them after it ends. The runner makes one per run when none is provided, and
 * hands it to its trials' fibers, where each agent adds its own secrets as it
 * is called (`remember`).
 *
 * @internal
 */
import { Context, Effect, Layer, Option } from "effect"
import { build, noSecrets, rememberTraced, type Secret, secretId } from "../internal/redact.ts"

/**
 * One run's secrets. `scrub` removes each (see `redact.scrubber` for what a
 * secret is and how it is found); `nothing` is true while there is nothing
 * to remove, so a hot path may skip the scrub.
 *
 * @internal
 */
export class Secrets {
  readonly #secrets = new Map<string, Secret>()
  // Lists already added (an agent adds the same list at every call).
  readonly #added = new WeakSet<ReadonlyArray<Secret>>()
  #scrub: ((text: string) => string) | undefined = undefined

  /** Adds `secrets` (the trace loses them too: `redact.redactText`). */
  add(secrets: ReadonlyArray<Secret>): void {
    if (this.#added.has(secrets)) return
    this.#added.add(secrets)
    for (const secret of secrets) {
      rememberTraced(secret)
      const id = secretId(secret)
      if (this.#secrets.has(id)) continue
      this.#secrets.set(id, secret)
      this.#scrub = undefined
    }
  }

  /** `text` with every secret of the run removed. */
  readonly scrub = (text: string): string => (this.#scrub ??= build([...this.#secrets.values()]))(text)

  /** Whether `scrub` would remove nothing; O(1) once the scrub is built. */
  nothing(): boolean {
    return (this.#scrub ??= build([...this.#secrets.values()])) === noSecrets
  }
}

/**
 * The current run's secrets, as a service: the CLI provides one per command
 * (seeded with its command line's), the runner one per run when none is
 * provided. `Redactor.layer(["sk-..."])` around a run: its records lose that
 * key, and its agents' keys as they are called.
 *
 * @internal
 */
export class Redactor extends Context.Service<Redactor, Secrets>()("agent-trials/Redactor") {
  /** A Redactor of its own for each use of the layer, knowing `secrets` from the start. */
  static readonly layer = (secrets: ReadonlyArray<Secret> = []): Layer.Layer<Redactor> =>
    Layer.sync(Redactor, () => make(secrets))
}

/**
 * A new run's secrets, knowing `secrets`.
 *
 * @internal
 */
export const make = (secrets: ReadonlyArray<Secret> = []): Secrets => {
  const made = new Secrets()
  made.add(secrets)
  return made
}

/**
 * The Redactor provided, or a new one: what a run uses when its caller
 * provided none.
 *
 * @internal
 */
export const currentOrNew: Effect.Effect<Secrets> = Effect.map(
  Effect.serviceOption(Redactor),
  Option.getOrElse(() => new Secrets())
)

/**
 * Adds `secrets` to the current run's Redactor, if one is provided: what an
 * agent does at each call with the secrets it sends (its key, its URL's
 * credentials), so the run's records lose them wherever a tool or the agent's
 * output echoes them. The same list again costs a lookup.
 *
 * @internal
 */
export const remember = (secrets: ReadonlyArray<Secret>): Effect.Effect<void> =>
  Effect.map(Effect.serviceOption(Redactor), (redactor) => {
    if (Option.isSome(redactor)) redactor.value.add(secrets)
  })

/**
 * `text` scrubbed of the current run's secrets; as it is when none is
 * provided (a library run's caller that kept no secrets).
 *
 * @internal
 */
export const scrubCurrent = (text: string): Effect.Effect<string> =>
  Effect.map(Effect.serviceOption(Redactor), (redactor) => Option.isSome(redactor) ? redactor.value.scrub(text) : text)

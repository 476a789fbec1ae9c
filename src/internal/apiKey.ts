/**
 * The OpenAI API key from the configuration, shared by the `openai:` agent
 * and the `judge:` scorer (`OpenAiAgent.keyFromConfig` is its public name).
 *
 * @internal
 */
import { Config, Effect, Option, Redacted } from "effect"

/**
 * `OPENAI_API_KEY` when it is set and not empty.
 *
 * @category config
 * @since 0.1.0
 */
export const keyFromConfig: Effect.Effect<Redacted.Redacted<string> | undefined, Config.ConfigError> = Config
  .Redacted("OPENAI_API_KEY")
  .pipe(
    Config.option,
    Effect.map(Option.filter((key) => Redacted.value(key) !== "")),
    Effect.map(Option.getOrUndefined)
  )

/**
 * The key of a simulated user's model (`--user openai:...`):
 * `AGENT_TRIALS_USER_API_KEY` when it is set and not empty; undefined
 * otherwise (the caller falls back to `OPENAI_API_KEY`).
 *
 * @category config
 * @since 0.9.0
 */
export const userKeyFromConfig: Effect.Effect<Redacted.Redacted<string> | undefined, Config.ConfigError> = Config
  .Redacted("AGENT_TRIALS_USER_API_KEY")
  .pipe(
    Config.option,
    Effect.map(Option.filter((key) => Redacted.value(key) !== "")),
    Effect.map(Option.getOrUndefined)
  )

/**
 * The key of the `anthropic:` agents and judges: `ANTHROPIC_API_KEY` when
 * it is set and not empty.
 *
 * @category config
 * @since 0.10.0
 */
export const anthropicKeyFromConfig: Effect.Effect<Redacted.Redacted<string> | undefined, Config.ConfigError> = Config
  .Redacted("ANTHROPIC_API_KEY")
  .pipe(
    Config.option,
    Effect.map(Option.filter((key) => Redacted.value(key) !== "")),
    Effect.map(Option.getOrUndefined)
  )

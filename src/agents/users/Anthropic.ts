/**
 * `--user anthropic:BASE_URL`: a model on Anthropic's Messages API plays
 * the user, as `openai:` does on chat completions (`--user-model`; the key
 * from `AGENT_TRIALS_USER_API_KEY`, else `ANTHROPIC_API_KEY`).
 *
 * @since 0.10.0
 */
import { Effect } from "effect"
import { anthropicKeyFromConfig, userKeyFromConfig } from "../../internal/apiKey.ts"
import { redactUrl } from "../../internal/redact.ts"
import { make } from "./Model.ts"
import { type UserKind, UserBuildError } from "./User.ts"

type AnthropicSpec = { readonly _tag: "Anthropic"; readonly baseUrl: string }

/**
 * `anthropic:BASE_URL`: the user kind.
 *
 * @category kinds
 * @since 0.10.0
 */
export const kind: UserKind<AnthropicSpec> = {
  tag: "Anthropic",
  matches: (text) => text.startsWith("anthropic:"),
  usage: "anthropic:BASE_URL",
  doc: "A model plays the user, one Messages API call per turn (needs `--user-model`; the key from " +
    "`AGENT_TRIALS_USER_API_KEY`, else `ANTHROPIC_API_KEY`); it ends the conversation with `###STOP###`",
  parse: (text) => {
    const baseUrl = text.slice("anthropic:".length)
    return URL.canParse(baseUrl) && /^https?:/.test(baseUrl)
      ? { _tag: "Anthropic", baseUrl }
      : `--user anthropic:${redactUrl(baseUrl)}: expected anthropic:BASE_URL with an http(s) URL, e.g. anthropic:https://api.anthropic.com`
  },
  format: (spec) => `anthropic:${spec.baseUrl}`,
  recorded: (spec) => `anthropic:${redactUrl(spec.baseUrl)}`,
  usesModel: true,
  build: (spec, options) => {
    const shown = `--user anthropic:${redactUrl(spec.baseUrl)}`
    if (options.model === undefined || options.model === "") {
      return Effect.fail(new UserBuildError({ problem: `${shown} needs --user-model NAME` }))
    }
    const model = options.model
    // Its own key first, as the openai: user's; never OPENAI_API_KEY.
    return Effect.gen(function*() {
      const key = (yield* userKeyFromConfig.pipe(Effect.orElseSucceed(() => undefined))) ??
        (yield* anthropicKeyFromConfig.pipe(Effect.orElseSucceed(() => undefined)))
      if (key === undefined) {
        return yield* new UserBuildError({ problem: `${shown} needs ANTHROPIC_API_KEY (or AGENT_TRIALS_USER_API_KEY); neither is set` })
      }
      return make({ baseUrl: spec.baseUrl, model, apiKey: key, retry: options.retry, api: "messages" })
    })
  }
}

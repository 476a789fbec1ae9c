/**
 * `judge:BASE_URL`: an LLM grader on an OpenAI-compatible endpoint, asking
 * the run's judge model.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { anthropicKeyFromConfig, keyFromConfig } from "../../internal/apiKey.ts"
import { redactUrl } from "../../internal/redact.ts"
import * as Judge from "../Judge.ts"
import { ScorerSpecError, type ScorerKind, type SpecBase } from "../Kind.ts"

/**
 * A parsed `judge` spec.
 *
 * @category models
 * @since 0.3.0
 */
export interface JudgeSpec extends SpecBase {
  readonly _tag: "Judge"
  readonly baseUrl: string
  /** `messages` for `judge:anthropic:URL` (Anthropic's Messages API); chat completions when undefined. */
  readonly api?: "messages" | undefined
  readonly trajectory?: boolean | undefined
}

const TRAJECTORY = ",trajectory"
const ANTHROPIC = "anthropic:"

// `judge:anthropic:URL` shows its URL redacted after the prefix.
const shownUrl = (url: string) => url.startsWith(ANTHROPIC) ? `${ANTHROPIC}${redactUrl(url.slice(ANTHROPIC.length))}` : redactUrl(url)

/**
 * The `judge` kind: its parse, build and words.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: ScorerKind<JudgeSpec> = {
  kind: "judge",
  tag: "Judge",
  usage: "judge:BASE_URL",
  help: "judge:BASE_URL",
  syntax: "`judge:[anthropic:]BASE_URL[,trajectory]` (with `--judge-model NAME`)",
  doc: "an LLM on an OpenAI-compatible endpoint (`judge:anthropic:URL`: Anthropic's Messages API, the key from " +
    "`ANTHROPIC_API_KEY`) ends with `GRADE: C` (`GRADE: I` fails); its answer is kept as the " +
    "explanation; `trajectory` puts the agent's steps (model turns, tool calls and results) in its prompt",
  usesJudgeModel: true,
  // The URL may carry credentials.
  shown: (rest) =>
    rest?.endsWith(TRAJECTORY) === true
      ? `judge:${shownUrl(rest.slice(0, -TRAJECTORY.length))}${TRAJECTORY}`
      : `judge:${shownUrl(rest ?? "")}`,
  parse: (rest, { bad, base }) => {
    const trajectory = rest?.endsWith(TRAJECTORY) === true
    const given = trajectory ? rest!.slice(0, -TRAJECTORY.length) : rest ?? ""
    const messages = given.startsWith(ANTHROPIC)
    const url = messages ? given.slice(ANTHROPIC.length) : given
    if (messages && !(URL.canParse(url) && /^https?:/i.test(url))) {
      return bad("expected judge:anthropic:BASE_URL with an http(s) URL, e.g. judge:anthropic:https://api.anthropic.com")
    }
    return URL.canParse(url) && /^https?:/i.test(url)
      ? {
        _tag: "Judge",
        ...base("judge"),
        baseUrl: url,
        ...(messages ? { api: "messages" as const } : undefined),
        ...(trajectory ? { trajectory } : undefined)
      }
      : bad("expected judge:BASE_URL with an http(s) URL, e.g. judge:https://api.openai.com/v1")
  },
  build: (spec, { options }) => {
    const model = options.judgeModel
    if (model === undefined || model === "") {
      return Effect.fail(new ScorerSpecError({ problem: `--score ${spec.shown} needs a judge model (--judge-model NAME)` }))
    }
    const key = spec.api === "messages"
      ? Effect.mapError(
        anthropicKeyFromConfig,
        (e) => new ScorerSpecError({ where: `--score ${spec.shown}`, problem: `cannot read ANTHROPIC_API_KEY: ${e.message}` })
      ).pipe(Effect.flatMap((found) =>
        found === undefined
          ? Effect.fail(new ScorerSpecError({ problem: `--score ${spec.shown} needs ANTHROPIC_API_KEY (sent as x-api-key); it is not set` }))
          : Effect.succeed(found)
      ))
      : options.apiKey === undefined
      ? Effect.mapError(
        keyFromConfig,
        (e) => new ScorerSpecError({ where: `--score ${spec.shown}`, problem: `cannot read OPENAI_API_KEY: ${e.message}` })
      )
      : Effect.succeed(options.apiKey)
    if (spec.api === "messages" && options.judgeRequest?.seed !== undefined) {
      return Effect.fail(
        new ScorerSpecError({ problem: `--score ${spec.shown}: the Messages API takes no seed: drop --judge-seed` })
      )
    }
    return Effect.map(
      key,
      (apiKey) =>
        Judge.make({
          name: spec.name,
          baseUrl: spec.baseUrl,
          model,
          apiKey,
          ...(spec.api === undefined ? undefined : { api: spec.api }),
          request: options.judgeRequest,
          timeout: options.timeout,
          retry: options.retry,
          trajectory: spec.trajectory
        })
    )
  }
}

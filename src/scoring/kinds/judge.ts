/**
 * `judge:BASE_URL`: an LLM grader on an OpenAI-compatible endpoint, asking
 * the run's judge model.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import { keyFromConfig } from "../../internal/apiKey.ts"
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
  readonly trajectory?: boolean | undefined
}

const TRAJECTORY = ",trajectory"

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
  syntax: "`judge:BASE_URL[,trajectory]` (with `--judge-model NAME`)",
  doc: "an LLM on an OpenAI-compatible endpoint ends with `GRADE: C` (`GRADE: I` fails); its answer is kept as the " +
    "explanation; `trajectory` puts the agent's steps (model turns, tool calls and results) in its prompt",
  usesJudgeModel: true,
  // The URL may carry credentials.
  shown: (rest) =>
    rest?.endsWith(TRAJECTORY) === true
      ? `judge:${redactUrl(rest.slice(0, -TRAJECTORY.length))}${TRAJECTORY}`
      : `judge:${redactUrl(rest ?? "")}`,
  parse: (rest, { bad, base }) => {
    const trajectory = rest?.endsWith(TRAJECTORY) === true
    const url = trajectory ? rest!.slice(0, -TRAJECTORY.length) : rest ?? ""
    return URL.canParse(url) && /^https?:/i.test(url)
      ? { _tag: "Judge", ...base("judge"), baseUrl: url, ...(trajectory ? { trajectory } : undefined) }
      : bad("expected judge:BASE_URL with an http(s) URL, e.g. judge:https://api.openai.com/v1")
  },
  build: (spec, { options }) => {
    const model = options.judgeModel
    if (model === undefined || model === "") {
      return Effect.fail(new ScorerSpecError({ problem: `--score ${spec.shown} needs a judge model (--judge-model NAME)` }))
    }
    return Effect.map(
      options.apiKey === undefined
        ? Effect.mapError(
          keyFromConfig,
          (e) => new ScorerSpecError({ where: `--score ${spec.shown}`, problem: `cannot read OPENAI_API_KEY: ${e.message}` })
        )
        : Effect.succeed(options.apiKey),
      (apiKey) =>
        Judge.make({
          name: spec.name,
          baseUrl: spec.baseUrl,
          model,
          apiKey,
          timeout: options.timeout,
          retry: options.retry,
          trajectory: spec.trajectory
        })
    )
  }
}

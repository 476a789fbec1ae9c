/**
 * The request options of `run` and `score` as the agent and the judges take
 * them: the flags' values gathered into a `Request.Options`, a `--system
 * @FILE` (or `--judge-system @FILE`) read from its file.
 *
 * @internal
 */
import { Effect, FileSystem, Path, Schema } from "effect"
import type * as Request from "../../domain/Request.ts"
import { whereFields } from "../../domain/internal/where.ts"

/**
 * A `--system @FILE` whose file cannot be read: `flag` and `file` name it.
 *
 * @internal
 */
export class RequestInputError extends Schema.TaggedError<RequestInputError>()("RequestInputError", {
  message: Schema.String,
  ...whereFields
}) {}

/** The flags' values of one model's requests (the agent's or the judges'). @internal */
export interface Given {
  readonly system?: string | undefined
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly seed?: number | undefined
  readonly headers?: ReadonlyArray<Request.Header> | undefined
  readonly body?: Readonly<Record<string, unknown>> | undefined
}

/**
 * The options of `given` (undefined when none is given), `system` read
 * from its file when it is `@FILE` (resolved against `cwd`); `prefix` is
 * `judge-` for a judge's flags, as messages name them.
 *
 * @internal
 */
export const resolve = (
  given: Given,
  prefix: "" | "judge-",
  cwd: string
): Effect.Effect<Request.Options | undefined, RequestInputError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const headers = given.headers !== undefined && given.headers.length > 0 ? given.headers : undefined
    const options: Request.Options = {
      ...(given.system === undefined ? undefined : { system: yield* systemOf(given.system, `--${prefix}system`, cwd) }),
      ...(given.temperature === undefined ? undefined : { temperature: given.temperature }),
      ...(given.maxOutputTokens === undefined ? undefined : { maxOutputTokens: given.maxOutputTokens }),
      ...(given.seed === undefined ? undefined : { seed: given.seed }),
      ...(headers === undefined ? undefined : { headers }),
      ...(given.body === undefined ? undefined : { body: given.body })
    }
    return Object.keys(options).length === 0 ? undefined : options
  })

/**
 * The judges' flags of a command's values (`--judge-system`, ...), as `resolve` takes them.
 *
 * @internal
 */
export const judgeGiven = (values: {
  readonly judgeSystem?: string | undefined
  readonly judgeTemperature?: number | undefined
  readonly judgeMaxOutputTokens?: number | undefined
  readonly judgeSeed?: number | undefined
  readonly judgeHeaders?: ReadonlyArray<Request.Header> | undefined
  readonly judgeRequestJson?: Readonly<Record<string, unknown>> | undefined
}): Given => ({
  system: values.judgeSystem,
  temperature: values.judgeTemperature,
  maxOutputTokens: values.judgeMaxOutputTokens,
  seed: values.judgeSeed,
  headers: values.judgeHeaders,
  body: values.judgeRequestJson
})

/**
 * The agent's flags of `run`'s values (`--system`, ...), as `resolve` takes them.
 *
 * @internal
 */
export const agentGiven = (values: {
  readonly system?: string | undefined
  readonly temperature?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly modelSeed?: number | undefined
  readonly headers?: ReadonlyArray<Request.Header> | undefined
  readonly requestJson?: Readonly<Record<string, unknown>> | undefined
}): Given => ({
  system: values.system,
  temperature: values.temperature,
  maxOutputTokens: values.maxOutputTokens,
  seed: values.modelSeed,
  headers: values.headers,
  body: values.requestJson
})

/**
 * The agent's request flags that are given, as `--flag` names: what a run
 * refuses with an agent that asks no model.
 *
 * @internal
 */
export const givenAgentFlags = (given: Given): Array<string> =>
  [
    ["--system", given.system],
    ["--temperature", given.temperature],
    ["--max-output-tokens", given.maxOutputTokens],
    ["--model-seed", given.seed],
    ["--header", given.headers !== undefined && given.headers.length > 0 ? given.headers : undefined],
    ["--request", given.body]
  ].flatMap(([flag, value]) => value === undefined ? [] : [String(flag)])

const systemOf = (text: string, flag: string, cwd: string) =>
  Effect.gen(function*() {
    if (!text.startsWith("@")) return text
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = text.slice(1)
    return yield* fs.readFileString(path.resolve(cwd, file)).pipe(
      Effect.mapError((e) =>
        new RequestInputError({
          message: `${flag} @${file}: cannot read ${file} (${e.reason._tag === "NotFound" ? "no such file" : e.message})`,
          flag,
          file
        })
      )
    )
  })

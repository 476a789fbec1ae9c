/**
 * What a model request carries besides its messages, as a team sets it: a
 * system prompt, a temperature, an output token limit, a seed, headers of
 * its own, and any other body field (`--system`, `--temperature`,
 * `--max-output-tokens`, `--model-seed`, `--header`, `--request`; a judge's
 * are the `--judge-*` ones). One value, applied to a chat completions body
 * (`openai:`) or a Messages API body (`anthropic:`), and recorded as flags
 * (header values redacted) in a run's definition.
 *
 * @since 0.10.0
 */

/**
 * The options of a request; each is left out of the body when undefined.
 *
 * @category models
 * @since 0.10.0
 */
export interface Options {
  /** The system prompt: a chat completion's first message (`role: system`), the Messages API's `system`. */
  readonly system?: string | undefined
  readonly temperature?: number | undefined
  /** `max_tokens` of either API (the Messages API requires one: 4096 when undefined). */
  readonly maxOutputTokens?: number | undefined
  /** A chat completion's `seed` (the Messages API has none). */
  readonly seed?: number | undefined
  /** Sent with every request, after the API's own (a name given twice: the last value). */
  readonly headers?: ReadonlyArray<Header> | undefined
  /** Merged into the body last, field by field: its fields win. */
  readonly body?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A header of `--header NAME=VALUE`.
 *
 * @category models
 * @since 0.10.0
 */
export interface Header {
  readonly name: string
  readonly value: string
}

/**
 * The headers as one record (a later one of a name wins).
 *
 * @category getters
 * @since 0.10.0
 */
export const headersOf = (options: Options | undefined): Record<string, string> | undefined =>
  options?.headers === undefined || options.headers.length === 0
    ? undefined
    : Object.fromEntries(options.headers.map((h) => [h.name.toLowerCase(), h.value]))

/**
 * A chat completions body with the options: the system prompt first among
 * the messages, then `temperature`, `max_tokens`, `seed`, then `body`'s fields.
 *
 * **Example** (A system prompt and a temperature)
 *
 * ```ts
 * import { Request } from "agent-trials"
 *
 * Request.chatBody({ model: "m", messages: [{ role: "user", content: "hi" }] }, { system: "Be brief.", temperature: 0 })
 * // { model: "m", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }], temperature: 0 }
 * ```
 *
 * @category bodies
 * @since 0.10.0
 */
export const chatBody = (
  body: { readonly messages: ReadonlyArray<unknown> } & Record<string, unknown>,
  options: Options | undefined
): Record<string, unknown> => {
  if (options === undefined) return body
  const messages = options.system === undefined ? body.messages : [{ role: "system", content: options.system }, ...body.messages]
  return {
    ...body,
    messages,
    ...(options.temperature === undefined ? undefined : { temperature: options.temperature }),
    ...(options.maxOutputTokens === undefined ? undefined : { max_tokens: options.maxOutputTokens }),
    ...(options.seed === undefined ? undefined : { seed: options.seed }),
    ...options.body
  }
}

/**
 * A Messages API body with the options: `system`, `max_tokens` (`fallback`
 * when not given: the API requires it), `temperature`, then `body`'s fields.
 *
 * @category bodies
 * @since 0.10.0
 */
export const messagesBody = (
  body: Record<string, unknown>,
  options: Options | undefined,
  fallback: number
): Record<string, unknown> => ({
  ...body,
  ...(options?.system === undefined ? undefined : { system: options.system }),
  max_tokens: options?.maxOutputTokens ?? fallback,
  ...(options?.temperature === undefined ? undefined : { temperature: options.temperature }),
  ...options?.body
})

/**
 * The options as the flags that give them (`prefix` `judge-` for a judge's),
 * header values redacted, the system prompt and body in full: what a run's
 * definition records, so `--resume` refuses another request.
 *
 * @category formatting
 * @since 0.10.0
 */
export const flags = (options: Options | undefined, prefix = ""): Array<string> => {
  if (options === undefined) return []
  const out: Array<string> = []
  if (options.system !== undefined) out.push(`--${prefix}system ${JSON.stringify(options.system)}`)
  if (options.temperature !== undefined) out.push(`--${prefix}temperature ${options.temperature}`)
  if (options.maxOutputTokens !== undefined) out.push(`--${prefix}max-output-tokens ${options.maxOutputTokens}`)
  if (options.seed !== undefined) out.push(`--${prefix}${prefix === "" ? "model-" : ""}seed ${options.seed}`)
  for (const header of options.headers ?? []) out.push(`--${prefix}header ${header.name.toLowerCase()}=<redacted>`)
  if (options.body !== undefined) out.push(`--${prefix}request ${JSON.stringify(options.body)}`)
  return out
}

/**
 * Whether the options ask for anything.
 *
 * @category getters
 * @since 0.10.0
 */
export const isEmpty = (options: Options | undefined): boolean => flags(options).length === 0

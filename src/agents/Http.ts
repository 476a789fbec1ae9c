/**
 * An agent behind an HTTP endpoint: the task goes out as JSON, an
 * `AgentOutput` comes back as JSON. Uses Effect's `HttpClient`, so
 * interrupting a trial aborts its request.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { HttpClient } from "effect/http"
import type { Agent } from "../Agent.ts"
import { InvalidAgentOutput } from "../Errors.ts"
import { AgentOutput, type AgentEvalTask } from "../Trial.ts"
import type { HttpAgentError } from "./HttpErrors.ts"
import { displayUrl, postJson, preview, scrubber } from "./internal/post.ts"

/**
 * Options of an HTTP agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Sent with every request. Values of credential headers are scrubbed from error messages. */
  readonly headers?: Record<string, string> | undefined
}

const decodeOutput = Schema.decodeUnknownExit(AgentOutput)

/**
 * POSTs each task as JSON to `url`. A 2xx body must be an `AgentOutput`
 * (`{ output_text, response?, metadata? }`); anything else is
 * `InvalidAgentOutput`, a non-2xx status `HttpStatusError`, no answer
 * `NetworkError`.
 *
 * @example
 * ```ts
 * const agent = HttpAgent.make("http://127.0.0.1:8080/agent")
 * const trials = runTrials(tasks, agent, { parallelism: 8 }).pipe(Stream.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (url: string, options?: Options): Agent<HttpAgentError, HttpClient.HttpClient> => {
  const headers = options?.headers ?? {}
  const scrub = scrubber(credentialValues(headers))
  const where = scrub(displayUrl(url))
  return Effect.fn("HttpAgent.call")(function*(task: AgentEvalTask) {
    const body = yield* postJson({ url, body: task, headers, scrub })
    const exit = decodeOutput(body)
    if (exit._tag === "Success") return exit.value
    return yield* new InvalidAgentOutput({
      message: `Response from ${where} is not { output_text: string, response?, metadata?: object }: ${
        preview(JSON.stringify(body) ?? String(body))
      }`
    })
  })
}

// Header values that are credentials, and for `Scheme token` values the bare
// token too, since a server may echo either.
const credentialValues = (headers: Record<string, string>): Array<string> => {
  const out: Array<string> = []
  for (const [name, value] of Object.entries(headers)) {
    if (!/^(authorization|proxy-authorization|cookie|x-api-key|api-key)$/i.test(name)) continue
    out.push(value)
    const token = /^\S+\s+(\S+)$/.exec(value.trim())?.[1]
    if (token !== undefined) out.push(token)
  }
  return out
}

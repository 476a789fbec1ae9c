/**
 * An agent behind an HTTP endpoint: the task goes out as JSON, an
 * `AgentOutput` comes back as JSON. Uses Effect's `HttpClient`, so
 * interrupting a trial aborts its request.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { Headers, type HttpClient } from "effect/http"
import type { Agent, TrialContext } from "../domain/Agent.ts"
import { InvalidAgentOutput } from "../domain/Errors.ts"
import { AgentOutput, type AgentEvalTask } from "../domain/Trial.ts"
import type { HttpAgentError } from "../domain/HttpErrors.ts"
import { isPlainOutput } from "../domain/internal/agent.ts"
import { postJson, preview } from "../domain/internal/post.ts"
import { redactUrl, type Secret, scrubber, urlCredentials, urlSecrets } from "../internal/redact.ts"
import * as Redactor from "../runner/Redactor.ts"
import * as ResponseCache from "../cache/ResponseCache.ts"
import type { AgentKind } from "./Kind.ts"
import { leanPost } from "./internal/lean.ts"

/**
 * Options of an HTTP agent.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Sent with every request. Values of the headers named in
   * `Headers.CurrentRedactedNames` (Effect's list of secret headers) are
   * scrubbed from every body and message.
   */
  readonly headers?: Record<string, string> | undefined
}

const decodeOutput = Schema.decodeUnknownExit(AgentOutput)

/**
 * POSTs each task as JSON to `url`. A 2xx body must be an `AgentOutput`
 * (`{ output_text, response?, metadata? }`); anything else is
 * `InvalidAgentOutput`, a non-2xx status `HttpStatusError`, no answer
 * `NetworkError`. Messages show the URL through `redactUrl` (no userinfo,
 * no query values), and its password and query values are scrubbed from
 * every body, as are credential header values: each where it stands as a
 * whole token, if it has 8 characters or more (a shorter password or
 * credential only after its name, `user:` or `api_key=`). With a
 * `ResponseCache` provided (`run --cache`), each call goes through it.
 *
 * **Example** (A local agent server)
 *
 * ```ts
 * import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
 * import { Stream } from "effect"
 * import { HttpAgent, Runner } from "agent-trials"
 *
 * const agent = HttpAgent.make("http://127.0.0.1:8080/agent")
 * const tasks = Stream.make({ id: "t1", inputs: { question: "2 + 2?" } })
 * const trials = Runner.runTrials(tasks, agent, { parallelism: 8 }).pipe(Stream.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (url: string, options?: Options): Agent<HttpAgentError, HttpClient.HttpClient> => {
  const headers = options?.headers ?? {}
  const fromUrl = urlSecrets(url)
  // The list is read per call, so a program that provides its own is obeyed;
  // the scrubber is rebuilt only when the list changes.
  let built: {
    readonly names: ReadonlyArray<string | RegExp>
    readonly scrub: (text: string) => string
    readonly where: string
    // What every record of the run loses (`Redactor`).
    readonly everywhere: ReadonlyArray<Secret>
  } | undefined
  const scrubFor = (names: ReadonlyArray<string | RegExp>) => {
    if (built?.names !== names) {
      const everywhere = [...urlCredentials(url), ...credentialValues(headers, names)]
      const scrub = scrubber(everywhere, fromUrl)
      built = { names, scrub, where: scrub(redactUrl(url)), everywhere }
    }
    return built
  }
  const decode = (where: string) => (body: unknown) => {
    // The common shape without the Schema's decoder; anything else through it.
    if (isPlainOutput(body)) return Effect.succeed(body)
    const exit = decodeOutput(body)
    if (exit._tag === "Success") return Effect.succeed(exit.value)
    return Effect.fail(
      new InvalidAgentOutput({
        message: `Response from ${where} is not { output_text: string, response?, metadata?: object }: ${
          preview(JSON.stringify(body) ?? String(body))
        }`
      })
    )
  }
  const full = Effect.fn("HttpAgent.call")(function*(task: AgentEvalTask, trial?: TrialContext) {
    const { everywhere, scrub, where } = scrubFor(yield* Headers.CurrentRedactedNames)
    yield* Redactor.remember(everywhere)
    // Through the response cache when the run provides one (`--cache`).
    return yield* ResponseCache.call(
      { kind: "http", url, body: task, trial },
      postJson({ url, body: task, headers, scrub, where }),
      decode(where)
    )
  })
  // Without a tracer or a cache, the lean path (`internal/lean.ts`).
  return (task, trial) =>
    Effect.withFiber((fiber) => {
      const { everywhere, scrub, where } = scrubFor(fiber.getRef(Headers.CurrentRedactedNames))
      return leanPost(fiber, everywhere, { url, body: task, headers, scrub, where }, decode(where)) ?? full(task, trial)
    })
}

// Values of the headers Effect treats as secret, and for `Scheme token` values
// the bare token too, since a server may echo either.
const credentialValues = (headers: Record<string, string>, names: ReadonlyArray<string | RegExp>): Array<string> => {
  const out: Array<string> = []
  for (const [name, value] of Object.entries(headers)) {
    if (!Headers.isRedactedName(name, names)) continue
    out.push(value)
    const token = /^\S+\s+(\S+)$/.exec(value.trim())?.[1]
    if (token !== undefined) out.push(token)
  }
  return out
}

/**
 * `http(s)://URL`: the agent kind.
 *
 * @category kinds
 * @since 0.3.0
 */
export const kind: AgentKind<{ readonly _tag: "Http"; readonly url: string }> = {
  tag: "Http",
  matches: (text) => text.startsWith("http://") || text.startsWith("https://"),
  usage: "http(s)://URL",
  help: "http(s)://URL",
  doc: "An HTTP endpoint: each task POSTed as JSON, an `AgentOutput` back as JSON",
  parse: (text) => URL.canParse(text) ? { _tag: "Http", url: text } : `--agent ${redactUrl(text)}: not a valid URL`,
  format: (spec) => spec.url,
  recorded: (spec) => redactUrl(spec.url),
  build: (spec) => Effect.succeed(make(spec.url))
}

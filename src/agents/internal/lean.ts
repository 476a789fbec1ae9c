/**
 * The HTTP agents' call as a run without a tracer makes it: the run's raw
 * POST (`RawPost`), its answer decoded in the callback that waits for it. No
 * span, no stack frame and no generator per call: `Effect.fn` makes all three
 * for every call, and with no tracer nothing reads them (at parallelism 64
 * that was about a tenth of an `openai:` trial's CPU). Anything else (a
 * tracer, a response cache, a program without the raw POST) takes the
 * agent's full path.
 *
 * @internal
 */
import { Context, type Effect, type Fiber, Tracer } from "effect"
import { type PostOptions, postRawThen } from "../../domain/internal/post.ts"
import { RawPost } from "../../domain/internal/rawPost.ts"
import type { HttpBodyError, HttpStatusError, NetworkError } from "../../domain/HttpErrors.ts"
import type { InvalidAgentOutput } from "../../domain/Errors.ts"
import type { Secret } from "../../internal/redact.ts"
import { ResponseCache } from "../../cache/ResponseCache.ts"
import { Redactor } from "../../runner/Redactor.ts"

/**
 * The call on the lean path, with `secrets` added to the run's `Redactor`
 * as the full path's `Redactor.remember` does; `undefined` when the full
 * path must run (a tracer, a response cache, no raw POST, a URL that does
 * not parse).
 *
 * @internal
 */
export const leanPost = <A, E>(
  fiber: Fiber.Fiber<unknown, unknown>,
  secrets: ReadonlyArray<Secret>,
  options: PostOptions & { readonly where: string },
  decode: (body: unknown) => Effect.Effect<A, E>
): Effect.Effect<A, E | HttpStatusError | NetworkError | InvalidAgentOutput | HttpBodyError> | undefined => {
  const raw = fiber.getRef(RawPost)
  if (raw === undefined || fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer) return undefined
  const context = fiber.context
  if (Context.getOrUndefined(context, ResponseCache) !== undefined) return undefined
  const call = postRawThen(raw, options, decode)
  if (call !== undefined) Context.getOrUndefined(context, Redactor)?.add(secrets)
  return call
}

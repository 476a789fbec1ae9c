/**
 * An MCP server's tools through `effect/ai`'s `McpClient`: connected in the
 * caller's scope (which stops a stdio server when it closes), listed, and
 * called through `McpClient.toolkit`, so nothing depends on one server's
 * tool names. A server that dies (its transport closes) is restarted once,
 * and the call that met the death is made again; a second death fails each
 * later trial with `McpServerFailed`, naming the server.
 *
 * @internal
 */
import { Cause, Context, Effect, Exit, Layer, Schema, Scope, Semaphore, Stream } from "effect"
import { McpClient, type McpClientError } from "effect/ai"
import { packageVersion } from "../../internal/packageVersion.ts"
import type { Tools } from "../ToolLoop.ts"
import type { Requirements } from "../ToolSource.ts"

/**
 * The MCP server died again after its one restart: the trials that need it
 * fail with this (not a tool error the model sees).
 *
 * @internal
 */
export class McpServerFailed extends Schema.TaggedError<McpServerFailed>()("McpServerFailed", {
  message: Schema.String
}) {}

const died = (cause: Cause.Cause<unknown>): boolean => {
  const error = Cause.squash(cause) as { readonly reason?: { readonly _tag?: unknown } } | null
  const tag = error?.reason?._tag
  return tag === "TransportError" || tag === "ClosedError"
}

/** @internal */
export const connect = (
  where: string,
  layer: Layer.Layer<McpClient.McpClient, McpClientError.McpClientError, Exclude<Requirements, Scope.Scope>>
): Effect.Effect<Tools, string, Requirements> =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const services = yield* Effect.context<Exclude<Requirements, Scope.Scope>>()
    const open = Effect.gen(function*() {
      const own = yield* Scope.fork(scope)
      const context = yield* Layer.buildWithScope(layer, own)
      const tools = (yield* McpClient.toolkit(Context.get(context, McpClient.McpClient))) as unknown as Tools
      return { scope: own, tools }
    }).pipe(
      Effect.provideContext(services),
      Effect.mapError((error) => `--tools ${where}: cannot connect to the MCP server: ${error.message}`)
    )
    let current = yield* open
    let generation = 0
    let restarted = false
    const lock = yield* Semaphore.make(1)
    const failed = (why: string) => new McpServerFailed({ message: `--tools ${where}: the MCP server ${why}` })
    // Restarts once, unless another call already did since `seen`.
    const restart = (seen: number) =>
      lock.withPermits(1)(Effect.gen(function*() {
        if (generation !== seen) return
        if (restarted) return yield* Effect.die(failed("died again after its one restart"))
        restarted = true
        yield* Scope.close(current.scope, Exit.void)
        current = yield* open.pipe(Effect.mapError((message) => failed(`died and could not be restarted (${message})`)), Effect.orDie)
        generation++
      }))
    const call = (name: string, params: unknown, id: string | undefined) =>
      (current.tools.handle as (n: string, p: unknown, i?: string) => Effect.Effect<Stream.Stream<unknown, unknown>, unknown>)(
        name,
        params,
        id
      ).pipe(Effect.flatMap(Stream.runCollect))
    // A call that meets a death is made again on the server restarted, and
    // again through this check: the made-again call that meets the second
    // death fails its trial too, never reaching the model as a tool error.
    const attempt = (name: string, params: unknown, id: string | undefined): Effect.Effect<ReadonlyArray<unknown>, unknown> =>
      Effect.suspend(() => {
        const seen = generation
        return call(name, params, id).pipe(
          Effect.catchCause((cause) =>
            died(cause) ? Effect.andThen(restart(seen), attempt(name, params, id)) : Effect.failCause(cause)
          )
        )
      })
    return {
      get tools() {
        return current.tools.tools
      },
      handle: ((name: string, params: unknown, id?: string) =>
        Effect.map(attempt(name, params, id), (results) => Stream.fromIterable(results))) as Tools["handle"]
    } satisfies Tools
  })

/** @internal */
export const clientInfo = () => ({ name: "agent-trials", version: packageVersion() })

/**
 * An MCP server's tools through `effect/ai`'s `McpClient`: connected in the
 * caller's scope (which stops a stdio server when it closes), listed, and
 * called through `McpClient.toolkit`, so nothing depends on one server's
 * tool names. A server that dies (its transport closes) is restarted once,
 * and the call that met the death is made again; a second death fails each
 * later trial with `McpServerFailed`, naming the server. A server that
 * does not answer `initialize` or `tools/list` within the timeout fails
 * with `McpServerFailed` too; every failure's message ends with the last
 * lines of the server's stderr.
 *
 * @internal
 */
import { Cause, Context, Duration, Effect, Exit, Layer, Scope, Semaphore, Stream } from "effect"
import { McpClient, type McpClientError } from "effect/ai"
import { packageVersion } from "../../../internal/packageVersion.ts"
import type { Tools } from "../Loop.ts"
import { McpServerFailed, type Requirements, ToolConnectError } from "../Source.ts"
import * as StderrTail from "./stderrTail.ts"

/**
 * How long a server may take to answer `initialize`, and then `tools/list`
 * (`--mcp-timeout`): 30 seconds, for a server that installs or loads a
 * model as it starts on a slow machine, yet short enough that a server
 * that never answers stops the run before a long wait.
 *
 * @internal
 */
export const DEFAULT_TIMEOUT = Duration.seconds(30)

// `McpClient`'s names of its bounded steps, as the protocol names them.
const STEPS: Record<string, string> = { initialization: "initialize", "tools discovery": "tools/list" }

const died = (cause: Cause.Cause<unknown>): boolean => {
  const error = Cause.squash(cause) as { readonly reason?: { readonly _tag?: unknown } } | null
  const tag = error?.reason?._tag
  return tag === "TransportError" || tag === "ClosedError"
}

/** @internal */
export const connect = (
  where: string,
  layer: Layer.Layer<McpClient.McpClient, McpClientError.McpClientError, Exclude<Requirements, Scope.Scope>>,
  options: { readonly timeout: Duration.Duration }
): Effect.Effect<Tools, ToolConnectError | McpServerFailed, Requirements> =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const services = yield* Effect.context<Exclude<Requirements, Scope.Scope>>()
    const open = Effect.gen(function*() {
      const tail = yield* StderrTail.make
      const own = yield* Scope.fork(scope)
      return yield* Effect.gen(function*() {
        const context = yield* Layer.buildWithScope(Layer.provide(layer, tail.layer), own)
        const tools = (yield* McpClient.toolkit(Context.get(context, McpClient.McpClient))) as unknown as Tools
        return { scope: own, tools, tail }
      }).pipe(
        Effect.catch((error: McpClientError.McpClientError) =>
          Effect.flatMap(tail.suffix, (stderr): Effect.Effect<never, ToolConnectError | McpServerFailed> => {
            const reason = error.reason as { readonly _tag: string; readonly operation?: string }
            return reason._tag === "TimeoutError"
              ? Effect.fail(
                new McpServerFailed({
                  where: `--tools ${where}`,
                  problem: `did not answer ${STEPS[reason.operation ?? ""] ?? reason.operation} ` +
                    `within ${Duration.format(options.timeout)} (--mcp-timeout)`,
                  stderr
                })
              )
              : Effect.fail(new ToolConnectError({ where: `--tools ${where}`, problem: `cannot connect to the MCP server: ${error.message}${stderr}` }))
          })
        ),
        // A server that failed to connect is stopped now, not at the end of the run.
        Effect.onError(() => Scope.close(own, Exit.void))
      )
    }).pipe(Effect.provideContext(services))
    let current = yield* open
    let generation = 0
    let restarted = false
    const lock = yield* Semaphore.make(1)
    const failed = (problem: string, stderr: string) => new McpServerFailed({ where: `--tools ${where}`, problem, stderr })
    // Restarts once, unless another call already did since `seen`.
    const restart = (seen: number) =>
      lock.withPermits(1)(Effect.gen(function*() {
        if (generation !== seen) return
        if (restarted) return yield* Effect.die(failed("died again after its one restart", yield* current.tail.suffix))
        restarted = true
        yield* Scope.close(current.scope, Exit.void)
        current = yield* open.pipe(
          Effect.mapError((e) => failed(`died and could not be restarted (${typeof e === "string" ? e : e.message})`, "")),
          Effect.orDie
        )
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

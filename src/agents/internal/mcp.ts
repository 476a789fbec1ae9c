/**
 * An MCP server's tools through `effect/ai`'s `McpClient`: connected in the
 * caller's scope (which stops a stdio server when it closes), listed, and
 * called through `McpClient.toolkit`, so nothing depends on one server's
 * tool names.
 *
 * @internal
 */
import { Context, Effect, Layer, Scope } from "effect"
import { McpClient, type McpClientError } from "effect/ai"
import type { Tools } from "../ToolLoop.ts"
import type { Requirements } from "../ToolSource.ts"
import { packageVersion } from "../../internal/packageVersion.ts"

/** @internal */
export const connect = (
  where: string,
  layer: Layer.Layer<McpClient.McpClient, McpClientError.McpClientError, Exclude<Requirements, Scope.Scope>>
): Effect.Effect<Tools, string, Requirements> =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const context = yield* Layer.buildWithScope(layer, scope)
    const client = Context.get(context, McpClient.McpClient)
    return (yield* McpClient.toolkit(client)) as unknown as Tools
  }).pipe(Effect.mapError((error) => `--tools ${where}: cannot connect to the MCP server: ${error.message}`))

/** @internal */
export const clientInfo = () => ({ name: "agent-trials", version: packageVersion() })

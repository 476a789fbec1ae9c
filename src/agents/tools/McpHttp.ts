/**
 * `mcp:URL`: the tools of an MCP server over Streamable HTTP.
 *
 * @since 0.5.0
 */
import { McpClient, McpProtocol } from "effect/ai"
import { redactUrl } from "../../internal/redact.ts"
import { clientInfo, connect, DEFAULT_TIMEOUT } from "./internal/mcp.ts"
import type { ToolSource } from "./Source.ts"

type HttpSpec = { readonly _tag: "McpHttp"; readonly url: string }

/**
 * The source.
 *
 * @category sources
 * @since 0.5.0
 */
export const source: ToolSource<HttpSpec> = {
  tag: "McpHttp",
  matches: (text) => /^mcp:https?:/.test(text),
  usage: "mcp:URL",
  doc: "The tools of an MCP server over Streamable HTTP (`mcp:http://127.0.0.1:3001/mcp`)",
  parse: (text) => {
    const url = text.slice("mcp:".length)
    return URL.canParse(url) ? { _tag: "McpHttp", url } : `--tools mcp:${redactUrl(url)}: expected mcp:URL with an http(s) URL`
  },
  format: (spec) => `mcp:${redactUrl(spec.url)}`,
  stateful: true,
  connect: (spec, options) => {
    const timeout = options.mcpTimeout ?? DEFAULT_TIMEOUT
    return connect(
      source.format(spec),
      McpClient.layerHttp({ ...clientInfo(), url: spec.url, protocol: McpProtocol.v2025_11_25, timeout }),
      { timeout }
    )
  }
}

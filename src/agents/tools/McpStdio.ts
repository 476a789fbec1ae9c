/**
 * `mcp:stdio:COMMAND [ARGS...]`: the tools of an MCP server started as a
 * child process and spoken to over its stdin and stdout. The process lives
 * as long as the scope it is connected in (the run, or one trial with
 * `--mcp-per-trial`): its stdin is closed at the end, then SIGTERM, then
 * SIGKILL, so nothing is left running after the run or Ctrl-C. It runs
 * under a watchdog (`internal/watchdog.ts`) in a process group of its own,
 * which kills the group when the run is gone (a SIGKILL of the run).
 * On a `--workspace` run it runs in the run's sandbox (`--sandbox`,
 * `--sandbox-network`, `--sandbox-memory`), its working directory still the
 * run's folder: started for one trial (`--mcp-per-trial`, or a spec with a
 * placeholder) with the trial's workspace as the one folder it may write;
 * shared by the run's trials with none (under bubblewrap, only its private
 * /tmp). Under bubblewrap it also dies with its watchdog
 * (`--die-with-parent`).
 *
 * @since 0.5.0
 */
import { McpClient, McpProtocol } from "effect/ai"
import { clientInfo, connect, DEFAULT_TIMEOUT } from "./internal/mcp.ts"
import * as Watchdog from "./internal/watchdog.ts"
import type { ToolSource } from "./Source.ts"

type StdioSpec = { readonly _tag: "McpStdio"; readonly command: string; readonly args: ReadonlyArray<string> }

/**
 * The words of a command line: split at spaces, with `"..."` and `'...'`
 * grouping words; a string is the problem (an unclosed quote).
 *
 * @category parsing
 * @since 0.5.0
 */
export const words = (text: string): ReadonlyArray<string> | string => {
  const result: Array<string> = []
  let current = ""
  let quote: string | undefined
  let inWord = false
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else current += char
    } else if (char === "\"" || char === "'") {
      quote = char
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) result.push(current)
      current = ""
      inWord = false
    } else {
      current += char
      inWord = true
    }
  }
  if (quote !== undefined) return `unclosed ${quote} in the command`
  if (inWord) result.push(current)
  return result
}

/**
 * The source.
 *
 * @category sources
 * @since 0.5.0
 */
export const source: ToolSource<StdioSpec> = {
  tag: "McpStdio",
  matches: (text) => text.startsWith("mcp:stdio:"),
  usage: "mcp:stdio:COMMAND [ARGS...]",
  doc: "The tools of an MCP server started as a child process, over stdio (one process per run, or per trial with `--mcp-per-trial`)",
  parse: (text) => {
    const parts = words(text.slice("mcp:stdio:".length))
    if (typeof parts === "string") return `--tools ${text}: ${parts}`
    const [command, ...args] = parts
    if (command === undefined || command === "") return `--tools ${text}: expected mcp:stdio:COMMAND [ARGS...]`
    return { _tag: "McpStdio", command, args }
  },
  format: (spec) => `mcp:stdio:${[spec.command, ...spec.args].map((w) => /[\s"']/.test(w) ? JSON.stringify(w) : w).join(" ")}`,
  stateful: true,
  connect: (spec, options) => {
    const timeout = options.mcpTimeout ?? DEFAULT_TIMEOUT
    // On a --workspace run: in the run's sandbox, a trial's own server with its workspace, a shared one with none.
    const target = options.sandbox !== undefined
      ? options.sandbox.implementation.wrap([spec.command, ...spec.args], {
        workspace: options.workspace,
        network: options.sandbox.network,
        memoryBytes: options.sandbox.memoryBytes,
        cwd: options.cwd
      })
      : { command: spec.command, args: spec.args, cwd: options.cwd }
    return connect(
      source.format(spec),
      McpClient.layerStdio({
        ...clientInfo(),
        command: Watchdog.command(target.command, target.args, { cwd: target.cwd }),
        protocol: McpProtocol.v2025_11_25,
        timeout
      }),
      { timeout }
    )
  }
}

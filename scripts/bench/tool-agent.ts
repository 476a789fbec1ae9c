/**
 * The agent of the tool-loop bench (`tools.ts`), loaded by the CLI as users
 * load theirs: `--agent effect-ai:scripts/bench/tool-agent.ts#layer`, with
 * `--tools module:scripts/bench/tool-agent.ts#tools` or an MCP server that
 * has an `echo` tool (`@modelcontextprotocol/server-everything`).
 *
 * The model (`LanguageModel.make`, no network, no waiting): first turn, three
 * parallel calls of `echo` with parts of the task's text; once the
 * conversation holds their results, the answer joins them. So every trial is
 * two model turns and three tool calls, and what is measured is the loop.
 */
import { Effect, Layer, Stream } from "effect"
import { LanguageModel } from "effect/ai"

const usage = { inputTokens: { total: 20 }, outputTokens: { total: 5 } }

/** Tool calls per trial, for the bench's arithmetic. */
export const CALLS_PER_TRIAL = 3

export const layer = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) => {
      const messages = options.prompt.content
      const results = messages.flatMap((m) => m.role === "tool" ? m.content : [])
      if (results.length > 0) {
        const text = results.map((p) => p.type === "tool-result" ? String(p.result) : "").join(" | ")
        return Effect.succeed([{ type: "text", text }, { type: "finish", reason: "stop", usage }])
      }
      const user = messages.find((m) => m.role === "user")
      const text = user !== undefined && user.role === "user" ? user.content.map((p) => p.type === "text" ? p.text : "").join("") : ""
      return Effect.succeed([
        ...Array.from({ length: CALLS_PER_TRIAL }, (_, i) => ({
          type: "tool-call" as const,
          id: `call-${i}`,
          name: "echo",
          params: { message: `${i}: ${text}` }
        })),
        { type: "finish", reason: "tool-calls", usage }
      ])
    },
    streamText: () => Stream.empty
  })
)

/** Plain module tools: `echo`, described by JSON Schema as server-everything's is. */
export const tools = {
  echo: {
    description: "Echoes back the input",
    parameters: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    execute: (args: { readonly message: string }) => `Echo: ${args.message}`
  }
}

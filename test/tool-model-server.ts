/**
 * A scripted OpenAI-compatible chat completions server for tool-loop tests,
 * on 127.0.0.1: `script(turn, body)` answers each request, where `turn` is
 * the number of assistant messages already in the conversation plus one.
 */
import type * as http from "node:http"
import { json, type Received, serve } from "./http-server.ts"

export interface Call {
  readonly id: string
  readonly name: string
  readonly args: unknown
}

export interface Reply {
  readonly status?: number
  readonly body: unknown
  readonly headers?: http.OutgoingHttpHeaders
}

export const usage = (prompt: number, completion: number, extra: Record<string, unknown> = {}) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  ...extra
})

/** A turn that asks for tool calls. */
export const callTools = (calls: ReadonlyArray<Call>, text: string | null = null, u: unknown = usage(10, 5)): Reply => ({
  body: {
    choices: [{
      message: {
        role: "assistant",
        content: text,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args) }
        }))
      },
      finish_reason: "tool_calls"
    }],
    usage: u
  }
})

/** A final answer. */
export const answer = (text: string, u: unknown = usage(20, 3)): Reply => ({
  body: { choices: [{ message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: u }
})

export interface ChatBody {
  readonly model: string
  readonly messages: ReadonlyArray<Record<string, unknown>>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}

export const turnOf = (body: ChatBody): number => body.messages.filter((m) => m["role"] === "assistant").length + 1

export const firstUser = (body: ChatBody): string => String(body.messages.find((m) => m["role"] === "user")?.["content"])

/** The server; `received` has every request, `bodies` their parsed JSON. */
export const modelServer = (script: (turn: number, body: ChatBody, request: Received) => Reply) =>
  serve((request, res) => {
    const body = JSON.parse(request.body) as ChatBody
    const reply = script(turnOf(body), body, request)
    json(res, reply.status ?? 200, reply.body, reply.headers)
  })

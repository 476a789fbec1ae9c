/**
 * A scripted Anthropic Messages API server for tests, on 127.0.0.1:
 * `script(turn, body)` answers each `POST /v1/messages`, where `turn` is the
 * number of assistant messages already in the conversation plus one.
 */
import type * as http from "node:http"
import { json, type Received, serve } from "./http-server.ts"

export interface Reply {
  readonly status?: number
  readonly body: unknown
  readonly headers?: http.OutgoingHttpHeaders
}

export const usage = (input: number, output: number, extra: Record<string, unknown> = {}) => ({
  input_tokens: input,
  output_tokens: output,
  ...extra
})

/** A turn that asks for tool calls (`tool_use` blocks after an optional text block). */
export const useTools = (
  calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly input: unknown }>,
  text?: string,
  u: unknown = usage(10, 5)
): Reply => ({
  body: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [
      ...(text === undefined ? [] : [{ type: "text", text }]),
      ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input }))
    ],
    stop_reason: "tool_use",
    usage: u
  }
})

/** A final answer. */
export const answer = (text: string, u: unknown = usage(20, 3)): Reply => ({
  body: {
    id: "msg_2",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    usage: u
  }
})

/** An error as the API sends it. */
export const error = (status: number, type: string, message: string, headers?: http.OutgoingHttpHeaders): Reply => ({
  status,
  body: { type: "error", error: { type, message } },
  ...(headers === undefined ? undefined : { headers })
})

export interface MessagesBody {
  readonly model: string
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly [field: string]: unknown
}

export const turnOf = (body: MessagesBody): number => body.messages.filter((m) => m.role === "assistant").length + 1

/** The server; `received` has every request. A path other than /v1/messages is a 404. */
export const messagesServer = (script: (turn: number, body: MessagesBody, request: Received) => Reply) =>
  serve((request, res) => {
    if (request.path !== "/v1/messages") return json(res, 404, error(404, "not_found_error", `no route ${request.path}`).body)
    const body = JSON.parse(request.body) as MessagesBody
    const reply = script(turnOf(body), body, request)
    json(res, reply.status ?? 200, reply.body, reply.headers)
  })

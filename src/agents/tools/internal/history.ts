/**
 * A conversation's steps so far (a simulated user's messages, the tool
 * loop's earlier turns: model turns, tool calls and their results, and each
 * answer) as the prompt the loop continues: the model sees its own earlier
 * tool calls and what they returned, not only its answers.
 *
 * @internal
 */
import type { Prompt } from "effect/ai"
import type { Trajectory } from "../../../domain/Trial.ts"

type Message = Prompt.UserMessageEncoded | Prompt.AssistantMessageEncoded | Prompt.ToolMessageEncoded

/**
 * The messages of `history`, in order: a `user_message` a user message, a
 * `model` turn an assistant message (its text) that its `tool_call` steps
 * join, the `tool_result` steps one tool message, and an
 * `assistant_message` an assistant message only when no model turn of its
 * own said it (an agent without a trajectory).
 *
 * @internal
 */
export const messagesOf = (history: Trajectory): Array<Message> => {
  const messages: Array<Message> = []
  // Whether the agent's current answer came from model turns (which already hold its text).
  let modelled = false
  let calls = 0
  for (const step of history) {
    const text = typeof step.content === "string" ? step.content : step.content === undefined ? "" : JSON.stringify(step.content)
    switch (step.type) {
      case "user_message":
        messages.push({ role: "user", content: text })
        modelled = false
        break
      case "model":
        messages.push({ role: "assistant", content: text === "" ? [] : [{ type: "text", text }] })
        modelled = true
        break
      case "tool_call": {
        const last = messages[messages.length - 1]
        const part = { type: "tool-call" as const, id: step.id ?? `call_${calls}`, name: step.name ?? "", params: step.arguments ?? {}, providerExecuted: false }
        calls++
        if (last?.role === "assistant" && typeof last.content !== "string") messages[messages.length - 1] = { ...last, content: [...last.content, part] }
        else messages.push({ role: "assistant", content: [part] })
        break
      }
      case "tool_result": {
        const last = messages[messages.length - 1]
        const part = { type: "tool-result" as const, id: step.id ?? "", name: step.name ?? "", isFailure: step.is_error === true, result: step.content ?? "" }
        if (last?.role === "tool") messages[messages.length - 1] = { ...last, content: [...last.content, part] }
        else messages.push({ role: "tool", content: [part] })
        break
      }
      case "assistant_message":
        if (!modelled) messages.push({ role: "assistant", content: text })
        modelled = false
        break
    }
  }
  return messages
}

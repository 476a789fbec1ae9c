/**
 * The README's "Your agent" section (issue 43, section 4): one ```ts example
 * for each way in (a plain function, an HTTP endpoint, `openai:`, the AI SDK,
 * the OpenAI Agents SDK, an Effect AI layer, `anthropic:`), the types to use
 * named. The examples' type-check is
 * test/docs.test.ts's (every ```ts block of README.md).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot } from "./cli-helpers.ts"

const section = (): string => {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
  const start = readme.indexOf("\n## Your agent\n")
  assert.isAtLeast(start, 0, "README.md has no \"## Your agent\" section")
  const end = readme.indexOf("\n## ", start + 1)
  return readme.slice(start, end)
}

const tsBlocks = (text: string): Array<string> => [...text.matchAll(/\n```ts\n([\s\S]*?)\n```/g)].map((m) => m[1]!)

describe("README: Your agent", () => {
  it("has an example of each way in and names Trial.AgentOutput and Trial.TrajectoryStep", () => {
    const text = section()
    assert.include(text, "`Trial.AgentOutput`")
    assert.include(text, "`Trial.TrajectoryStep`")
    const blocks = tsBlocks(text)
    const which = (test: (code: string) => boolean) => blocks.filter(test).length
    assert.deepStrictEqual({
      plainFunction: which((c) => /export default async \(task: Trial\.AgentEvalTask/.test(c) && c.includes("Promise<Trial.AgentOutput>")),
      httpEndpoint: which((c) => c.includes(`from "node:http"`) && c.includes("Trial.AgentOutput")),
      openai: which((c) => c.includes("OpenAiAgent.make(")),
      aiSdk: which((c) => c.includes(`from "ai"`) && c.includes("generateText(")),
      openAiAgents: which((c) => c.includes(`from "@openai/agents"`) && c.includes("run(")),
      effectAi: which((c) => c.includes("ChatModel.layer(")),
      anthropic: which((c) => c.includes("AnthropicAgent.make("))
    }, { plainFunction: 1, httpEndpoint: 1, openai: 1, aiSdk: 1, openAiAgents: 1, effectAi: 1, anthropic: 1 })
    for (const spec of ["module:./my-agent.ts", "http://127.0.0.1:8080/agent", "openai:https://api.openai.com/v1", "module:./ai-sdk-agent.ts", "module:./agents-sdk-agent.ts", "effect-ai:./model.ts#layer", "anthropic:https://api.anthropic.com"]) {
      assert.include(text, `--agent ${spec}`)
    }
  })
})

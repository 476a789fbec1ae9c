/**
 * What the matrix tests share: a real OpenAI-compatible server on 127.0.0.1
 * that answers `What is i + i?` (wrong on odd i for agent b with model m2)
 * and counts the requests it holds at once, and the 2 agents x 2 models
 * matrix against it, as a config file's `matrix:` would give it.
 */
import { NodeHttpClient, NodeServices } from "@effect/platform-node"
import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AgentKinds from "../src/agents/AgentKinds.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import * as Cells from "../src/programs/matrix/Cells.ts"
import type * as Matrix from "../src/programs/matrix/Matrix.ts"
import type { RunConfig } from "../src/programs/run/Config.ts"
import { json, serve } from "./http-server.ts"
import { configOf } from "./run-stages.ts"
import { firstUser } from "./tool-model-server.ts"

export const platform = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici, Kinds.layer())

export const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "matrix-run-"))

export interface Call {
  readonly agent: string
  readonly model: string
  readonly task: number
}

// Answers `What is i + i?` after `holdMs`, right except agent b with model m2 on odd i; counts what it holds at once.
export const server = (holdMs: number) =>
  Effect.gen(function*() {
    const state = { inFlight: 0, peak: 0, calls: [] as Array<Call> }
    const s = yield* serve((request, res) => {
      const body = JSON.parse(request.body) as { readonly model: string; readonly messages: ReadonlyArray<Record<string, unknown>> }
      const i = Number(/What is (\d+)/.exec(firstUser(body))?.[1])
      const agent = request.path.startsWith("/a/") ? "a" : "b"
      state.calls.push({ agent, model: body.model, task: i })
      state.inFlight++
      state.peak = Math.max(state.peak, state.inFlight)
      const wrong = agent === "b" && body.model === "m2" && i % 2 === 1
      setTimeout(() => {
        state.inFlight--
        json(res, 200, {
          model: body.model,
          choices: [{ message: { role: "assistant", content: String(wrong ? i : i + i) }, finish_reason: "stop" }],
          usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 }
        })
      }, holdMs)
    })
    return { ...s, state }
  })

// The 2 x 2 matrix as a config file would give it, each cell's run config its shared keys and its values.
export const cellsOf = (base: string, shared: Partial<RunConfig>): ReadonlyArray<Matrix.MatrixCell> => {
  const cells = Cells.cellsOf({ agent: [`openai:${base}/a/v1`, `openai:${base}/b/v1`], model: ["m1", "m2"] }, "agent-trials.yaml")
  assert.isTrue(cells._tag === "Success")
  return (cells._tag === "Success" ? cells.success : []).map((cell) => {
    const agent = AgentKinds.parse(String(cell.values["agent"]))
    if (typeof agent === "string") throw new Error(agent)
    return { name: cell.name, values: cell.values, config: configOf({ ...shared, agent, model: String(cell.values["model"]) }) }
  })
}

export const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

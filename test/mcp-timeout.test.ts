/**
 * `--mcp-timeout`'s default under `TestClock`: a real MCP server (a child
 * process, test/fixtures/mcp-server.mjs) that never answers `initialize`
 * is still waited for at 29 seconds and fails with `McpServerFailed`
 * naming the server, the step and the 30s at 30 seconds; no real wait.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ToolSources from "../src/agents/tools/Sources.ts"
import { removeTempDirs, repoRoot, tempDir, waitFor } from "./cli-helpers.ts"

afterAll(() => removeTempDirs())

const services = Layer.mergeAll(NodeServices.layer, NodeHttpClient.layerUndici)

describe("--mcp-timeout", () => {
  it.effect("by default a server silent at initialize is waited for 30 seconds, then fails with McpServerFailed", () =>
    Effect.gen(function*() {
      const log = path.join(tempDir(), "received")
      const spec = ToolSources.parse(`mcp:stdio:node test/fixtures/mcp-server.mjs --hang initialize --log ${log}`)
      assert.isFalse(typeof spec === "string", String(spec))
      const fiber = yield* Effect.forkChild(Effect.scoped(ToolSources.connectAll([spec as ToolSources.Spec], { cwd: repoRoot })))
      // The client has sent initialize: its deadline is armed at the clock's 0.
      yield* Effect.promise(() =>
        waitFor("the server to receive initialize", () => fs.existsSync(log) && fs.readFileSync(log, "utf8").includes("initialize"))
      )
      yield* TestClock.adjust("29 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      // Then the stderr tail's wait and the server's stop, each bounded on the same clock.
      for (let i = 0; i < 200 && fiber.pollUnsafe() === undefined; i++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
        yield* TestClock.adjust("1 second")
      }
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
      assert.instanceOf(error, ToolSources.McpServerFailed)
      assert.strictEqual(
        (error as ToolSources.McpServerFailed).message,
        "--tools mcp:stdio:node test/fixtures/mcp-server.mjs --hang initialize --log " + log +
          ": the MCP server did not answer initialize within 30s (--mcp-timeout)"
      )
    }).pipe(Effect.provide(services)))
})

/**
 * Issue 39, section 3: errors with fields, the low-level ones. Each error
 * below carries the fields a caller acts on (the task, the scorer, the file,
 * the size, the host) and computes its message from them, word for word the
 * text it carried before as a plain `message`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ModuleAgentError } from "../src/agents/Module.ts"
import * as Sim from "../src/agents/Sim.ts"
import { ToolSourceError } from "../src/agents/tools/Agent.ts"
import { McpServerFailed } from "../src/agents/tools/Source.ts"
import { ClusterAuthFailed, InvalidClusterUrl, parseUrl } from "../src/cluster/Postgres.ts"
import { InvalidTask } from "../src/domain/Errors.ts"
import { HttpBodyError, NetworkError } from "../src/domain/HttpErrors.ts"
import { InvalidReference, InvalidScore, MissingReference, NoOutput } from "../src/domain/Scorer.ts"
import { InvalidSchema } from "../src/scoring/JsonSchema.ts"
import { ScorerSpecError } from "../src/scoring/Kind.ts"
import { InputTooLarge } from "../src/scoring/Match.ts"
import { InvalidRunnerConfig } from "../src/runner/RunnerService.ts"
import { InvalidTelemetryConfig } from "../src/runner/Telemetry.ts"
import { ModuleScorerError } from "../src/scoring/ModuleScorer.ts"
import { NoTrajectory } from "../src/scoring/PathScorers.ts"
import * as Scorers from "../src/scoring/Scorers.ts"

describe("domain errors compute their message from their fields", () => {
  it("InvalidTask: the stand-in task's id, and the dataset's words for the line", () => {
    const error = new InvalidTask({ task_id: "tasks.jsonl:3", problem: "tasks.jsonl:3: not JSON" })
    assert.deepStrictEqual([error._tag, error.task_id, error.problem], ["InvalidTask", "tasks.jsonl:3", "tasks.jsonl:3: not JSON"])
    assert.strictEqual(error.message, "tasks.jsonl:3: not JSON")
  })

  it("MissingReference: the task and the scorer, and the field the tool-calls scorer looked at", () => {
    const whole = new MissingReference({ task_id: "t1", scorer: "exact" })
    assert.deepStrictEqual([whole.task_id, whole.scorer, whole.field], ["t1", "exact", undefined])
    assert.strictEqual(whole.message, "task t1 has no reference, which the exact scorer needs")
    const at = new MissingReference({ task_id: "t1", scorer: "tool-calls", field: "reference.tool_calls" })
    assert.strictEqual(at.field, "reference.tool_calls")
    assert.strictEqual(at.message, "task t1 has nothing at reference.tool_calls, the tool calls the tool-calls scorer expects")
  })

  it("InvalidReference: the task, the scorer, the field at fault, the problem, and a pattern's syntax error", () => {
    const shape = new InvalidReference({
      task_id: "t1",
      scorer: "numeric",
      problem: "has the reference {\"a\":1}; the numeric scorer takes a number"
    })
    assert.deepStrictEqual([shape.task_id, shape.scorer, shape.field], ["t1", "numeric", undefined])
    assert.strictEqual(shape.message, "task t1 has the reference {\"a\":1}; the numeric scorer takes a number")
    const item = new InvalidReference({
      task_id: "t1",
      scorer: "tool-calls",
      field: "reference.tool_calls[2]",
      problem: "must be a tool's name or an object with a \"name\", got 3"
    })
    assert.strictEqual(item.message, "task t1: reference.tool_calls[2] must be a tool's name or an object with a \"name\", got 3")
    const pattern = new InvalidReference({
      task_id: "t1",
      scorer: "regex",
      problem: "is not a regular expression",
      syntax: "Invalid regular expression: /(/: Unterminated group"
    })
    assert.strictEqual(pattern.syntax, "Invalid regular expression: /(/: Unterminated group")
    assert.strictEqual(
      pattern.message,
      "task t1's reference is not a regular expression: Invalid regular expression: /(/: Unterminated group"
    )
  })

  it("InvalidScore: what the scorer returned, as shown", () => {
    const error = new InvalidScore({ returned: "\"yes\"" })
    assert.strictEqual(error.returned, "\"yes\"")
    assert.strictEqual(
      error.message,
      "the scorer returned \"yes\"; expected a boolean, a finite number or { value: number, passed: boolean, explanation?: string }"
    )
  })

  it("NoOutput: the trial and its status", () => {
    const error = new NoOutput({ trial_id: "t1:1", status: "failed" })
    assert.deepStrictEqual([error.trial_id, error.status], ["t1:1", "failed"])
    assert.strictEqual(error.message, "trial t1:1 has no output (status failed): only completed trials are scored")
  })

  it("NetworkError and HttpBodyError: the endpoint as shown, and the problem", () => {
    const network = new NetworkError({ url: "http://127.0.0.1:9/run", problem: "fetch failed: connect ECONNREFUSED 127.0.0.1:9" })
    assert.deepStrictEqual([network.url, network.problem], ["http://127.0.0.1:9/run", "fetch failed: connect ECONNREFUSED 127.0.0.1:9"])
    assert.strictEqual(network.message, "POST http://127.0.0.1:9/run failed: fetch failed: connect ECONNREFUSED 127.0.0.1:9")
    const body = new HttpBodyError({ url: "http://h/run", problem: "task.inputs.n: a BigInt" })
    assert.deepStrictEqual([body.url, body.problem], ["http://h/run", "task.inputs.n: a BigInt"])
    assert.strictEqual(body.message, "cannot send POST http://h/run: its body cannot be encoded as JSON: task.inputs.n: a BigInt")
  })
})

describe("scoring errors compute their message from their fields", () => {
  it("ScorerSpecError: the flag and spec at fault, and the problem, joined", () => {
    const under = new ScorerSpecError({ where: "--score module:s.ts", problem: "scorer module s.ts has no export \"default\"" })
    assert.deepStrictEqual([under.where, under.problem], ["--score module:s.ts", "scorer module s.ts has no export \"default\""])
    assert.strictEqual(under.message, "--score module:s.ts: scorer module s.ts has no export \"default\"")
    const whole = new ScorerSpecError({ problem: "--score judge:https://h/v1 needs a judge model (--judge-model NAME)" })
    assert.strictEqual(whole.where, undefined)
    assert.strictEqual(whole.message, "--score judge:https://h/v1 needs a judge model (--judge-model NAME)")
  })

  it.effect("ScorerSpecError under not: names the whole spec, in where or in the problem, as before", () =>
    Effect.gen(function*() {
      const judge = yield* Effect.flip(Scorers.fromSpec("not:judge:https://h/v1", { cwd: process.cwd() }))
      assert.strictEqual(judge.where, undefined)
      assert.strictEqual(judge.message, "--score not:judge:https://h/v1 needs a judge model (--judge-model NAME)")
      const module = yield* Effect.flip(Scorers.fromSpec("not:module:./no-such-scorer.ts", { cwd: process.cwd() }))
      assert.strictEqual(module.where, "--score not:module:./no-such-scorer.ts")
      assert.match(module.message, /^--score not:module:\.\/no-such-scorer\.ts: cannot load scorer module \.\/no-such-scorer\.ts: /)
    }))

  it("InvalidSchema: the file, the problem, and whether the file could be read", () => {
    const unreadable = new InvalidSchema({ file: "s.json", problem: "ENOENT: no such file", unreadable: true })
    assert.deepStrictEqual([unreadable.file, unreadable.unreadable], ["s.json", true])
    assert.strictEqual(unreadable.message, "cannot read the schema file s.json: ENOENT: no such file")
    const notJson = new InvalidSchema({ file: "s.json", problem: "is not JSON: Unexpected token" })
    assert.strictEqual(notJson.message, "the schema file s.json is not JSON: Unexpected token")
    const inline = new InvalidSchema({ problem: "is not a valid JSON Schema: type must be a string" })
    assert.strictEqual(inline.message, "is not a valid JSON Schema: type must be a string")
  })

  it("InputTooLarge: both lengths, the budget and the least distance", () => {
    const error = new InputTooLarge({ output_length: 1000, reference_length: 2000, max_cells: 500, at_least: 1000 })
    assert.deepStrictEqual(
      [error.output_length, error.reference_length, error.max_cells, error.at_least],
      [1000, 2000, 500, 1000]
    )
    assert.strictEqual(error.message, "comparing 1000 with 2000 code points needs more than 500 cells (the distance is at least 1000)")
  })

  it("ModuleScorerError: the file, the export, and the problem worded with them", () => {
    const error = new ModuleScorerError({
      file: "s.ts",
      export_name: "grade",
      problem: "scorer module s.ts has no export \"grade\" (it exports: nothing)"
    })
    assert.deepStrictEqual([error.file, error.export_name], ["s.ts", "grade"])
    assert.strictEqual(error.message, "scorer module s.ts has no export \"grade\" (it exports: nothing)")
  })

  it("NoTrajectory: the trial and the scorer", () => {
    const error = new NoTrajectory({ trial_id: "t1:1", scorer: "tool-calls" })
    assert.deepStrictEqual([error.trial_id, error.scorer], ["t1:1", "tool-calls"])
    assert.strictEqual(
      error.message,
      "trial t1:1 recorded no trajectory, which the tool-calls scorer needs " +
        "(agents that act record one: openai: with --tools, effect-ai:, or a module or HTTP agent returning \"trajectory\")"
    )
  })
})

describe("cluster errors compute their message from their fields", () => {
  it("InvalidClusterUrl: the flag, the URL as shown and the problem", () => {
    const error = parseUrl("mysql://root:secret@db:3306/x")
    assert.instanceOf(error, InvalidClusterUrl)
    const bad = error as InvalidClusterUrl
    assert.deepStrictEqual([bad.source, bad.problem], ["--cluster", "the scheme must be postgres: or postgresql:, not mysql:"])
    assert.notInclude(bad.url, "secret")
    assert.strictEqual(
      bad.message,
      `--cluster ${bad.url}: the scheme must be postgres: or postgresql:, not mysql: (expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)`
    )
    const noHost = new InvalidClusterUrl({ source: "AGENT_TRIALS_CLUSTER", url: "postgres:///x", problem: "no host" })
    assert.strictEqual(noHost.message, "AGENT_TRIALS_CLUSTER postgres:///x: no host (expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)")
  })

  it("ClusterAuthFailed: the address, the user and code when known, and what to check", () => {
    const refused = new ClusterAuthFailed({
      address: "db:5432",
      user: "postgres",
      code: "28P01",
      problem: "the password was refused (check the user and password of --cluster)"
    })
    assert.deepStrictEqual([refused.address, refused.user, refused.code], ["db:5432", "postgres", "28P01"])
    assert.strictEqual(
      refused.message,
      "authentication failed for user \"postgres\" at db:5432: the password was refused (check the user and password of --cluster)"
    )
    const anonymous = new ClusterAuthFailed({ address: "db:5432", problem: "check the user and password of --cluster" })
    assert.strictEqual(anonymous.message, "authentication failed at db:5432: check the user and password of --cluster")
  })
})

describe("runner errors compute their message from their fields", () => {
  it("InvalidRunnerConfig: the variable, and the refusal worded as its flag's", () => {
    const error = new InvalidRunnerConfig({
      variable: "AGENT_TRIALS_TIMEOUT",
      problem: "Expected AGENT_TRIALS_TIMEOUT to be a duration with a unit, got \"5\""
    })
    assert.strictEqual(error.variable, "AGENT_TRIALS_TIMEOUT")
    assert.strictEqual(error.message, "Expected AGENT_TRIALS_TIMEOUT to be a duration with a unit, got \"5\"")
  })

  it("InvalidTelemetryConfig: the variable and the value refused, or why the variables could not be read", () => {
    const value = new InvalidTelemetryConfig({ variable: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "localhost:4318" })
    assert.deepStrictEqual([value.variable, value.value], ["OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"])
    assert.strictEqual(value.message, "Expected OTEL_EXPORTER_OTLP_ENDPOINT to be a URL like http://localhost:4318, got \"localhost:4318\"")
    const unread = new InvalidTelemetryConfig({ variable: "OTEL_*", problem: "bad provider" })
    assert.strictEqual(unread.message, "Cannot read the OTEL_* variables: bad provider")
  })
})

describe("agent errors compute their message from their fields", () => {
  it("ModuleAgentError: the file, the export, and the problem worded with them", () => {
    const error = new ModuleAgentError({ file: "a.ts", problem: "agent module a.ts has no export \"default\" (it exports: run)" })
    assert.deepStrictEqual([error.file, error.export_name], ["a.ts", undefined])
    assert.strictEqual(error.message, "agent module a.ts has no export \"default\" (it exports: run)")
  })

  it.live("SimulatedFailure: the fail rate", () =>
    Effect.gen(function*() {
      const agent = Sim.make({ latencyMs: 0, jitterMs: 0, failRate: 1, seed: 1 })
      const error = yield* Effect.flip(agent({ id: "t1", inputs: {} }))
      assert.strictEqual(error.fail_rate, 1)
      assert.strictEqual(error.message, "simulated failure (fail=1)")
      assert.strictEqual(new Sim.SimulatedFailure({ fail_rate: 0.02 }).message, "simulated failure (fail=0.02)")
    }))

  it("ToolSourceError: the ToolConnectError's where and problem, joined", () => {
    const error = new ToolSourceError({ where: "--tools mcp:server", problem: "cannot connect to the MCP server: closed" })
    assert.deepStrictEqual([error.where, error.problem], ["--tools mcp:server", "cannot connect to the MCP server: closed"])
    assert.strictEqual(error.message, "--tools mcp:server: cannot connect to the MCP server: closed")
    assert.strictEqual(new ToolSourceError({ problem: "two tools named x" }).message, "two tools named x")
  })

  it("McpServerFailed: the server's flag and spec, what it did, and the end of its stderr", () => {
    const error = new McpServerFailed({
      where: "--tools mcp:node server.js",
      problem: "did not answer tools/list within 30s (--mcp-timeout)",
      stderr: "; the server's stderr: listening"
    })
    assert.deepStrictEqual(
      [error.where, error.problem, error.stderr],
      ["--tools mcp:node server.js", "did not answer tools/list within 30s (--mcp-timeout)", "; the server's stderr: listening"]
    )
    assert.strictEqual(
      error.message,
      "--tools mcp:node server.js: the MCP server did not answer tools/list within 30s (--mcp-timeout); the server's stderr: listening"
    )
  })
})

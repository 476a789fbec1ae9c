/**
 * Issue 39, section 3: errors with fields, the commands' own. Each error
 * below carries the fields a caller acts on (the address, the flag and file,
 * the gates that failed, the server) and computes its message from them,
 * word for word the text it carried before as a plain `message`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Stream } from "effect"
import { BoundsViolated, exitFor, RunStopped } from "../src/cli/errors.ts"
import { ClusterAuthFailed, ClusterUnreachable, type ClusterUrl, InvalidClusterUrl, layerSql, parseUrl } from "../src/cluster/Postgres.ts"
import * as Errors from "../src/domain/Errors.ts"
import * as Cluster from "../src/programs/Cluster.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import * as Compare from "../src/programs/compare/Compare.ts"
import { OutputWriteError } from "../src/programs/Output.ts"
import * as Recorded from "../src/programs/Recorded.ts"
import * as Report from "../src/programs/Report.ts"
import * as Rescore from "../src/programs/Rescore.ts"
import * as Finish from "../src/programs/run/Finish.ts"
import { MutableCounts } from "../src/programs/run/internal/counts.ts"
import * as ToolsStop from "../src/programs/run/ToolsStop.ts"
import { ResultsWriteError, type Writer } from "../src/results/Results.ts"
import * as Gates from "../src/summary/Gates.ts"

const gateResults: ReadonlyArray<Gates.GateResult> = [
  { gate: "exact=0.9", name: "exact", on: "mean", threshold: 0.9, value: 0.5, verdict: "fail", reason: "mean 0.5 < 0.9" },
  { gate: "passed=0.4", name: "passed", on: "mean", threshold: 0.4, value: 0.5, verdict: "pass", reason: "pass rate 0.5 >= 0.4" }
]
const gateWords = "--fail-under: 1 of 2 gates failed: exact=0.9 (mean 0.5 < 0.9)"
const errorOf = <A, E>(exit: Exit.Exit<A, E>) => Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason)?.error : undefined

describe("the cluster's errors compute their message from their fields", () => {
  it("ClusterUnreachable: what failed, the address or trial, and the problem", () => {
    const connect = new ClusterUnreachable({ step: "connect", address: "db:5432", problem: "connect ECONNREFUSED 10.0.0.1:5432" })
    assert.deepStrictEqual([connect.step, connect.address, connect.problem], ["connect", "db:5432", "connect ECONNREFUSED 10.0.0.1:5432"])
    assert.strictEqual(connect.message, "cannot reach the cluster's PostgreSQL at db:5432: connect ECONNREFUSED 10.0.0.1:5432")
    const start = new ClusterUnreachable({ step: "start", address: "db:5432", problem: "ConfigError: bad shard count" })
    assert.strictEqual(start.message, "cluster at db:5432: ConfigError: bad shard count")
    const listen = new ClusterUnreachable({ step: "listen", address: "w1:34431", problem: "listen EADDRINUSE: address already in use" })
    assert.strictEqual(listen.message, "worker: cannot listen on w1:34431 (--host, --port): listen EADDRINUSE: address already in use")
    const listenBare = new ClusterUnreachable({ step: "listen", address: "w1:34431" })
    assert.strictEqual(listenBare.problem, undefined)
    assert.strictEqual(listenBare.message, "worker: cannot listen on w1:34431 (--host, --port)")
    const agent = new ClusterUnreachable({ step: "agent", problem: "--agent module:a.ts: cannot load agent module a.ts" })
    assert.strictEqual(agent.message, "--agent module:a.ts: cannot load agent module a.ts")
    const prune = new ClusterUnreachable({ step: "prune", problem: "relation is locked" })
    assert.strictEqual(prune.message, "cannot prune the cluster's messages: relation is locked")
    const reset = new ClusterUnreachable({ step: "reset", trial: "t1:2", problem: "connection lost" })
    assert.deepStrictEqual([reset.step, reset.trial], ["reset", "t1:2"])
    assert.strictEqual(reset.message, "cannot reset trial t1:2's message: connection lost")
    const workers = new ClusterUnreachable({ step: "workers", problem: "connection lost" })
    assert.strictEqual(workers.message, "cannot read the cluster's workers: connection lost")
  })

  it("the cluster's input errors carry exit code 2 and are told by their tag, not their class", () => {
    const url = parseUrl("ftp://x")
    assert.instanceOf(url, InvalidClusterUrl)
    const unreachable = new ClusterUnreachable({ step: "connect", address: "db:5432", problem: "refused" })
    const auth = new ClusterAuthFailed({ address: "db:5432", problem: "password authentication failed" })
    for (const error of [url, unreachable, auth]) {
      assert.strictEqual(Errors.exitCodeOf(error), 2)
      assert.isTrue(Cluster.isInputError(error))
    }
    // Another copy of the class (a second load of the module) is told by its tag alike.
    assert.isTrue(Cluster.isInputError({ _tag: "ClusterUnreachable", message: "m" }))
    assert.isFalse(Cluster.isInputError(new Error("ClusterUnreachable")))
  })

  it.live("ClusterUnreachable from a database nobody listens on: step connect, its host:port", () =>
    Effect.gen(function*() {
      const cluster = parseUrl("postgres://trials:pw@127.0.0.1:1/trials") as ClusterUrl
      const error = yield* Effect.flip(Effect.scoped(Layer.build(layerSql(cluster))))
      assert.instanceOf(error, ClusterUnreachable)
      const unreachable = error as ClusterUnreachable
      assert.deepStrictEqual([unreachable.step, unreachable.address], ["connect", "127.0.0.1:1"])
      assert.isString(unreachable.problem)
      assert.strictEqual(unreachable.message, `cannot reach the cluster's PostgreSQL at 127.0.0.1:1: ${unreachable.problem}`)
    }), 20_000)
})

describe("a run's own stops compute their message from their fields", () => {
  it("RunWriteError: the results file's flag, path and lost trials; an output's flag and path; the problem", () => {
    const results = new Finish.RunWriteError({ flag: "--out", path: "out.jsonl", lost: 3, problem: "cannot write out.jsonl: EIO" })
    assert.deepStrictEqual([results.flag, results.path, results.lost], ["--out", "out.jsonl", 3])
    assert.strictEqual(
      results.message,
      "cannot write out.jsonl: EIO; the run stopped (the summary counts what the file holds; --resume runs the rest)"
    )
    const output = new Finish.RunWriteError({ flag: "--summary", path: "s.json", problem: "cannot write --summary s.json: EISDIR" })
    assert.deepStrictEqual([output.flag, output.path, output.lost], ["--summary", "s.json", undefined])
    assert.strictEqual(output.message, "cannot write --summary s.json: EISDIR")
  })

  it.effect("RunWriteError from exitDecision: the results file's failure, then the last output's, each with its flag and path", () =>
    Effect.gen(function*() {
      const failure = new ResultsWriteError({ path: "out.jsonl", message: "cannot write out.jsonl: EIO", lost: 3 })
      const writer: Writer = { append: () => Effect.void, flush: Effect.void, written: () => 1, failure: () => failure }
      const stopped = new MutableCounts(undefined)
      stopped.writer = writer
      const lost = errorOf(yield* Effect.exit(Effect.fail(failure).pipe(Finish.exitDecision(stopped))))
      assert.instanceOf(lost, Finish.RunWriteError)
      const write = lost as Finish.RunWriteError
      assert.deepStrictEqual([write.flag, write.path, write.lost, write.problem], ["--out", "out.jsonl", 3, "cannot write out.jsonl: EIO"])
      const counts = new MutableCounts(undefined)
      const summary = new OutputWriteError({ flag: "--summary", path: "s.json", message: "cannot write --summary s.json: EISDIR" })
      counts.unwritten.push(summary.message)
      counts.unwrittenOutputs.push(summary)
      const unwritten = errorOf(yield* Effect.exit(Effect.void.pipe(Finish.exitDecision(counts)))) as Finish.RunWriteError
      assert.deepStrictEqual([unwritten.flag, unwritten.path, unwritten.lost], ["--summary", "s.json", undefined])
      assert.strictEqual(unwritten.message, "cannot write --summary s.json: EISDIR")
    }))

  it.effect("RunGateFailed: every gate's result, the message naming the failed ones as GatesFailed does", () =>
    Effect.gen(function*() {
      const error = new Finish.RunGateFailed({ results: gateResults })
      assert.deepStrictEqual(error.results, gateResults)
      assert.strictEqual(error.message, gateWords)
      assert.strictEqual(error.message, Gates.failed(gateResults)!.message)
      const counts = new MutableCounts(undefined)
      counts.gateFailure = Gates.failed(gateResults)
      const gated = errorOf(yield* Effect.exit(Effect.void.pipe(Finish.exitDecision(counts))))
      assert.instanceOf(gated, Finish.RunGateFailed)
      assert.deepStrictEqual((gated as Finish.RunGateFailed).results, gateResults)
    }))

  it.effect("ToolServerFailed: the server's flag and spec and what it did, or the trial that met it", () =>
    Effect.gen(function*() {
      const before = new ToolsStop.ToolServerFailed({
        where: "--tools mcp:stdio:node s.js",
        problem: "the MCP server did not answer initialize within 1s (--mcp-timeout); the server's stderr: fixture: loading"
      })
      assert.deepStrictEqual([before.where, before.trial_id], ["--tools mcp:stdio:node s.js", undefined])
      assert.strictEqual(
        before.message,
        "--tools mcp:stdio:node s.js: the MCP server did not answer initialize within 1s (--mcp-timeout); " +
          "the server's stderr: fixture: loading; the run stopped before its first trial"
      )
      const trial: AgentEvalTrial = {
        id: "b:1",
        task_id: "b",
        status: "failed",
        error: { type: "McpServerFailed", message: "tool server fs exited twice", occurred_at: "2026-01-01T00:00:00.000Z" },
        metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:00.001Z", latency_ms: 1 }
      }
      const stopped = yield* Effect.flip(Stream.runDrain(ToolsStop.stopOnDeadServer(Stream.make(trial))))
      assert.instanceOf(stopped, ToolsStop.ToolServerFailed)
      assert.deepStrictEqual([stopped.where, stopped.problem, stopped.trial_id], [undefined, "tool server fs exited twice", "b:1"])
      assert.strictEqual(
        stopped.message,
        "tool server fs exited twice; the run stopped (trial recorded; --resume runs the rest once the server works)"
      )
    }))
})

describe("score's, report's and compare's stops compute their message from their fields", () => {
  it("TasksError unread: the dataset flags given, and why there are no tasks to read", () => {
    const error = new Recorded.TasksError({ kind: "unread", flags: ["--format", "--map"], problem: "the run of r.jsonl read synthetic tasks, not a file" })
    assert.deepStrictEqual([error.kind, error.flags, error.problem], ["unread", ["--format", "--map"], "the run of r.jsonl read synthetic tasks, not a file"])
    assert.strictEqual(error.message, "--format, --map: the run of r.jsonl read synthetic tasks, not a file: give --tasks FILE")
  })

  it("TasksError mapping: the run definition's file and field, and the mapping's problem", () => {
    const error = new Recorded.TasksError({ kind: "mapping", file: "r.jsonl.run.json", field: "read.map", problem: "expected NAME=COLUMN" })
    assert.deepStrictEqual([error.file, error.field], ["r.jsonl.run.json", "read.map"])
    assert.strictEqual(error.message, "r.jsonl.run.json: field read.map: expected NAME=COLUMN: give --map")
  })

  it.effect("TasksError unmatched, from someMatch: the tasks, their first ids, how they were read, the results file and its task ids", () =>
    Effect.gen(function*() {
      const tasks = { name: "--tasks t.csv", how: "--format csv", items: Stream.empty }
      const error = yield* Effect.flip(Recorded.someMatch({
        tasks,
        ids: new Set(["row-1", "row-2", "row-3", "row-4"]),
        results: "r.jsonl",
        trials: Stream.make("a", "b", "a")
      }))
      assert.instanceOf(error, Recorded.TasksError)
      assert.deepStrictEqual(
        [error.kind, error.tasks, error.task_ids, error.how, error.results, error.trial_task_ids],
        ["unmatched", "--tasks t.csv", ["row-1", "row-2", "row-3", "row-4"], "--format csv", "r.jsonl", ["a", "b"]]
      )
      assert.strictEqual(
        error.message,
        "--tasks t.csv: none of its task ids (\"row-1\", \"row-2\", \"row-3\", ...) is the task_id of a trial in r.jsonl (\"a\", \"b\"), " +
          "read with --format csv: give the run's own task file, and --map id=COLUMN where the id is another column"
      )
      const plain = new Recorded.TasksError({ kind: "unmatched", tasks: "the tasks", task_ids: [], how: "", results: "r.jsonl", trial_task_ids: ["a"] })
      assert.strictEqual(
        plain.message,
        "the tasks: none of its task ids (none) is the task_id of a trial in r.jsonl (\"a\"): " +
          "give the run's own task file, and --map id=COLUMN where the id is another column"
      )
    }))

  it("ScoreWriteError: the scored file's flag, path and lost trials, or the --summary's; the problem", () => {
    const scored = new Rescore.ScoreWriteError({ flag: "--out", path: "s.jsonl", lost: 2, problem: "cannot write s.jsonl: ENOSPC" })
    assert.deepStrictEqual([scored.flag, scored.path, scored.lost], ["--out", "s.jsonl", 2])
    assert.strictEqual(scored.message, "cannot write s.jsonl: ENOSPC; --resume scores the rest")
    const summary = new Rescore.ScoreWriteError({ flag: "--summary", path: "sum.json", problem: "cannot write --summary sum.json: it is a folder" })
    assert.deepStrictEqual([summary.flag, summary.path, summary.lost], ["--summary", "sum.json", undefined])
    assert.strictEqual(summary.message, "cannot write --summary sum.json: it is a folder")
  })

  it("ScoreGateFailed: every gate's result, worded as GatesFailed", () => {
    const error = new Rescore.ScoreGateFailed({ results: gateResults })
    assert.deepStrictEqual(error.results, gateResults)
    assert.strictEqual(error.message, gateWords)
  })

  it("ReportWriteError: the flag and path of the HTML file, and the write's problem", () => {
    const error = new Report.ReportWriteError({ flag: "--report", path: "r.html", problem: "cannot write --report r.html: EACCES" })
    assert.deepStrictEqual([error.flag, error.path], ["--report", "r.html"])
    assert.strictEqual(error.message, "cannot write --report r.html: EACCES")
  })

  it("CompareWriteError: the flag and path, the write's problem, or what the comparison lacks for its schema", () => {
    const write = new Compare.CompareWriteError({ flag: "--html", path: "c.html", problem: "cannot write --html c.html: EISDIR" })
    assert.deepStrictEqual([write.flag, write.path, write.unfit], ["--html", "c.html", undefined])
    assert.strictEqual(write.message, "cannot write --html c.html: EISDIR")
    const unfit = new Compare.CompareWriteError({ flag: "--json", path: "c.json", problem: "Expected a finite number", unfit: true })
    assert.strictEqual(unfit.message, "cannot write --json c.json: the comparison does not fit its schema: Expected a finite number")
  })
})

describe("the CLI's stops keep the fields of what stopped them", () => {
  it("RunStopped: the words of the command's own error, and the flag and file it named", () => {
    const write = new Finish.RunWriteError({ flag: "--out", path: "out.jsonl", lost: 3, problem: "cannot write out.jsonl: EIO" })
    const stopped = exitFor(write)
    assert.instanceOf(stopped, RunStopped)
    const run = stopped as RunStopped
    assert.deepStrictEqual([run.flag, run.file, run.line], ["--out", "out.jsonl", undefined])
    assert.strictEqual(run.message, write.message)
    const gate = exitFor(new Finish.RunGateFailed({ results: gateResults })) as RunStopped
    assert.deepStrictEqual([gate.flag, gate.file, gate.message], [undefined, undefined, gateWords])
  })

  it("BoundsViolated: the words of before, with the tasks, the parallelism and the bounded runner's counts", () => {
    const bounded = { peak_active_calls: 9, pending_before_release: 0, live_fibers_before_release: 12, completed: 512, failed: 0 }
    const error = new BoundsViolated({
      message: "the bounded runner exceeded its bounds or left tasks incomplete",
      tasks: 512,
      parallelism: 8,
      bounded
    })
    assert.deepStrictEqual([error.tasks, error.parallelism, error.bounded], [512, 8, bounded])
    assert.strictEqual(error.message, "the bounded runner exceeded its bounds or left tasks incomplete")
  })
})

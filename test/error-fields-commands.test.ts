/**
 * Issue 39, section 3: errors with fields, the commands' own. Each error
 * below carries the fields a caller acts on (the address, the flag and file,
 * the gates that failed, the server) and computes its message from them,
 * word for word the text it carried before as a plain `message`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ClusterUnreachable, type ClusterUrl, layerSql, parseUrl } from "../src/cluster/Postgres.ts"

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

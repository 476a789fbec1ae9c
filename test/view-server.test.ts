/**
 * `agent-trials view DIR` as a real child process on 127.0.0.1 over results
 * files made by the CLI: `/api/runs` has exactly the contract's fields and
 * the files' figures; the trials' API pages and filters as the files say;
 * the events of a run send a trial appended after connecting; a KEY that
 * climbs out of DIR (plain, encoded, double-encoded `..`) finds nothing; a
 * Host header not the server's own is refused; pages are served; a folder
 * that is not one exits 2; Ctrl-C ends the server while a page listens to
 * a run's events.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { hostsOf } from "../src/view/Server.ts"
import { killAll, readTrials, removeTempDirs, run, type Running, start, tempDir, waitFor } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const root = tempDir()
const dir = path.join(root, "runs")
let server: Running
let url = ""

beforeAll(async () => {
  fs.mkdirSync(path.join(dir, "matrix-1"), { recursive: true })
  const made = await Promise.all([
    run(["--synthetic", "40", "--agent", "sim:latency=1ms,jitter=0ms,fail=0.2", "--out", path.join(dir, "base.jsonl"), "--no-progress"]),
    run(["--synthetic", "30", "--agent", "sim:latency=1ms,jitter=0ms,fail=0.4", "--out", path.join(dir, "matrix-1", "cell-a.jsonl"), "--no-progress"])
  ])
  for (const r of made) assert.strictEqual(r.code, 0, r.stderr)
  // A results file outside DIR, which no KEY may reach.
  fs.copyFileSync(path.join(dir, "base.jsonl"), path.join(root, "secret.jsonl"))
  server = start([dir], { command: "view" })
  await waitFor("the view's URL", () => /http:\/\/127\.0\.0\.1:\d+\//.test(server.stdout()), { timeoutMs: 60_000 })
  url = /http:\/\/127\.0\.0\.1:\d+\//.exec(server.stdout())![0]
}, 120_000)

const getJson = async (address: string) => {
  const res = await fetch(new URL(address, url))
  return { status: res.status, body: await res.json() as any }
}

// node:http, not fetch: fetch does not let a caller set Host.
const withHost = (address: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    const req = http.get(new URL(address, url), { headers: { host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
  })

describe("agent-trials view", () => {
  it("GET /api/runs lists every run with exactly the contract's fields, and how it ended", async () => {
    const { body, status } = await getJson("/api/runs")
    assert.strictEqual(status, 200)
    assert.deepStrictEqual(body.map((r: any) => r.key).sort(), ["base", "matrix-1/cell-a"])
    for (const r of body) {
      assert.deepStrictEqual(Object.keys(r).sort(), [
        "agent", "cost_usd", "dataset", "key", "model", "outcome", "pass_rate", "pass_rate_ci95", "run_id", "started_at", "status", "total", "trials"
      ])
    }
    const base = body.find((r: any) => r.key === "base")
    const trials = readTrials(path.join(dir, "base.jsonl"))
    const passed = trials.filter((t) => t.status === "completed" && Object.values(t.scores ?? {}).every((s) => s.passed)).length
    const definition = JSON.parse(fs.readFileSync(path.join(dir, "base.jsonl.run.json"), "utf8"))
    assert.strictEqual(base.run_id, definition.run_id)
    assert.strictEqual(base.trials, 40)
    assert.strictEqual(base.total, 40)
    assert.strictEqual(base.status, "finished")
    assert.strictEqual(base.outcome, "finished")
    assert.strictEqual(base.dataset, "synthetic 40")
    assert.strictEqual(base.pass_rate, passed / 40)
    assert.isTrue(base.pass_rate_ci95[0] <= base.pass_rate && base.pass_rate <= base.pass_rate_ci95[1])
  })

  it("GET /api/runs/KEY/trials pages and filters as the file says", async () => {
    const trials = readTrials(path.join(dir, "matrix-1", "cell-a.jsonl"))
    const key = encodeURIComponent("matrix-1/cell-a")
    const page = await getJson(`/api/runs/${key}/trials?offset=5&limit=10`)
    assert.strictEqual(page.body.total, 30)
    assert.deepStrictEqual(page.body.trials.map((t: any) => t.id), trials.slice(5, 15).map((t) => t.id))
    const failed = await getJson(`/api/runs/${key}/trials?status=failed&limit=1000`)
    const expected = trials.filter((t) => t.status === "failed")
    assert.isAbove(expected.length, 0)
    assert.strictEqual(failed.body.total, expected.length)
    assert.deepStrictEqual(failed.body.trials, JSON.parse(JSON.stringify(expected)))
    const one = trials.find((t) => t.status === "completed")!
    const text = await getJson(`/api/runs/${key}/trials?q=${encodeURIComponent(`"${one.task_id}"`)}`)
    assert.deepStrictEqual(text.body.trials.map((t: any) => t.id), [one.id])
    const verdict = await getJson(`/api/runs/${key}/trials?scorer=exact:passed&limit=1000`)
    assert.strictEqual(verdict.body.total, trials.filter((t) => t.scores?.["exact"]?.passed === true).length)
    const bad = await getJson(`/api/runs/${key}/trials?limit=abc`)
    assert.strictEqual(bad.status, 400)
    assert.match(bad.body.error, /limit must be an integer/)
    assert.strictEqual((await getJson(`/api/runs/${key}/trials?status=done`)).status, 400)
  })

  it("GET /api/runs/KEY/events sends a trial appended after connecting", async () => {
    const file = path.join(dir, "live.jsonl")
    const lines = fs.readFileSync(path.join(dir, "base.jsonl"), "utf8").split("\n").filter((l) => l !== "")
    fs.writeFileSync(file, lines.slice(0, 3).join("\n") + "\n")
    const res = await fetch(new URL("/api/runs/live/events", url))
    assert.strictEqual(res.headers.get("content-type")?.startsWith("text/event-stream"), true)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let received = ""
    const until = async (what: string, predicate: () => boolean) => {
      while (!predicate()) {
        const { done, value } = await reader.read()
        if (done) throw new Error(`the events ended before ${what}: ${received}`)
        received += value
      }
    }
    await until("the first progress", () => received.includes("event: progress"))
    assert.include(received, `"trials":3`)
    fs.appendFileSync(file, lines[3] + "\n")
    await until("the appended trial", () => /event: trial\ndata: .*\n\n/.test(received))
    const data = /event: trial\ndata: (.*)\n\n/.exec(received)![1]!
    assert.deepStrictEqual(JSON.parse(data), JSON.parse(lines[3]!))
    await until("the progress after it", () => received.split("event: progress").length >= 3)
    assert.include(received.slice(received.lastIndexOf("event: progress")), `"trials":4`)
    assert.notInclude(received, "event: end")
    // The run's end marker: the events end at once, saying how, with every trial sent.
    fs.appendFileSync(file, lines[4] + "\n")
    fs.writeFileSync(`${file}.end.json`, JSON.stringify({ run_id: "r", ended_at: new Date().toISOString(), outcome: "max_cost_reached", written: 5 }))
    await until("the end", () => received.includes("event: end"))
    assert.match(received, /event: end\ndata: \{"reason":"ended","outcome":"max_cost_reached","trials":5\}\n\n$/)
    assert.strictEqual(received.split("event: trial").length, 3)
    const live = (await getJson("/api/runs")).body.find((r: any) => r.key === "live")
    assert.deepStrictEqual([live.status, live.outcome], ["stopped", "max_cost_reached"])
    await reader.cancel()
  })

  it("serves only what is under DIR: .., encoded and double-encoded, find no run", async () => {
    for (
      const address of [
        "/api/runs/..%2Fsecret/trials",
        "/api/runs/%2e%2e%2fsecret/trials",
        "/api/runs/%252e%252e%252fsecret/trials",
        "/runs/..%2Fsecret",
        "/runs/%2E%2E%2Fsecret",
        "/runs/%252E%252E%252Fsecret",
        "/runs/..%252fsecret",
        "/runs/matrix-1%2F..%2F..%2Fsecret",
        "/compare?base=..%2Fsecret&new=base"
      ]
    ) {
      const res = await fetch(new URL(address, url))
      assert.strictEqual(res.status, 404, address)
      assert.notInclude(await res.text(), "synthetic-0:1", address)
    }
    // Undecodable escapes are refused, not guessed.
    assert.strictEqual((await fetch(new URL("/runs/%E0%A4%A", url))).status, 400)
  })

  it("answers only requests whose Host is its own (DNS rebinding)", async () => {
    const port = new URL(url).port
    assert.strictEqual(await withHost("/api/runs", "evil.example"), 403)
    assert.strictEqual(await withHost("/api/runs", `evil.example:${port}`), 403)
    assert.strictEqual(await withHost("/", `127.0.0.1:${port}`), 200)
    assert.strictEqual(await withHost("/", `localhost:${port}`), 200)
  })

  it("serves the pages: index, run, trial, compare", async () => {
    const index = await (await fetch(url)).text()
    assert.include(index, `href="/runs/matrix-1%2Fcell-a"`)
    const page = await fetch(new URL("/runs/base", url))
    assert.strictEqual(page.status, 200)
    assert.include(await page.text(), "connect-src 'self'")
    const trial = await fetch(new URL(`/runs/base/trials/${encodeURIComponent("synthetic-1:1")}`, url))
    assert.strictEqual(trial.status, 200)
    assert.include(await trial.text(), "synthetic-1:1")
    assert.strictEqual((await fetch(new URL(`/runs/base/trials/nope`, url))).status, 404)
    const compare = await fetch(new URL(`/compare?base=base&new=${encodeURIComponent("matrix-1/cell-a")}`, url))
    assert.strictEqual(compare.status, 200)
    const html = await compare.text()
    assert.include(html, "Flipped tasks, side by side")
    assert.include(html, "p Holm")
  })

  it("a port already taken exits 2 naming --port and the system's reason; a port out of range exits 2", async () => {
    const port = new URL(url).port
    const taken = await run([dir, "--port", port], { command: "view" })
    assert.strictEqual(taken.code, 2)
    assert.include(taken.stderr, `view: cannot listen on --host 127.0.0.1 --port ${port}: listen EADDRINUSE`)
    const range = await run([dir, "--port", "70000"], { command: "view" })
    assert.strictEqual(range.code, 2)
    assert.include(range.stderr, "--port must be an integer from 0 to 65535, got 70000")
  })

  it("a DIR that is not a folder exits 2 naming it", async () => {
    const missing = path.join(root, "nope")
    const result = await run([missing], { command: "view" })
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, `view: DIR ${missing} is not a folder`)
  })

  it("the Host headers it answers: its own address, loopback's names for loopback, every interface's when bound to all", () => {
    assert.deepStrictEqual([...hostsOf("127.0.0.1", 8080)].sort(), ["127.0.0.1:8080", "[::1]:8080", "localhost:8080"])
    assert.deepStrictEqual([...hostsOf("10.1.2.3", 80)], ["10.1.2.3:80"])
    const all = hostsOf("0.0.0.0", 80)
    assert.isTrue(all.has("127.0.0.1:80") && all.has("localhost:80"))
    assert.isFalse(all.has("evil.example:80"))
  })

  it("Ctrl-C ends the server while a client listens to a run's events", async () => {
    const other = start([dir], { command: "view" })
    await waitFor("the second view's URL", () => /http:\/\/127\.0\.0\.1:\d+\//.test(other.stdout()), { timeoutMs: 60_000 })
    const address = /http:\/\/127\.0\.0\.1:\d+\//.exec(other.stdout())![0]
    fs.writeFileSync(path.join(dir, "fresh.jsonl"), fs.readFileSync(path.join(dir, "base.jsonl")))
    const res = await fetch(new URL("/api/runs/fresh/events", address))
    const reader = res.body!.getReader()
    await reader.read()
    other.killGroup("SIGINT")
    await waitFor("the server's exit after Ctrl-C", () => other.exited(), { timeoutMs: 15_000 })
    await reader.cancel().catch(() => undefined)
  })
})

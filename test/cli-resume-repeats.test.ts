/**
 * What a resumed run repeats after a kill -9: the real command against a
 * real server on 127.0.0.1 that answers every request after a fixed delay
 * and counts the requests of each task. The tasks the server saw twice are
 * the calls that were in flight at the kill plus the trials the writer had
 * not flushed; the writer flushes at least every 200 ms, and with a delay
 * longer than that no call slot finishes twice within one flush, so at most
 * `parallelism` trials can be unflushed: at most 2 x parallelism repeats.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  lineCount,
  readTrials,
  removeTempDirs,
  run,
  start,
  syntheticIds,
  tempDir,
  waitFor
} from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

// A server that answers each request `delayMs` after it has read it, and
// counts the requests of each task.
const countingServer = async (delayMs: number) => {
  const seen = new Map<string, number>()
  let open = 0
  let answered = 0
  const server = http.createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8").on("data", (chunk: string) => body += chunk)
    req.on("end", () => {
      const id = (JSON.parse(body) as { readonly id: string }).id
      seen.set(id, (seen.get(id) ?? 0) + 1)
      open++
      setTimeout(() => {
        open--
        answered++
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ output_text: String(2 * Number(id.slice("synthetic-".length))) }))
      }, delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent`,
    seen,
    open: () => open,
    answered: () => answered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

// Runs `total` trials at `parallelism` against a server answering after
// `delayMs`, kill -9s the run once the server has answered `killAt` calls
// (whatever the writer did with them), resumes it to
// the end; what the server saw twice, and the calls it held at the kill.
const killAndResume = async (parallelism: number, delayMs: number, total: number, killAt: number) => {
  const server = await countingServer(delayMs)
  try {
    const out = path.join(tempDir(), "out.jsonl")
    const args = [
      "--synthetic", String(total), "--agent", server.url, "--parallelism", String(parallelism),
      "--out", out, "--no-progress"
    ]
    const first = start(args)
    await waitFor(`${killAt} calls answered`, () => first.exited() || server.answered() >= killAt, { everyMs: 5 })
    first.killGroup("SIGKILL")
    const openAtKill = server.open()
    const killed = await first.result
    assert.strictEqual(killed.signal, "SIGKILL", `the run ended before it was killed: ${describeResult(killed)}`)
    const onDisk = lineCount(out)
    const resumed = await run([...args, "--resume"])
    assert.strictEqual(resumed.code, 0, describeResult(resumed))
    assertExactlyOnce(readTrials(out), syntheticIds(total))
    const repeated = [...server.seen.values()].filter((n) => n > 1).length
    assert.isTrue([...server.seen.values()].every((n) => n <= 2), "a task was asked more than twice")
    assert.strictEqual(server.seen.size, total)
    return { repeated, openAtKill, onDisk }
  } finally {
    await server.close()
  }
}

describe("agent-trials run: what --resume repeats after a kill -9", () => {
  // 300 ms answers: more than the writer's 200 ms between flushes, with room
  // for a busy machine's late timer.
  for (const [parallelism, total, killAt] of [[64, 1600, 500], [16, 500, 150]] as const) {
    it(`parallelism ${parallelism}: at most the calls in flight plus one flush's worth (${parallelism}) are asked again`, async () => {
      const { onDisk, openAtKill, repeated } = await killAndResume(parallelism, 300, total, killAt)
      console.log(`parallelism ${parallelism}: ${repeated} asked again (${openAtKill} open at the kill, ${onDisk} on disk)`)
      assert.isBelow(onDisk, total, "killed after the run had ended")
      assert.isAtMost(openAtKill, parallelism)
      assert.isAtMost(repeated, 2 * parallelism, `${repeated} tasks asked again (${openAtKill} open at the kill)`)
    }, 120_000)
  }
})

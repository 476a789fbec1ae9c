/**
 * `agent-trials cache stats` and `agent-trials cache clear [--older-than
 * DURATION]` (issue 40, part 3), as real commands on a real cache file.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { describeResult, killAll, removeTempDirs, run, tempDir } from "./cli-helpers.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const DAY = 86_400_000

// A cache with entries stored 10 days, 3 days and 1 minute ago, as `run --cache` makes it.
const cacheWithAges = (dir: string): void => {
  fs.mkdirSync(dir, { recursive: true })
  const db = new DatabaseSync(path.join(dir, "responses.sqlite"))
  db.exec("CREATE TABLE responses (key TEXT PRIMARY KEY, created_at INTEGER NOT NULL, body TEXT NOT NULL)")
  const put = db.prepare("INSERT INTO responses VALUES (?, ?, ?)")
  const now = Date.now()
  put.run("old", now - 10 * DAY, "{\"a\":1}")
  put.run("mid", now - 3 * DAY, "{\"b\":22}")
  put.run("new", now - 60_000, "{\"c\":333}")
  db.close()
}

const cache = (args: ReadonlyArray<string>) => run(args, { command: "cache" })

describe.concurrent("agent-trials cache", () => {
  it("stats: entries, bytes, oldest and newest; clear --older-than, then clear", async () => {
    const dir = path.join(tempDir(), "cache")
    cacheWithAges(dir)
    const stats = await cache(["stats", "--cache-dir", dir])
    assert.strictEqual(stats.code, 0, describeResult(stats))
    assert.match(
      stats.stdout,
      new RegExp(`^response cache ${path.join(dir, "responses.sqlite")}: 3 entries, 24 B of answers \\([\\d.]+ [KM]?B on disk\\), oldest \\d{4}-.*Z, newest \\d{4}-.*Z\\n$`)
    )
    const none = await cache(["clear", "--older-than", "30d", "--cache-dir", dir])
    assert.strictEqual(none.code, 0, describeResult(none))
    assert.strictEqual(none.stdout, `removed 0 entries from the response cache in ${dir}\n`)
    const old = await cache(["clear", "--older-than", "7d", "--cache-dir", dir])
    assert.strictEqual(old.stdout, `removed 1 entry from the response cache in ${dir}\n`)
    const mid = await cache(["clear", "--older-than", "1h", "--cache-dir", dir])
    assert.strictEqual(mid.stdout, `removed 1 entry from the response cache in ${dir}\n`)
    assert.include((await cache(["stats", "--cache-dir", dir])).stdout, ": 1 entry, 9 B of answers")
    const all = await cache(["clear", "--cache-dir", dir])
    assert.strictEqual(all.stdout, `removed 1 entry from the response cache in ${dir}\n`)
    assert.include((await cache(["stats", "--cache-dir", dir])).stdout, ": 0 entries, 0 B of answers")
  }, 120_000)

  it("the default folder is $XDG_CACHE_HOME/agent-trials; a bad --older-than is refused naming the flag", async () => {
    const xdg = tempDir()
    const stats = await run(["stats"], { command: "cache", env: { XDG_CACHE_HOME: xdg } })
    assert.strictEqual(stats.code, 0, describeResult(stats))
    assert.include(stats.stdout, `response cache ${path.join(xdg, "agent-trials", "responses.sqlite")}: 0 entries`)
    const bad = await cache(["clear", "--older-than", "7", "--cache-dir", xdg])
    assert.strictEqual(bad.code, 2, describeResult(bad))
    assert.include(bad.stderr, "Expected --older-than to be a duration greater than 0 with a unit, like 7d, 12h or 30m, got \"7\"")
  }, 120_000)

  it("a folder that cannot hold the cache is an error naming the file, exit 2", async () => {
    const file = path.join(tempDir(), "a-file")
    fs.writeFileSync(file, "")
    const result = await cache(["stats", "--cache-dir", path.join(file, "cache")])
    assert.strictEqual(result.code, 2, describeResult(result))
    assert.include(result.stderr, `the response cache ${path.join(file, "cache", "responses.sqlite")}: `)
  }, 120_000)
})

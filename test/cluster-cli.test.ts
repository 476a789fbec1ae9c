/**
 * The cluster commands' bad input, as real processes (no PostgreSQL needed):
 * a `--cluster` that is not a PostgreSQL URL, and a database nobody listens
 * for, give one line on stderr and exit 2, without the password; a local
 * run never loads the cluster's code.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { afterAll } from "vitest"
import {
  assertExactlyOnce,
  describeResult,
  killAll,
  readTrials,
  removeTempDirs,
  repoRoot,
  run,
  syntheticIds,
  tempDir
} from "./cli-helpers.ts"
import { freePort } from "./pg.ts"

afterAll(() => {
  killAll()
  removeTempDirs()
})

const oneLine = (stderr: string) => {
  const lines = stderr.trim().split("\n")
  assert.strictEqual(lines.length, 1, `expected one line on stderr:\n${stderr}`)
  return lines[0]!
}

describe("cluster commands: bad input", () => {
  it("run --cluster with a URL that is not PostgreSQL's: exit 2 naming --cluster", async () => {
    for (const url of ["http://db.example:5432/trials", "not a url"]) {
      const result = await run(["--cluster", url, "--synthetic", "3"])
      assert.strictEqual(result.code, 2, describeResult(result))
      const line = oneLine(result.stderr)
      assert.match(line, /^agent-trials: --cluster .*expected postgres:\/\/USER/)
    }
  })

  it("run, worker and cluster prune on an unreachable database: exit 2 naming host:port, never the password", async () => {
    const port = await freePort()
    const url = `postgres://trials:s3cret-pw@127.0.0.1:${port}/trials`
    const dir = tempDir()
    const cases: Array<[ReadonlyArray<string>, string | undefined]> = [
      [["--cluster", url, "--synthetic", "3", "--out", path.join(dir, "r.jsonl")], undefined],
      [["--cluster", url, "--host", "127.0.0.1", "--port", String(await freePort())], "worker"],
      [["prune", "--cluster", url], "cluster"]
    ]
    for (const [args, command] of cases) {
      const result = await run(args, command === undefined ? {} : { command })
      assert.strictEqual(result.code, 2, describeResult(result))
      const line = oneLine(result.stderr)
      assert.include(line, `127.0.0.1:${port}`)
      assert.notInclude(result.stderr + result.stdout, "s3cret-pw")
    }
    // The run stopped before anything was written.
    assert.isFalse(fs.existsSync(path.join(dir, "r.jsonl")))
  })

  it("run --cluster refuses --agent, --rate and --adaptive: the workers own the agent", async () => {
    const url = "postgres://trials@127.0.0.1:1/trials"
    for (const [flags, named] of [[["--agent", "sim:latency=5ms"], "--agent"], [["--rate", "5/s"], "--rate"], [["--adaptive"], "--adaptive"]] as const) {
      const result = await run(["--cluster", url, "--synthetic", "3", ...flags])
      assert.strictEqual(result.code, 2, describeResult(result))
      assert.match(oneLine(result.stderr), new RegExp(`^agent-trials: ${named} cannot be used with --cluster`))
    }
  })

  it("run --cluster refuses --agent and --model however they are given: the default value, or from the environment", async () => {
    const url = "postgres://trials@127.0.0.1:1/trials"
    const cases: Array<[ReadonlyArray<string>, Record<string, string>, string]> = [
      [["--agent", "sim"], {}, "--agent"],
      [[], { AGENT_TRIALS_AGENT: "sim:latency=5ms" }, "--agent"],
      [[], { AGENT_TRIALS_AGENT: "sim" }, "--agent"],
      [["--model", "gpt-4o-mini"], {}, "--model"],
      [[], { AGENT_TRIALS_MODEL: "gpt-4o-mini" }, "--model"]
    ]
    for (const [flags, env, named] of cases) {
      const result = await run(["--cluster", url, "--synthetic", "3", ...flags], { env })
      assert.strictEqual(result.code, 2, `${JSON.stringify([flags, env])}: ${describeResult(result)}`)
      // Refused before connecting: nobody listens on port 1, and the message is not about it.
      assert.match(oneLine(result.stderr), new RegExp(`^agent-trials: ${named} cannot be used with --cluster`))
    }
  })

  it("without --cluster a run is local: it loads neither the cluster's code nor PostgreSQL's client", async () => {
    const dir = tempDir()
    const out = path.join(dir, "r.jsonl")
    const loaded = path.join(dir, "loaded.json")
    // Every module Node resolves during a whole local run, recorded by a resolve hook.
    const script = `
      import { registerHooks } from "node:module"
      import * as fs from "node:fs"
      const urls = []
      registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); urls.push(r.url); return r } })
      process.on("exit", () => fs.writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(urls)))
      process.argv = [process.argv[0], "scripts/trials.ts", "run", "--synthetic", "20", "--no-progress", "--out", ${JSON.stringify(out)}]
      await import("./scripts/trials.ts")`
    const child = spawnSync(path.join(repoRoot, "node_modules", ".bin", "node"), ["--input-type=module", "-e", script], {
      cwd: repoRoot,
      encoding: "utf8"
    })
    assert.strictEqual(child.status, 0, child.stderr)
    assertExactlyOnce(readTrials(out), syntheticIds(20))
    const urls: Array<string> = JSON.parse(fs.readFileSync(loaded, "utf8"))
    assert.isAbove(urls.filter((url) => url.includes("/src/")).length, 10)
    assert.deepStrictEqual(urls.filter((url) => /sql-pg|\/src\/cluster\/|effect\/dist\/cluster\//.test(url)), [])
  })
})

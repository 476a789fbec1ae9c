/**
 * What a command loads: a run loads what its flags need. undici (about a
 * hundred modules) only once a request is made, by an HTTP agent; a run of
 * `sim` never loads it. Checked on src/cli/bin.ts under Node's type stripping
 * (the module graph the bundles are split from), every module Node resolves
 * recorded by a resolve hook in the child.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const repoRoot = path.resolve(import.meta.dirname, "..")
const node = path.join(repoRoot, "node_modules", ".bin", "node")
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-startup-loads-"))
const hook = path.join(tmp, "hook.mjs")
fs.writeFileSync(hook, `
  import { registerHooks } from "node:module"
  import { writeFileSync } from "node:fs"
  const urls = []
  registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); urls.push(r.url); return r } })
  process.on("exit", () => writeFileSync(process.env.RESOLVED_TO, JSON.stringify(urls)))`)

interface Loaded {
  readonly code: number | null
  readonly stderr: string
  readonly urls: ReadonlyArray<string>
  readonly trials: ReadonlyArray<{ readonly status: string; readonly output?: { readonly output_text?: string } }>
}

let runs = 0
const runLoading = (args: ReadonlyArray<string>) =>
  new Promise<Loaded>((resolve, reject) => {
    const n = ++runs
    const out = path.join(tmp, `out-${n}.jsonl`)
    const resolved = path.join(tmp, `resolved-${n}.json`)
    const env: NodeJS.ProcessEnv = { ...process.env, RESOLVED_TO: resolved, AGENT_TRIALS_CONFIG: "/dev/null" }
    for (const key of Object.keys(env)) if (key.startsWith("AGENT_TRIALS_") && key !== "AGENT_TRIALS_CONFIG") delete env[key]
    delete env["NODE_OPTIONS"]
    const child = spawn(node, ["--import", pathToFileURL(hook).href, "src/cli/bin.ts", "run", ...args, "--no-progress", "--out", out], {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
    child.on("error", reject)
    child.on("close", (code) => {
      const urls: Array<string> = fs.existsSync(resolved) ? JSON.parse(fs.readFileSync(resolved, "utf8")) : []
      const trials = fs.existsSync(out) ? fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line)) : []
      resolve({ code, stderr, urls, trials })
    })
  })

const undiciUrls = (urls: ReadonlyArray<string>) => urls.filter((url) => /\/node_modules\/undici\//.test(url))

// An OpenAI-compatible server: every chat completion answers "ok".
let server: http.Server
let baseUrl = ""
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      res.setHeader("content-type", "application/json")
      res.end(JSON.stringify({
        id: "c",
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }
      }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  fs.rmSync(tmp, { recursive: true, force: true })
})

describe.concurrent("what a run loads", { timeout: 120_000 }, () => {
  it("run --agent sim: no module of undici", async () => {
    const r = await runLoading(["--synthetic", "3", "--agent", "sim:latency=1ms,fail=0"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(r.trials.map((t) => t.status), ["completed", "completed", "completed"])
    assert.isAbove(r.urls.length, 100)
    assert.deepStrictEqual(undiciUrls(r.urls), [])
  })

  it("run --agent openai:URL: undici loaded by the first request, every trial answered", async () => {
    const r = await runLoading(["--synthetic", "3", "--agent", `openai:${baseUrl}`, "--model", "m"])
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(r.trials.map((t) => [t.status, t.output?.output_text]), [["completed", "ok"], ["completed", "ok"], ["completed", "ok"]])
    assert.isAbove(undiciUrls(r.urls).length, 0)
  })
})

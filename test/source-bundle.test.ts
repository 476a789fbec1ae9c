/**
 * `npm start` and `npm run trials` run a bundle of src/ (scripts/internal/bundle.ts),
 * kept in the OS temp folder: made again when a file of src/ changes, made
 * once when two commands start together, and its errors name lines of src/.
 * Each test works on a copy of the repository's src/ and scripts (its
 * node_modules linked), so edits touch nothing of the repository.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { cacheDir } from "../scripts/internal/bundle.ts"

const repoRoot = path.resolve(import.meta.dirname, "..")
const node = path.join(repoRoot, "node_modules", ".bin", "node")

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const trials = (root: string, args: ReadonlyArray<string>) =>
  new Promise<Result>((resolve, reject) => {
    const env = { ...process.env }
    for (const key of Object.keys(env)) if (key.startsWith("AGENT_TRIALS_") || /^npm_/i.test(key) || key === "NODE_OPTIONS") delete env[key]
    const child = spawn(node, [path.join(root, "scripts", "trials.ts"), ...args], { cwd: root, env: { ...env, AGENT_TRIALS_CONFIG: "/dev/null" }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
    child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const describeResult = (r: Result) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-source-bundle-"))
const copies: Array<string> = []

// A checkout of its own: src/, the scripts, the manifests; node_modules linked.
const copyOfRepo = (name: string): string => {
  const root = path.join(tmp, name)
  fs.mkdirSync(path.join(root, "scripts", "internal"), { recursive: true })
  fs.cpSync(path.join(repoRoot, "src"), path.join(root, "src"), { recursive: true })
  for (const file of ["scripts/trials.ts", "scripts/internal/bundle.ts", "package.json", "package-lock.json"]) {
    fs.copyFileSync(path.join(repoRoot, file), path.join(root, file))
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(root, "node_modules"))
  copies.push(root)
  return root
}

const bundlesOf = (root: string) => fs.readdirSync(cacheDir(root)).filter((name) => name.startsWith("src-")).sort()

afterAll(() => {
  for (const root of copies) fs.rmSync(cacheDir(root), { recursive: true, force: true })
  fs.rmSync(tmp, { recursive: true, force: true })
})

describe("the npm scripts' bundle of src/", { timeout: 120_000 }, () => {
  it("two commands started together on a new checkout make one bundle and both run; an edit of src/ makes another", async () => {
    const root = copyOfRepo("edit")
    const out = (n: number) => path.join(root, `out-${n}.jsonl`)
    const both = await Promise.all([1, 2].map((n) => trials(root, ["run", "--synthetic", "3", "--no-progress", "--out", out(n)])))
    for (const r of both) assert.strictEqual(r.code, 0, describeResult(r))
    assert.deepStrictEqual([1, 2].map((n) => fs.readFileSync(out(n), "utf8").trimEnd().split("\n").length), [3, 3])
    assert.strictEqual(bundlesOf(root).length, 1)
    assert.deepStrictEqual(fs.readdirSync(cacheDir(root)).filter((name) => name.startsWith("building-")), [])
    // Node's compile cache, beside the bundles: what the two commands compiled, for the next start.
    assert.isAbove(fs.readdirSync(path.join(cacheDir(root), "compile"), { recursive: true }).length, 0)

    const before = await trials(root, ["run", "--help"])
    assert.include(before.stdout, "Run every task of a dataset through an agent", describeResult(before))
    const run = path.join(root, "src", "cli", "run.ts")
    fs.writeFileSync(run, fs.readFileSync(run, "utf8").replace("Run every task of a dataset through an agent", "Run each edited task"))
    const after = await trials(root, ["run", "--help"])
    assert.include(after.stdout, "Run each edited task", describeResult(after))
    assert.notInclude(after.stdout, "Run every task of a dataset through an agent")
    // The old bundle, which no process runs any more, is removed.
    assert.strictEqual(bundlesOf(root).length, 1)
  })

  it("a bundle a running command uses is kept when another is made, and removed once that command is gone (even killed)", async () => {
    const root = copyOfRepo("prune")
    const child = spawn(node, [path.join(root, "scripts", "trials.ts"), "run", "--synthetic", "100000", "--agent", "sim:latency=1s,fail=0", "--no-progress", "--out", path.join(root, "long.jsonl")], {
      cwd: root,
      env: { ...process.env, AGENT_TRIALS_CONFIG: "/dev/null" },
      stdio: "ignore"
    })
    const exited = new Promise((resolve) => child.on("close", resolve))
    try {
      // Its bundle, once made, names it among its users.
      const users = () => fs.existsSync(cacheDir(root)) ? bundlesOf(root).flatMap((b) => fs.readdirSync(path.join(cacheDir(root), b, "users"))) : []
      for (let i = 0; i < 600 && !users().includes(String(child.pid)); i++) await new Promise((resolve) => setTimeout(resolve, 100))
      assert.include(users(), String(child.pid))
      const [used] = bundlesOf(root)
      const run = path.join(root, "src", "cli", "run.ts")
      fs.writeFileSync(run, fs.readFileSync(run, "utf8").replace("Run every task of a dataset through an agent", "Run each edited task"))
      const edited = await trials(root, ["run", "--help"])
      assert.include(edited.stdout, "Run each edited task", describeResult(edited))
      assert.strictEqual(bundlesOf(root).length, 2)
      assert.include(bundlesOf(root), used)
    } finally {
      child.kill("SIGKILL")
      await exited
    }
    const again = await trials(root, ["run", "--help"])
    assert.strictEqual(again.code, 0, describeResult(again))
    assert.strictEqual(bundlesOf(root).length, 1)
  })

  it("a local run through the bundle loads no chunk holding the cluster's code, and no PostgreSQL client", async () => {
    const root = copyOfRepo("local")
    const hook = path.join(tmp, "resolve-hook.mjs")
    fs.writeFileSync(hook, `
      import { registerHooks } from "node:module"
      import { writeFileSync } from "node:fs"
      const urls = []
      registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); urls.push(r.url); return r } })
      process.on("exit", () => writeFileSync(process.env.RESOLVED_TO, JSON.stringify(urls)))`)
    const resolved = path.join(tmp, "local-resolved.json")
    const out = path.join(root, "local.jsonl")
    const r = await new Promise<Result>((resolve, reject) => {
      const child = spawn(node, ["--import", pathToFileURL(hook).href, path.join(root, "scripts", "trials.ts"), "run", "--synthetic", "5", "--no-progress", "--out", out], {
        cwd: root,
        env: { ...process.env, AGENT_TRIALS_CONFIG: "/dev/null", RESOLVED_TO: resolved },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stdout: "", stderr }))
    })
    assert.strictEqual(r.code, 0, describeResult(r))
    assert.strictEqual(fs.readFileSync(out, "utf8").trimEnd().split("\n").length, 5)
    const urls: Array<string> = JSON.parse(fs.readFileSync(resolved, "utf8"))
    const bundle = pathToFileURL(path.join(cacheDir(root), bundlesOf(root)[0]!)).href
    const chunks = urls.filter((url) => url.startsWith(`${bundle}/`) && url.endsWith(".js"))
    assert.isAbove(chunks.length, 5)
    // What each chunk loaded holds, by its source map: the files of src/ it was made from.
    const sources = chunks.flatMap((url) => {
      const map = JSON.parse(fs.readFileSync(new URL(`${url}.map`), "utf8")) as { readonly sources: ReadonlyArray<string> }
      return map.sources.map((source) => path.resolve(path.dirname(new URL(url).pathname), source))
    })
    assert.include(sources, path.join(root, "src", "runner", "Runner.ts"))
    assert.deepStrictEqual(sources.filter((file) => file.startsWith(path.join(root, "src", "cluster") + path.sep) || file === path.join(root, "src", "programs", "Cluster.ts")), [])
    assert.deepStrictEqual(urls.filter((url) => /\/node_modules\/pg\//.test(url)), [])
  })

  it("an error thrown by src/ names its file and line there, through the bundle's source map", async () => {
    const root = copyOfRepo("error")
    const main = path.join(root, "src", "cli", "main.ts")
    const lines = fs.readFileSync(main, "utf8").split("\n")
    const at = lines.findIndex((line) => line.startsWith("runOnNode("))
    lines.splice(at, 0, "const thrown = (): never => {", "  throw new Error(\"thrown from main\")", "}", "thrown()")
    fs.writeFileSync(main, lines.join("\n"))
    const r = await trials(root, ["run", "--synthetic", "1", "--no-progress"])
    assert.notStrictEqual(r.code, 0, describeResult(r))
    assert.include(r.stderr, "thrown from main", describeResult(r))
    // Line numbers are 1-based: the throw is the second inserted line.
    assert.include(r.stderr, `${main}:${at + 2}:`, describeResult(r))
  })
})

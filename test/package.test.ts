/**
 * The package from outside: `npm pack` (which builds dist/ first), the tarball
 * installed into an empty project in a temporary folder, and used there the
 * way a user would, with nothing but Node 24 on the PATH: no tsx, no
 * TypeScript, none of this repository's node_modules. One pack and one install
 * serve every test in this file.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const repoRoot = path.resolve(import.meta.dirname, "..")
const fixtures = path.join(import.meta.dirname, "fixtures", "package")
const readme = () => fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")

// The README shows the embedding program as a user writes it; the fixture
// imports the source so the repository's own typecheck covers it too.
const embedProgram = () =>
  fs.readFileSync(path.join(fixtures, "embed.ts"), "utf8").replace(`from "../../../src/index.ts"`, `from "agent-trials"`)

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const describeResult = (r: Result) => `exit ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`

let tmp = ""
let project = ""
let env: NodeJS.ProcessEnv = {}
let node = ""
let packed: { filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }

const exec = (file: string, args: ReadonlyArray<string>, cwd: string, extraEnv: Record<string, string> = {}) =>
  new Promise<Result>((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (s: string) => stdout += s)
    child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const succeed = async (file: string, args: ReadonlyArray<string>, cwd: string, extraEnv: Record<string, string> = {}) => {
  const result = await exec(file, args, cwd, extraEnv)
  assert.strictEqual(result.code, 0, `${path.basename(file)} ${args.join(" ")}: ${describeResult(result)}`)
  return result
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-package-"))
  // The machine's own node is 20; the project gets the repository's Node 24
  // binary, alone in a folder, so `#!/usr/bin/env node` (npm, the bin) finds
  // it and nothing else of node_modules/.bin is visible.
  const bin = path.join(tmp, "bin")
  fs.mkdirSync(bin)
  node = path.join(bin, "node")
  fs.symlinkSync(fs.realpathSync(path.join(repoRoot, "node_modules", ".bin", "node")), node)
  const inherited = (process.env["PATH"] ?? "").split(path.delimiter).filter((dir) => !dir.endsWith(path.join("node_modules", ".bin")))
  env = { PATH: [bin, ...inherited].join(path.delimiter) }
  // npm's own npm_* variables (set by `npm test`) would point the child npm at this repository.
  for (const [key, value] of Object.entries(process.env)) {
    if (key === "PATH" || /^npm_/i.test(key) || key.startsWith("AGENT_TRIALS_") || key === "INIT_CWD") continue
    if (key === "NODE_OPTIONS" || key === "OPENAI_API_KEY") continue
    env[key] = value
  }

  const packDir = path.join(tmp, "pack")
  fs.mkdirSync(packDir)
  const pack = await succeed("npm", ["pack", "--json", "--pack-destination", packDir], repoRoot)
  // The build's own output (none when it succeeds) would come before the JSON.
  packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0]
  console.log(`agent-trials tarball: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.files.length} files`)

  project = path.join(tmp, "project")
  fs.mkdirSync(project)
  const effectVersion = JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", "effect", "package.json"), "utf8")).version
  fs.writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module", dependencies: { effect: effectVersion } }, null, 2)
  )
  await succeed("npm", ["install", path.join(packDir, packed.filename), "--prefer-offline", "--no-audit", "--no-fund"], project)
  fs.copyFileSync(path.join(fixtures, "app.mjs"), path.join(project, "app.mjs"))
  fs.copyFileSync(path.join(fixtures, "tsconfig.json"), path.join(project, "tsconfig.json"))
  fs.writeFileSync(path.join(project, "embed.ts"), embedProgram())
}, 240_000)

afterAll(() => {
  if (tmp !== "") fs.rmSync(tmp, { recursive: true, force: true })
})

// Generous: under load (two cores shared with other runs) each child is slow.
describe.concurrent("the installed package", { timeout: 180_000 }, () => {
  it("the tarball: built JavaScript, declarations and source maps, the bin; no tests or scripts", () => {
    const files = packed.files.map((f) => f.path)
    for (const file of ["dist/index.js", "dist/index.d.ts", "dist/index.js.map", "dist/index.d.ts.map", "dist/runner/Eager.js", "dist/runner/Eager.d.ts", "dist/cli/bin.js", "src/index.ts", "README.md", "package.json"]) {
      assert.include(files, file)
    }
    assert.deepStrictEqual(files.filter((f) => !/^(dist|src)\//.test(f) && f !== "README.md" && f !== "package.json"), [])
    assert.isTrue(fs.readFileSync(path.join(project, "node_modules", "agent-trials", "dist", "cli", "bin.js"), "utf8").startsWith("#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=80\n"))
  })

  it("the project sees no tsx and no TypeScript", async () => {
    for (const name of ["typescript", "tsx"]) {
      const r = await exec(node, ["--input-type=module", "-e", `await import(${JSON.stringify(name)})`], project)
      assert.notStrictEqual(r.code, 0, `${name} resolved from the project: ${describeResult(r)}`)
      assert.include(r.stderr, "ERR_MODULE_NOT_FOUND")
    }
  })

  it("plain ESM: runTrials over 1,000 tasks stays within its parallelism; runTrialsEager only from agent-trials/eager", async () => {
    const r = await succeed(node, ["app.mjs"], project)
    const { bounded, eager, mainExportsEager, parallelism } = JSON.parse(r.stdout)
    assert.deepStrictEqual([bounded.trials, bounded.ids, bounded.completed], [1000, 1000, 1000])
    assert.isAtLeast(bounded.peakActive, 1)
    assert.isAtMost(bounded.peakActive, parallelism)
    assert.deepStrictEqual([eager.trials, eager.ids, eager.completed], [50, 50, 50])
    assert.isAtMost(eager.peakActive, parallelism)
    assert.isFalse(mainExportsEager)
  })

  it("the library entries load nothing but themselves and effect (no @effect/platform-node)", async () => {
    // Every module Node resolves while importing both entries, recorded by a resolve hook.
    const script = `
      import { registerHooks } from "node:module"
      const urls = []
      registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); urls.push(r.url); return r } })
      await import("agent-trials")
      await import("agent-trials/eager")
      console.log(JSON.stringify(urls))`
    const r = await succeed(node, ["--input-type=module", "-e", script], project)
    const urls: Array<string> = JSON.parse(r.stdout)
    const modules = pathToFileURL(path.join(project, "node_modules")).href
    const ours = urls.filter((url) => url.startsWith(`${modules}/agent-trials/dist/`))
    assert.isAbove(ours.length, 10)
    assert.notInclude(ours, `${modules}/agent-trials/dist/cli/bin.js`)
    assert.deepStrictEqual(
      urls.filter((url) => !url.startsWith("node:") && !url.startsWith(`${modules}/agent-trials/dist/`) && !url.startsWith(`${modules}/effect/dist/`)),
      []
    )
  })

  it("the README's embedding program type-checks against the published .d.ts, and runs as written", async () => {
    assert.include(readme(), embedProgram())
    await succeed(node, [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], project)
    // Node strips the types itself: the program is in the project, not in node_modules.
    const r = await succeed(node, ["embed.ts"], project, { AGENT_TRIALS_PARALLELISM: "4" })
    const out = JSON.parse(r.stdout)
    assert.deepStrictEqual(out.completed, [500, 500])
    assert.strictEqual(out.parallelism, 4)
    // One layer, one budget: the two runs together never exceed it.
    assert.isAtLeast(out.peakActive, 1)
    assert.isAtMost(out.peakActive, 4)
  })

  it("from a clone, the source runs under Node's own type stripping, without tsx or a build", async () => {
    const out = path.join(tmp, "from-source.jsonl")
    await succeed(node, ["scripts/trials.ts", "run", "--synthetic", "20", "--no-progress", "--out", out], repoRoot)
    assert.strictEqual(fs.readFileSync(out, "utf8").trimEnd().split("\n").length, 20)
  })

  it("the bin loads a TypeScript module agent by type stripping (import type, .ts imports); an enum is refused naming the module", async () => {
    const agentTrials = path.join(project, "node_modules", ".bin", "agent-trials")
    const agents = path.join(project, "agents")
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(path.join(agents, "types.ts"), "export type Answer = string\nexport const prefix: string = \"ts \"\n")
    fs.writeFileSync(
      path.join(agents, "agent.ts"),
      "import type { Answer } from \"./types.ts\"\nimport { prefix } from \"./types.ts\"\n" +
        "export const answer = (task: { readonly id: string }): Answer => prefix + task.id\n"
    )
    fs.writeFileSync(path.join(agents, "enum.ts"), "enum Kind { A }\nexport const answer = (task: { readonly id: string }): string => `${Kind.A}${task.id}`\n")
    const out = path.join(project, "ts-agent.jsonl")
    await succeed(agentTrials, ["run", "--synthetic", "3", "--agent", "module:./agents/agent.ts#answer", "--score", "none", "--no-progress", "--out", out], project)
    const outputs = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line).output.output_text).sort()
    assert.deepStrictEqual(outputs, ["ts synthetic-0", "ts synthetic-1", "ts synthetic-2"])
    // The README's words for syntax that needs compiling.
    assert.include(readme(), "supported in strip-only mode")
    const refused = await exec(agentTrials, ["run", "--synthetic", "3", "--agent", "module:./agents/enum.ts#answer", "--no-progress", "--out", path.join(project, "enum.jsonl")], project)
    assert.strictEqual(refused.code, 2, describeResult(refused))
    assert.include(refused.stderr, "agent-trials: --agent module:./agents/enum.ts#answer: cannot load agent module ./agents/enum.ts: TypeScript enum is not supported in strip-only mode", describeResult(refused))
  })

  // The machine's own Node (20 here), found on the PATH without node_modules/.bin, runs the bin
  // through its `#!/usr/bin/env -S node` line.
  const machinePath = (process.env["PATH"] ?? "").split(path.delimiter).filter((dir) => !dir.endsWith(path.join("node_modules", ".bin")))
  const machineNode = machinePath.map((dir) => path.join(dir, "node")).find((file) => fs.existsSync(file))
  it("the bin on the machine's own Node, when older than 24: one line naming the Node it needs, exit 2", async (ctx) => {
    const version = machineNode === undefined ? undefined : (await exec(machineNode, ["--version"], project)).stdout.trim()
    if (version === undefined || Number(version.slice(1).split(".")[0]) >= 24) {
      console.log(`skipped: no Node older than 24 on PATH (found ${version ?? "none"})`)
      return ctx.skip()
    }
    const agentTrials = path.join(project, "node_modules", ".bin", "agent-trials")
    const r = await exec(agentTrials, ["run", "--synthetic", "5", "--no-progress"], project, { PATH: machinePath.join(path.delimiter) })
    assert.deepStrictEqual(r, { code: 2, stdout: "", stderr: `agent-trials needs Node 24 or newer (this is ${version})\n` })
  })

  // The bin is one bundle (scripts/internal/bundle.ts) holding its own copy of effect: a user's
  // module brings the project's. Effects, layers and services meet across the two copies.
  const resolvedBy = async (args: ReadonlyArray<string>) => {
    const hook = path.join(tmp, "resolve-hook.mjs")
    const urls = path.join(tmp, `resolved-${Math.random().toString(36).slice(2)}.json`)
    fs.writeFileSync(hook, `
      import { registerHooks } from "node:module"
      import { writeFileSync } from "node:fs"
      const urls = []
      registerHooks({ resolve: (specifier, context, next) => { const r = next(specifier, context); urls.push(r.url); return r } })
      process.on("exit", () => writeFileSync(process.env.RESOLVED_TO, JSON.stringify(urls)))`)
    const bin = path.join(project, "node_modules", "agent-trials", "dist", "cli", "bin.js")
    const r = await succeed(node, ["--import", pathToFileURL(hook).href, bin, ...args], project, { RESOLVED_TO: urls })
    return { ...r, urls: JSON.parse(fs.readFileSync(urls, "utf8")) as Array<string> }
  }

  it("the bin is a bundle: a run loads its own chunks and Node's modules, no package from node_modules", async () => {
    const out = path.join(project, "bundle-only.jsonl")
    const { urls } = await resolvedBy(["run", "--synthetic", "3", "--agent", "sim", "--no-progress", "--out", out])
    const dist = pathToFileURL(path.join(project, "node_modules", "agent-trials", "dist", "cli")).href
    assert.deepStrictEqual(urls.filter((url) => !url.startsWith("node:") && !url.startsWith(`${dist}/`)), [])
    assert.isAbove(urls.filter((url) => url.startsWith(`${dist}/chunks/`)).length, 0)
    assert.strictEqual(fs.readFileSync(out, "utf8").trimEnd().split("\n").length, 3)
  })

  it("the bin keeps Node's compile cache in the OS temp folder for the next start", async () => {
    const temp = path.join(tmp, "os-temp")
    fs.mkdirSync(temp)
    const out = path.join(project, "compile-cache.jsonl")
    await succeed(path.join(project, "node_modules", ".bin", "agent-trials"), ["run", "--synthetic", "2", "--no-progress", "--out", out], project, { TMPDIR: temp })
    assert.isAbove(fs.readdirSync(path.join(temp, "node-compile-cache"), { recursive: true }).length, 0)
  })

  it("the bin runs a module agent's Effect made with the project's own effect (a second copy), its failure a failed trial", async () => {
    const agents = path.join(project, "effect-agents")
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(
      path.join(agents, "agent.mjs"),
      `import { Context, Effect } from "effect"
      class Prefix extends Context.Service()("consumer/Prefix") {}
      export const answer = (task) =>
        Effect.gen(function*() {
          yield* Effect.sleep("1 millis")
          const prefix = yield* Effect.serviceOption(Prefix)
          if (task.id.endsWith("-2")) return yield* Effect.fail(new Error("no answer for " + task.id))
          return { output_text: "fx " + task.id + " " + prefix._tag }
        })\n`
    )
    const out = path.join(project, "effect-agent.jsonl")
    const { urls } = await resolvedBy(["run", "--synthetic", "3", "--agent", "module:./effect-agents/agent.mjs#answer", "--score", "none", "--no-progress", "--out", out])
    // The agent's effect is the project's, beside the bin's bundled one.
    const projectEffect = pathToFileURL(path.join(project, "node_modules", "effect", "dist")).href
    assert.isTrue(urls.some((url) => url.startsWith(`${projectEffect}/`)))
    const trials = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line)).sort((a, b) => a.task_id < b.task_id ? -1 : 1)
    assert.deepStrictEqual(trials.map((t) => [t.task_id, t.status]), [["synthetic-0", "completed"], ["synthetic-1", "completed"], ["synthetic-2", "failed"]])
    assert.deepStrictEqual(trials.slice(0, 2).map((t) => t.output.output_text), ["fx synthetic-0 None", "fx synthetic-1 None"])
    assert.include(JSON.stringify(trials[2]), "no answer for synthetic-2")
  })

  it("the bin runs an effect-ai: layer made with the project's own effect/ai, its tool calls and usage recorded", async () => {
    fs.writeFileSync(
      path.join(project, "model.mjs"),
      `import { Effect, Layer, Stream } from "effect"
      import { LanguageModel } from "effect/ai"
      const usage = { inputTokens: { total: 12 }, outputTokens: { total: 4 } }
      export const layer = Layer.effect(LanguageModel.LanguageModel, LanguageModel.make({
        generateText: (options) => {
          const results = options.prompt.content.flatMap((m) => m.role === "tool" ? m.content : [])
          const sum = results.find((p) => p.type === "tool-result" && p.name === "add")
          if (sum !== undefined) return Effect.succeed([{ type: "text", text: "sum " + String(sum.result) }, { type: "finish", reason: "stop", usage }])
          return Effect.succeed([{ type: "tool-call", id: "c1", name: "add", params: { a: 2, b: 3 } }, { type: "finish", reason: "tool-calls", usage }])
        },
        streamText: () => Stream.empty
      }))\n`
    )
    fs.writeFileSync(
      path.join(project, "tools.mjs"),
      `export default { add: { description: "adds two numbers", parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }, execute: ({ a, b }) => a + b } }\n`
    )
    const out = path.join(project, "effect-ai.jsonl")
    await succeed(path.join(project, "node_modules", ".bin", "agent-trials"), [
      "run", "--synthetic", "2", "--agent", "effect-ai:./model.mjs#layer", "--tools", "module:./tools.mjs", "--score", "none", "--no-progress", "--out", out
    ], project)
    const trials = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
    assert.deepStrictEqual(trials.map((t) => [t.status, t.output.output_text]), [["completed", "sum 5"], ["completed", "sum 5"]])
    assert.deepStrictEqual(trials.map((t) => t.output.usage.input_tokens), [24, 24])
    assert.deepStrictEqual(trials[0].output.trajectory.map((s: { type: string }) => s.type), ["model", "tool_call", "tool_result", "model"])
  })

  it("the bin: --help lists run, and run --synthetic 100 writes 100 trials", async () => {
    const agentTrials = path.join(project, "node_modules", ".bin", "agent-trials")
    const help = await succeed(agentTrials, ["--help"], project)
    assert.match(help.stdout, /^\s+run\s+Run every task/m)
    const out = path.join(project, "x.jsonl")
    await succeed(agentTrials, ["run", "--synthetic", "100", "--no-progress", "--out", out], project)
    const ids = fs.readFileSync(out, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line).id)
    assert.strictEqual(ids.length, 100)
    assert.strictEqual(new Set(ids).size, 100)
  })
})

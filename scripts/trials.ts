/**
 * `npm run trials -- <command> [flags]`: the `agent-trials` bin, run from source.
 * npm runs it in the package root: paths in flags resolve from the directory
 * npm was run in (INIT_CWD), as the bin's do.
 *
 * What runs is a bundle of the current src/ (scripts/internal/bundle.ts: made
 * again when any file of src/ changes, kept in the OS temp folder), with
 * Node's compile cache beside it and source maps on, so errors name the lines
 * of src/. Without esbuild, on a Node older than 24 (which the bin then
 * refuses in its own words), imported rather than run, or for the cluster's
 * commands, src/ runs under Node's type stripping as is.
 * tsx's loader (about 0.5 CPU-s more to start) is registered first only when
 * the command may load a module of the user's (a `module:` or `effect-ai:`
 * spec, a `.ts` file, a config file that may name them), which it then loads
 * with no limits on their TypeScript.
 */
import * as fs from "node:fs"
import * as module from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { invocationDir } from "../src/internal/invocationDir.ts"
import { cacheDir, sourceBundle } from "./internal/bundle.ts"

const root = path.resolve(import.meta.dirname, "..")
const modern = Number(process.versions.node.split(".")[0]) >= 24
if (modern) module.enableCompileCache(path.join(cacheDir(root), "compile"))
// Imported by a program of its own (a test that hooks module loading to see
// which modules of src/ a run loads), it runs src/ as is. So do the
// cluster's commands (`worker`, `cluster`, `run --cluster`): a bundled client
// starts about a second sooner, and in test/cluster.test.ts (beside another
// test file) its first trials then ran while two just-started workers were
// still sharing out the shards: 2-6 trials ran twice, which the test counts
// against the resume. Started 1.5 s later, the bundled client gave none; the
// cluster's to fix (a worker ready once the shards are shared out).
const clusterCommand = ["worker", "cluster"].includes(process.argv[2] ?? "") ||
  process.argv.some((arg) => arg === "--cluster" || arg.startsWith("--cluster=")) ||
  process.env["AGENT_TRIALS_CLUSTER"] !== undefined
const bundle = modern && import.meta.main && !clusterCommand ? await sourceBundle(root).catch(() => undefined) : undefined

const dir = invocationDir(process.env, process.cwd(), root)
if (dir !== undefined) process.chdir(dir)

const userModule = /module:|effect-ai:|\.[mc]?tsx?\b/
const texts = [...process.argv.slice(2), ...Object.entries(process.env).flatMap(([name, value]) => name.startsWith("AGENT_TRIALS_") && value ? [value] : [])]
const mayLoadUserModules = texts.some((text) => userModule.test(text) || text.startsWith("--config")) ||
  process.env["AGENT_TRIALS_CONFIG"] !== undefined || fs.existsSync("agent-trials.yaml")
// tsx ships no types for its loader entry: imported by name, for its side effect.
const tsxLoader: string = "tsx"
if (mayLoadUserModules) await import(tsxLoader)
// tsx (registered here, or by `--import tsx`) rewrites the ES modules it
// loads, their source maps lost: the bundle's own are read here, before tsx
// sees them (hooks registered last run first).
if (bundle !== undefined) {
  const ours = pathToFileURL(path.dirname(bundle)).href + "/"
  module.registerHooks({
    load: (url, context, next) =>
      url.startsWith(ours) && url.endsWith(".js")
        ? { format: "module", source: fs.readFileSync(new URL(url)), shortCircuit: true }
        : next(url, context)
  })
}
if (bundle === undefined) {
  await import("../src/cli/bin.ts")
} else {
  process.setSourceMapsEnabled(true)
  await import(pathToFileURL(bundle).href)
}

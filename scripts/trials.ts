/**
 * `npm run trials -- <command> [flags]`: the `agent-trials` bin, run from source.
 * npm runs it in the package root: paths in flags resolve from the directory
 * npm was run in (INIT_CWD), as the bin's do.
 *
 * Our own source runs with Node's type stripping, as the built bin's users'
 * modules do; tsx's loader (about 0.5 CPU-s more to start) is registered
 * first only when the command may load a module of the user's (a `module:` or
 * `effect-ai:` spec, a `.ts` file, a config file that may name them), which
 * it then loads with no limits on their TypeScript.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { invocationDir } from "../src/internal/invocationDir.ts"

const dir = invocationDir(process.env, process.cwd(), path.resolve(import.meta.dirname, ".."))
if (dir !== undefined) process.chdir(dir)

const userModule = /module:|effect-ai:|\.[mc]?tsx?\b/
const texts = [...process.argv.slice(2), ...Object.entries(process.env).flatMap(([name, value]) => name.startsWith("AGENT_TRIALS_") && value ? [value] : [])]
const mayLoadUserModules = texts.some((text) => userModule.test(text) || text.startsWith("--config")) ||
  process.env["AGENT_TRIALS_CONFIG"] !== undefined || fs.existsSync("agent-trials.yaml")
// tsx ships no types for its loader entry: imported by name, for its side effect.
const tsxLoader: string = "tsx"
if (mayLoadUserModules) await import(tsxLoader)
await import("../src/cli/bin.ts")

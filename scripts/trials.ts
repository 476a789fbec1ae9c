/**
 * `npm run trials -- <command> [flags]`: the `agent-trials` bin, run from source.
 * npm runs it in the package root: paths in flags resolve from the directory
 * npm was run in (INIT_CWD), as the bin's do.
 */
import * as path from "node:path"
import { invocationDir } from "../src/internal/invocationDir.ts"

const dir = invocationDir(process.env, process.cwd(), path.resolve(import.meta.dirname, ".."))
if (dir !== undefined) process.chdir(dir)
await import("../src/cli/bin.ts")

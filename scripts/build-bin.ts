/**
 * `npm run build`'s last step, after tsc: the bin, dist/cli/bin.js, made
 * again as one bundle of the command (scripts/internal/bundle.ts) with its
 * chunks in dist/cli/chunks/ and source maps naming the package's src/.
 * The library entries (dist/index.js, dist/runner/Eager.js) stay as tsc
 * wrote them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { writeBundle } from "./internal/bundle.ts"

const root = path.resolve(import.meta.dirname, "..")
const cli = path.join(root, "dist", "cli")
fs.rmSync(path.join(cli, "chunks"), { recursive: true, force: true })
await writeBundle(root, cli)

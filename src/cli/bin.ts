#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=80
/**
 * The `agent-trials` command (the program is src/cli/main.ts). `npm start` and
 * `npm run trials` run this file from source (scripts/trials.ts).
 *
 * @since 0.1.0
 */
import * as module from "node:module"

// Checked before the program is loaded: on an older Node its imports fail
// (undici's among them) with a stack trace that does not say why. A static
// import would be evaluated before this line.
const major = Number(process.versions.node.split(".")[0])
if (major < 24) {
  process.stderr.write(`agent-trials needs Node 24 or newer (this is ${process.version})\n`)
  process.exitCode = 2
} else {
  // The compiled code of what it loads is kept for the next start, in the OS
  // temp folder (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
  module.enableCompileCache()
  await import("./main.ts")
}

/**
 * Runs one approach in its own Node process, so each measurement starts from a
 * clean heap and a crash or an out-of-memory is a result, not a harness failure.
 */
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type ChildResult, RESULT_PREFIX, type RunSpec } from "./catalog.ts"

/**
 * How the child loads TypeScript. `bundle`: esbuild (which comes with tsx)
 * compiles the worker and src/ once per bench run into .bench/worker-HASH.mjs,
 * packages left external, and children run plain JS. `tsx`: `--import tsx`
 * (about 0.4 s more startup and 15-30 MB more RSS per child). `strip`: Node 24's
 * own type stripping (fails on parameter properties and enums).
 */
export type Loader = "bundle" | "tsx" | "strip"
export const loaders: ReadonlyArray<Loader> = ["bundle", "tsx", "strip"]

export interface ChildOptions {
  readonly maxOldSpaceMb: number
  readonly timeoutMs: number
  readonly loader: Loader
  /** From `prepareWorker`. */
  readonly workerPath: string
  /** Write a V8 CPU profile of the child into this directory. */
  readonly cpuProfDir?: string | undefined
}

export type Outcome =
  | { readonly status: "ok"; readonly result: ChildResult }
  | { readonly status: "wrong"; readonly result: ChildResult; readonly detail: string }
  | { readonly status: "oom" | "crashed" | "timeout"; readonly detail: string }

const workerSource = fileURLToPath(new URL("./worker.ts", import.meta.url))

/**
 * The script children run: the TypeScript source, or its bundle. A bundle is
 * named by its content, so a second bench started while src/ changes never
 * swaps the code under the first one's children.
 */
export const prepareWorker = async (loader: Loader): Promise<string> => {
  if (loader !== "bundle") return workerSource
  const { build } = await import("esbuild")
  const result = await build({
    entryPoints: [workerSource],
    outfile: fileURLToPath(new URL("../../.bench/worker.mjs", import.meta.url)),
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node24",
    // For profile.ts only: Node reads it only under --enable-source-maps.
    sourcemap: "linked",
    write: false,
    logLevel: "error"
  })
  const js = result.outputFiles.find((f) => f.path.endsWith(".mjs"))!
  const map = result.outputFiles.find((f) => f.path.endsWith(".map"))!
  const name = `worker-${createHash("sha256").update(js.contents).digest("hex").slice(0, 12)}.mjs`
  const outfile = join(dirname(js.path), name)
  mkdirSync(dirname(outfile), { recursive: true })
  if (!existsSync(outfile)) {
    writeFileSync(`${outfile}.map`, map.contents)
    writeFileSync(outfile, js.text.replace("sourceMappingURL=worker.mjs.map", `sourceMappingURL=${name}.map`))
  }
  return outfile
}

export const nodeArgs = (specs: ReadonlyArray<RunSpec>, options: ChildOptions): Array<string> => [
  "--expose-gc",
  `--max-old-space-size=${options.maxOldSpaceMb}`,
  ...(options.loader === "tsx" ? ["--import", import.meta.resolve("tsx")] : []),
  ...(options.cpuProfDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfDir}`]),
  options.workerPath,
  JSON.stringify(specs.length === 1 ? specs[0] : specs)
]

const tail = (text: string, lines: number): string => text.trim().split("\n").slice(-lines).join(" | ")

/** Runs one approach in a child of its own. */
export const runChild = async (spec: RunSpec, options: ChildOptions): Promise<Outcome> => (await runChildren([spec], options))[0]!

/**
 * Runs the specs one after another in one child (`--quick`: one start per
 * configuration rather than per run), an outcome for each, in order; the
 * timeout is `timeoutMs` per spec. When the child ends early, the runs it
 * finished keep their results and the others get its end (crash, OOM, timeout).
 */
export const runChildren = (specs: ReadonlyArray<RunSpec>, options: ChildOptions): Promise<Array<Outcome>> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, nodeArgs(specs, options), { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
    })
    // Keep only the end of stderr: an OOM report can be long.
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-8192)
    })
    const timeoutMs = options.timeoutMs * specs.length
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, timeoutMs)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      const results = stdout.split("\n").filter((l) => l.startsWith(RESULT_PREFIX)).map((l) =>
        JSON.parse(l.slice(RESULT_PREFIX.length)) as ChildResult
      )
      const finished: Array<Outcome> = results.slice(0, specs.length).map((result, i) =>
        result.completed === specs[i]!.trials
          ? { status: "ok", result }
          : { status: "wrong", result, detail: `completed ${result.completed} of ${specs[i]!.trials}` }
      )
      const clean = code === 0 && !timedOut
      if (clean && finished.length === specs.length) return resolve(finished)
      // A child that printed every result and then failed to end cleanly: its last run takes the failure
      // (a lone child's result line does not make a crash or a timeout a result).
      if (!clean && finished.length === specs.length) finished.pop()
      const how = signal === null ? `exit ${code}` : `signal ${signal}`
      const after = finished.length === 0 ? "" : ` (after ${finished.length} of the ${specs.length} runs of its child)`
      const hint = /ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX|ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING/.test(stderr)
        ? " (Node's type stripping cannot load this code: try --loader tsx)"
        : ""
      const end: Outcome = timedOut
        ? { status: "timeout", detail: `killed after ${timeoutMs / 1000} s${after}` }
        : /heap out of memory|Reached heap limit|Allocation failed/i.test(stderr)
        ? { status: "oom", detail: `${how}, heap limit ${options.maxOldSpaceMb} MB${after}` }
        : { status: "crashed", detail: `${how}${hint}${after}: ${tail(stderr, 3)}` }
      resolve([...finished, ...specs.slice(finished.length).map(() => end)])
    })
  })

/**
 * Runs the real command, `node --import tsx scripts/trials.ts run ...` (what
 * `npm run trials` runs) or the bin, as a child process, and reads what it
 * leaves behind. Each child gets its own process group, as Ctrl-C would
 * signal it.
 */
import { assert } from "@effect/vitest"
import { Schema } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { AgentEvalTrial } from "../src/domain/Trial.ts"

export const repoRoot = path.resolve(import.meta.dirname, "..")
const bin = path.join(repoRoot, "node_modules", ".bin")

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface Running {
  readonly child: ChildProcess
  readonly result: Promise<CliResult>
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: () => boolean
  /** Signals the child's whole process group. */
  readonly killGroup: (signal: NodeJS.Signals) => void
}

const live = new Set<Running>()

// The machine's own node is 20: tsx's `#!/usr/bin/env node` must find the
// Node 24 of node_modules/.bin. Nothing of the caller's agent-trials or
// OpenAI or Hugging Face settings leaks into the child.
const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("AGENT_TRIALS_") || key.startsWith("HF_") || key === "OPENAI_API_KEY" || key === "ANTHROPIC_API_KEY") continue
    env[key] = value
  }
  env["PATH"] = `${bin}${path.delimiter}${process.env["PATH"] ?? ""}`
  return { ...env, ...extra }
}

// In the repository, an empty config file: an agent-trials.yaml a developer made there
// (agent-trials init) must not change what the tests' commands do. Elsewhere the
// directory's own agent-trials.yaml is read, as a user's would be.
const configEnv = (options: StartOptions): Record<string, string> =>
  options.cwd === undefined ? { AGENT_TRIALS_CONFIG: "/dev/null" } : {}

/**
 * Starts `agent-trials run ...args`.
 */
export interface StartOptions {
  readonly env?: Record<string, string>
  readonly stdin?: string
  readonly command?: string
  /**
   * How the command is started: `tsx` (default) runs scripts/trials.ts
   * with tsx's loader, as `npm run trials` does; `bin` runs src/cli/bin.ts on Node 24
   * alone (its own type stripping), with the node flags of the bin's `#!`
   * line, as the installed `agent-trials` runs dist/cli/bin.js.
   */
  readonly entry?: "tsx" | "bin"
  /** With the `tsx` entry, the script run instead of scripts/trials.ts (relative to the repo). */
  readonly script?: string
  /** The working directory (default: the repo); the command and its loader are found from the repo either way. */
  readonly cwd?: string
}

/** The two ways the command is started (`StartOptions.entry`). */
export const entries = ["tsx", "bin"] as const

/** Starts `agent-trials run ...args` (or `options.command`). */
export const start = (args: ReadonlyArray<string>, options: StartOptions = {}): Running => {
  const command = [options.command ?? "run", ...args]
  // From another directory, the repo's files and tsx's loader by their absolute paths.
  const inRepo = (file: string) => options.cwd === undefined ? file : path.join(repoRoot, file)
  const tsx = options.cwd === undefined ? "tsx" : pathToFileURL(path.join(repoRoot, "node_modules", "tsx", "dist", "loader.mjs")).href
  const [file, argv] = options.entry === "bin"
    ? [path.join(bin, "node"), ["--max-semi-space-size=4", "--heap-growing-percent=80", inRepo("src/cli/bin.ts"), ...command]]
    : [path.join(bin, "node"), ["--max-semi-space-size=4", "--heap-growing-percent=80", "--import", tsx, inRepo(options.script ?? "scripts/trials.ts"), ...command]]
  const child = spawn(file, argv, {
    cwd: options.cwd ?? repoRoot,
    env: childEnv({ ...configEnv(options), ...options.env }),
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    detached: true
  })
  let stdout = ""
  let stderr = ""
  let exited = false
  child.stdout!.setEncoding("utf8").on("data", (s: string) => stdout += s)
  child.stderr!.setEncoding("utf8").on("data", (s: string) => stderr += s)
  if (options.stdin !== undefined) child.stdin!.end(options.stdin)
  const result = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject)
    child.on("close", (code, signal) => {
      exited = true
      live.delete(running)
      resolve({ code, signal, stdout, stderr })
    })
  })
  const running: Running = {
    child,
    result,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: () => exited,
    killGroup: (signal) => {
      if (!exited) process.kill(-child.pid!, signal)
    }
  }
  live.add(running)
  return running
}

/** Runs `agent-trials run ...args` (or `options.command`) to its end. */
export const run = (args: ReadonlyArray<string>, options: StartOptions = {}): Promise<CliResult> =>
  start(args, options).result

/** Kills every child still running (for `afterAll`). */
export const killAll = (): void => {
  for (const running of live) running.killGroup("SIGKILL")
}

const dirs: Array<string> = []

/** A fresh temporary folder, removed by `removeTempDirs`. */
export const tempDir = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-trials-test-"))
  dirs.push(dir)
  return dir
}

export const removeTempDirs = (): void => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

/** Newline-terminated lines in `file` so far (0 when it does not exist yet). */
export const lineCount = (file: string): number => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch {
    return 0
  }
  let n = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** Polls `predicate` every `everyMs` until it holds; fails after `timeoutMs`. */
export const waitFor = async (
  what: string,
  predicate: () => boolean,
  options: { readonly timeoutMs?: number; readonly everyMs?: number } = {}
): Promise<void> => {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000)
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 20))
  }
}

const decodeTrial = Schema.decodeUnknownExit(AgentEvalTrial)

/**
 * Every line of a results file, each checked to be whole, valid JSON and an
 * `AgentEvalTrial`; the file must end with a newline.
 */
export const readTrials = (file: string): Array<AgentEvalTrial> => {
  const text = fs.readFileSync(file, "utf8")
  if (text === "") return []
  assert.isTrue(text.endsWith("\n"), `${file} does not end with a newline: ${JSON.stringify(text.slice(-80))}`)
  return text.slice(0, -1).split("\n").map((line, i) => {
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (e) {
      assert.fail(`${file}:${i + 1} is not valid JSON (${(e as Error).message}): ${line.slice(0, 120)}`)
    }
    const exit = decodeTrial(json)
    if (exit._tag === "Failure") assert.fail(`${file}:${i + 1} is not an AgentEvalTrial: ${line.slice(0, 120)}`)
    return exit.value
  })
}

/** Asserts that the trial ids are exactly `expected`, each once. */
export const assertExactlyOnce = (trials: ReadonlyArray<AgentEvalTrial>, expected: ReadonlyArray<string>): void => {
  const counts = new Map<string, number>()
  for (const trial of trials) counts.set(trial.id, (counts.get(trial.id) ?? 0) + 1)
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([id]) => id)
  assert.deepStrictEqual(duplicated.slice(0, 10), [], "trial ids recorded more than once")
  const expectedSet = new Set(expected)
  const unexpected = [...counts.keys()].filter((id) => !expectedSet.has(id))
  assert.deepStrictEqual(unexpected.slice(0, 10), [], "trial ids that are not part of the run")
  const missing = expected.filter((id) => !counts.has(id))
  assert.deepStrictEqual(missing.slice(0, 10), [], "trial ids missing")
  assert.strictEqual(trials.length, expected.length)
}

/** `synthetic-0:1` ... for `n` synthetic tasks and `epochs` epochs. */
export const syntheticIds = (n: number, epochs = 1): Array<string> => {
  const ids: Array<string> = []
  for (let i = 0; i < n; i++) {
    for (let e = 1; e <= epochs; e++) ids.push(`synthetic-${i}:${e}`)
  }
  return ids
}

/** The counts of the summary's `trials this run:` line and its outcome. */
/** The figures of `score`'s summary text. */
export const parseScoreSummary = (stdout: string) => {
  const outcome = /^score .+ -> .+: (finished|interrupted|input_error|too_many_failures|write_error)$/m.exec(stdout)
  const written = /^ {2}trials written: (\d+) \((\d+) scored, (\d+) failed trials copied unscored\); already scored: (\d+); total in file: (\d+)$/m
    .exec(stdout)
  const calls = /^ {2}scorer calls (\d+), wall time /m.exec(stdout)
  assert.isNotNull(outcome, `no score summary outcome in stdout:\n${stdout}`)
  assert.isNotNull(written, `no 'trials written' line in stdout:\n${stdout}`)
  assert.isNotNull(calls, `no 'scorer calls' line in stdout:\n${stdout}`)
  return {
    outcome: outcome![1],
    written: Number(written![1]),
    scored: Number(written![2]),
    failed: Number(written![3]),
    alreadyRecorded: Number(written![4]),
    total: Number(written![5]),
    scorerCalls: Number(calls![1])
  }
}

export const parseSummary = (stdout: string) => {
  const outcome = /^run (\S+): (finished|interrupted|input_error|too_many_failures|write_error)$/m.exec(stdout)
  const notRecorded = /^ {2}not recorded \(--resume runs them\): finished (\d+), interrupted (\d+)$/m.exec(stdout)
  const thisRun = /^ {2}trials this run: (\d+) \(completed (\d+), failed (\d+), partial (\d+)\)$/m.exec(stdout)
  const prior = /^ {2}already recorded: (\d+) {4}total in file: (\d+)/m.exec(stdout)
  assert.isNotNull(outcome, `no summary outcome in stdout:\n${stdout}`)
  assert.isNotNull(thisRun, `no 'trials this run' line in stdout:\n${stdout}`)
  assert.isNotNull(prior, `no 'already recorded' line in stdout:\n${stdout}`)
  return {
    runId: outcome![1],
    outcome: outcome![2],
    total: Number(thisRun![1]),
    completed: Number(thisRun![2]),
    failed: Number(thisRun![3]),
    alreadyRecorded: Number(prior![1]),
    totalInFile: Number(prior![2]),
    notRecorded: {
      finished: notRecorded === null ? 0 : Number(notRecorded[1]),
      interrupted: notRecorded === null ? 0 : Number(notRecorded[2])
    }
  }
}

/** Writes JSONL: one JSON line per value (strings are written as they are). */
export const writeJsonl = (file: string, lines: ReadonlyArray<unknown>, eol = "\n"): string => {
  fs.writeFileSync(file, lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l)) + eol).join(""))
  return file
}

/** A short dump of a child's output for assertion messages. */
export const describeResult = (r: CliResult): string =>
  `exit ${r.code} signal ${r.signal}\n--- stdout\n${r.stdout.slice(-2000)}\n--- stderr\n${r.stderr.slice(-2000)}`

/**
 * A Node older than 24 on this machine (its own `node` on PATH, outside
 * node_modules/.bin), with its version; undefined when there is none.
 */
export const oldNode = (): { readonly path: string; readonly version: string } | undefined => {
  for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
    if (dir === "" || dir.endsWith(path.join("node_modules", ".bin"))) continue
    const candidate = path.join(dir, "node")
    if (!fs.existsSync(candidate)) continue
    const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim()
    if (Number(version.slice(1).split(".")[0]) < 24) return { path: candidate, version }
  }
  return undefined
}

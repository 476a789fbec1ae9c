/**
 * The CLI's own memory, measured the way users run it: `npm run trials -- run
 * ...` (npm, its shell, tsx and the node it starts) and the `agent-trials` bin
 * (package.json's `bin`, started through its `#!` line). Whatever Node flags
 * the npm script or the bin carry at run time are part of what is measured.
 *
 * Memory is read from /proc: every `sampleMs`, the RSS of each process of the
 * tree (found through /proc/PID/task/TID/children) is summed; the peak of that
 * sum is the tree's peak. Each process's own high-water mark (VmHWM, kept by
 * the kernel between samples) is kept too, so a single-process tree (the bin)
 * loses nothing between samples.
 */
import { execFileSync, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { createReadStream, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import os from "node:os"
import { basename, join, normalize, relative } from "node:path"
import { fileURLToPath } from "node:url"

export const cliVias = ["npm", "bin"] as const
export type CliVia = (typeof cliVias)[number]
export const isCliVia = (name: string): name is CliVia => (cliVias as ReadonlyArray<string>).includes(name)

/**
 * How the bench's parts (datasets, tools, cache, world, adaptive) start the
 * CLI: `npm`, as users do (`npm run trials -- run ...`), or `script`, the
 * command of package.json's `trials` script run directly, without npm and its
 * shell (the quick bench: one process and npm's start less per run; the
 * CLI's own process, which the memory targets judge, is the same).
 */
export const cliLaunchers = ["npm", "script"] as const
export type CliLauncher = (typeof cliLaunchers)[number]
export const isCliLauncher = (name: string): name is CliLauncher => (cliLaunchers as ReadonlyArray<string>).includes(name)

/** Reads a part's `--via` flag: npm (the default) or script. */
export const launcherOf = (text: string | undefined): CliLauncher => {
  if (text === undefined) return "npm"
  if (!isCliLauncher(text)) throw new Error(`Expected --via to be one of ${cliLaunchers.join(", ")}, got ${text}`)
  return text
}

/** How a launcher is named in the parts' reports. */
export const launcherText = (via: CliLauncher): string =>
  via === "npm" ? "npm run trials -- run" : "package.json's trials script run without npm"

/** The target's command, less `--out` (a fresh temporary file per run). */
export const cliArgs = (trials: number): Array<string> => [
  "run",
  "--synthetic",
  String(trials),
  "--agent",
  "sim:latency=1ms",
  "--parallelism",
  "256",
  "--no-progress"
]

export interface CliProcess {
  readonly pid: number
  /** The command line up to the CLI's own flags, paths shortened to their last part. */
  readonly name: string
  /** NODE_OPTIONS as the process saw it, when set. */
  readonly nodeOptions?: string
  /** The kernel's high-water mark of its RSS, as last read. */
  readonly hwmMb: number
  /** Its RSS in the sample where the tree's sum peaked (0 when it was not running then). */
  readonly rssAtPeakMb: number
}

export interface CliRecord {
  readonly via: CliVia | "script"
  readonly trials: number
  /** What was started, for the report. */
  readonly command: string
  /** Where the bin came from (dist/, or a fresh build when dist/ is older than src/). */
  readonly binNote?: string
  readonly status: "ok" | "wrong" | "crashed" | "timeout" | "skipped"
  readonly detail?: string
  readonly load1?: number
  readonly wallMs?: number
  /** Lines in the results file: one per trial. */
  readonly lines?: number
  /** The peak of the sampled sum of RSS over the tree. */
  readonly peakTreeRssMb?: number
  readonly processes?: ReadonlyArray<CliProcess>
  readonly samples?: number
}

const MB = 1024 * 1024
const root = fileURLToPath(new URL("../../", import.meta.url))

/** What the target is judged on: the tree's sampled peak, or one process's own high-water mark when larger. */
export const cliPeakMb = (r: CliRecord): number | undefined =>
  r.peakTreeRssMb === undefined ? undefined : Math.max(r.peakTreeRssMb, ...(r.processes ?? []).map((p) => p.hwmMb))

/**
 * The CLI's own process: the node that runs the command's program
 * (`trials.ts` under tsx, `bin.js` for the bin), its kernel high-water mark.
 * npm, its shell and tsx's launcher are around it, not part of it.
 */
export const cliOwnMb = (r: CliRecord): number | undefined => {
  const own = (r.processes ?? []).filter((p) => /\b(trials\.ts|bin\.js)\b/.test(p.name))
  return own.length === 0 ? undefined : Math.max(...own.map((p) => p.hwmMb))
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    // The process exited between listing and reading.
    return undefined
  }
}

const childrenOf = (pid: number): Array<number> => {
  let tids: Array<string>
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  return tids.flatMap((tid) =>
    (readText(`/proc/${pid}/task/${tid}/children`) ?? "").split(" ").filter((s) => s.length > 0).map(Number)
  )
}

export const treeOf = (rootPid: number): Array<number> => {
  const seen: Array<number> = []
  const queue = [rootPid]
  while (queue.length > 0) {
    const pid = queue.shift()!
    if (seen.includes(pid)) continue
    seen.push(pid)
    queue.push(...childrenOf(pid))
  }
  return seen
}

const kbField = (status: string, field: string): number | undefined => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)
  return match === null ? undefined : Number(match[1]) * 1024
}

const describe = (pid: number): { name: string; nodeOptions?: string } => {
  const argv = (readText(`/proc/${pid}/cmdline`) ?? "").split("\0").filter((s) => s.length > 0)
  const cut = argv.indexOf("--synthetic")
  const shown = (cut < 0 ? argv : argv.slice(0, cut)).map((a) => (a.includes(" ") || !a.includes("/") ? a : basename(a)))
  const name = shown.join(" ")
  const nodeOptions = (readText(`/proc/${pid}/environ`) ?? "").split("\0").find((e) => e.startsWith("NODE_OPTIONS="))
  return {
    name: name.length > 120 ? `${name.slice(0, 117)}...` : name,
    ...(nodeOptions !== undefined && nodeOptions.length > "NODE_OPTIONS=".length && { nodeOptions: nodeOptions.slice(13).trim() })
  }
}

const countLines = (path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    let lines = 0
    createReadStream(path)
      .on("data", (chunk) => {
        const buffer = chunk as Buffer
        for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++
      })
      .on("end", () => resolve(lines))
      .on("error", reject)
  })

const newestMtime = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs
    )
  )

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]
  ).sort()

export interface Bin {
  readonly path: string
  readonly note: string
}

/**
 * The file package.json's `bin` names. When dist/ is older than src/ (the
 * lead edits src/ and has not run `npm run build`), the same `tsc -p
 * tsconfig.build.json` compiles src/ into .bench/cli-HASH/ instead, so the bin
 * measured is the current code; dist/ itself is left alone (others may be
 * using it). With `build` false (`--quick`), a bin that would need building is an error.
 */
export const resolveBin = (build = true): Bin => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin?: string | Record<string, string> }
  const declared = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.["agent-trials"] ?? Object.values(pkg.bin ?? {})[0]
  if (declared === undefined) throw new Error("package.json has no bin to measure")
  const binRel = normalize(declared)
  const binPath = join(root, binRel)
  const srcNewest = newestMtime(join(root, "src"))
  if (existsSync(binPath) && statSync(binPath).mtimeMs >= srcNewest) {
    return { path: binPath, note: `${binRel} (built after the last change to src/)` }
  }
  if (!binRel.startsWith("dist/")) {
    return { path: binPath, note: `${binRel} (older than src/, and not under dist/: measured as it is)` }
  }
  const hash = createHash("sha256")
  for (const file of [...filesUnder(join(root, "src")), join(root, "tsconfig.json"), join(root, "tsconfig.build.json")]) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file))
  }
  const outDir = join(root, ".bench", `cli-${hash.digest("hex").slice(0, 12)}`)
  const built = join(outDir, relative("dist", binRel))
  const marker = join(outDir, ".complete")
  let typeErrors = ""
  if (!existsSync(marker) && !build) {
    throw new Error(`${binRel} is older than src/ and this run does not build it (--quick): run npm run build first`)
  }
  if (!existsSync(marker)) {
    try {
      execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", outDir], {
        cwd: root,
        stdio: "pipe"
      })
    } catch {
      // tsc emits despite type errors (someone may be mid-edit): use the output if the bin is there.
      typeErrors = " (tsc reported type errors)"
    }
    if (!existsSync(built)) throw new Error(`tsc -p tsconfig.build.json --outDir ${outDir} did not produce ${built}`)
    if (typeErrors === "") writeFileSync(marker, "")
  }
  return {
    path: built,
    note: `${binRel} is older than src/: built src/ with tsc -p tsconfig.build.json into ${relative(root, outDir)}${typeErrors}`
  }
}

// package.json's `trials` script, run as its own command: node (this one) with the script's flags.
const viaScript = (args: ReadonlyArray<string>): { file: string; args: Array<string>; shown: string } => {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: Record<string, string> }
  const script = pkg.scripts?.["trials"]
  const words = script?.trim().split(/\s+/) ?? []
  if (words[0] !== "node") throw new Error(`package.json's trials script does not start with node: ${script ?? "no such script"}`)
  return { file: process.execPath, args: [...words.slice(1), ...args], shown: `${words.join(" ")} (the trials script without npm)` }
}

// How the kernel starts a script: the `#!` line's interpreter, its one optional argument, the file.
const viaShebang = (path: string, args: ReadonlyArray<string>): { file: string; args: Array<string>; shown: string } => {
  const first = readFileSync(path, "utf8").split("\n", 1)[0]!
  if (!first.startsWith("#!")) return { file: process.execPath, args: [path, ...args], shown: `node ${basename(path)}` }
  const line = first.slice(2).trim()
  const space = line.search(/\s/)
  const interpreter = space < 0 ? line : line.slice(0, space)
  const argument = space < 0 ? undefined : line.slice(space).trim()
  return {
    file: interpreter,
    args: [...(argument === undefined ? [] : [argument]), path, ...args],
    shown: `${basename(path)} (${first})`
  }
}

export interface CliOptions {
  readonly sampleMs: number
  readonly timeoutMs: number
}

/**
 * Runs the target's command (or `command`, less `--out`) one way and reads
 * the memory of its whole process tree; `trials` is the number of result
 * lines the run must write.
 */
export const runCli = async (
  via: CliVia | "script",
  trials: number,
  options: CliOptions,
  bin?: Bin,
  command: ReadonlyArray<string> = cliArgs(trials)
): Promise<CliRecord> => {
  const out = join(os.tmpdir(), `agent-trials-bench-cli-${process.pid}-${via}.jsonl`)
  const args = [...command, "--out", out]
  // As npm and npx run a bin: node_modules/.bin first on PATH, so `#!/usr/bin/env node` finds Node 24.
  const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}` }
  const started = via === "npm"
    ? { file: "npm", args: ["run", "trials", "--", ...args], shown: "npm run trials --" }
    : via === "script"
    ? viaScript(args)
    : viaShebang(bin!.path, args)
  const shown = `${started.shown} ${command.join(" ")} --out ${out}`
  const base = { via, trials, command: shown, ...(bin !== undefined && { binNote: bin.note }), load1: os.loadavg()[0]! }
  rmSync(out, { force: true })

  const t0 = performance.now()
  // Its own process group, so a timeout can end the whole tree it started.
  const child = spawn(started.file, started.args, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"], detached: true })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4096)
  })
  const seen = new Map<number, { readonly name: string; readonly nodeOptions?: string; hwm: number }>()
  let peak = 0
  let atPeak = new Map<number, number>()
  let samples = 0
  const sample = () => {
    if (child.pid === undefined) return
    let sum = 0
    const now = new Map<number, number>()
    for (const pid of treeOf(child.pid)) {
      const status = readText(`/proc/${pid}/status`)
      const rss = status === undefined ? undefined : kbField(status, "VmRSS")
      if (status === undefined || rss === undefined) continue
      // A process caught between fork and exec shows no command line yet: read it again later.
      const previous = seen.get(pid)
      const known = previous === undefined || previous.name === "" ? { ...describe(pid), hwm: previous?.hwm ?? 0 } : previous
      known.hwm = Math.max(known.hwm, kbField(status, "VmHWM") ?? rss)
      seen.set(pid, known)
      now.set(pid, rss)
      sum += rss
    }
    samples++
    if (sum > peak) {
      peak = sum
      atPeak = now
    }
  }
  const timer = setInterval(sample, options.sampleMs)
  let timedOut = false
  const killer = setTimeout(() => {
    timedOut = true
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  }, options.timeoutMs)
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)))
  clearInterval(timer)
  clearTimeout(killer)
  const wallMs = performance.now() - t0

  const lines = existsSync(out) ? await countLines(out) : 0
  rmSync(out, { force: true })
  const figures = {
    wallMs,
    lines,
    peakTreeRssMb: peak / MB,
    samples,
    processes: [...seen].map(([pid, p]) => ({
      pid,
      name: p.name,
      ...(p.nodeOptions !== undefined && { nodeOptions: p.nodeOptions }),
      hwmMb: p.hwm / MB,
      rssAtPeakMb: (atPeak.get(pid) ?? 0) / MB
    }))
  }
  if (timedOut) return { ...base, status: "timeout", detail: `killed after ${options.timeoutMs / 1000} s`, ...figures }
  if (code !== 0) {
    const tail = stderr.trim().split("\n").slice(-3).join(" | ")
    return { ...base, status: "crashed", detail: `exit ${code}: ${tail}`, ...figures }
  }
  if (lines !== trials) return { ...base, status: "wrong", detail: `${lines} result lines for ${trials} trials`, ...figures }
  return { ...base, status: "ok", ...figures }
}

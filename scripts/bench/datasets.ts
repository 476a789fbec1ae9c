/**
 * The dataset readers (`npm run bench -- --datasets N`, in the default
 * plans): the same rows written as JSONL, CSV, JSON and Parquet files,
 *
 * - each read through the dataset registry in its own process
 *   (`dataset-reader.ts`), rows per second, median over rounds, beside JSONL;
 * - then the CLI run over the JSONL, CSV and Parquet files of N rows with
 *   `--agent sim:latency=0ms` as users run it (`npm run trials -- run`),
 *   its process tree's peak RSS read from /proc as for target (e). Target
 *   (f): the CSV and Parquet runs' peak RSS within 1.2x of the JSONL run's.
 */
import { execFileSync } from "node:child_process"
import { createWriteStream, mkdtempSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type CliLauncher, type CliOptions, cliOwnMb, cliPeakMb, type CliRecord, launcherText, runCli } from "./cli.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const node = join(root, "node_modules/.bin/node")

export const readerFormats = ["jsonl", "csv", "json", "parquet"] as const
export type ReaderFormat = (typeof readerFormats)[number]
/** The formats the CLI's memory is compared over; the first is the baseline. */
export const memoryFormats = ["jsonl", "csv", "parquet"] as const

/** Limit of target (f): peak RSS of a CSV or Parquet run over the JSONL run's. */
export const MEMORY_RATIO_LIMIT = 1.2

export interface ReaderRecord {
  readonly format: ReaderFormat
  readonly rows: number
  readonly round: number
  readonly status: "ok" | "crashed"
  readonly detail?: string
  readonly wallMs?: number
  readonly rowsPerSecond?: number
  readonly peakRssMb?: number
}

export interface DatasetMemoryRecord extends CliRecord {
  readonly format: (typeof memoryFormats)[number]
}

export interface DatasetBench {
  readonly readerRows: number
  readonly memoryRows: number
  /** How the CLI was started (absent in JSON written before it was added: npm). */
  readonly via?: CliLauncher
  /** Every format of a round read in one process (the quick bench). */
  readonly sharedReader?: boolean
  readonly readers: ReadonlyArray<ReaderRecord>
  readonly memory: ReadonlyArray<DatasetMemoryRecord>
}

const row = (i: number) => ({ id: `t${i}`, instruction: `What is ${i} + ${i}?`, reference: String(i + i) })

export const writeLines = async (file: string, lines: Iterable<string>) => {
  const out = createWriteStream(file)
  for (const line of lines) {
    if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())))
}

function* range(n: number) {
  for (let i = 0; i < n; i++) yield i
}

/** Writes the n rows in `format`; returns the file. */
export const writeDataset = async (dir: string, format: ReaderFormat, n: number): Promise<string> => {
  const file = join(dir, `tasks-${n}.${format}`)
  switch (format) {
    case "jsonl":
      await writeLines(file, (function*() {
        for (const i of range(n)) {
          const r = row(i)
          yield `${JSON.stringify({ id: r.id, inputs: { instruction: r.instruction }, reference: r.reference })}\n`
        }
      })())
      break
    case "csv":
      await writeLines(file, (function*() {
        yield "id,instruction,reference\n"
        for (const i of range(n)) {
          const r = row(i)
          yield `${r.id},"${r.instruction}",${r.reference}\n`
        }
      })())
      break
    case "json":
      await writeLines(file, (function*() {
        yield "[\n"
        for (const i of range(n)) {
          const r = row(i)
          yield `${i === 0 ? "" : ",\n"}${JSON.stringify({ id: r.id, inputs: { instruction: r.instruction }, reference: r.reference })}`
        }
        yield "\n]\n"
      })())
      break
    case "parquet": {
      const { parquetWriteFile } = await import("hyparquet-writer")
      const ids = new Array<string>(n)
      const instructions = new Array<string>(n)
      const references = new Array<string>(n)
      for (const i of range(n)) {
        const r = row(i)
        ids[i] = r.id
        instructions[i] = r.instruction
        references[i] = r.reference
      }
      // Row groups of 100,000 rows after a first of 1,000: hyparquet-writer's default, as files in the wild have.
      parquetWriteFile({
        filename: file,
        columnData: [
          { name: "id", data: ids, type: "STRING" },
          { name: "instruction", data: instructions, type: "STRING" },
          { name: "reference", data: references, type: "STRING" }
        ]
      })
      break
    }
  }
  return file
}

const readOnce = (format: ReaderFormat, file: string, rows: number, round: number): ReaderRecord => {
  try {
    const out = execFileSync(node, [join(root, "scripts/bench/dataset-reader.ts"), file], { cwd: root, encoding: "utf8" })
    const r = JSON.parse(out.trim().split("\n").pop()!) as { rows: number; wallMs: number; peakRssMb: number }
    if (r.rows !== rows) return { format, rows, round, status: "crashed", detail: `read ${r.rows} rows of ${rows}` }
    return { format, rows, round, status: "ok", wallMs: r.wallMs, rowsPerSecond: (rows * 1000) / r.wallMs, peakRssMb: r.peakRssMb }
  } catch (error) {
    return { format, rows, round, status: "crashed", detail: error instanceof Error ? error.message.slice(0, 300) : String(error) }
  }
}

// Every format's file read in one process (dataset-reader.ts --files), a record for each: rows/s, no peak RSS.
const readShared = (files: ReadonlyMap<ReaderFormat, string>, rows: number, round: number): Array<ReaderRecord> => {
  try {
    const args = [join(root, "scripts/bench/dataset-reader.ts"), "--files", ...readerFormats.map((f) => files.get(f)!)]
    const lines = execFileSync(node, args, { cwd: root, encoding: "utf8" }).trim().split("\n").map((l) => JSON.parse(l) as { rows: number; wallMs: number })
    return readerFormats.map((format, i): ReaderRecord => {
      const r = lines[i]
      if (r === undefined) return { format, rows, round, status: "crashed", detail: `the shared reader printed ${lines.length} lines for ${readerFormats.length} files` }
      if (r.rows !== rows) return { format, rows, round, status: "crashed", detail: `read ${r.rows} rows of ${rows}` }
      return { format, rows, round, status: "ok", wallMs: r.wallMs, rowsPerSecond: (rows * 1000) / r.wallMs }
    })
  } catch (error) {
    const detail = error instanceof Error ? error.message.slice(0, 300) : String(error)
    return readerFormats.map((format) => ({ format, rows, round, status: "crashed", detail }))
  }
}

/**
 * Runs both parts: the readers at `readerRows` (`rounds` rounds, formats
 * alternating; with `sharedReader`, the quick bench's, every format of a round
 * in one process after a warm-up read), then the CLI at `memoryRows` over each
 * memory format.
 */
export const runDatasetBench = async (
  options: {
    readonly readerRows: number
    readonly memoryRows: number
    readonly rounds: number
    readonly cli: CliOptions
    readonly via: CliLauncher
    readonly sharedReader: boolean
  },
  say: (line: string) => void,
  onRecord: (bench: DatasetBench) => void
): Promise<DatasetBench> => {
  const dir = mkdtempSync(join(os.tmpdir(), "agent-trials-bench-datasets-"))
  const readers: Array<ReaderRecord> = []
  const memory: Array<DatasetMemoryRecord> = []
  const bench = () => ({ readerRows: options.readerRows, memoryRows: options.memoryRows, via: options.via, sharedReader: options.sharedReader, readers, memory })
  try {
    const files = new Map<ReaderFormat, string>()
    for (const format of readerFormats) files.set(format, await writeDataset(dir, format, options.readerRows))
    for (let round = 1; round <= options.rounds; round++) {
      const shared = options.sharedReader ? readShared(files, options.readerRows, round) : undefined
      for (const [i, format] of readerFormats.entries()) {
        const record = shared?.[i] ?? readOnce(format, files.get(format)!, options.readerRows, round)
        readers.push(record)
        say(
          `datasets: reader ${format} ${options.readerRows} rows round ${round}/${options.rounds}: ` +
            (record.status === "ok" ? `${Math.round(record.rowsPerSecond!)} rows/s` : `${record.status}: ${record.detail}`)
        )
        onRecord(bench())
      }
    }
    for (const format of readerFormats) rmSync(files.get(format)!, { force: true })
    if (options.memoryRows > 0) {
      for (const format of memoryFormats) {
        const file = await writeDataset(dir, format, options.memoryRows)
        const command = ["run", "--tasks", file, "--agent", "sim:latency=0ms", "--parallelism", "64", "--no-progress"]
        const record = await runCli(options.via, options.memoryRows, options.cli, undefined, command)
        rmSync(file, { force: true })
        memory.push({ ...record, format })
        say(
          `datasets: CLI over ${format}, ${options.memoryRows} rows: ${record.status} ${((record.wallMs ?? 0) / 1000).toFixed(1)} s, ` +
            `tree peak ${(cliPeakMb(record) ?? 0).toFixed(0)} MB, own ${(cliOwnMb(record) ?? 0).toFixed(0)} MB` +
            (record.detail === undefined ? "" : `: ${record.detail}`)
        )
        onRecord(bench())
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return bench()
}

const median = (values: ReadonlyArray<number>): number | undefined => {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Median rows per second of each reader, over its ok rounds. */
export const readerMedians = (bench: DatasetBench): Map<ReaderFormat, number | undefined> =>
  new Map(readerFormats.map((f) => [f, median(bench.readers.filter((r) => r.format === f && r.status === "ok").map((r) => r.rowsPerSecond!))]))

export interface MemoryTarget {
  readonly format: string
  readonly ownMb?: number
  readonly treeMb?: number
  readonly ratio?: number
  readonly pass: boolean
  readonly detail: string
}

/**
 * Target (f): each non-JSONL run's peak RSS over the JSONL run's, judged on
 * the CLI's own process (npm and its shell around it are the same for every
 * format and would flatter the ratio); the tree's is printed beside it.
 */
export const memoryTargets = (bench: DatasetBench): Array<MemoryTarget> => {
  const base = bench.memory.find((r) => r.format === "jsonl")
  return bench.memory.filter((r) => r.format !== "jsonl").map((r) => {
    const own = cliOwnMb(r)
    const baseOwn = base === undefined ? undefined : cliOwnMb(base)
    const tree = cliPeakMb(r)
    const ratio = own === undefined || baseOwn === undefined || r.status !== "ok" || base?.status !== "ok" ? undefined : own / baseOwn
    const pass = ratio !== undefined && ratio <= MEMORY_RATIO_LIMIT
    return {
      format: r.format,
      ...(own !== undefined && { ownMb: own }),
      ...(tree !== undefined && { treeMb: tree }),
      ...(ratio !== undefined && { ratio }),
      pass,
      detail: ratio === undefined
        ? `not judged: ${r.format} ${r.status}${r.detail === undefined ? "" : ` (${r.detail})`}, jsonl ${base?.status ?? "not run"}`
        : `own peak ${own!.toFixed(0)} MB vs jsonl ${baseOwn!.toFixed(0)} MB = ${ratio.toFixed(2)}x (limit ${MEMORY_RATIO_LIMIT}x); ` +
          `tree ${tree!.toFixed(0)} MB vs ${cliPeakMb(base!)!.toFixed(0)} MB`
    }
  })
}

/** The readers' table and target (f), as the bench prints them. */
export const renderDatasets = (bench: DatasetBench): string => {
  const medians = readerMedians(bench)
  const jsonl = medians.get("jsonl")
  const lines = [
    `Dataset readers, ${bench.readerRows} rows (median of ${Math.max(0, ...bench.readers.map((r) => r.round))} rounds, ` +
    `${bench.sharedReader === true ? "every format of a round in one process after a warm-up read" : "each in its own process"}):`,
    "  format    rows/s     vs jsonl",
    ...readerFormats.map((f) => {
      const m = medians.get(f)
      return `  ${f.padEnd(8)}  ${m === undefined ? "failed".padStart(9) : String(Math.round(m)).padStart(9)}  ${
        m === undefined || jsonl === undefined ? "" : `${(m / jsonl).toFixed(2)}x`
      }`
    })
  ]
  if (bench.memory.length > 0) {
    lines.push("", `CLI over ${bench.memoryRows} rows, --agent sim:latency=0ms --parallelism 64 (${launcherText(bench.via ?? "npm")}):`)
    for (const r of bench.memory) {
      lines.push(
        `  ${r.format.padEnd(8)}  ${r.status}  ${((r.wallMs ?? 0) / 1000).toFixed(1)} s  own peak ${(cliOwnMb(r) ?? 0).toFixed(0)} MB  tree ${
          (cliPeakMb(r) ?? 0).toFixed(0)
        } MB`
      )
    }
    for (const t of memoryTargets(bench)) lines.push(`(f) ${t.format} peak RSS <= ${MEMORY_RATIO_LIMIT}x jsonl's: ${t.pass ? "PASS" : "FAIL"}  ${t.detail}`)
  }
  return lines.join("\n")
}

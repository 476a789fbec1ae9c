/**
 * One reader measured in its own process (`datasets.ts` starts it):
 * `node scripts/bench/dataset-reader.ts FILE [FORMAT]` reads every task of
 * FILE through the dataset registry, counting them, and prints one JSON line:
 * the rows read, the wall time of the read and the process's peak RSS.
 * `--files FILE...` (the quick bench) reads each file in turn in this one
 * process, after an unrecorded warm-up read of the first, and prints a line
 * for each: the rows and the wall time (a peak RSS would count the reads before).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Stream } from "effect"
import { readFileSync } from "node:fs"
import * as DatasetFormats from "../../src/datasets/DatasetFormats.ts"

const count = (file: string, format: string | undefined): Promise<number> =>
  DatasetFormats.read(file, { onInvalid: "fail", format }).pipe(
    Stream.runFold(() => 0, (n, item) => item._tag === "Task" ? n + 1 : n),
    Effect.provide(NodeServices.layer),
    Effect.runPromise
  )

const timed = async (file: string, format: string | undefined) => {
  const t0 = performance.now()
  const rows = await count(file, format)
  return { rows, wallMs: performance.now() - t0 }
}

const [file, ...rest] = process.argv.slice(2)
if (file === "--files") {
  if (rest.length === 0) throw new Error("usage: dataset-reader.ts --files FILE...")
  await count(rest[0]!, undefined)
  for (const each of rest) console.log(JSON.stringify({ file: each, ...(await timed(each, undefined)) }))
} else {
  if (file === undefined) throw new Error("usage: dataset-reader.ts FILE [FORMAT]")
  const { rows, wallMs } = await timed(file, rest[0])
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))
  console.log(JSON.stringify({ rows, wallMs, peakRssMb: hwm === null ? undefined : Number(hwm[1]) / 1024 }))
}

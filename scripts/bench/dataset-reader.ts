/**
 * One reader measured in its own process (`datasets.ts` starts it):
 * `node scripts/bench/dataset-reader.ts FILE [FORMAT]` reads every task of
 * FILE through the dataset registry, counting them, and prints one JSON line:
 * the rows read, the wall time of the read and the process's peak RSS.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Stream } from "effect"
import { readFileSync } from "node:fs"
import * as DatasetFormats from "../../src/datasets/DatasetFormats.ts"

const [file, format] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: dataset-reader.ts FILE [FORMAT]")

const t0 = performance.now()
const rows = await DatasetFormats.read(file, { onInvalid: "fail", format }).pipe(
  Stream.runFold(() => 0, (n, item) => item._tag === "Task" ? n + 1 : n),
  Effect.provide(NodeServices.layer),
  Effect.runPromise
)
const wallMs = performance.now() - t0
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))
console.log(JSON.stringify({ rows, wallMs, peakRssMb: hwm === null ? undefined : Number(hwm[1]) / 1024 }))

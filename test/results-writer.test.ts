/**
 * The results writer when the file system misbehaves: a write that fails (the
 * N-th one, the last one, part-way through a batch, a full device), an
 * interrupt at every point of a flush, and the temporary file of
 * `--retry-failed` when the rewrite is interrupted. A file system layer wraps
 * the real one and fails or holds exactly the write it is told to.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Exit, Fiber, FileSystem, Layer, PlatformError, References, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Results from "../src/results/Results.ts"
import * as Run from "../src/programs/run/Run.ts"
import * as Kinds from "../src/programs/Kinds.ts"
import type { AgentEvalTrial } from "../src/domain/Trial.ts"
import { readTrials, removeTempDirs, tempDir } from "./cli-helpers.ts"

afterAll(removeTempDirs)

const trial = (i: number): AgentEvalTrial => ({
  id: `t-${i}:1`,
  task_id: `t-${i}`,
  status: "completed",
  output: { output_text: `answer ${i} ✓` },
  metadata: { started_at: "2026-01-01T00:00:00.000Z", finished_at: "2026-01-01T00:00:01.000Z", latency_ms: 1, epoch: 1 }
})

/** What Node's file system gives for a failed write, as Effect wraps it. */
const ioError = (file: string) =>
  PlatformError.systemError({
    _tag: "Unknown",
    module: "FileSystem",
    method: "write",
    syscall: "write",
    pathOrDescriptor: file,
    cause: Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" })
  })

/**
 * The real file system, except that each `write` to a file opened through it
 * first asks `onWrite(n, path, bytes)` (n counts writes from 1): "ok" writes,
 * "fail" fails like a full disk, a number writes only that many bytes, and an
 * Effect is run first (to hold the write on a gate).
 */
const controlledFs = (
  onWrite: (n: number, path: string, bytes: Uint8Array) => "ok" | "fail" | number | Effect.Effect<void>
) =>
  Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (real) => {
      let writes = 0
      const open: FileSystem.FileSystem["open"] = (file, options) =>
        Effect.map(real.open(file, options), (handle) => {
          const wrapped: FileSystem.File = Object.create(handle)
          const write = (bytes: Uint8Array): Effect.Effect<number, PlatformError.PlatformError> =>
            Effect.suspend(() => {
              const decision = onWrite(++writes, file, bytes)
              if (decision === "ok") return handle.write(bytes)
              if (decision === "fail") return Effect.fail(ioError(file))
              if (typeof decision === "number") return handle.write(bytes.subarray(0, decision))
              return Effect.andThen(decision, handle.write(bytes))
            })
          Object.defineProperty(wrapped, "write", { value: write })
          Object.defineProperty(wrapped, "writeAll", {
            value: (bytes: Uint8Array) =>
              Effect.gen(function*() {
                let offset = 0
                while (offset < bytes.length) offset += yield* write(bytes.subarray(offset))
              })
          })
          return wrapped
        })
      return { ...real, open }
    })
  ).pipe(Layer.provideMerge(NodeServices.layer))

/** Appends `count` trials in batches of `batchSize` inside one writer scope; what the run would see. */
const writeTrials = (file: string, count: number, batchSize: number) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const scope = yield* Scope.make()
    const writer = yield* Results.writer(file, {
      batchSize,
      flushEvery: "1 hour",
      onWritten: (t) => seen.push(t.id)
    }).pipe(Scope.provide(scope))
    let appendError: Results.ResultsWriteError | undefined
    for (let i = 0; i < count && appendError === undefined; i++) {
      const exit = yield* Effect.exit(writer.append(trial(i)))
      if (Exit.isFailure(exit)) appendError = Exit.findErrorOption(exit).pipe((o) => o._tag === "Some" ? o.value : undefined)
    }
    yield* Scope.close(scope, Exit.void)
    return { seen, appendError, failure: writer.failure(), written: writer.written() }
  })

describe("Results.writer: write failures", () => {
  // 10 trials in batches of 4: writes at the 4th and 8th append, and the
  // final flush (2 lines) when the scope closes.
  for (const failing of [1, 2, 3]) {
    it.effect(`write ${failing} of 3 fails${failing === 3 ? " (the final flush)" : ""}: the writer stops, reports it, and counts only lines on disk`, () =>
      Effect.gen(function*() {
        const file = path.join(tempDir(), "out.jsonl")
        const result = yield* writeTrials(file, 10, 4).pipe(
          Effect.provide(controlledFs((n) => (n === failing ? "fail" : "ok")))
        )
        const onDisk = readTrials(file).map((t) => t.id)
        // Exactly what reached the file was reported as written: the summary
        // counts from it.
        assert.deepStrictEqual(result.seen, onDisk)
        assert.strictEqual(result.written, onDisk.length)
        assert.strictEqual(onDisk.length, 4 * (failing - 1))
        assert.isDefined(result.failure, "the failure is kept, even when only the final flush failed")
        assert.strictEqual(result.failure!._tag, "ResultsWriteError")
        assert.include(result.failure!.message, file)
        assert.strictEqual(result.failure!.message, `cannot write ${file}: EIO: i/o error, write`)
        if (failing < 3) {
          // The next append after a failed write is refused with the same error.
          assert.strictEqual(result.appendError, result.failure)
        }
      }))
  }

  it.effect("a write that stops part-way: the whole lines before the cut are counted, nothing after", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "out.jsonl")
      let cutAt = 0
      const result = yield* writeTrials(file, 4, 4).pipe(
        Effect.provide(controlledFs((n, _path, bytes) => {
          if (n === 1) {
            // Two and a half lines reach the disk, then the device is full.
            const text = new TextDecoder().decode(bytes)
            const second = text.indexOf("\n", text.indexOf("\n") + 1) + 1
            cutAt = Buffer.byteLength(text.slice(0, second)) + 10
            return cutAt
          }
          return "fail"
        }))
      )
      assert.deepStrictEqual(result.seen, ["t-0:1", "t-1:1"])
      assert.strictEqual(result.failure!.lost, 2)
      // The torn third line is what --resume cuts off.
      const text = fs.readFileSync(file, "utf8")
      assert.strictEqual(Buffer.byteLength(text), cutAt)
      assert.strictEqual(text.split("\n").length, 3)
    }))

  it.live("/dev/full: the error names the file and the operating system's reason", () =>
    Effect.gen(function*() {
      const result = yield* writeTrials("/dev/full", 3, 2).pipe(Effect.provide(NodeServices.layer))
      assert.deepStrictEqual(result.seen, [])
      assert.strictEqual(result.failure!.message, "cannot write /dev/full: ENOSPC: no space left on device, write")
      assert.strictEqual(result.appendError, result.failure)
    }))

  it.effect("nothing appended: no file is created", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "never.jsonl")
      const result = yield* writeTrials(file, 0, 4).pipe(Effect.provide(NodeServices.layer))
      assert.strictEqual(result.failure, undefined)
      assert.isFalse(fs.existsSync(file))
    }))
})

describe("Results.writer: an interrupt at every point of a flush", () => {
  // The flush under test is held inside its write on a gate; the interrupt
  // arrives after k scheduler turns, so it lands before the flush starts,
  // while it waits, while the write is held and after it returns. Whatever
  // the point, every appended line is in the file exactly once after the
  // writer's scope closes.
  for (const ops of [2, 3]) for (let k = 0; k <= 40; k++) {
    it.effect(`a yield every ${ops - 1} operations, interrupted after ${k} turns: every line on disk exactly once`, () =>
      Effect.gen(function*() {
        const file = path.join(tempDir(), "out.jsonl")
        const gate = yield* Deferred.make<void>()
        let firstWrite = true
        const layer = controlledFs(() => {
          if (!firstWrite) return "ok"
          firstWrite = false
          return Deferred.await(gate)
        })
        yield* Effect.gen(function*() {
          const scope = yield* Scope.make()
          const writer = yield* Results.writer(file, { batchSize: 100, flushEvery: "1 hour" }).pipe(Scope.provide(scope))
          for (let i = 0; i < 5; i++) yield* writer.append(trial(i))
          // Every operation of the flush ends in a scheduler yield, so the k
          // turns below step through it one operation at a time.
          const flushing = yield* Effect.forkChild(Effect.provideService(writer.flush, References.MaxOpsBeforeYield, ops))
          for (let i = 0; i < k; i++) yield* Effect.yieldNow
          // The held write returns while the interrupt is pending.
          yield* Effect.forkChild(Effect.andThen(Effect.yieldNow, Deferred.succeed(gate, undefined)))
          yield* Fiber.interrupt(flushing)
          for (let i = 5; i < 8; i++) yield* writer.append(trial(i))
          yield* Scope.close(scope, Exit.void)
          assert.strictEqual(writer.failure(), undefined)
        }).pipe(Effect.provide(layer))
        const ids = readTrials(file).map((t) => t.id)
        assert.deepStrictEqual([...ids].sort(), Array.from({ length: 8 }, (_, i) => `t-${i}:1`).sort())
      }))
  }
})

describe("Results.writer: the flush every 200 ms", () => {
  // What a kill -9 loses, and a resumed run asks again, is what has not
  // reached the file: the flushes keep their period even when a write is slow.
  it.effect("by default a flush starts every 200 ms on a fixed period: a write held for 150 ms does not push the next one back", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "out.jsonl")
      const starts: Array<number> = []
      const layer = controlledFs((n) =>
        n === 1 ? "ok" : Effect.andThen(Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => starts.push(t))), Effect.sleep("150 millis"))
      )
      yield* Effect.gen(function*() {
        const scope = yield* Scope.make()
        const writer = yield* Results.writer(file, { batchSize: 100 }).pipe(Scope.provide(scope))
        // The file opened (real I/O) and the first line written before the clock moves.
        yield* writer.append(trial(0))
        yield* writer.flush
        // Steps of 10 ms; after each, the real write it let go of is waited for (bounded).
        const until = (lines: number) =>
          Effect.gen(function*() {
            for (let step = 0; step < 100 && writer.written() < lines; step++) {
              yield* TestClock.adjust("10 millis")
              const deadline = Date.now() + 10_000
              // The write of line `lines` started (its start is starts[lines - 2]) and its hold is over.
              const held = () => starts.length >= lines - 1 && Clock.currentTimeMillis.pipe(Effect.map((t) => t >= starts[lines - 2]! + 150))
              while (writer.written() < lines && Date.now() < deadline && (yield* (held() || Effect.succeed(false)))) {
                yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))
              }
            }
            assert.strictEqual(writer.written(), lines, `${lines} lines not written after 1 s of virtual time`)
          })
        yield* writer.append(trial(1))
        yield* until(2)
        yield* writer.append(trial(2))
        yield* until(3)
        yield* Scope.close(scope, Exit.void)
      }).pipe(Effect.provide(layer))
      // A pause of 200 ms after each flush would start the second at 550 ms.
      assert.deepStrictEqual(starts, [200, 400])
      assert.deepStrictEqual(readTrials(file).map((t) => t.id), ["t-0:1", "t-1:1", "t-2:1"])
    }))
})

describe("Results.prepare --retry-failed: the temporary file", () => {
  it.live("an interrupted rewrite removes its temporary file and leaves the original as it was", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "out.jsonl")
      const lines = Array.from({ length: 50 }, (_, i) => {
        const t = trial(i)
        return JSON.stringify(i % 5 === 0 ? { ...t, status: "failed", output: undefined, error: { type: "X", message: "no", occurred_at: t.metadata.finished_at } } : t) + "\n"
      })
      fs.writeFileSync(file, lines.join(""))
      const original = fs.readFileSync(file, "utf8")
      const tmp = Results.rewritePath(file)
      const entered = yield* Deferred.make<void>()
      // The copy to the temporary file is held forever once it has started.
      const layer = controlledFs((_n, target) => target === tmp ? Effect.andThen(Deferred.succeed(entered, undefined), Effect.never) : "ok")
      const fiber = yield* Effect.forkChild(
        Results.prepare(file, { resume: true, retryFailed: true }).pipe(Effect.provide(layer))
      )
      yield* Deferred.await(entered)
      assert.isTrue(fs.existsSync(tmp), "the rewrite had started")
      yield* Fiber.interrupt(fiber)
      assert.isFalse(fs.existsSync(tmp), "the temporary file was removed")
      assert.strictEqual(fs.readFileSync(file, "utf8"), original)
    }))

  it.live("a failed rewrite removes its temporary file too", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "out.jsonl")
      const failed = { ...trial(1), status: "failed", output: undefined, error: { type: "X", message: "no", occurred_at: "2026-01-01T00:00:01.000Z" } }
      fs.writeFileSync(file, JSON.stringify(trial(0)) + "\n" + JSON.stringify(failed) + "\n")
      const tmp = Results.rewritePath(file)
      const layer = controlledFs((_n, target) => target === tmp ? "fail" : "ok")
      const error = yield* Effect.flip(Results.prepare(file, { resume: true, retryFailed: true }).pipe(Effect.provide(layer)))
      assert.include(error.message, `cannot rewrite ${file}`)
      assert.isFalse(fs.existsSync(tmp))
      assert.strictEqual(readTrials(file).length, 2)
    }))
})

describe("Run.run when the results file fails", () => {
  // 200 instant trials; every write to the results file from the second on fails. However the
  // flushes fall, the summary counts exactly what the file holds, the outcome
  // says so, and the run fails with RunWriteError (exit 1 from the CLI).
  it.live("the summary counts only the lines on disk; the run fails with RunWriteError", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "out.jsonl")
      const summaryFile = path.join(dir, "summary.json")
      const config: Run.RunConfig = {
        tasks: undefined,
        synthetic: 200,
        agent: { _tag: "Sim", options: { latencyMs: 0, jitterMs: 0, failRate: 0, seed: 1 } },
        model: undefined,
        apiKey: undefined,
        parallelism: 8,
        epochs: 1,
        out,
        resume: false,
        retryFailed: false,
        outputs: { summary: summaryFile },
        progress: false,
        progressInterval: 1000,
        tty: false,
        onInvalid: "fail",
        cwd: process.cwd(),
        timeout: undefined,
        retries: 0,
        backoff: Duration.millis(500),
        backoffMax: Duration.seconds(30),
        retryAfterMax: Duration.seconds(60),
        rate: undefined,
        adaptive: false,
        maxFailures: undefined
      }
      // The results file's own writes are counted: the run writes its definition beside it first.
      let outWrites = 0
      const error = yield* Effect.flip(Run.run(config)).pipe(
        Effect.provide(
          Layer.mergeAll(controlledFs((_n, file) => (file !== out || ++outWrites === 1 ? "ok" : "fail")), NodeHttpClient.layerUndici, Kinds.layer())
        )
      )
      assert.strictEqual(error._tag, "RunWriteError")
      assert.include(error.message, `cannot write ${out}: EIO: i/o error, write`)
      const onDisk = readTrials(out)
      assert.isAbove(onDisk.length, 0)
      assert.isBelow(onDisk.length, 200)
      const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8"))
      assert.strictEqual(summary.outcome, "write_error")
      assert.strictEqual(summary.trials.this_run.total, onDisk.length)
      assert.strictEqual(summary.trials.this_run.completed, onDisk.length)
      // What finished but could not be written is reported apart, never as recorded.
      assert.isAbove(summary.trials.not_recorded.finished, 0)
      const { not_recorded: lost, this_run: recorded } = summary.trials
      assert.isAtMost(recorded.total + lost.finished + lost.interrupted, 200)
    }))
})

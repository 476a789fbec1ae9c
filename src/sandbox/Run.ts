/**
 * Starting a command in a sandbox, bounded: the process starts as the
 * leader of a process group of its own; when it outlives its timeout (or
 * the fiber is interrupted) the whole group is killed with SIGKILL, and the
 * run fails with an error naming the command. A process that does not die
 * with the run by itself (bubblewrap's `--die-with-parent` does) has its
 * group held by the run's reaper (`Reaper.ts`), so a SIGKILL of the run
 * leaves none of its group behind either; the group is killed when the
 * command exits, so nothing it started in the background outlives it. Only the last lines of its
 * stdout and stderr are kept (at most 64 KiB of each while it runs), and
 * they are scrubbed of every secret the process knows before anyone can
 * quote them.
 *
 * @since 0.9.0
 */
import { Duration, Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import { redactText } from "../internal/redact.ts"
import { type Command, display, type Env, type Implementation, type Options, type Spawn } from "./Sandbox.ts"
import * as Reaper from "./Reaper.ts"

/**
 * The command outlived its timeout: its process group was killed.
 *
 * @category errors
 * @since 0.9.0
 */
export class SandboxTimeout extends Schema.TaggedError<SandboxTimeout>()("SandboxTimeout", {
  command: Schema.String,
  timeoutMs: Schema.Number,
  message: Schema.String,
  /** The last lines of its stdout and stderr until it was killed, scrubbed. */
  stdout: Schema.String,
  stderr: Schema.String
}) {}

/**
 * The command's process could not be started at all (its program is not
 * on PATH, its working directory is missing).
 *
 * @category errors
 * @since 0.9.0
 */
export class SandboxSpawnFailed extends Schema.TaggedError<SandboxSpawnFailed>()("SandboxSpawnFailed", {
  command: Schema.String,
  /** The system's code, `ENOENT` for a program not found. */
  code: Schema.String,
  message: Schema.String
}) {}

/**
 * How a command ended: its exit code (null when a signal ended it) or the
 * signal, and the last lines of its stdout and stderr, scrubbed.
 *
 * @category models
 * @since 0.9.0
 */
export interface Outcome {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The bound and the reading of one command: its timeout, its environment
 * (the process's own when absent), how many last lines of each stream to
 * keep (20 by default), whether stderr is read into stdout's lines as the
 * two came (`merge`: one stream of output, stderr then empty), and a
 * scrubber for the secrets only the caller knows (every `scrubber` made in
 * the process applies anyway).
 *
 * @category models
 * @since 0.9.0
 */
export interface Bounds {
  readonly timeout: Duration.Input
  readonly env?: Env | undefined
  readonly tailLines?: number | undefined
  readonly merge?: boolean | undefined
  readonly scrub?: ((text: string) => string) | undefined
}

/** What is kept of a stream while the command runs: its last bytes. */
const TAIL_BYTES = 64 * 1024

const tail = () => {
  const chunks: Array<Buffer> = []
  let size = 0
  let dropped = false
  return {
    push: (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      while (size - chunks[0]!.length >= TAIL_BYTES) {
        size -= chunks.shift()!.length
        dropped = true
      }
    },
    lines: (count: number, scrub: (text: string) => string): string => {
      const cut = size > TAIL_BYTES || dropped
      const text = Buffer.concat(chunks).subarray(Math.max(0, size - TAIL_BYTES)).toString("utf8")
      // A stream cut at the front starts mid-line (maybe mid-character): that line is not shown.
      const lines = text.replace(/\n$/, "").split("\n").slice(cut ? 1 : 0)
      return scrub(lines.slice(-count).join("\n"))
    }
  }
}

const killGroup = (pid: number | undefined) => {
  if (pid === undefined) return
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // The group is gone already.
  }
}

/**
 * Starts `spawn` as a process group of its own (held by the run's reaper,
 * unless it dies with its parent by itself) and waits for it, within
 * `bounds.timeout`. `shown` names the command in errors (scrubbed).
 *
 * @category running
 * @since 0.9.0
 */
export const runSpawn = (
  target: Spawn,
  shown: string,
  bounds: Bounds
): Effect.Effect<Outcome, SandboxTimeout | SandboxSpawnFailed> =>
  Effect.suspend(() => {
    const scrub = (text: string) => redactText(bounds.scrub === undefined ? text : bounds.scrub(text))
    const name = scrub(shown)
    const count = Math.max(1, bounds.tailLines ?? 20)
    const timeoutMs = Duration.toMillis(bounds.timeout)
    const out = tail()
    const err = bounds.merge === true ? out : tail()
    const watched = target.diesWithParent !== true && process.platform !== "win32"
    const spawnFailed = (code: string, message: string) =>
      new SandboxSpawnFailed({ command: name, code, message: `Cannot start ${name}: ${scrub(message)}` })
    return Effect.callback<Outcome, SandboxSpawnFailed>((resume) => {
      const child = spawn(target.command, [...target.args], {
        cwd: target.cwd,
        env: bounds.env ?? process.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"]
      })
      // At once, so a SIGKILL of the run from now on leaves none of the group.
      if (watched) Reaper.hold(child.pid)
      let closed = false
      const whenClosed: Array<() => void> = []
      child.stdout.on("data", out.push)
      child.stderr.on("data", err.push)
      child.on("error", (error: NodeJS.ErrnoException) => {
        closed = true
        if (watched) Reaper.release(child.pid)
        resume(Effect.fail(spawnFailed(error.code ?? "unknown", error.message)))
      })
      // What the command started in the background ends with it (and lets its output streams close).
      child.on("exit", () => killGroup(child.pid))
      child.on("close", (code, signal) => {
        closed = true
        killGroup(child.pid)
        if (watched) Reaper.release(child.pid)
        for (const done of whenClosed) done()
        resume(Effect.succeed({
          exitCode: code,
          signal,
          stdout: out.lines(count, scrub),
          stderr: bounds.merge === true ? "" : err.lines(count, scrub)
        }))
      })
      // Interrupted (the timeout, or the caller's scope): kill the group and wait, bounded, for the exit.
      return Effect.callback<void>((done) => {
        if (closed) return done(Effect.void)
        whenClosed.push(() => done(Effect.void))
        killGroup(child.pid)
      }).pipe(Effect.timeout("5 seconds"), Effect.ignore)
    }).pipe(
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () =>
          Effect.fail(
            new SandboxTimeout({
              command: name,
              timeoutMs,
              message: `${name} did not finish within ${timeoutMs}ms: its process group was killed`,
              stdout: out.lines(count, scrub),
              stderr: bounds.merge === true ? "" : err.lines(count, scrub)
            })
          )
      })
    )
  })

/**
 * Runs `command` in `sandbox` with `options` (workspace, network, memory),
 * bounded by `bounds.timeout`: the exit code and the last lines of its
 * output, or `SandboxTimeout` naming the command. A non-zero exit is an
 * outcome, not a failure: the caller decides what it means.
 *
 * @category running
 * @since 0.9.0
 */
export const run = Effect.fn("Sandbox.run")(function*(
  sandbox: Implementation,
  command: Command,
  options: Options & Bounds
) {
  return yield* runSpawn(sandbox.wrap(command, options), display(command), options)
})

/**
 * The last lines an MCP server wrote to its stderr, for the messages of its
 * failures: `McpClient` reads a stdio server's stderr only to drop it, so
 * the spawner it is given hands it a stream that keeps a bounded tail on
 * the way. A server that cannot start says why there ("ENOENT: no such
 * directory"); that is what a user needs to read.
 *
 * @internal
 */
import { Deferred, Duration, Effect, Layer, Stream } from "effect"
import * as Spawner from "effect/process/ChildProcessSpawner"
import { redactText } from "../../../internal/redact.ts"

const MAX_LINES = 10
const MAX_LINE = 300
/** How long a message waits for the last of a dead server's stderr. */
const SETTLE = Duration.seconds(1)

/** @internal */
export interface StderrTail {
  /** The spawner that keeps the tail of each process it starts. */
  readonly layer: Layer.Layer<Spawner.ChildProcessSpawner, never, Spawner.ChildProcessSpawner>
  /** `; the server's stderr: ...` (scrubbed of secrets), or "" when it wrote nothing; waits a bounded moment for its end. */
  readonly suffix: Effect.Effect<string>
}

/** @internal */
export const make: Effect.Effect<StderrTail> = Effect.gen(function*() {
  const ended = yield* Deferred.make<void>()
  const decoder = new TextDecoder()
  let lines: Array<string> = []
  let partial = ""
  let spawned = false
  const add = (text: string) => {
    const parts = (partial + text).split("\n")
    partial = parts.pop()!.slice(-MAX_LINE)
    for (const line of parts) if (line.trim() !== "") lines.push(line.slice(0, MAX_LINE))
    if (lines.length > MAX_LINES) lines = lines.slice(-MAX_LINES)
  }
  const layer = Layer.effect(Spawner.ChildProcessSpawner)(Effect.map(Spawner.ChildProcessSpawner, (spawner) =>
    Spawner.make((command) =>
      Effect.map(spawner.spawn(command), (handle) => {
        spawned = true
        return Spawner.makeHandle({
          ...handle,
          stderr: handle.stderr.pipe(
            Stream.tap((chunk) => Effect.sync(() => add(decoder.decode(chunk, { stream: true })))),
            Stream.ensuring(Deferred.succeed(ended, undefined))
          )
        })
      }))))
  // Waited for once: a server alive (silent) or one whose child holds its
  // stderr open gives what it wrote so far, and later messages do not wait.
  const suffix = Effect.suspend(() => spawned ? Deferred.await(ended) : Effect.void).pipe(
    Effect.timeoutOption(SETTLE),
    Effect.andThen(Deferred.succeed(ended, undefined)),
    Effect.map(() => {
      const all = partial.trim() === "" ? lines : [...lines, partial]
      return all.length === 0 ? "" : `; the server's stderr: ${redactText(all.map((l) => l.trim()).join(" | "))}`
    })
  )
  return { layer, suffix }
})


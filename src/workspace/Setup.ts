/**
 * `--setup COMMAND`: a shell command run inside a trial's fresh workspace
 * before the agent's first call. A non-zero exit (or a signal, or no exit
 * within the timeout) fails the trial with `SetupFailed`, which carries the
 * command's last lines, scrubbed of secrets.
 *
 * @since 0.9.0
 */
import { Duration, Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import { redactText } from "../internal/redact.ts"

/**
 * Lines of the command's output a `SetupFailed` keeps (its last).
 *
 * @category constants
 * @since 0.9.0
 */
export const LAST_LINES = 20

/**
 * How long a setup command may run by default.
 *
 * @category constants
 * @since 0.9.0
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.minutes(10)

/**
 * The setup command of a trial failed: `exit_code` is its exit code (null
 * when a signal or the timeout ended it), `last_lines` its last lines of
 * output (stdout and stderr as they came).
 *
 * @category errors
 * @since 0.9.0
 */
export class SetupFailed extends Schema.TaggedError<SetupFailed>()("SetupFailed", {
  command: Schema.String,
  exit_code: Schema.NullOr(Schema.Number),
  reason: Schema.String,
  last_lines: Schema.Array(Schema.String)
}) {
  override get message(): string {
    const tail = this.last_lines.length === 0 ? " (no output)" : `; its last lines:\n${this.last_lines.join("\n")}`
    return `--setup ${this.command}: ${this.reason}${tail}`
  }
}

// The last `n` lines of what was read, without holding more than needed.
class Tail {
  #lines: Array<string> = []
  #partial = ""
  readonly n: number
  constructor(n: number) {
    this.n = n
  }
  push(chunk: string): void {
    const parts = (this.#partial + chunk).split(/\r?\n/)
    this.#partial = parts.pop() ?? ""
    for (const line of parts) {
      this.#lines.push(line)
      if (this.#lines.length > this.n) this.#lines.shift()
    }
    // A line with no end for a long time is cut, so a chatty command costs bounded memory.
    if (this.#partial.length > 4096) this.#partial = this.#partial.slice(-4096)
  }
  lines(): Array<string> {
    const all = this.#partial === "" ? this.#lines : [...this.#lines, this.#partial]
    return all.slice(-this.n).map(redactText)
  }
}

/**
 * Runs `command` with `sh -c` in `cwd`. Succeeds on exit 0; fails with
 * `SetupFailed` on another exit, a signal, a spawn error, or when it runs
 * past `timeout` (its shell is then killed).
 *
 * @category running
 * @since 0.9.0
 */
export const run = (
  command: string,
  cwd: string,
  options?: { readonly timeout?: Duration.Duration | undefined; readonly env?: Readonly<Record<string, string>> | undefined }
): Effect.Effect<void, SetupFailed> => {
  const tail = new Tail(LAST_LINES)
  const shown = redactText(command)
  const timeout = options?.timeout ?? DEFAULT_TIMEOUT
  const child = Effect.callback<void, SetupFailed>((resume) => {
    const proc = spawn("sh", ["-c", command], {
      cwd,
      env: { ...process.env, ...options?.env },
      // In the run's process group, so a kill of the run's group (Ctrl-C, a
      // supervisor's SIGKILL) ends the command too.
      stdio: ["ignore", "pipe", "pipe"]
    })
    proc.stdout.setEncoding("utf8").on("data", (c: string) => tail.push(c))
    proc.stderr.setEncoding("utf8").on("data", (c: string) => tail.push(c))
    proc.on("error", (e) =>
      resume(Effect.fail(new SetupFailed({ command: shown, exit_code: null, reason: `could not start: ${redactText(e.message)}`, last_lines: [] }))))
    proc.on("close", (code, signal) => {
      if (code === 0) return resume(Effect.void)
      resume(Effect.fail(
        new SetupFailed({
          command: shown,
          exit_code: code,
          reason: code === null ? `ended by ${signal ?? "a signal"}` : `exit code ${code}`,
          last_lines: tail.lines()
        })
      ))
    })
    return Effect.sync(() => {
      try {
        if (proc.exitCode === null) proc.kill("SIGKILL")
      } catch {
        // Already gone.
      }
    })
  })
  return Effect.timeoutOrElse(child, {
    duration: timeout,
    orElse: () =>
      Effect.fail(
        new SetupFailed({
          command: shown,
          exit_code: null,
          reason: `did not finish within ${Duration.format(timeout)} (killed)`,
          last_lines: tail.lines()
        })
      )
  })
}

/**
 * The progress display, read from the probe: on a terminal a live line
 * rewritten in place, cut to the terminal's width (a longer line would wrap,
 * and `\r` returns only to the start of its last row); elsewhere a plain line
 * every few seconds (logs, CI), and one at the end without an ETA.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect } from "effect"
import type { Probe } from "../../runner/Probe.ts"

/**
 * What the display reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface Source {
  /** Active calls and interrupted trials. */
  readonly probe: Probe
  /**
   * This run's trials whose lines are on disk, by status: what the line counts
   * as done and failed, so progress, summary and file agree.
   */
  readonly recorded: { readonly completed: number; readonly failed: number; readonly partial: number }
  /** Trials already recorded before this run that belong to this run's set. */
  readonly skipped: () => number
  /** Total trials of the run when known. */
  readonly total: () => number | undefined
  readonly parallelism: number
}

/**
 * One progress line. The `final` one, when the run has ended (finished or
 * stopped), has no ETA: nothing is left to wait for.
 *
 * @category formatting
 * @since 0.1.0
 */
export const line = (source: Source, elapsedMs: number, options?: { readonly final?: boolean }): string => {
  const { probe, recorded } = source
  const thisRun = recorded.completed + recorded.failed + recorded.partial
  const done = thisRun + source.skipped()
  const total = source.total()
  const rate = elapsedMs > 0 ? thisRun / (elapsedMs / 1000) : 0
  const parts = [total === undefined ? `${done} done` : `${done}/${total} (${percent(done, total)})`]
  parts.push(`${rate.toFixed(1)}/s`)
  if (total !== undefined && rate > 0 && options?.final !== true) parts.push(`ETA ${formatEta(Math.max(0, total - done) / rate)}`)
  parts.push(`active ${probe.active}/${source.parallelism}`)
  parts.push(`failed ${recorded.failed}`)
  // Trials stopped in flight (Ctrl-C, a failure budget) are neither done nor failed.
  if (probe.interrupted > 0) parts.push(`interrupted ${probe.interrupted}`)
  return parts.join("  ")
}

/**
 * `text` cut to fit a terminal row of `columns`: the fields (separated by two
 * spaces) that fit whole in `columns - 1` characters (the last column stays
 * free, so the cursor never wraps), or the first field cut; `text` itself
 * when `columns` is unknown.
 *
 * @example
 * fit("12/100 (12%)  3.5/s  ETA 26s  active 4/8  failed 0", 30) // "12/100 (12%)  3.5/s  ETA 26s"
 *
 * @category formatting
 * @since 0.1.0
 */
export const fit = (text: string, columns: number | undefined): string => {
  if (columns === undefined || !(columns >= 2) || text.length < columns) return text
  const width = Math.floor(columns) - 1
  let end = -1
  for (let i = text.indexOf("  "); i !== -1 && i <= width; i = text.indexOf("  ", i + 2)) end = i
  return end === -1 ? text.slice(0, width) : text.slice(0, end)
}

const percent = (done: number, total: number) => `${total === 0 ? 100 : Math.floor((100 * done) / total)}%`

// Rounded up first (an ETA never reads 0s while trials remain), to whole
// seconds below an hour and whole minutes from an hour on, and only then split
// into units, so a unit never shows its carry (the old `1m60s`). The units are
// those of `Duration.format` (the timeout message's), without its spaces: the
// line's fields are separated by spaces, so each must stay one word.
const formatEta = (seconds: number): string => {
  if (!Number.isFinite(seconds)) return "-"
  const step = seconds < 3600 ? 1 : 60
  const rounded = Math.ceil(seconds / step) * step
  return rounded === 0 ? "0s" : Duration.format(Duration.seconds(rounded)).replaceAll(" ", "")
}

/**
 * Runs the display until interrupted.
 *
 * @category display
 * @since 0.1.0
 */
export const display = (
  source: Source,
  options: {
    readonly tty: boolean
    readonly interval: Duration.Input
    readonly write: (text: string) => void
    /** The terminal's width, read at each tick (default: stderr's, `process.stderr.columns`). */
    readonly columns?: (() => number | undefined) | undefined
  }
): Effect.Effect<never> =>
  Effect.flatMap(Clock.currentTimeMillis, (started) => {
    const columns = options.columns ?? (() => process.stderr.columns)
    const tick = (final: boolean) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const text = line(source, now - started, { final })
        options.write(options.tty ? `\r\x1b[2K${fit(text, columns())}` : `progress: ${text}\n`)
      })
    const loop = Effect.andThen(Effect.sleep(options.interval), tick(false)).pipe(Effect.forever)
    // When the run ends a terminal's live line is cleared for the summary; a
    // log gets one last line, so even a short run shows where it got to.
    return Effect.ensuring(loop, options.tty ? Effect.sync(() => options.write("\r\x1b[2K")) : tick(true))
  })

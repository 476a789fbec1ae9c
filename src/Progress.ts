/**
 * The progress display, read from the probe: on a terminal a live line
 * rewritten in place; elsewhere a plain line every few seconds (logs, CI).
 *
 * @since 0.1.0
 */
import { type Duration, Effect } from "effect"
import type { Probe } from "./Probe.ts"

/**
 * What the display reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface Source {
  readonly probe: Probe
  /** Trials already recorded before this run that belong to this run's set. */
  readonly skipped: () => number
  /** Total trials of the run when known. */
  readonly total: () => number | undefined
  readonly parallelism: number
}

/**
 * One progress line.
 *
 * @category formatting
 * @since 0.1.0
 */
export const line = (source: Source, elapsedMs: number): string => {
  const { probe } = source
  const done = probe.completed + source.skipped()
  const total = source.total()
  const rate = elapsedMs > 0 ? probe.completed / (elapsedMs / 1000) : 0
  const parts = [total === undefined ? `${done} done` : `${done}/${total} (${percent(done, total)})`]
  parts.push(`${rate.toFixed(1)}/s`)
  if (total !== undefined && rate > 0) parts.push(`ETA ${formatSeconds(Math.max(0, total - done) / rate)}`)
  parts.push(`active ${probe.active}/${source.parallelism}`)
  parts.push(`failed ${probe.failed}`)
  return parts.join("  ")
}

const percent = (done: number, total: number) => `${total === 0 ? 100 : Math.floor((100 * done) / total)}%`

const formatSeconds = (s: number): string => {
  if (!Number.isFinite(s)) return "-"
  if (s < 60) return `${Math.ceil(s)}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, "0")}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
}

/**
 * Runs the display until interrupted.
 *
 * @category display
 * @since 0.1.0
 */
export const display = (
  source: Source,
  options: { readonly tty: boolean; readonly interval: Duration.Input; readonly write: (text: string) => void }
): Effect.Effect<never> =>
  Effect.suspend(() => {
    const started = Date.now()
    const tick = Effect.sync(() => {
      const text = line(source, Date.now() - started)
      options.write(options.tty ? `\r\x1b[2K${text}` : `progress: ${text}\n`)
    })
    const loop = Effect.andThen(Effect.sleep(options.interval), tick).pipe(Effect.forever)
    // When the run ends a terminal's live line is cleared for the summary; a
    // log gets one last line, so even a short run shows where it got to.
    return Effect.ensuring(loop, options.tty ? Effect.sync(() => options.write("\r\x1b[2K")) : tick)
  })

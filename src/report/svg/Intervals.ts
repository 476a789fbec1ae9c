/**
 * `Svg.intervalChart`: values with their intervals, one row each.
 *
 * @internal
 */
import { escape, type Frame, linearScale, linearTicks, noData, open, palette, r1, titleOf } from "./Axes.ts"

/**
 * One row of an interval chart: a value and, when known, its interval.
 *
 * @category models
 * @since 0.1.0
 */
export interface IntervalRow {
  readonly label: string
  readonly value: number | null
  readonly low?: number | null
  readonly high?: number | null
  readonly color?: string
  /** Text at the right end of the row (defaults to the value and interval). */
  readonly note?: string
  /** Shown on hover over the row (the full label, when the label is cut). */
  readonly tooltip?: string
}

/**
 * What an interval chart shows.
 *
 * @category models
 * @since 0.1.0
 */
export interface IntervalChartOptions {
  readonly title?: string
  readonly width?: number
  readonly rows: ReadonlyArray<IntervalRow>
  /** The axis (default [0, 1]: rates and normalised scores). */
  readonly domain?: readonly [number, number]
  readonly format?: (v: number) => string
  /** A bar from the axis' start to each value under its whisker (a bar chart with intervals). */
  readonly bars?: boolean
}

/**
 * Values with their intervals, one row each on a shared horizontal axis (a
 * dot and a whisker, over a bar from the axis' start with `bars`): scores
 * with their 95% intervals, say.
 *
 * **Example** (Two scorers)
 *
 * ```ts
 * import { Svg } from "agent-trials"
 *
 * const svg = Svg.intervalChart({
 *   rows: [
 *     { label: "exact", value: 0.8, low: 0.74, high: 0.85 },
 *     { label: "levenshtein", value: 0.91, low: 0.89, high: 0.93 }
 *   ]
 * })
 * ```
 *
 * @category charts
 * @since 0.1.0
 */
export const intervalChart = (options: IntervalChartOptions): string => {
  const row = 28
  const longest = Math.max(4, ...options.rows.map((r) => r.label.length))
  const top = options.title === undefined ? 8 : 28
  const f: Frame = {
    width: options.width ?? 640,
    height: top + Math.max(1, options.rows.length) * row + 22,
    left: Math.min(220, 12 + longest * 6.4),
    right: 150,
    top,
    bottom: 22
  }
  const label = options.title ?? "values with intervals"
  if (options.rows.length === 0) return noData(f, options.title, label)
  const [lo, hi] = options.domain ?? [0, 1]
  const fmt = options.format ?? ((v: number) => String(Number(v.toFixed(3))))
  const x = linearScale(lo, hi, f.left, f.width - f.right)
  const clamp = (v: number) => Math.min(hi, Math.max(lo, v))
  const base = f.height - f.bottom
  const out = [open(f, label), titleOf(f, options.title)]
  for (const t of linearTicks(lo, hi, 5).filter((t) => t >= lo && t <= hi)) {
    const px = r1(x(t))
    out.push(`<line x1="${px}" x2="${px}" y1="${f.top}" y2="${base}" stroke="#e5e7eb"/>`)
    out.push(`<text x="${px}" y="${base + 14}" text-anchor="middle">${escape(fmt(t))}</text>`)
  }
  options.rows.forEach((r, i) => {
    const cy = f.top + i * row + row / 2
    const color = r.color ?? palette[i % palette.length]!
    out.push(
      `<text x="${f.left - 8}" y="${cy + 4}" text-anchor="end">${escape(r.label)}` +
        `${r.tooltip === undefined ? "" : `<title>${escape(r.tooltip)}</title>`}</text>`
    )
    if (options.bars === true && r.value !== null) {
      const w = Math.max(1, x(clamp(r.value)) - f.left)
      out.push(`<rect x="${f.left}" y="${r1(cy - 8)}" width="${r1(w)}" height="16" rx="2" fill="${color}" fill-opacity="0.25"/>`)
    }
    const hasCi = r.low !== undefined && r.low !== null && r.high !== undefined && r.high !== null
    if (hasCi) {
      const [a, b] = [r1(x(clamp(r.low!))), r1(x(clamp(r.high!)))]
      out.push(
        `<line x1="${a}" x2="${b}" y1="${cy}" y2="${cy}" stroke="${color}" stroke-width="2"/>` +
          `<line x1="${a}" x2="${a}" y1="${cy - 5}" y2="${cy + 5}" stroke="${color}" stroke-width="2"/>` +
          `<line x1="${b}" x2="${b}" y1="${cy - 5}" y2="${cy + 5}" stroke="${color}" stroke-width="2"/>`
      )
    }
    if (r.value !== null) out.push(`<circle cx="${r1(x(clamp(r.value)))}" cy="${cy}" r="5" fill="${color}"/>`)
    const note = r.note ??
      (r.value === null ? "n/a" : fmt(r.value) + (hasCi ? ` [${fmt(r.low!)}, ${fmt(r.high!)}]` : ""))
    out.push(`<text x="${f.width - f.right + 10}" y="${cy + 4}">${escape(note)}</text>`)
  })
  out.push("</svg>")
  return out.join("")
}

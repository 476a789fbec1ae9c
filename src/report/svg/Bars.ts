/**
 * `Svg.barChart`: vertical columns or horizontal bars.
 *
 * @internal
 */
import { axisScale, compact, escape, type Frame, linearScale, noData, open, palette, r1, titleOf } from "./Axes.ts"

/**
 * One bar of a bar chart; `tooltip` is shown on hover.
 *
 * @category models
 * @since 0.1.0
 */
export interface Bar {
  readonly label: string
  readonly value: number
  readonly color?: string
  readonly tooltip?: string
}

/**
 * What a bar chart shows: vertical columns (a histogram: many bars, labels
 * thinned out) or horizontal bars (categories with long names).
 *
 * @category models
 * @since 0.1.0
 */
export interface BarChartOptions {
  readonly title?: string
  readonly width?: number
  readonly height?: number
  readonly bars: ReadonlyArray<Bar>
  readonly orientation?: "vertical" | "horizontal"
  readonly xLabel?: string
  readonly yLabel?: string
  readonly format?: (v: number) => string
  readonly color?: string
}

/**
 * A bar chart.
 *
 * **Example** (Failures by type)
 *
 * ```ts
 * import { Svg } from "agent-trials"
 *
 * const svg = Svg.barChart({
 *   orientation: "horizontal",
 *   bars: [{ label: "Timeout", value: 12 }, { label: "AgentError", value: 3 }]
 * })
 * ```
 *
 * @category charts
 * @since 0.1.0
 */
export const barChart = (options: BarChartOptions): string =>
  options.orientation === "horizontal" ? horizontalBars(options) : verticalBars(options)

const verticalBars = (options: BarChartOptions): string => {
  const f: Frame = {
    width: options.width ?? 640,
    height: options.height ?? 240,
    left: 52,
    right: 16,
    top: options.title === undefined ? 16 : 30,
    bottom: options.xLabel === undefined ? 24 : 40
  }
  const label = options.title ?? "bar chart"
  if (options.bars.length === 0) return noData(f, options.title, label)
  const fmt = options.format ?? compact
  const y = axisScale({ format: fmt }, options.bars.map((b) => b.value), f.height - f.bottom, f.top, true)
  const base = f.height - f.bottom
  const slot = (f.width - f.left - f.right) / options.bars.length
  const gap = slot > 8 ? Math.min(4, slot * 0.15) : 0
  const out = [open(f, label), titleOf(f, options.title)]
  for (const t of y.ticks) {
    const py = r1(y.scale(t))
    out.push(`<line x1="${f.left}" x2="${f.width - f.right}" y1="${py}" y2="${py}" stroke="#e5e7eb"/>`)
    out.push(`<text x="${f.left - 6}" y="${py + 4}" text-anchor="end">${escape(fmt(t))}</text>`)
  }
  // Labels thinned to about one per 60 pixels.
  const every = Math.max(1, Math.ceil(60 / slot))
  options.bars.forEach((b, i) => {
    const x = f.left + i * slot + gap / 2
    const top = y.scale(b.value)
    const color = b.color ?? options.color ?? palette[0]!
    out.push(
      `<rect x="${r1(x)}" y="${r1(top)}" width="${r1(Math.max(0.5, slot - gap))}" height="${r1(Math.max(0, base - top))}" ` +
        `fill="${color}" rx="${slot > 12 ? 2 : 0}"><title>${escape(b.tooltip ?? `${b.label}: ${fmt(b.value)}`)}</title></rect>`
    )
    if (i % every === 0) {
      out.push(`<text x="${r1(x + (slot - gap) / 2)}" y="${base + 16}" text-anchor="middle">${escape(b.label)}</text>`)
    }
  })
  out.push(`<line x1="${f.left}" x2="${f.width - f.right}" y1="${base}" y2="${base}" stroke="#9ca3af"/>`)
  if (options.xLabel !== undefined) {
    out.push(`<text x="${r1(f.left + (f.width - f.left - f.right) / 2)}" y="${f.height - 6}" text-anchor="middle">${escape(options.xLabel)}</text>`)
  }
  if (options.yLabel !== undefined) {
    out.push(`<text transform="translate(12,${r1(f.top + (base - f.top) / 2)}) rotate(-90)" text-anchor="middle">${escape(options.yLabel)}</text>`)
  }
  out.push("</svg>")
  return out.join("")
}

const horizontalBars = (options: BarChartOptions): string => {
  const row = 24
  const longest = Math.max(4, ...options.bars.map((b) => b.label.length))
  const f: Frame = {
    width: options.width ?? 640,
    height: options.height ?? (options.title === undefined ? 12 : 30) + Math.max(1, options.bars.length) * row + 8,
    left: Math.min(220, 12 + longest * 6.4),
    right: 64,
    top: options.title === undefined ? 12 : 30,
    bottom: 8
  }
  const label = options.title ?? "bar chart"
  if (options.bars.length === 0) return noData(f, options.title, label)
  const fmt = options.format ?? compact
  const max = Math.max(...options.bars.map((b) => b.value), 0)
  const x = linearScale(0, max === 0 ? 1 : max, f.left, f.width - f.right)
  const out = [open(f, label), titleOf(f, options.title)]
  options.bars.forEach((b, i) => {
    const y = f.top + i * row
    const color = b.color ?? options.color ?? palette[0]!
    const w = Math.max(1, x(b.value) - f.left)
    const name = b.label.length > 34 ? `${b.label.slice(0, 33)}…` : b.label
    out.push(
      `<text x="${f.left - 8}" y="${y + 15}" text-anchor="end">${escape(name)}</text>` +
        `<rect x="${f.left}" y="${y + 4}" width="${r1(w)}" height="${row - 8}" rx="2" fill="${color}">` +
        `<title>${escape(b.tooltip ?? `${b.label}: ${fmt(b.value)}`)}</title></rect>` +
        `<text x="${r1(f.left + w + 6)}" y="${y + 15}">${escape(fmt(b.value))}</text>`
    )
  })
  out.push("</svg>")
  return out.join("")
}

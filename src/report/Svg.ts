/**
 * Charts as inline SVG text, written by hand: scales, ticks, escaping, and
 * three charts (lines over x, bars, values with intervals). No library, no
 * fonts or images fetched: the string is the whole chart, so a report that
 * embeds it opens offline. The benchmark's chart (scripts/bench/svg.ts) is
 * drawn with the same primitives.
 *
 * @since 0.1.0
 */
import * as HtmlText from "../internal/htmlText.ts"

/**
 * Escapes text for an SVG (or HTML) text node or a quoted attribute value; a
 * bidirectional or control character is shown as its code point, `<U+202E>`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const escape: (text: string) => string = HtmlText.escape

/**
 * A map from data values to pixels.
 *
 * @category models
 * @since 0.1.0
 */
export type Scale = (value: number) => number

/**
 * A linear scale from `[lo, hi]` to `[from, to]` (a zero-width domain maps to
 * the middle of the range).
 *
 * @category scales
 * @since 0.1.0
 */
export const linearScale = (lo: number, hi: number, from: number, to: number): Scale =>
  hi === lo ? () => (from + to) / 2 : (v) => from + ((v - lo) / (hi - lo)) * (to - from)

/**
 * A base-10 logarithmic scale from `[lo, hi]` (both > 0) to `[from, to]`.
 *
 * @category scales
 * @since 0.1.0
 */
export const logScale = (lo: number, hi: number, from: number, to: number): Scale => {
  const a = Math.log10(lo)
  const b = Math.log10(hi) === a ? a + 1 : Math.log10(hi)
  return (v) => from + ((Math.log10(v) - a) / (b - a)) * (to - from)
}

/**
 * Ticks of a log axis: 1, 2 and 5 times each power of ten within `[lo, hi]`.
 *
 * @category scales
 * @since 0.1.0
 */
export const logTicks = (lo: number, hi: number): Array<number> => {
  const out: Array<number> = []
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) if (m * 10 ** e >= lo && m * 10 ** e <= hi) out.push(m * 10 ** e)
  }
  return out
}

/**
 * About `count` round ticks (steps of 1, 2 or 5 times a power of ten) that
 * cover `[lo, hi]`: the first is <= lo and the last >= hi, so they also give
 * the axis its nice ends.
 *
 * @category scales
 * @since 0.1.0
 */
export const linearTicks = (lo: number, hi: number, count = 5): Array<number> => {
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) return [0, 1]
  if (hi === lo) return lo === 0 ? [0, 1] : lo > 0 ? [0, lo] : [lo, 0]
  const raw = (hi - lo) / Math.max(1, count)
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power
  const first = Math.floor(lo / step + 1e-9) * step
  const out: Array<number> = []
  // Snapped to 0 near it: -0.3 + 3 * 0.1 is 5.6e-17, which would lose the 0 tick.
  for (let v = first; v < hi + step - 1e-9 * step; v += step) {
    out.push(Math.abs(v) < 1e-9 * step ? 0 : Number(v.toPrecision(12)))
  }
  if (out.length < 2) out.push(Number((first + step).toPrecision(12)))
  return out
}

/**
 * A number in few characters: `1.5k`, `2M`, `0.25`, `12`.
 *
 * @category formatting
 * @since 0.1.0
 */
export const compact = (v: number): string => {
  const a = Math.abs(v)
  const trim = (x: number) => String(Number(x.toPrecision(3)))
  return a >= 1e9 ? `${trim(v / 1e9)}G` : a >= 1e6 ? `${trim(v / 1e6)}M` : a >= 1e3 ? `${trim(v / 1e3)}k` : trim(v)
}

/**
 * An open line through `points` (already in pixels).
 *
 * @category primitives
 * @since 0.1.0
 */
export const polyline = (
  points: ReadonlyArray<readonly [x: number, y: number]>,
  style: { readonly stroke: string; readonly width?: number; readonly dash?: string }
): string =>
  `<polyline fill="none" stroke="${style.stroke}" stroke-width="${style.width ?? 2}"` +
  (style.dash === undefined ? "" : ` stroke-dasharray="${style.dash}"`) +
  ` points="${points.map(([x, y]) => `${x},${y}`).join(" ")}"/>`

/**
 * Colours for series, in order (readable on white, distinct for most colour
 * vision).
 *
 * @category constants
 * @since 0.1.0
 */
export const palette: ReadonlyArray<string> = [
  "#2563eb",
  "#ea580c",
  "#16a34a",
  "#dc2626",
  "#7c3aed",
  "#0891b2",
  "#ca8a04",
  "#db2777",
  "#4b5563"
]

const r1 = (v: number) => Math.round(v * 10) / 10

interface Frame {
  readonly width: number
  readonly height: number
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}

const open = (f: Frame, label: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="${escape(label)}" ` +
  `viewBox="0 0 ${f.width} ${f.height}" width="${f.width}" height="${f.height}" ` +
  `font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="11" fill="#374151">`

const titleOf = (f: Frame, title: string | undefined) =>
  title === undefined ? "" : `<text x="${f.left}" y="16" font-size="13" font-weight="600" fill="#111827">${escape(title)}</text>`

const noData = (f: Frame, title: string | undefined, label: string) =>
  open(f, label) + titleOf(f, title) +
  `<text x="${f.width / 2}" y="${f.height / 2}" text-anchor="middle" fill="#9ca3af">no data</text></svg>`

/**
 * An axis: `scale` (linear or log) and how its ticks read.
 *
 * @category models
 * @since 0.1.0
 */
export interface Axis {
  readonly label?: string
  readonly scale?: "linear" | "log"
  readonly format?: (v: number) => string
  /** Ends of the axis (defaults: from the data; a linear y axis starts at 0). */
  readonly min?: number
  readonly max?: number
}

/**
 * A line of a line chart.
 *
 * @category models
 * @since 0.1.0
 */
export interface Series {
  readonly name: string
  readonly points: ReadonlyArray<{ readonly x: number; readonly y: number }>
  readonly color?: string
  readonly dash?: string
  /** Shade the area under the line. */
  readonly area?: boolean
}

/**
 * What a line chart shows.
 *
 * @category models
 * @since 0.1.0
 */
export interface LineChartOptions {
  readonly title?: string
  readonly width?: number
  readonly height?: number
  readonly x?: Axis
  readonly y?: Axis
  readonly series: ReadonlyArray<Series>
}

const axisScale = (axis: Axis | undefined, values: ReadonlyArray<number>, from: number, to: number, zero: boolean) => {
  const fmt = axis?.format ?? compact
  if (axis?.scale === "log") {
    const pos = values.filter((v) => v > 0)
    const lo = axis.min ?? Math.min(...pos)
    const hi = axis.max ?? Math.max(...pos)
    const ticks = logTicks(lo, hi)
    const all = ticks.length > 8 ? ticks.filter((t) => Number.isInteger(Math.log10(t))) : ticks
    return { scale: logScale(lo, hi, from, to), ticks: all, fmt }
  }
  const dataLo = Math.min(...values)
  const dataHi = Math.max(...values)
  const lo = axis?.min ?? (zero ? Math.min(0, dataLo) : dataLo)
  const hi = axis?.max ?? dataHi
  const nice = linearTicks(lo, hi, to > from ? 6 : 4)
  const a = axis?.min ?? nice[0]!
  const b = axis?.max ?? nice.at(-1)!
  return { scale: linearScale(a, b, from, to), ticks: nice.filter((t) => t >= a - 1e-9 && t <= b + 1e-9), fmt }
}

const legend = (f: Frame, items: ReadonlyArray<{ readonly name: string; readonly color: string }>) => {
  if (items.length < 2) return ""
  let x = f.width - f.right
  const out: Array<string> = []
  for (const item of [...items].reverse()) {
    const w = 18 + item.name.length * 6.2
    x -= w + 10
    out.push(
      `<g transform="translate(${r1(x)},${f.top - 22})"><rect width="10" height="10" rx="2" fill="${item.color}"/>` +
        `<text x="14" y="9">${escape(item.name)}</text></g>`
    )
  }
  return out.join("")
}

/**
 * A line chart of one or more series over a shared x axis, with grid lines,
 * tick labels, axis labels and a legend (for two series or more).
 *
 * **Example** (Two series)
 *
 * ```ts
 * import { Svg } from "agent-trials"
 *
 * const svg = Svg.lineChart({
 *   title: "Throughput",
 *   x: { label: "seconds" },
 *   y: { label: "trials/s" },
 *   series: [{ name: "run", points: [{ x: 0, y: 1 }, { x: 1, y: 3 }], area: true }]
 * })
 * ```
 *
 * @category charts
 * @since 0.1.0
 */
export const lineChart = (options: LineChartOptions): string => {
  const f: Frame = {
    width: options.width ?? 640,
    height: options.height ?? 240,
    left: 52,
    right: 16,
    // Room above the plot for the legend, when there is one.
    top: (options.title === undefined ? 16 : 30) + (options.series.length > 1 ? 14 : 0),
    bottom: options.x?.label === undefined ? 24 : 40
  }
  const label = options.title ?? options.series.map((s) => s.name).join(", ")
  const points = options.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))
  if (points.length === 0) return noData(f, options.title, label)
  const x = axisScale(options.x, points.map((p) => p.x), f.left, f.width - f.right, false)
  const y = axisScale(options.y, points.map((p) => p.y), f.height - f.bottom, f.top, true)
  const base = f.height - f.bottom
  const out = [open(f, label), titleOf(f, options.title)]
  for (const t of y.ticks) {
    const py = r1(y.scale(t))
    out.push(`<line x1="${f.left}" x2="${f.width - f.right}" y1="${py}" y2="${py}" stroke="#e5e7eb"/>`)
    out.push(`<text x="${f.left - 6}" y="${py + 4}" text-anchor="end">${escape(y.fmt(t))}</text>`)
  }
  const xTicks = x.ticks.length > 9 ? x.ticks.filter((_, i) => i % 2 === 0) : x.ticks
  for (const t of xTicks) {
    const px = r1(x.scale(t))
    out.push(`<line x1="${px}" x2="${px}" y1="${base}" y2="${base + 4}" stroke="#9ca3af"/>`)
    out.push(`<text x="${px}" y="${base + 16}" text-anchor="middle">${escape(x.fmt(t))}</text>`)
  }
  out.push(`<line x1="${f.left}" x2="${f.width - f.right}" y1="${base}" y2="${base}" stroke="#9ca3af"/>`)
  if (options.x?.label !== undefined) {
    out.push(`<text x="${r1(f.left + (f.width - f.left - f.right) / 2)}" y="${f.height - 6}" text-anchor="middle">${escape(options.x.label)}</text>`)
  }
  if (options.y?.label !== undefined) {
    out.push(`<text transform="translate(12,${r1(f.top + (base - f.top) / 2)}) rotate(-90)" text-anchor="middle">${escape(options.y.label)}</text>`)
  }
  const items: Array<{ name: string; color: string }> = []
  options.series.forEach((s, i) => {
    const color = s.color ?? palette[i % palette.length]!
    items.push({ name: s.name, color })
    const px = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))
      .map((p) => [r1(x.scale(p.x)), r1(y.scale(p.y))] as const)
    if (px.length === 0) return
    if (s.area === true && px.length > 1) {
      const d = `M${px[0]![0]},${base}` + px.map(([a, b]) => `L${a},${b}`).join("") + `L${px.at(-1)![0]},${base}Z`
      out.push(`<path d="${d}" fill="${color}" fill-opacity="0.12" stroke="none"/>`)
    }
    if (px.length === 1) out.push(`<circle cx="${px[0]![0]}" cy="${px[0]![1]}" r="3" fill="${color}"/>`)
    else out.push(polyline(px, { stroke: color, width: 1.75, ...(s.dash === undefined ? {} : { dash: s.dash }) }))
  })
  out.push(legend(f, items), "</svg>")
  return out.join("")
}

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

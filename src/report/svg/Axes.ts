/**
 * The primitives every chart of `Svg` is drawn with: escaping, scales and
 * their ticks, compact numbers, a polyline, the palette, and the frame of a
 * chart (its margins, opening tag, title and "no data" placeholder) with the
 * axis that fits a frame to the data.
 *
 * @internal
 */
import * as HtmlText from "../../internal/htmlText.ts"

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

export const r1 = (v: number) => Math.round(v * 10) / 10

export interface Frame {
  readonly width: number
  readonly height: number
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}

export const open = (f: Frame, label: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="${escape(label)}" ` +
  `viewBox="0 0 ${f.width} ${f.height}" width="${f.width}" height="${f.height}" ` +
  `font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="11" fill="#374151">`

export const titleOf = (f: Frame, title: string | undefined) =>
  title === undefined ? "" : `<text x="${f.left}" y="16" font-size="13" font-weight="600" fill="#111827">${escape(title)}</text>`

export const noData = (f: Frame, title: string | undefined, label: string) =>
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

export const axisScale = (axis: Axis | undefined, values: ReadonlyArray<number>, from: number, to: number, zero: boolean) => {
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

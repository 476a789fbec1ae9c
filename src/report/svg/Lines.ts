/**
 * `Svg.lineChart`: series over a shared x axis, with a legend.
 *
 * @internal
 */
import { type Axis, axisScale, escape, type Frame, noData, open, palette, polyline, r1, titleOf } from "./Axes.ts"

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

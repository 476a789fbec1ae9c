/**
 * The chart: peak RSS vs trial count (log x), and throughput vs parallelism
 * (log x), for the tick agent. Both y axes are logarithmic: the eager
 * baselines and the raw pool are orders of magnitude away from the rest.
 */
import { type ApproachName, approachNames, catalog } from "./catalog.ts"
import * as Svg from "../../src/report/svg/Svg.ts"
import { fmtCount, type Summary } from "./summary.ts"

const colors: Record<ApproachName, string> = {
  unordered: "#1f77b4",
  ordered: "#17becf",
  bare: "#7f7f7f",
  scored: "#8c564b",
  raw: "#2ca02c",
  pmap: "#ff7f0e",
  plimit: "#d62728",
  eager: "#9467bd"
}

interface Point {
  readonly x: number
  readonly y: number | undefined
  readonly label: string
}
interface Panel {
  readonly title: string
  readonly xLabel: string
  readonly yLabel: string
  readonly series: ReadonlyArray<{ readonly approach: ApproachName; readonly points: ReadonlyArray<Point> }>
}

const W = 480
const H = 380
const M = { left: 70, right: 20, top: 40, bottom: 50 }
const esc = Svg.escape
const fmtY = Svg.compact

const drawPanel = (panel: Panel, dx: number): string => {
  const xs = panel.series.flatMap((s) => s.points.map((p) => p.x))
  const ys = panel.series.flatMap((s) => s.points.flatMap((p) => (p.y === undefined ? [] : [p.y])))
  const out = [`<g transform="translate(${dx},0)">`, `<text x="${W / 2}" y="22" text-anchor="middle" font-weight="bold">${esc(panel.title)}</text>`]
  if (xs.length === 0 || ys.length === 0) return [...out, `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">no data</text></g>`].join("\n")
  const [x0, x1] = [Math.min(...xs) / 1.5, Math.max(...xs) * 1.5]
  const steps = Svg.logTicks(Math.min(...ys) / 10, Math.max(...ys) * 13)
  const y0 = steps.filter((v) => v <= Math.min(...ys) * 0.9).at(-1)!
  const y1 = steps.find((v) => v >= Math.max(...ys) * 1.3)!
  const sx = Svg.logScale(x0, x1, M.left, W - M.right)
  const sy = Svg.logScale(y0, y1, H - M.bottom, M.top)
  out.push(`<rect x="${M.left}" y="${M.top}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom}" fill="none" stroke="#999"/>`)
  for (const v of Svg.logTicks(y0, y1)) {
    out.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${sy(v)}" y2="${sy(v)}" stroke="#eee"/>`)
    out.push(`<text x="${M.left - 6}" y="${sy(v) + 4}" text-anchor="end" font-size="11">${fmtY(v)}</text>`)
  }
  for (const v of [...new Set(xs)]) {
    out.push(`<line x1="${sx(v)}" x2="${sx(v)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eee"/>`)
    out.push(`<text x="${sx(v)}" y="${H - M.bottom + 16}" text-anchor="middle" font-size="11">${fmtCount(v)}</text>`)
  }
  out.push(`<text x="${M.left + (W - M.left - M.right) / 2}" y="${H - 12}" text-anchor="middle" font-size="12">${esc(panel.xLabel)}</text>`)
  out.push(`<text transform="translate(16,${M.top + (H - M.top - M.bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="12">${esc(panel.yLabel)}</text>`)
  for (const { approach, points } of panel.series) {
    const color = colors[approach]
    const ok = points.filter((p) => p.y !== undefined)
    if (ok.length > 1) {
      const line = ok.map((p) => [sx(p.x), sy(p.y!)] as const)
      out.push(Svg.polyline(line, { stroke: color, width: 2, ...(approach === "ordered" ? { dash: "6 4" } : {}) }))
    }
    for (const p of points) {
      if (p.y !== undefined) {
        out.push(`<circle cx="${sx(p.x)}" cy="${sy(p.y)}" r="4" fill="${color}"><title>${esc(`${catalog[approach].label}: ${p.label}`)}</title></circle>`)
      } else {
        const [cx, cy] = [sx(p.x), M.top + 12]
        out.push(`<path d="M${cx - 5},${cy - 5}L${cx + 5},${cy + 5}M${cx - 5},${cy + 5}L${cx + 5},${cy - 5}" stroke="${color}" stroke-width="2.5"/>`)
        out.push(`<text x="${cx}" y="${cy + 18}" text-anchor="middle" font-size="10" fill="${color}">${esc(p.label)}</text>`)
      }
    }
  }
  return [...out, "</g>"].join("\n")
}

// A failed run (oom, timeout, crash) is drawn as a cross; a skipped one not at all.
const point = (s: Summary, x: number, y: (f: NonNullable<Summary["figures"]>) => number, unit: string): Array<Point> =>
  s.status === "skipped" ? [] : s.figures === undefined || s.status !== "ok"
  ? [{ x, y: undefined, label: s.status.split(" ")[0]! }]
  : [{ x, y: y(s.figures), label: `${fmtCount(x)}: ${Math.round(y(s.figures)).toLocaleString("en-US")} ${unit}` }]

export const chart = (rows: ReadonlyArray<Summary>): string => {
  const tick = rows.filter((s) => s.agent === "tick")
  const memoryP = tick.some((s) => s.parallelism === 64) ? 64 : (tick[0]?.parallelism ?? 64)
  const sweepT = [...new Set(tick.map((s) => s.trials))]
    .map((t) => ({ t, ps: new Set(tick.filter((s) => s.trials === t).map((s) => s.parallelism)).size }))
    .sort((a, b) => b.ps - a.ps || Math.abs(Math.log10(a.t) - 5) - Math.abs(Math.log10(b.t) - 5))[0]?.t ?? 1e5
  const memory: Panel = {
    title: `Peak RSS vs trials (tick agent, P=${memoryP})`,
    xLabel: "trials T (log)",
    yLabel: "peak RSS, MB (log)",
    series: approachNames.map((approach) => ({
      approach,
      points: tick.filter((s) => s.approach === approach && s.parallelism === memoryP).sort((a, b) => a.trials - b.trials)
        .flatMap((s) => point(s, s.trials, (f) => f.peakRssMb, "MB"))
    }))
  }
  const throughput: Panel = {
    title: `Throughput vs parallelism (tick agent, T=${fmtCount(sweepT)})`,
    xLabel: "parallelism P (log)",
    yLabel: "trials per second (log)",
    series: approachNames.map((approach) => ({
      approach,
      points: tick.filter((s) => s.approach === approach && s.trials === sweepT).sort((a, b) => a.parallelism - b.parallelism)
        .flatMap((s) => point(s, s.parallelism, (f) => f.throughput, "trials/s"))
    }))
  }
  const legend = approachNames.map((a, i) =>
    `<g transform="translate(${20 + i * 160},${H + 10})"><rect width="14" height="14" fill="${colors[a]}"/>` +
    `<text x="20" y="12" font-size="12">${esc(catalog[a].label)}</text></g>`
  )
  const skipped = [...new Set(tick.filter((s) => s.status === "skipped").map((s) => `${s.label} ${s.detail ?? "skipped"}`))]
  const note = skipped.length === 0 ? [] : [
    `<text x="20" y="${H + 48}" font-size="11" fill="#555">${esc(`not run: ${skipped.join("; ")}`)}</text>`
  ]
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 60}" font-family="sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    drawPanel(memory, 0),
    drawPanel(throughput, W),
    ...legend,
    ...note,
    "</svg>"
  ].join("\n")
}

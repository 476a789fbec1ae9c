/**
 * Charts as inline SVG text, written by hand: scales, ticks, escaping, and
 * three charts (lines over x, bars, values with intervals). No library, no
 * fonts or images fetched: the string is the whole chart, so a report that
 * embeds it opens offline. The benchmark's chart (scripts/bench/svg.ts) is
 * drawn with the same primitives.
 *
 * @since 0.1.0
 */
export {
  type Axis,
  compact,
  escape,
  linearScale,
  linearTicks,
  logScale,
  logTicks,
  palette,
  polyline,
  type Scale
} from "./Axes.ts"
export { type Bar, barChart, type BarChartOptions } from "./Bars.ts"
export { intervalChart, type IntervalChartOptions, type IntervalRow } from "./Intervals.ts"
export { lineChart, type LineChartOptions, type Series } from "./Lines.ts"

/**
 * The cells of `compare`'s text tables: figures to four decimals (a change
 * signed), intervals, p-values, and rows of cells as aligned columns. Shared
 * by the tables of scorers, of groups and of usage.
 *
 * @internal
 */

/**
 * Rows of cells as aligned columns, two spaces apart, the last cell unpadded.
 *
 * @internal
 */
export const aligned = (rows: ReadonlyArray<ReadonlyArray<string>>, indent: string): Array<string> => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  return rows.map((row) =>
    `${indent}${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join("  ")}`
  )
}

/** @internal */
export const fixed = (x: number | null): string => (x === null ? "-" : Math.abs(x) < 5e-5 ? "0.0000" : x.toFixed(4))
/** @internal */
export const signed = (x: number | null): string => (x === null ? "-" : x >= 5e-5 ? `+${fixed(x)}` : fixed(x))
/** @internal */
export const interval = (ci: readonly [number, number] | null): string =>
  ci === null ? "-" : `[${signed(ci[0])}, ${signed(ci[1])}]`
/** @internal */
export const pValue = (p: number | null): string =>
  p === null ? "-" : p === 0 ? "0" : p < 1e-4 ? p.toExponential(1) : p.toFixed(4)

/**
 * Figures for people, to the precision they have.
 *
 * @internal
 */

/**
 * `x` to `digits` significant digits, trailing zeros kept (they are digits
 * too) and no exponent: `19.536` -> `19.5`, `30.01` -> `30.0`, `0.01234` ->
 * `0.0123`, `1234.5` -> `1230`. A latency percentile comes from a histogram
 * good to about ±2.5%: three digits are what it knows.
 *
 * @internal
 */
export const significant = (x: number, digits = 3): string => {
  if (!Number.isFinite(x) || x === 0) return String(x)
  const text = x.toPrecision(digits)
  // An exponent only for numbers of more digits than asked: write them out.
  return text.includes("e") ? String(Number(text)) : text
}

/**
 * Figures for people, to the precision they have.
 *
 * @internal
 */

/**
 * `x` to `digits` significant digits, without trailing zeros or an exponent
 * for the sizes a latency takes: `19.536` -> `19.5`, `1234.5` -> `1230`,
 * `0.01234` -> `0.0123`. A latency percentile comes from a histogram good to
 * about ±2.5%: three digits are what it knows.
 *
 * @internal
 */
export const significant = (x: number, digits = 3): string =>
  Number.isFinite(x) && x !== 0 ? String(Number(x.toPrecision(digits))) : String(x)

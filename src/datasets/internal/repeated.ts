/**
 * The names a header gives twice, found in one pass: a header of 100,000
 * columns is checked in linear time (each name read once, one set lookup),
 * not by an `indexOf` per column.
 *
 * @internal
 */

/**
 * Each name given more than once, once, in the order of its second
 * occurrence.
 *
 * @example
 * repeated(["a", "b", "a", "c", "b", "a"]) // ["a", "b"]
 */
export const repeated = (names: Iterable<string>): Array<string> => {
  const seen = new Set<string>()
  const twice = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) twice.add(name)
    else seen.add(name)
  }
  return [...twice]
}

/**
 * Column names are data: a row's or a task's key named `__proto__` is set
 * as an own property, as `JSON.parse` does, never through the inherited
 * setter that would change the object's prototype (and, walked into,
 * `Object.prototype` itself).
 *
 * @internal
 */

/** `into[key] = value`, `__proto__` included as an own key. */
export const setOwn = (into: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") Object.defineProperty(into, key, { value, writable: true, enumerable: true, configurable: true })
  else into[key] = value
}

/** `from[key]` when it is `from`'s own, else undefined: never an inherited `constructor` or `__proto__`. */
export const getOwn = (from: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(from, key) ? from[key] : undefined

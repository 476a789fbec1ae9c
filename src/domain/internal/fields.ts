/**
 * Reading a JSON value of unknown shape (an API's answer) one step at a
 * time: a step into something of another shape is `undefined`, not a throw.
 *
 * @internal
 */

/** A JSON object (not null, not an array). @internal */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The field `name` of an object; `undefined` for anything else. @internal */
export const field = (value: unknown, name: string): unknown => isObject(value) ? value[name] : undefined

/** The element `index` of an array; `undefined` for anything else. @internal */
export const at = (value: unknown, index: number): unknown => Array.isArray(value) ? value[index] : undefined

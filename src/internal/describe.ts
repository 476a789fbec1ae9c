/**
 * A one-line description of anything thrown or failed with: an Error's
 * message (or name), a string as it is, anything else as JSON (or
 * `String(x)` when it cannot be), cut at `max` characters with `...`.
 * `clip` says what is cut: only the JSON preview of a non-string (`preview`:
 * an agent's messages are its own and kept whole), or every text (`all`: a
 * scorer's explanation stays short).
 *
 * @internal
 */
export const describe = (cause: unknown, options: { readonly max: number; readonly clip: "preview" | "all" }): string => {
  const cut = (text: string) => text.length > options.max ? `${text.slice(0, options.max)}...` : text
  let text: string
  if (cause instanceof Error) text = cause.message || cause.name
  else if (typeof cause === "string") text = cause
  else return preview(cause, options.max)
  return options.clip === "all" ? cut(text) : text
}

/**
 * A value as JSON (or `String(x)` when it cannot be), cut at `max`
 * characters with `...`.
 *
 * @internal
 */
export const preview = (value: unknown, max: number): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > max ? `${text.slice(0, max)}...` : text
}

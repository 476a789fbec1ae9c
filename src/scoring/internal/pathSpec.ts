/**
 * The spec syntax the path scorers share: a tool's name (or names) first,
 * then options (`tool-called:search,max=2`), counts, and `PATH=VALUE`
 * checks whose VALUE may be JSON with commas in it.
 *
 * @since 0.5.0
 */
import { type OptionKinds, options } from "./specOptions.ts"

/**
 * `NAME[,options]` -> the name and the options read; a string result is the problem.
 *
 * @internal
 */
export const toolAndOptions = (
  rest: string | undefined,
  usage: string,
  allowed: OptionKinds
): { readonly tool: string; readonly options: Record<string, string | boolean> } | string => {
  const comma = (rest ?? "").indexOf(",")
  const tool = (comma === -1 ? rest ?? "" : rest!.slice(0, comma)).trim()
  if (tool === "" || tool.includes("=")) return `expected ${usage} with a tool's name first`
  const o = options(comma === -1 ? undefined : rest!.slice(comma + 1), allowed)
  return typeof o === "string" ? o : { tool, options: o }
}

/**
 * A count option (`max=3`): a whole number from 0, undefined when not
 * given; a string result is the problem.
 *
 * @internal
 */
export const countOf = (o: Record<string, string | boolean>, key: string): number | undefined | string => {
  const text = o[key]
  if (text === undefined) return undefined
  return typeof text === "string" && /^\d+$/.test(text)
    ? Number(text)
    : `expected ${key} to be a whole number from 0, got ${JSON.stringify(text)}`
}

/**
 * Splits at the commas outside brackets, braces and double quotes, so a
 * JSON value keeps its own: `q=[1,2],n=3` -> `["q=[1,2]", "n=3"]`.
 *
 * @internal
 */
export const splitTopLevel = (text: string): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === "\\") i++
      else if (c === "\"") quoted = false
    } else if (c === "\"") quoted = true
    else if (c === "[" || c === "{") depth++
    else if ((c === "]" || c === "}") && depth > 0) depth--
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/**
 * A check's VALUE: JSON when it parses (`3`, `true`, `"3"`, `[1,2]`),
 * otherwise the text itself (`Paris`).
 *
 * @internal
 */
export const valueOf = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
